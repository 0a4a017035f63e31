// The world of the installed example when it runs against the 82599 model instead of a NIC (test_install.sh links
// example.c, compiled against the installed headers, with this file, the model and the library's test build):
// - an 82599 at 0000:08:00.0 (added before main), with the MAC address the model gives it, 02:00:00:08:00:00;
// - a wire with EXAMPLE_FRAMES frames on it: whenever the app reads the clock (monotonic_time_ns, wrapped with
//   -Wl,--wrap=monotonic_time_ns) and receive queue 0 has a free descriptor, the next frame arrives;
// - at exit, the frames that arrived and the model's violations on stdout, for the test to compare with what the
//   example printed.
#include <stdio.h>
#include <stdlib.h>

#include "ixgbe_model.h"

#define EXAMPLE_FRAMES 1000

static struct model_ixgbe* nic;
static uint32_t arrived;

static void report(void) {
	printf("model: %u frames arrived, %u violations\n", arrived, model_violation_count());
}

__attribute__((constructor)) static void add_nic(void) {
	nic = model_ixgbe_add("0000:08:00.0");
	if (atexit(report) != 0) {
		abort();
	}
}

uint64_t __real_monotonic_time_ns(void);
uint64_t __wrap_monotonic_time_ns(void);
uint64_t __wrap_monotonic_time_ns(void) {
	static uint8_t frame[60] = {0x02, 0, 0, 0x08, 0, 0}; // to the NIC's MAC, zeros else
	if (arrived < EXAMPLE_FRAMES && model_ixgbe_rx_descriptors_available(nic, 0) > 0) {
		arrived += model_ixgbe_inject_rx(nic, 0, frame, sizeof(frame)) == MODEL_RX_DELIVERED;
	}
	return __real_monotonic_time_ns();
}
