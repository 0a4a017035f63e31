// ixy-pcap --report (issue 30): loss, reordering, duplicates per flow and one-way latency of ixy-pktgen's frames.
//
// A frame is ixy-pktgen's if it is 60 to 1514 bytes long and carries the headers of one of its forms (common/packet.h,
// common/flows.h): an optional 802.1Q tag, then IPv4 with a header of 20 bytes or IPv6 (no extension header), UDP to
// any port, and a payload of at least 18 bytes that starts "ixy". Any other frame is counted as foreign and otherwise
// ignored. A flow is the number in the payload (flows.h: bits 0-14 of bytes 4-5), not a port or address, which may
// repeat between flows or be rewritten on the way; the first REPORT_MAX_FLOWS numbers seen get a state each, the
// frames of any further number are only counted (other_flows). An end marker (bit 15 of the number, ixy-pktgen
// --mark-end) is no frame of its flow: it gives the flow's count of frames sent (sent), and the numbers after the
// highest seen up to it count as lost (tail_lost: the frames lost after the last one received).
//
// Per flow, with seq the frame's sequence number (32 bits, counted modulo 2^32: the distance d = seq - highest is
// read as a signed 32-bit number, so the numbers wrap from 2^32 - 1 to 0 without a jump) and highest the highest one
// seen so far (the flow starts below 0: ixy-pktgen numbers each flow's frames from 0, so start the receiver first):
//   received    every frame of the flow, duplicates included
//   lost        the numbers skipped when highest advances (d > 1 skips d - 1), less those of them that arrive late:
//               the frames missing now
//   reordered   frames that arrive with a number below highest (d < 0) that was not seen before
//   late        of the reordered ones, those that filled a gap within the window (they are taken off lost)
//   duplicated  frames whose number was seen before: highest itself (d = 0), or one within the window that is marked
//   too_old     reordered frames more than REPORT_WINDOW below highest: nobody knows whether they were seen before, so
//               they count as reordered, neither as late nor as duplicated (lost may then be too high by them)
// The window is a bitmap of the last REPORT_WINDOW numbers up to highest (128 bytes per flow). A frame more than
// 2^31 ahead of highest counts as below it (d < 0).
//
// Latency: the receive time (monotonic_time_ns, one read per RX batch, given to report_frame) minus the send time
// ixy-pktgen wrote (packet.h: 8 bytes before the sequence number), in an HDR histogram (common/histogram.h) of
// nanoseconds. A send time of 0 (a sender that writes none) or after the receive time counts as untimed.
//
// The path per frame is about 102 instructions (bench/pcap_report_bench.c, 64 flows; the test
// bench_instructions_pcap_report keeps it below 105.2 + 2 %): no allocation, no system call; one report_create at the
// start. The untagged IPv4 frame is checked with constant offsets; the other forms cost a call more.
#ifndef IXY_APPS_REPORT_H
#define IXY_APPS_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/histogram.h"

#define REPORT_MAX_FLOWS 1024 // as ixy-pktgen --flows (ARG_MAX_FLOWS)
#define REPORT_WINDOW 1024    // numbers per flow below the highest whose arrival is remembered (duplicates)

struct report_flow {
	uint16_t number;  // the flow's number (common/flows.h), its key
	uint16_t port;    // UDP source port of its first frame
	uint32_t highest; // highest sequence number seen (modulo 2^32); 2^32 - 1 before the first frame
	uint64_t received, skipped, late, reordered, duplicated, too_old;
	uint64_t covered; // numbers up to highest, not modulo 2^32: highest + 1 + 2^32 * wraps
	uint64_t sent;    // frames the flow sent, from its end marker (the largest count); 0 without one
	bool ended;       // an end marker arrived
	uint64_t
	    window[REPORT_WINDOW / 64]; // bit (n mod REPORT_WINDOW): number n, highest - REPORT_WINDOW < n <= highest
};

struct report {
	uint64_t foreign;     // frames that are not ixy-pktgen's
	uint64_t other_flows; // frames of ports beyond the first REPORT_MAX_FLOWS
	uint64_t untimed;     // frames without a usable send time
	uint64_t end_frames;  // end markers received (common/flows.h)
	uint32_t flows;       // flows with a state
	uint16_t slot[65536]; // per flow number: its flow's index + 1, 0 for none yet
	struct report_flow flow[REPORT_MAX_FLOWS];
	struct histogram latency; // nanoseconds
};

// A report with no frames yet (calloc'd: about 400 KiB), or NULL with a message on stderr.
struct report* report_create(void);
void report_destroy(struct report* r);

// Accounts one received frame of size bytes (size as the driver gives it), received at now_ns (monotonic_time_ns).
void report_frame(struct report* r, const uint8_t* data, uint32_t size, uint64_t now_ns);

// The frames lost after the last one received: what the flow's end marker says it sent beyond the numbers seen.
static inline uint64_t report_tail_lost(const struct report_flow* f) {
	return f->ended && f->sent > f->covered ? f->sent - f->covered : 0;
}

// The flow's lost frames: skipped numbers that did not arrive late, and the tail after the last one received.
static inline uint64_t report_lost(const struct report_flow* f) {
	return f->skipped - f->late + report_tail_lost(f);
}

// Prints the report's lines (key=value, for machines), each starting with its kind and "app=<app> pci=<pci>" and
// ending with end=<0|1> (1: the final report): one "flow ..." line per flow (port=, id=, received=, lost=,
// reordered=, duplicated=, late=, too_old=, sent=, tail_lost=), then the sums in "report ..." (flows=, the same
// counts, foreign=, other_flows=, sent=, tail_lost=, ended= (flows whose end marker came), end_frames=),
// then "latency ..." (count=, untimed=, min_ns=, p50_ns=, p90_ns=, p99_ns=, p99_9_ns=, p99_99_ns=, max_ns=; all 0
// without timed frames).
void report_print(FILE* out, const char* app, const char* pci, const struct report* r, bool end);

#endif
