// Runs ixy-pcap's own main() (apps/ixy-pcap.c, compiled into a model test with main renamed ixy_pcap_main) beside a
// feeder thread that offers frames to the model, with ixy-pcap's stdout in a temporary file, rewound for reading.
// Shared by test_ixgbe_pcap_app.c, test_ixgbe_pcap_report.c and test_ixgbe_pcap_seconds.c.
#ifndef IXY_TEST_PCAP_APP_RUN_H
#define IXY_TEST_PCAP_APP_RUN_H

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include <ixy/sandbox.h>

#include "../check.h"

int ixy_pcap_main(int argc, char* argv[]);

// argv ends with NULL. Checks that ixy-pcap exits with rc. Returns its stdout (the caller closes it), or NULL.
static inline FILE* run_pcap_app_rc(char* argv[], void* (*feed)(void*), void* feeder, int rc) {
	int argc = 0;
	while (argv[argc]) {
		argc++;
	}
	FILE* out = tmpfile(); // ixy-pcap's stdout, for its lines
	int saved = dup(STDOUT_FILENO);
	CHECK(out && saved >= 0 && fflush(stdout) == 0 && dup2(fileno(out), STDOUT_FILENO) == STDOUT_FILENO);
	// --no-sandbox drops the capabilities all the same (ixy/sandbox.h): this process drops its own before the
	// feeder thread starts, or ixy_sandbox_enter refuses to go on.
	struct ixy_sandbox_config drop = {0};
	CHECK_EQ(ixy_sandbox_drop_privileges(&drop), 0);
	pthread_t feeder_thread;
	CHECK_EQ(pthread_create(&feeder_thread, NULL, feed, feeder), 0);
	CHECK_EQ(ixy_pcap_main(argc, argv), rc);
	CHECK_EQ(pthread_join(feeder_thread, NULL), 0);
	CHECK(fflush(stdout) == 0 && dup2(saved, STDOUT_FILENO) == STDOUT_FILENO && close(saved) == 0);
	if (out) {
		CHECK_EQ(fseek(out, 0, SEEK_SET), 0);
	}
	return out;
}

// The same, exit code 0.
static inline FILE* run_pcap_app(char* argv[], void* (*feed)(void*), void* feeder) {
	return run_pcap_app_rc(argv, feed, feeder, 0);
}

#endif
