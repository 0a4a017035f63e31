// ixy-pcap --report: see report.h.
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/flows.h"
#include "common/packet.h"

struct report* report_create(void) {
	struct report* r = calloc(1, sizeof(*r));
	if (!r) {
		fprintf(stderr, "ixy-pcap: no memory for the report\n");
		return NULL;
	}
	histogram_reset(&r->latency);
	return r;
}

void report_destroy(struct report* r) {
	free(r);
}

// Where the payload of one of ixy-pktgen's frames starts (common/packet.h, common/flows.h), or 0 for any other frame:
// an optional 802.1Q tag, IPv4 with a 20 byte header or IPv6 without extension headers, UDP, a payload of at least
// 18 bytes starting "ixy", 60 to PACKET_MAX_SIZE bytes. (report_frame checks the common frame
// before.)
__attribute__((noinline)) static uint32_t pktgen_payload(const uint8_t* p, uint32_t size) {
	uint32_t payload, l3 = 14, type = (uint32_t)p[12] << 8 | p[13];
	if (size < PACKET_MIN_SIZE) {
		return 0;
	}
	if (type == 0x8100) {
		type = (uint32_t)p[16] << 8 | p[17];
		l3 = 18;
	}
	if (type == 0x0800 && p[l3] == 0x45 && p[l3 + 9] == 17) {
		payload = l3 + 28;
	} else if (type == 0x86dd && p[l3] >> 4 == 6 && p[l3 + 6] == 17) {
		payload = l3 + 48;
	} else {
		return 0;
	}
	bool ours = size >= payload + PACKET_SIZE - PACKET_PAYLOAD_OFFSET && size <= PACKET_MAX_SIZE &&
		    p[payload] == 'i' && p[payload + 1] == 'x' && p[payload + 2] == 'y';
	return ours ? payload : 0;
}

static bool window_has(const struct report_flow* f, uint32_t seq) {
	uint32_t bit = seq % REPORT_WINDOW;
	return (f->window[bit / 64] >> (bit % 64)) & 1;
}

static void window_set(struct report_flow* f, uint32_t seq) {
	uint32_t bit = seq % REPORT_WINDOW;
	f->window[bit / 64] |= 1ull << (bit % 64);
}

static void window_clear(struct report_flow* f, uint32_t seq) {
	uint32_t bit = seq % REPORT_WINDOW;
	f->window[bit / 64] &= ~(1ull << (bit % 64));
}

// The flow of a flow number (flows.h): a new state for a new number while there is room, else NULL. udp: the frame's
// UDP header (the flow's source port, for the lines).
static struct report_flow* new_flow(struct report* r, uint16_t number, const uint8_t* udp) {
	uint16_t port = (uint16_t)(udp[0] << 8 | udp[1]);
	if (r->flows == REPORT_MAX_FLOWS) {
		return NULL;
	}
	struct report_flow* f = &r->flow[r->flows++];
	r->slot[number] = (uint16_t)r->flows;
	f->number = number;
	f->port = port;
	f->highest = UINT32_MAX; // the number before 0: the first frame 0 is one ahead
	// Numbers below 0 (2^32 - REPORT_WINDOW .. 2^32 - 1) are never sent: marked as seen, so that none counts as
	// late.
	memset(f->window, 0xff, sizeof(f->window));
	return f;
}

// The numbers highest + 1 .. highest + ahead - 1 are skipped and highest becomes highest + ahead (ahead >= 1).
static void advance(struct report_flow* f, uint64_t ahead) {
	f->skipped += ahead - 1;
	f->covered += ahead;
	// Only the last REPORT_WINDOW - 1 skipped numbers are still in the window: their bits go.
	uint64_t clear = ahead - 1 < REPORT_WINDOW ? ahead - 1 : REPORT_WINDOW - 1;
	for (uint64_t i = 1; i <= clear; i++) {
		window_clear(f, (uint32_t)(f->highest + ahead - i));
	}
	f->highest = (uint32_t)(f->highest + ahead);
	window_set(f, f->highest);
}

static void account_seq(struct report_flow* f, uint32_t seq) {
	f->received++;
	int32_t d = (int32_t)(seq - f->highest); // modulo 2^32, as a signed distance
	if (d == 1) {                            // the next one: the common case, nothing skipped
		f->highest = seq;
		f->covered++;
		window_set(f, seq);
	} else if (f->received == 1) {
		advance(f, (uint64_t)seq + 1); // from the number before 0: the numbers below seq were skipped
	} else if (d > 0) {
		advance(f, (uint64_t)d);
	} else if (d == 0) {
		f->duplicated++;
	} else if ((uint32_t) - (int64_t)d >= REPORT_WINDOW) {
		f->reordered++;
		f->too_old++;
	} else if (window_has(f, seq)) {
		f->duplicated++;
	} else {
		f->reordered++;
		f->late++;
		window_set(f, seq);
	}
}

// An end marker (flows.h): the flow's count of frames sent, in the send time field.
static void account_end(struct report* r, struct report_flow* f, const uint8_t* data, uint32_t size) {
	uint64_t sent = packet_read_time(data, size);
	r->end_frames++;
	f->ended = true;
	f->sent = sent > f->sent ? sent : f->sent;
}

