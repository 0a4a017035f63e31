// ixy-pcap --report's accounting (apps/common/report.h) on frames built here: sequence numbers that wrap from 2^32 - 1
// to 0 with a loss, a swap and a duplicate across the wrap; the window's edge (REPORT_WINDOW - 1 below the highest is
// still known, REPORT_WINDOW is too old); flows beyond REPORT_MAX_FLOWS; foreign frames of every kind the report
// refuses; send times that cannot be used.
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "common/packet.h"
#include "common/report.h"

#define NOW 1000000

static uint8_t frame[PACKET_MAX_SIZE];

// ixy-pktgen's frame of `size` bytes on port `port` with sequence number seq, sent 100 ns before NOW.
static void give(struct report* r, uint16_t port, uint32_t seq, uint32_t size) {
	static const uint8_t mac[6] = {2, 0, 0, 0, 0, 1};
	memset(frame, 0, sizeof(frame));
	packet_build_template(frame, mac);
	packet_set_src_port(frame, port);
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
	// Not ixy-pktgen's: too short, too long, and each header field the report checks changed in turn.
	static const uint8_t mac[6] = {2, 0, 0, 0, 0, 1};
	packet_build_template(frame, mac);
	report_frame(r, frame, PACKET_MIN_SIZE - 1, NOW);
	report_frame(r, frame, PACKET_MAX_SIZE + 1, NOW);
	static const int fields[] = {12, 13, 14, 23, 36, 37, 42, 43, 44};
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

int main(void) {
	wrap();
	window_edge();
	flows_and_foreign();
	return check_summary();
}
