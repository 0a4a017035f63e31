// ixy-fwd's own main() (apps/ixy-fwd.c, compiled into this test with main renamed ixy_fwd_main) against two modelled
// 82599s: its command line reaches the driver. With --ring 64 both devices' RX and TX rings get 64 descriptors (the
// driver writes RDLEN(0) and TDLEN(0) = 64 * 16 bytes, 82599 datasheet 8.2.3.8.2 and 8.2.3.9.7), without --ring the
// default 512; ixy-fwd stops on SIGTERM (sent by a second thread once its handler is installed) and exits 0.
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ixy/ixy.h>

#include "../check.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "seam.h"
#include "test_regs.h"

#define PORT_A "0000:0a:00.0"
#define PORT_B "0000:0a:00.1"

int ixy_fwd_main(int argc, char* argv[]);

// Waits until ixy-fwd has installed its SIGTERM handler (apps/common/signals.c), lets it forward a while, stops it.
static void* stop_fwd(void* unused) {
	(void)unused;
	struct timespec tick = {.tv_sec = 0, .tv_nsec = 10 * 1000 * 1000};
	for (;;) {
		struct sigaction now;
		if (sigaction(SIGTERM, NULL, &now) == 0 && now.sa_handler != SIG_DFL) {
			break;
		}
		nanosleep(&tick, NULL);
	}
	for (int i = 0; i < 10; i++) { // (a tenth of a second of polling: no time is checked)
		nanosleep(&tick, NULL);
	}
	kill(getpid(), SIGTERM);
	return NULL;
}

// The value the driver last wrote to reg of nic (0 if never).
static uint32_t last_write(const struct model_ixgbe* nic, uint32_t reg) {
	uint32_t value = 0;
	for (int64_t i = model_ixgbe_log_find(nic, 0, MODEL_WRITE, reg, 0); i >= 0;
	     i = model_ixgbe_log_find(nic, (uint32_t)i + 1, MODEL_WRITE, reg, 0)) {
		value = model_ixgbe_log_entry(nic, (uint32_t)i)->value;
	}
	return value;
}

// Runs ixy-fwd with args (NULL-terminated, the two ports appended) and checks the ring lengths it gave both ports.
static void run_fwd(const char* name, const char* const options[], uint32_t expected_ring) {
	model_test_begin(name);
	struct model_ixgbe* nics[2] = {model_ixgbe_add(PORT_A), model_ixgbe_add(PORT_B)};
	char* argv[10];
	int argc = 0;
	argv[argc++] = "ixy-fwd";
	for (int i = 0; options[i]; i++) {
		argv[argc++] = (char*)options[i];
	}
	argv[argc++] = PORT_A;
	argv[argc++] = PORT_B;
	argv[argc] = NULL;
	pthread_t stopper;
	CHECK_EQ(pthread_create(&stopper, NULL, stop_fwd, NULL), 0);
	CHECK_EQ(ixy_fwd_main(argc, argv), 0);
	CHECK_EQ(pthread_join(stopper, NULL), 0);
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(last_write(nics[i], R_RDLEN(0)), expected_ring * 16);
		CHECK_EQ(last_write(nics[i], R_TDLEN(0)), expected_ring * 16);
	}
	CHECK_EQ(seam_dma_live_allocations(), 0);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
	signal(SIGTERM, SIG_DFL); // (SA_RESETHAND did already; for the next run's stopper)
}

int main(void) {
	// --no-sandbox: the seccomp filter would stay on this test process after ixy-fwd's main returns.
	static const char* const ring64[] = {"--no-sandbox", "--poll", "--ring", "64", NULL};
	static const char* const ring4096[] = {"--no-sandbox", "--poll", "--ring", "4096", NULL};
	static const char* const plain[] = {"--no-sandbox", "--poll", NULL};
	run_fwd("ixy-fwd --ring 64", ring64, 64);
	run_fwd("ixy-fwd --ring 4096", ring4096, 4096);
	run_fwd("ixy-fwd without --ring: 512", plain, 512);
	return model_test_summary();
}
