// ixy-pcap --report: see report.h.
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

// ixy-pktgen's headers (packet.h): IPv4 (EtherType 0x0800), IHL 5, UDP (17), destination port 1337, "ixy".
static bool is_pktgen_frame(const uint8_t* p, uint32_t size) {
	return size >= PACKET_MIN_SIZE && size <= PACKET_MAX_SIZE && p[12] == 0x08 && p[13] == 0x00 && p[14] == 0x45 &&
	       p[23] == 17 && p[36] == 1337 >> 8 && p[37] == (1337 & 0xff) && p[42] == 'i' && p[43] == 'x' &&
	       p[44] == 'y';
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

// The flow of a UDP source port: a new state for a new port while there is room, else NULL.
static struct report_flow* flow_of(struct report* r, uint16_t port) {
	uint16_t slot = r->slot[port];
	if (slot != 0) {
		return &r->flow[slot - 1];
	}
	if (r->flows == REPORT_MAX_FLOWS) {
		return NULL;
	}
	struct report_flow* f = &r->flow[r->flows++];
	r->slot[port] = (uint16_t)r->flows;
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

void report_frame(struct report* r, const uint8_t* data, uint32_t size, uint64_t now_ns) {
	if (!is_pktgen_frame(data, size)) {
		r->foreign++;
		return;
	}
	struct report_flow* f =
	    flow_of(r, (uint16_t)(data[PACKET_UDP_HEADER_OFFSET] << 8 | data[PACKET_UDP_HEADER_OFFSET + 1]));
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

void report_print(FILE* out, const char* app, const char* pci, const struct report* r, bool end) {
	struct report_flow sum = {0};
	for (uint32_t i = 0; i < r->flows; i++) {
		const struct report_flow* f = &r->flow[i];
		fprintf(out,
			"flow app=%s pci=%s port=%u received=%" PRIu64 " lost=%" PRIu64 " reordered=%" PRIu64
			" duplicated=%" PRIu64 " late=%" PRIu64 " too_old=%" PRIu64 " end=%d\n",
			app, pci, f->port, f->received, report_lost(f), f->reordered, f->duplicated, f->late,
			f->too_old, end);
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
		" end=%d\n",
		app, pci, r->flows, sum.received, report_lost(&sum), sum.reordered, sum.duplicated, sum.late,
		sum.too_old, r->foreign, r->other_flows, end);
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
