// The drivers' waits (src/driver/delay.h): ixy_usleep sleeps its full time although a signal handler runs during it
// many times (an interval timer every 2 ms, SIGALRM, without SA_RESTART: each one ends a plain usleep early).
#include <signal.h>
#include <stdatomic.h>
#include <sys/time.h>
#include <time.h>

#include "../check.h"
#include "driver/delay.h"

static atomic_int alarms;

static void on_alarm(int signum) {
	(void)signum;
	alarms++;
}

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(void) {
	struct sigaction action = {.sa_handler = on_alarm}; // no SA_RESTART: a sleep returns EINTR
	CHECK(sigemptyset(&action.sa_mask) == 0 && sigaction(SIGALRM, &action, NULL) == 0);
	struct itimerval every_2ms = {.it_interval = {.tv_usec = 2000}, .it_value = {.tv_usec = 2000}};
	CHECK(setitimer(ITIMER_REAL, &every_2ms, NULL) == 0);
	for (uint32_t us = 1000; us <= 64000; us *= 4) {
		int before = alarms;
		uint64_t start = now_ns();
		ixy_usleep(us);
		uint64_t elapsed = now_ns() - start;
		// The lower bound is what correctness needs: the datasheet's wait is a minimum.
		CHECK(elapsed >= us * 1000ull);
		if (elapsed < us * 1000ull) {
			fprintf(stderr, "ixy_usleep(%u) returned after %llu ns\n", us, (unsigned long long)elapsed);
		}
		// The handler ran during the longer waits: else this test would not test anything.
		CHECK(us < 16000 || alarms > before);
	}
	struct itimerval off = {0};
	CHECK(setitimer(ITIMER_REAL, &off, NULL) == 0);
	return check_summary();
}
