// Software pacing of ixy-pktgen --rate (see pacing.h).
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pacing.h"

static const struct {
	const char* name;
	double factor;
	bool wire_bits;
} units[] = {
    {"pps", 1.0, false}, {"kpps", 1e3, false}, {"Mpps", 1e6, false}, {"Mbit", 1e6, true}, {"Gbit", 1e9, true},
};

const char* parse_rate(const char* text, struct rate* rate) {
	size_t digits = strspn(text, "0123456789");
	if (digits == 0) {
		return "does not start with a decimal number";
	}
	size_t number_len = digits;
	if (text[number_len] == '.') {
		size_t fraction = strspn(text + number_len + 1, "0123456789");
		if (fraction == 0) {
			return "has no digits after the point";
		}
		number_len += 1 + fraction;
	}
	if (number_len > 20) {
		return "has too many digits";
	}
	// The number is digits [. digits] only: strtod cannot meet a sign, spaces, "0x", "inf" or an exponent.
	char number[24];
	memcpy(number, text, number_len);
	number[number_len] = '\0';
	double value = strtod(number, NULL);
	const char* unit = text + number_len;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(unit, units[i].name) == 0) {
			double per_second = value * units[i].factor;
			double max = units[i].wire_bits ? PACER_MAX_BITS : PACER_MAX_PPS;
			if (per_second < 1.0 || per_second > max) {
				return "is out of range (1 pps or 1 bit/s to 200 Mpps or 400 Gbit)";
			}
			*rate = (struct rate){.per_second = per_second, .wire_bits = units[i].wire_bits};
			return NULL;
		}
	}
	return "has no unit pps, kpps, Mpps, Mbit or Gbit right after the number";
}

void pacer_init(struct pacer* pacer, const struct rate* rate, uint64_t now_ns) {
	*pacer = (struct pacer){
	    .ns_per_unit = 1e9 / rate->per_second, .wire_bits = rate->wire_bits, .start_ns = now_ns, .units = 0};
}

uint64_t pacer_next_ns(const struct pacer* pacer) {
	return pacer->start_ns + (uint64_t)((double)pacer->units * pacer->ns_per_unit);
}

uint64_t pacer_budget(struct pacer* pacer, uint64_t now_ns) {
	if (now_ns < pacer->start_ns) {
		return 0;
	}
	// Unit u is due at start + u * ns_per_unit: units 0 .. due - 1 are due by now. Computed from the start (not
	// added up per batch), so rounding does not drift. A double holds integers exactly up to 2^53 units.
	uint64_t due = (uint64_t)((double)(now_ns - pacer->start_ns) / pacer->ns_per_unit) + 1;
	uint64_t cap = (uint64_t)((double)PACER_CATCH_UP_NS / pacer->ns_per_unit) + 1;
	uint64_t frames_cap = PACER_CATCH_UP_FRAMES * pacer_units(pacer, 60);
	cap = cap > frames_cap ? cap : frames_cap;
	if (due > pacer->units + cap) {
		// Behind by more than the catch-up: give the rest up. Re-based, so that exactly cap units are due now.
		pacer->start_ns = now_ns - (uint64_t)((double)(cap - 1) * pacer->ns_per_unit);
		pacer->units = 0;
		due = cap;
	}
	return due > pacer->units ? due - pacer->units : 0;
}

void pacing_sleep_until(uint64_t now_ns, uint64_t until_ns, const atomic_int* stop) {
	// Slice by slice, each to an absolute end (no clock read here: the caller's now_ns). A slice that woke late
	// makes the next one return at once. EINTR: a signal (Ctrl-C), seen in the flag before the next slice.
	for (uint64_t end = now_ns; end < until_ns && !(stop && *stop);) {
		end = until_ns - end > PACING_SLICE_NS ? end + PACING_SLICE_NS : until_ns;
		struct timespec at = {.tv_sec = (time_t)(end / 1000000000ull), .tv_nsec = (long)(end % 1000000000ull)};
		int err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
		if (err != 0 && err != EINTR) {
			fprintf(stderr, "ixy-pktgen: clock_nanosleep: %s\n", strerror(err));
			return;
		}
	}
}
