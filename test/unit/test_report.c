// ixy-pcap --report's accounting (apps/common/report.h) on frames built here: sequence numbers that wrap from 2^32 - 1
// to 0 with a loss, a swap and a duplicate across the wrap; the window's edge (REPORT_WINDOW - 1 below the highest is
// still known, REPORT_WINDOW is too old); flows beyond REPORT_MAX_FLOWS; foreign frames of every kind the report
// refuses; send times that cannot be used.
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "common/flows.h"
#include "common/packet.h"
#include "common/report.h"

#define NOW 1000000

static uint8_t frame[PACKET_MAX_SIZE];

// ixy-pktgen's frame of `size` bytes on port `port` (its flow number too: the report's key, flows.h) with sequence
// number seq, sent 100 ns before NOW.
static void give(struct report* r, uint16_t port, uint32_t seq, uint32_t size) {
	static const uint8_t mac[6] = {2, 0, 0, 0, 0, 1};
	memset(frame, 0, sizeof(frame));
	packet_build_template(frame, mac);
	packet_set_src_port(frame, port);
	frame[PACKET_PAYLOAD_OFFSET + FLOWS_NUMBER] = (uint8_t)port;
	frame[PACKET_PAYLOAD_OFFSET + FLOWS_NUMBER + 1] = (uint8_t)(port >> 8);
	packet_stamp_time(frame, size, NOW - 100);
	packet_put_le(frame + size - PACKET_SEQ_FROM_END, seq, 4);
	report_frame(r, frame, size, NOW);
}

static const struct report_flow* flow_of_port(const struct report* r, uint16_t port) {
	for (uint32_t i = 0; i < r->flows; i++) {
		if (r->flow[i].port == port) {
			return &r->flow[i];
		}
	}
	return NULL;
}

static void wrap(void) {
	struct report* r = report_create();
	const uint32_t first = 0xffffff00u;
	give(r, 42, first, 60); // the numbers 0 .. first - 1 were never seen: skipped
	for (uint32_t s = first + 1; s != 0x100; s++) {
		if (s == 5) {
			continue; // lost after the wrap
		}
		if (s == 0x10) {
			give(r, 42, 0x11, 100); // swapped with 0x11
			give(r, 42, 0x10, 100);
			s++;
			continue;
		}
		give(r, 42, s, 1514);
		if (s == 2) {
			give(r, 42, 0xfffffffeu, 60); // seen before the wrap
		}
	}
	const struct report_flow* f = flow_of_port(r, 42);
	CHECK(f != NULL);
	CHECK_EQ(report_lost(f), (uint64_t)first + 1);
	CHECK_EQ(f->reordered, 1);
	CHECK_EQ(f->late, 1);
	CHECK_EQ(f->duplicated, 1);
	CHECK_EQ(f->too_old, 0);
	CHECK_EQ(f->highest, 0xff);
	CHECK_EQ(r->latency.total, f->received);
	CHECK_EQ(r->latency.min, 100);
	report_destroy(r);
}

static void window_edge(void) {
	struct report* r = report_create();
	for (uint32_t s = 0; s <= 3000; s++) {
		if (s != 3000 - (REPORT_WINDOW - 1) && s != 3000 - REPORT_WINDOW) {
			give(r, 7, s, 60);
		}
	}
	const struct report_flow* f = flow_of_port(r, 7);
	CHECK_EQ(report_lost(f), 2);
	give(r, 7, 3000 - (REPORT_WINDOW - 1), 60); // the oldest number the window knows: late
	give(r, 7, 3000 - REPORT_WINDOW, 60);       // one older: too old, still counted lost
	give(r, 7, 3000 - (REPORT_WINDOW - 1), 60); // now a duplicate
	give(r, 7, 3000 - REPORT_WINDOW + 1, 60);   // seen: a duplicate
	CHECK_EQ(f->late, 1);
	CHECK_EQ(f->too_old, 1);
	CHECK_EQ(f->reordered, 2);
	CHECK_EQ(f->duplicated, 2);
	CHECK_EQ(report_lost(f), 1);
	// A jump far ahead: everything between is lost, the window holds only the new highest.
	give(r, 7, 3000 + 5000, 60);
	CHECK_EQ(report_lost(f), 1 + 4999);
	give(r, 7, 3000 + 4000, 60);
	CHECK_EQ(f->late, 2);
	CHECK_EQ(report_lost(f), 1 + 4998);
	report_destroy(r);
}

