// ixy-pktgen --rate (issue 30): software pacing, per batch, against the monotonic clock.
//
// A rate is packets per second (pps, kpps, Mpps) or bits per second on the wire (Mbit, Gbit). A wire bit rate counts
// what a frame takes on an Ethernet link: the frame (without FCS, as the apps see it), its 4 byte FCS, the 8 byte
// preamble and start-of-frame delimiter and the 12 byte inter-frame gap: (size + 24) * 8 bits per frame (a frame
// below 60 bytes counts as 60: padded, see pacer_units), as the 82599 datasheet counts line rate (a 60 byte frame is
// 84 bytes on the wire: 14.88 Mpps at 10 Gbit/s) and as MoonGen does. The apps' Mbit/s lines count the same wire:
// they see frames with their FCS (IXY_ETHER_CRC_BYTES, 4, ixy/ixy.h) and add IXY_WIRE_OVERHEAD_BYTES, 20, for
// preamble, SFD and gap; PACER_WIRE_OVERHEAD is the two together.
//
// The pacer counts "units" (packets, or wire bits) sent since it started; unit u is due at start + u / rate. Once per
// batch the sender reads the clock (pacer_budget): the units due by then may go, back to back; if none is due, it
// sleeps once (pacing_sleep_until: clock_nanosleep to the next due time, sliced) instead of spinning, so that another
// thread on the same CPU runs meanwhile. No system call per packet. A sender that falls behind (a full TX queue, a
// sleep that overslept) catches up by at most PACER_CATCH_UP_NS of the rate's packets, or PACER_CATCH_UP_FRAMES
// minimum-sized frames if that is more, at once; time lost beyond that is given up, so a late sender never bursts
// unboundedly: the achieved rate then shows below the target in the totals. The cap must exceed how late a sleep wakes
// up: in a busy QEMU guest under TCG (vm_igb_fwd_rss2, polling apps on every vCPU) a cap of 1 ms let 2 kpps fall to 346
// pps, one of 20 ms to 626 pps.
//
// Accuracy (measured): see docs/reference.md (ixy-pktgen) and test/model/test_ixgbe_pktgen_app.c.
#ifndef IXY_APPS_PACING_H
#define IXY_APPS_PACING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ixy/ixy.h> // IXY_ETHER_CRC_BYTES, IXY_WIRE_OVERHEAD_BYTES

// Bytes a frame without FCS adds on the wire: FCS 4, preamble and SFD 8, inter-frame gap 12.
#define PACER_WIRE_OVERHEAD (IXY_ETHER_CRC_BYTES + IXY_WIRE_OVERHEAD_BYTES)
// The shortest frame on the wire without FCS: shorter ones are padded to it.
#define PACER_MIN_WIRE_FRAME 60
#define PACER_CATCH_UP_NS 100000000ull // 100 ms
#define PACER_CATCH_UP_FRAMES 64
#define PACER_MAX_PPS 200000000.0     // 200 Mpps
#define PACER_MAX_BITS 400000000000.0 // 400 Gbit/s

struct rate {
	double per_second; // units per second; 0: no rate (as fast as the NIC takes them)
	bool wire_bits;    // units are wire bits (Mbit, Gbit), else packets
};

struct pacer {
	double ns_per_unit;
	bool wire_bits;
	uint64_t start_ns; // when unit 0 was due; moves forward when time is given up (PACER_CATCH_UP_NS)
	uint64_t units;    // units sent since start_ns
};

// Parses "<n><unit>", n a decimal number (digits, optionally a point and more digits), unit one of pps, kpps, Mpps,
// Mbit, Gbit (case as written), at least 1 pps / 1 bit per second and at most PACER_MAX_PPS / PACER_MAX_BITS.
// Returns NULL, or what is wrong; then *rate is untouched.
const char* parse_rate(const char* text, struct rate* rate);

void pacer_init(struct pacer* pacer, const struct rate* rate, uint64_t now_ns);

// Units one frame of size bytes (without FCS) costs: 1, or (max(size, PACER_MIN_WIRE_FRAME) + PACER_WIRE_OVERHEAD)
// * 8. A shorter frame (a replayed 42 byte ARP request) still takes 60 bytes on the wire: ixgbe and igb
// pad it (82599 HLREG0.TXPADEN, i350 TCTL.PSP: "pad short packets" to 64 bytes with FCS, the Ethernet minimum).
static inline uint64_t pacer_units(const struct pacer* pacer, uint32_t size) {
	uint32_t on_wire = size < PACER_MIN_WIRE_FRAME ? PACER_MIN_WIRE_FRAME : size;
	return pacer->wire_bits ? (uint64_t)(on_wire + PACER_WIRE_OVERHEAD) * 8 : 1;
}

// The units that may start by now_ns: a frame may go while the units sent before it in this batch are fewer than
// the budget (a frame is due when its first unit is). 0: nothing due yet (then pacer_sleep).
uint64_t pacer_budget(struct pacer* pacer, uint64_t now_ns);

// Counts units as sent (the frames the TX queue took).
static inline void pacer_sent(struct pacer* pacer, uint64_t units) {
	pacer->units += units;
}

// The time the next unit is due.
uint64_t pacer_next_ns(const struct pacer* pacer);

// Sleeps from now_ns until until_ns (CLOCK_MONOTONIC, absolute: clock_nanosleep with TIMER_ABSTIME) in slices of at
// most PACING_SLICE_NS, and returns early once *stop is non-zero (stop: the apps' stop flag, common/signals.h; NULL:
// never). The flag is looked at before each slice: a stop is honoured within one slice also when its signal came
// just before the sleep began (and so interrupted nothing), however long the sleep (--replay-timing: days).
#define PACING_SLICE_NS 100000000ull // 100 ms
void pacing_sleep_until(uint64_t now_ns, uint64_t until_ns, const atomic_int* stop);

#endif
