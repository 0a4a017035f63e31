// The stop flag of the apps (apps/common/signals.h): SIGTERM/SIGINT set it once, then the default action returns.
#include <signal.h>

#include "../check.h"
#include "common/signals.h"

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
	// SA_RESETHAND: after one SIGTERM its handler is gone (a second one would kill), SIGINT's is still there.
	CHECK(handler_is(SIGTERM, SIG_DFL));
	CHECK(!handler_is(SIGINT, SIG_DFL));
	CHECK(raise(SIGINT) == 0);
	CHECK_EQ(stop_signal, SIGINT);
	CHECK(handler_is(SIGINT, SIG_DFL));
	return check_summary();
}