static void flows_and_foreign(void) {
	struct report* r = report_create();
	for (uint32_t p = 0; p < REPORT_MAX_FLOWS + 3; p++) {
		give(r, (uint16_t)(1000 + p), 0, 60);
	}
	CHECK_EQ(r->flows, REPORT_MAX_FLOWS);
	CHECK_EQ(r->other_flows, 3);
	CHECK_EQ(r->foreign, 0);
	// Not ixy-pktgen's: too short, too long, and each header field the report checks changed in turn (EtherType,
	// IPv4 version and header length, protocol, "ixy"). Any destination port is ixy-pktgen's (--dst-port).
	static const uint8_t mac[6] = {2, 0, 0, 0, 0, 1};
	packet_build_template(frame, mac);
	report_frame(r, frame, PACKET_MIN_SIZE - 1, NOW);
	report_frame(r, frame, PACKET_MAX_SIZE + 1, NOW);
	static const int fields[] = {12, 13, 14, 23, 42, 43, 44};
	for (unsigned i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		packet_build_template(frame, mac);
		frame[fields[i]] ^= 0x01;
		report_frame(r, frame, PACKET_SIZE, NOW);
	}
	CHECK_EQ(r->foreign, 2 + sizeof(fields) / sizeof(fields[0]));
	// Send times: none (0), after the receive time: untimed.
	uint64_t timed = r->latency.total;
	packet_build_template(frame, mac);
	report_frame(r, frame, PACKET_SIZE, NOW);
	packet_stamp_time(frame, PACKET_SIZE, NOW + 1);
	report_frame(r, frame, PACKET_SIZE, NOW);
	CHECK_EQ(r->untimed, 2);
	CHECK_EQ(r->latency.total, timed);
	report_destroy(r);
}

// A frame of flow `flow` of spec (flows.h) with sequence number seq; end: an end marker with count seq instead.
static void give_spec(struct report* r, const struct packet_spec* spec, uint32_t flow, uint32_t seq, bool end) {
	static const uint8_t mac[6] = {2, 0, 0, 0, 0, 1};
	struct packet_form form;
	spec_form(spec, &form);
	memset(frame, 0, sizeof(frame));
	spec_build(frame, spec, &form, mac, flow);
	frame[form.payload + FLOWS_NUMBER + 1] |= end ? FLOWS_END >> 8 : 0;
	packet_stamp_time(frame, form.min_size, end ? seq : NOW - 100);
	packet_put_le(frame + form.min_size - PACKET_SEQ_FROM_END, seq, 4);
	report_frame(r, frame, form.min_size, NOW);
}

