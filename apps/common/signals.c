// SIGINT/SIGTERM handling for the apps (see signals.h).
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "signals.h"

atomic_int stop_signal = 0;

// Runs in signal context: only sets the flag (async-signal-safe).
static void on_stop_signal(int signum) {
	stop_signal = signum;
}

int stop_on_signals(void) {
	struct sigaction action = {.sa_handler = on_stop_signal};
	if (sigemptyset(&action.sa_mask) != 0 || sigaction(SIGINT, &action, NULL) != 0 ||
	    sigaction(SIGTERM, &action, NULL) != 0 || signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
		fprintf(stderr, "cannot install the SIGINT/SIGTERM handler: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}
