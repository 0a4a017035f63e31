// Stopping an app cleanly: SIGINT (Ctrl-C) and SIGTERM set a flag that the packet loop polls. The app then leaves
// its loop, prints its totals and closes its devices (which stops their DMA) instead of dying mid-way.
// The handler stays installed: a second Ctrl-C or SIGTERM sets the flag again instead of killing the app before it
// stopped its NICs (their DMA would go on into memory the kernel gives to others); the way out is bounded (the
// drivers' waits time out), and SIGKILL remains. Every sleep of the apps ends within a second of a stop, also when
// the signal came just before it began (pacing_sleep_until, common/pacing.h). SIGPIPE is ignored: printing to a closed
// pipe fails quietly instead of killing the app before it closed its devices.
#ifndef IXY_APPS_SIGNALS_H
#define IXY_APPS_SIGNALS_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

// The signal number received, 0 while none. Atomic (lock-free, so a handler may set it): a threaded app's handler
// runs in any thread, and another one reads it.
extern atomic_int stop_signal;

// Installs the handler for SIGINT and SIGTERM and ignores SIGPIPE. Returns 0, or -1 with a message on stderr.
int stop_on_signals(void);

static inline bool stop_requested(void) {
	return stop_signal != 0;
}

#endif