// ixy-pktgen's frames in every form count as its own: VLAN-tagged, IPv6, both, any addresses and ports; flows are
// told apart by their number, also where ports and addresses repeat. Near misses stay foreign.
static void forms(void) {
	struct report* r = report_create();
	struct packet_spec spec[4];
	for (int i = 0; i < 4; i++) {
		spec_default(&spec[i]);
		CHECK(parse_port_range("9", &spec[i].src_port) == NULL &&
		      parse_port_range("53", &spec[i].dst_port) == NULL);
		spec[i].src_port_given = true; // all flows on one port pair: only the number tells them apart
	}
	CHECK(parse_vlan("10:3", &spec[1].vlan_tci) == NULL);
	spec[1].vlan = spec[3].vlan = true;
	spec[3].vlan_tci = spec[1].vlan_tci;
	CHECK(parse_ip_range("2001:db8::1", &spec[2].dst_ip, &spec[2].dst_family) == NULL);
	spec[3].dst_ip = spec[2].dst_ip;
	spec[3].dst_family = 6;
	for (uint32_t seq = 0; seq < 5; seq++) {
		for (uint32_t i = 0; i < 4; i++) {
			give_spec(r, &spec[i], i, seq == 3 ? 4 : seq, false); // number 3 lost, 4 duplicated
		}
	}
	CHECK_EQ(r->foreign, 0);
	CHECK_EQ(r->flows, 4);
	for (uint32_t i = 0; i < 4; i++) {
		CHECK_EQ(r->flow[i].number, i);
		CHECK_EQ(r->flow[i].port, 9);
		CHECK_EQ(r->flow[i].received, 5);
		CHECK_EQ(report_lost(&r->flow[i]), 1);
		CHECK_EQ(r->flow[i].duplicated, 1);
	}
	// Foreign: IPv6 carrying TCP, a tag in front of ARP, IPv6 without "ixy".
	struct packet_form form;
	spec_form(&spec[3], &form);
	spec_build(frame, &spec[3], &form, spec[3].dst_mac, 0);
	frame[18 + 6] = 6;
	report_frame(r, frame, form.min_size, NOW);
	spec_build(frame, &spec[3], &form, spec[3].dst_mac, 0);
	frame[16] = 0x08;
	frame[17] = 0x06;
	report_frame(r, frame, form.min_size, NOW);
	spec_build(frame, &spec[3], &form, spec[3].dst_mac, 0);
	frame[form.payload + 2] = 'Y';
	report_frame(r, frame, form.min_size, NOW);
	CHECK_EQ(r->foreign, 3);
	report_destroy(r);
}

static bool line_has(const struct report* r, const char* text) {
	char out[4096] = {0};
	FILE* f = fmemopen(out, sizeof(out) - 1, "w");
	CHECK(f != NULL);
	if (!f) {
		return false;
	}
	report_print(f, "ixy-pcap", "0000:00:00.0", r, true);
	fclose(f);
	return strstr(out, text) != NULL;
}

// Loss after the last frame received: unknown without an end marker; with one, the count it carries less the numbers
// seen. A repeated marker counts once; a flow of which only a marker arrived lost all it sent.
static void tail(void) {
	struct report* r = report_create();
	struct packet_spec spec;
	spec_default(&spec);
	for (uint32_t seq = 0; seq < 161; seq++) {
		if (seq < 5 || (seq >= 8 && seq < 13)) { // 5..7 lost within, 13..160 lost at the end
			give_spec(r, &spec, 0, seq, false);
		}
	}
	CHECK_EQ(report_lost(&r->flow[0]), 3);
	CHECK(line_has(r, " received=10 lost=3 "));
	CHECK(line_has(r, " sent=0 tail_lost=0 ended=0 end_frames=0 "));
	give_spec(r, &spec, 0, 161, true); // the end marker: 161 sent
	give_spec(r, &spec, 0, 161, true); // again (a repetition)
	CHECK_EQ(r->end_frames, 2);
	CHECK_EQ(r->flow[0].received, 10);
	CHECK_EQ(report_tail_lost(&r->flow[0]), 161 - 13);
	CHECK_EQ(report_lost(&r->flow[0]), 3 + 161 - 13);
	CHECK(line_has(r, " received=10 lost=151 "));
	CHECK(line_has(r, " sent=161 tail_lost=148 ended=1 end_frames=2 "));
	give_spec(r, &spec, 1, 7, true); // flow 1: its marker alone
	CHECK_EQ(report_lost(&r->flow[1]), 7);
	CHECK_EQ(r->untimed, 0); // markers carry no send time
	CHECK_EQ(r->latency.total, 10);
	// A frame that went through ixy-fwd (byte 45 plus one, apps/fwd.h): a frame of flow 2, not an end marker.
	struct packet_form form;
	spec_form(&spec, &form);
	spec_build(frame, &spec, &form, spec.dst_mac, 2);
	frame[45]++;
	packet_stamp_time(frame, form.min_size, NOW - 100);
	report_frame(r, frame, form.min_size, NOW);
	CHECK_EQ(r->flows, 3);
	CHECK_EQ(r->flow[2].received, 1);
	CHECK_EQ(r->end_frames, 3); // (the two of flow 0, the one of flow 1)
	report_destroy(r);
}

int main(void) {
	forms();
	tail();
	wrap();
	window_edge();
	flows_and_foreign();
	return check_summary();
}
