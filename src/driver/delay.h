// The drivers' waits (ixy_usleep): a wait the datasheet requires (at least 10 ms after a reset, 82599 4.6.3.2,
// i350 4.2.1.6.1) lasts its full time. usleep and a relative nanosleep return early when a signal's handler runs
// (EINTR: Ctrl-C or SIGTERM during ixy_init); this sleeps until an absolute time on CLOCK_MONOTONIC instead and,
// interrupted, sleeps again until the same time. (Test builds, IXY_SEAM, use the device model's virtual clock.)
#ifndef IXY_DRIVER_DELAY_H
#define IXY_DRIVER_DELAY_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

static inline void ixy_usleep(uint32_t us) {
	struct timespec until;
	if (clock_gettime(CLOCK_MONOTONIC, &until) != 0) {
		return; // cannot happen for CLOCK_MONOTONIC
	}
	uint64_t ns = (uint64_t)until.tv_nsec + (uint64_t)us * 1000u;
	until.tv_sec += (time_t)(ns / 1000000000u);
	until.tv_nsec = (long)(ns % 1000000000u);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR) {
	}
}

#endif