// A frame of ixy-pktgen's whose payload starts at `payload`; ends: it may be an end marker (else it is known not to
// be). Inlined twice: with the constant offset of the common frame, and for the others.
static inline __attribute__((always_inline)) void account_frame(struct report* r, const uint8_t* data, uint32_t size,
								uint64_t now_ns, uint32_t payload, bool ends) {
	uint16_t number = (uint16_t)(data[payload + FLOWS_NUMBER] | data[payload + FLOWS_NUMBER + 1] << 8);
	bool end = ends && (number & FLOWS_END);
	number = ends ? number & ~FLOWS_END : number;
	uint16_t slot = r->slot[number];
	struct report_flow* f = slot ? &r->flow[slot - 1] : new_flow(r, number, data + payload - 8);
	if (end) {
		if (f) {
			account_end(r, f, data, size);
		} else {
			r->other_flows++;
		}
		return; // (its send time field holds a count)
	}
	if (!f) {
		r->other_flows++;
	} else {
		account_seq(f, packet_read_seq_at(data, size));
	}
	uint64_t sent_ns = packet_read_time(data, size);
	if (sent_ns == 0 || sent_ns > now_ns) {
		r->untimed++;
	} else {
		histogram_add(&r->latency, now_ns - sent_ns);
	}
}

void report_frame(struct report* r, const uint8_t* data, uint32_t size, uint64_t now_ns) {
	const uint8_t* p = data;
	// The common frame first: untagged IPv4 of at least 60 bytes, a frame (not an end marker), offsets constant.
	if (size - PACKET_MIN_SIZE <= PACKET_MAX_SIZE - PACKET_MIN_SIZE && p[12] == 0x08 && p[13] == 0x00 &&
	    p[14] == 0x45 && p[23] == 17 && p[42] == 'i' && p[43] == 'x' && p[44] == 'y' && p[47] < FLOWS_END >> 8) {
		account_frame(r, data, size, now_ns, PACKET_PAYLOAD_OFFSET, false);
		return;
	}
	uint32_t payload = pktgen_payload(data, size);
	if (payload == 0) {
		r->foreign++;
		return;
	}
	account_frame(r, data, size, now_ns, payload, true);
}

void report_print(FILE* out, const char* app, const char* pci, const struct report* r, bool end) {
	struct report_flow sum = {0};
	uint64_t lost = 0, tail = 0;
	uint32_t ended = 0;
	for (uint32_t i = 0; i < r->flows; i++) {
		const struct report_flow* f = &r->flow[i];
		fprintf(out,
			"flow app=%s pci=%s port=%u id=%u received=%" PRIu64 " lost=%" PRIu64 " reordered=%" PRIu64
			" duplicated=%" PRIu64 " late=%" PRIu64 " too_old=%" PRIu64 " sent=%" PRIu64
			" tail_lost=%" PRIu64 " end=%d\n",
			app, pci, f->port, f->number, f->received, report_lost(f), f->reordered, f->duplicated, f->late,
			f->too_old, f->sent, report_tail_lost(f), end);
		lost += report_lost(f);
		tail += report_tail_lost(f);
		sum.sent += f->sent;
		ended += f->ended;
		sum.received += f->received;
		sum.skipped += f->skipped;
		sum.late += f->late;
		sum.reordered += f->reordered;
		sum.duplicated += f->duplicated;
		sum.too_old += f->too_old;
	}
	fprintf(out,
		"report app=%s pci=%s flows=%u received=%" PRIu64 " lost=%" PRIu64 " reordered=%" PRIu64
		" duplicated=%" PRIu64 " late=%" PRIu64 " too_old=%" PRIu64 " foreign=%" PRIu64 " other_flows=%" PRIu64
		" sent=%" PRIu64 " tail_lost=%" PRIu64 " ended=%u end_frames=%" PRIu64 " end=%d\n",
		app, pci, r->flows, sum.received, lost, sum.reordered, sum.duplicated, sum.late, sum.too_old,
		r->foreign, r->other_flows, sum.sent, tail, ended, r->end_frames, end);
	const struct histogram* h = &r->latency;
	// The percentiles in parts per million (histogram.h): 50, 90, 99, 99.9, 99.99.
	static const uint32_t ppm[] = {500000, 900000, 990000, 999000, 999900};
	uint64_t p[5];
	for (int i = 0; i < 5; i++) {
		p[i] = histogram_percentile(h, ppm[i]);
	}
	fprintf(out,
		"latency app=%s pci=%s count=%" PRIu64 " untimed=%" PRIu64 " min_ns=%" PRIu64 " p50_ns=%" PRIu64
		" p90_ns=%" PRIu64 " p99_ns=%" PRIu64 " p99_9_ns=%" PRIu64 " p99_99_ns=%" PRIu64 " max_ns=%" PRIu64
		" end=%d\n",
		app, pci, h->total, r->untimed, h->total ? h->min : 0, p[0], p[1], p[2], p[3], p[4], h->max, end);
}
