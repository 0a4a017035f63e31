// Once-per-second rate lines for the apps.
//
// A packet loop runs millions of times per second; reading the clock on every pass would cost more than the
// packets. A ticker therefore reads the clock only every TICKER_CHECK_EVERY passes and says when its interval has
// passed. A rate meter keeps the counters of one device and prints the rates since its last print with
// print_stats_diff() ("[0000:03:00.0] RX: 9999 Mbit/s 14.88 Mpps" and the same for TX).
#ifndef IXY_APPS_RATES_H
#define IXY_APPS_RATES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ixy/ixy.h>

#define TICKER_CHECK_EVERY 256
#define ONE_SECOND_NS 1000000000ull

struct ticker {
	uint64_t last_ns;     // clock at the start or at the last time ticker_due() said yes
	uint32_t until_check; // passes left until the clock is read again
};

void ticker_start(struct ticker* ticker);
// Call once per pass of the loop; slept: the pass slept (ixy_waiter_round), so passes no longer measure time and
// the clock is read now. True when at least a second has passed since the last true (or the start); then
// *elapsed_ns is the exact time since then.
bool ticker_due(struct ticker* ticker, bool slept, uint64_t* elapsed_ns);

struct rate_meter {
	struct ixy_device* dev;
	struct device_stats total;         // all counters since the meter started
	struct device_stats at_last_print; // total as it was at the last print
};

void rate_meter_init(struct rate_meter* meter, struct ixy_device* dev);
// Reads the device counters and prints the RX and TX rates over the last elapsed_ns, then flushes out.
void rate_meter_print(struct rate_meter* meter, uint64_t elapsed_ns, FILE* out);
// A queue's rate line before its device's: "[<pci addr>] queue <q> RX: <n> Mpps", the packets received (count, a
// total) since *last over elapsed_ns; then *last = count.
void print_queue_rate(FILE* out, const char* pci_addr, uint16_t q, uint64_t count, uint64_t* last, uint64_t elapsed_ns);

#endif
