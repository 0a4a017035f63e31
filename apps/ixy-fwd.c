// ixy-fwd: forwards packets between two NICs in both directions, printing rates every second.
//
//   ixy-fwd [--poll | --wait <ms>] <pci1> <pci2>
//
// --wait (the default, 1000 ms): while no packet comes, sleep until a NIC reached through VFIO raises an interrupt,
// at most <ms> at a time (ixy/interrupts.h); NICs reached through sysfs have no interrupts and are always polled.
// Each device gets one RX and one TX queue and runs promiscuous (ixy_init turns that on). Every packet received on one
// device is sent on the other with one byte changed (fwd.h says which). Ctrl-C or SIGTERM stops it: it prints totals
// and closes both devices.
#include <stdio.h>

#include <ixy/interrupts.h>

#include "common/args.h"
#include "common/signals.h"
#include "fwd.h"

int main(int argc, char* argv[]) {
	int32_t wait_ms = 1000;
	if (!arg_wait_option("ixy-fwd", &argc, &argv, &wait_ms)) {
		return 2;
	}
	if (argc != 3) {
		return usage("ixy-fwd " ARG_WAIT_USAGE " <pci1> <pci2>   (PCI addresses like 0000:03:00.0)");
	}
	if (!arg_two_pci_addrs("ixy-fwd", argv[1], argv[2])) {
		return 2;
	}
	struct ixy_config configs[2];
	for (int i = 0; i < 2; i++) {
		configs[i] = (struct ixy_config){.pci_addr = argv[1 + i], .rx_queues = 1, .tx_queues = 1};
		configs[i].interrupt_timeout_ms = wait_ms;
	}
	// Both devices and their DMA memory together, before the first is taken: a refusal leaves both as they are.
	if (!ixy_check_configs(configs, 2, 0) || stop_on_signals() != 0) {
		return 1;
	}
	struct ixy_device* devs[2] = {NULL, NULL};
	struct device_stats stats[2], last_stats[2];
	struct ixy_waiter* waiter = ixy_waiter_create(); // sleeps while both RX queues are idle
	for (int i = 0; i < 2; i++) {
		devs[i] = waiter ? ixy_init_config(&configs[i]) : NULL;
		if (!devs[i] || ixy_waiter_add(waiter, devs[i], 0) != 0) {
			ixy_close(devs[0]); // and the second device, if it is the waiter that failed
			ixy_close(devs[1]);
			ixy_waiter_destroy(waiter);
			return 1;
		}
		stats_init(&stats[i], devs[i]);
		last_stats[i] = stats[i];
	}
	struct fwd_counters counters[2] = {{0}}; // counters[i]: from devs[i] to the other one
	uint64_t last_print_ns = monotonic_time_ns();
	for (uint32_t round = 1; !stop_requested(); round++) {
		uint32_t received = forward(devs[0], 0, devs[1], 0, &counters[0]);
		received += forward(devs[1], 0, devs[0], 0, &counters[1]);
		bool slept = ixy_waiter_round(waiter, received); // true: it slept, the clock moved on
		// Reading the clock for every batch would cost more than the packets: look only every 4096 rounds.
		uint64_t now_ns = round % 4096 == 0 || slept ? monotonic_time_ns() : last_print_ns;
		if (now_ns - last_print_ns >= 1000000000u) {
			for (int i = 0; i < 2; i++) {
				ixy_read_stats(devs[i], &stats[i]);
				print_stats_diff(stdout, &stats[i], &last_stats[i], now_ns - last_print_ns);
				last_stats[i] = stats[i];
			}
			fflush(stdout);
			last_print_ns = now_ns;
		}
	}
	// Totals first: stopping resets the device, and with it the statistics registers.
	// Stop both before closing either: buffers of one device's pool may still sit in the other's TX ring.
	for (int i = 0; i < 2; i++) {
		ixy_read_stats(devs[i], &stats[i]);
		print_stats_total(stdout, &stats[i]);
		printf("%s -> %s: forwarded %llu packets, dropped %llu (TX queue full)\n", argv[1 + i], argv[2 - i],
		       (unsigned long long)counters[i].forwarded, (unsigned long long)counters[i].dropped_tx_full);
		ixy_stop(devs[i]);
	}
	ixy_waiter_print(stdout, waiter);
	ixy_waiter_destroy(waiter);
	ixy_close(devs[0]);
	ixy_close(devs[1]);
	return 0;
}
