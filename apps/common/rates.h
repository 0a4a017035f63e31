// Once a second, the apps print rates. A packet loop runs millions of rounds per second, and reading the clock in
// every round would cost more than the packets: second_passed reads it only every 256th round, and after a round
// that slept (ixy_waiter_round), when rounds no longer measure time.
#ifndef IXY_APPS_RATES_H
#define IXY_APPS_RATES_H

#include <stdbool.h>
#include <stdint.h>

#include <ixy/ixy.h> // monotonic_time_ns

#define ONE_SECOND_NS 1000000000ull

#define ROUNDS_PER_CLOCK_READ 256

// True when a second has passed since *last_ns (the clock at the start, or at the last true); then *elapsed_ns is the
// exact time since then, and *last_ns is now. round counts the loop's rounds, slept says whether this one slept.
static inline bool second_passed(uint64_t* last_ns, uint64_t* elapsed_ns, uint64_t round, bool slept) {
	if (round % ROUNDS_PER_CLOCK_READ != 0 && !slept) {
		return false;
	}
	uint64_t now = monotonic_time_ns();
	if (now - *last_ns < ONE_SECOND_NS) {
		return false;
	}
	*elapsed_ns = now - *last_ns;
	*last_ns = now;
	return true;
}

#endif
