// The stop flag of the apps (apps/common/signals.h): SIGTERM/SIGINT set it, also a second time (no default action),
// and a sleep that begins after the stop returns (apps/common/pacing.h, issue 34).
#include <signal.h>
#include <time.h>

#include "../check.h"
#include "common/pacing.h"
#include "common/signals.h"

// The handler stop_on_signals installed (the same for SIGINT and SIGTERM).
static void (*on_stop_handler(void))(int) {
	struct sigaction current;
	return sigaction(SIGINT, NULL, &current) == 0 ? current.sa_handler : SIG_DFL;
}

static uint64_t monotonic_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int handler_is(int signum, void (*handler)(int)) {
	struct sigaction current;
	return sigaction(signum, NULL, &current) == 0 && current.sa_handler == handler;
}

int main(void) {
	CHECK(!stop_requested());
	CHECK_EQ(stop_on_signals(), 0);
	CHECK(!stop_requested());
	CHECK(handler_is(SIGPIPE, SIG_IGN));
	CHECK(raise(SIGTERM) == 0);
	CHECK(stop_requested());
	CHECK_EQ(stop_signal, SIGTERM);
	// A second SIGTERM does not kill (the NICs are not stopped yet): the handler stays, the flag stays set.
	CHECK(handler_is(SIGTERM, on_stop_handler()));
	CHECK(raise(SIGTERM) == 0);
	CHECK_EQ(stop_signal, SIGTERM);
	CHECK(raise(SIGINT) == 0);
	CHECK_EQ(stop_signal, SIGINT);
	CHECK(handler_is(SIGINT, on_stop_handler()));
	// A sleep of days that starts after the stop (its signal interrupted nothing) returns at once: the flag is
	// looked at before each slice. Without that it would sleep three days (the test's timeout fails it).
	uint64_t now = monotonic_now();
	pacing_sleep_until(now, now + 3 * 86400 * 1000000000ull, &stop_signal);
	CHECK(stop_requested()); // (reached: it returned)
	return check_summary();
}
