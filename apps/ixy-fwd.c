// ixy-fwd: forwards packets between two NICs in both directions, printing rates every second.
//
//   ixy-fwd [--no-sandbox] [--user <name>] [--poll | --wait <ms>] [--ring <descriptors>] <pci1> <pci2>
//
// --wait (the default, 1000 ms): while no packet comes, sleep until a NIC reached through VFIO raises an interrupt,
// at most <ms> at a time (ixy/interrupts.h); NICs reached through sysfs have no interrupts and are always polled.
// --ring: descriptors per RX and TX ring of both NICs, a power of two, 64 to 4096 (default 512; bench/latency.sh).
// Each device gets one RX and one TX queue and runs promiscuous (ixy_init turns that on). Every packet received on one
// device is sent on the other with one byte changed (fwd.h says which). Ctrl-C or SIGTERM stops it: it prints a
// totals line per device (print_stats_totals) and the waiter's, and closes both devices.
#include <inttypes.h>
#include <stdio.h>

#include <ixy/interrupts.h>

#include "common/args.h"
#include "common/rates.h"
#include "common/signals.h"
#include "fwd.h"

#define USAGE "ixy-fwd " ARG_WAIT_USAGE " " ARG_RING_USAGE " <pci1> <pci2>   (PCI addresses like 0000:03:00.0)"

int main(int argc, char* argv[]) {
	int32_t wait_ms = 1000;
	uint32_t ring_size = 0;                                               // the driver's default
	int first = arg_options("ixy-fwd", argc, argv, &wait_ms, &ring_size); // argv[first]: the first PCI address
	if (first < 0 || argc - first != 2 || !arg_pci_addrs("ixy-fwd", &argv[first], 2)) {
		return usage(USAGE);
	}
	struct ixy_config configs[2];
	for (int i = 0; i < 2; i++) {
		configs[i] = (struct ixy_config){
		    .pci_addr = argv[first + i], .rx_queues = 1, .tx_queues = 1, .interrupt_timeout_ms = wait_ms};
		configs[i].ring_size = ring_size;
	}
	// Both devices and their DMA memory together, before the first is taken: a refusal leaves both as they are.
	if (!ixy_check_configs(configs, 2, 0) || stop_on_signals() != 0) {
		return 1;
	}
	struct ixy_device* devs[2] = {NULL, NULL};
	struct rate_meter meters[2];
	struct ixy_waiter* waiter = ixy_waiter_create(); // sleeps while both RX queues are idle
	for (int i = 0; i < 2; i++) {
		devs[i] = waiter ? ixy_init_config(&configs[i]) : NULL;
		if (!devs[i] || ixy_waiter_add(waiter, devs[i], 0) != 0) {
			ixy_close(devs[0]); // and the second device, if it is the waiter that failed
			ixy_close(devs[1]);
			ixy_waiter_destroy(waiter);
			return 1;
		}
		rate_meter_init(&meters[i], devs[i]);
	}
	int failed = ixy_sandbox_enter(&arg_sandbox) != 0; // least privilege from here on (ixy/sandbox.h)
	struct fwd_counters counters[2] = {{0}};           // counters[i]: from devs[i] to the other one
	struct ticker ticker;
	ticker_start(&ticker);
	uint64_t elapsed_ns;
	while (!failed && !stop_requested()) {
		uint32_t received = forward(devs[0], 0, devs[1], 0, &counters[0]);
		received += forward(devs[1], 0, devs[0], 0, &counters[1]);
		bool slept = ixy_waiter_round(waiter, received); // then the clock moved on more than the rounds say
		if (ticker_due(&ticker, slept, &elapsed_ns)) {
			rate_meter_print(&meters[0], elapsed_ns, stdout);
			rate_meter_print(&meters[1], elapsed_ns, stdout);
		}
	}
	// Totals first: stopping resets the device, and with it the statistics registers.
	// Stop both before closing either: buffers of one device's pool may still sit in the other's TX ring.
	for (int i = 0; i < 2; i++) {
		ixy_read_stats(devs[i], &meters[i].total);
		print_stats_totals(stdout, "ixy-fwd", &meters[i].total);
		printf(" forwarded=%" PRIu64 " tx_full=%" PRIu64 "\n", counters[i].forwarded,
		       counters[i].dropped_tx_full);
		ixy_stop(devs[i]);
	}
	ixy_waiter_print(stdout, "ixy-fwd", waiter);
	ixy_waiter_destroy(waiter);
	ixy_close(devs[0]);
	ixy_close(devs[1]);
	return failed;
}
