// ixy-fwd: forwards packets between two NICs in both directions, printing rates every second.
//
//   ixy-fwd [--no-sandbox] [--user <name>] [--poll | --wait <ms>] [--ring <descriptors>] [--queues <n>] <pci1> <pci2>
//
// --wait (the default, 1000 ms): while no packet comes, sleep until a NIC reached through VFIO raises an interrupt,
// at most <ms> at a time (ixy/interrupts.h); NICs reached through sysfs have no interrupts and are always polled.
// --ring: descriptors per RX and TX ring of both NICs, a power of two, 64 to 4096 (default 512; bench/latency.sh).
// --queues (default 1): RX and TX queues per device; with more than one the NICs spread the flows over their RX queues
// (receive side scaling, ixy/rss.h), and thread i forwards queue i of each device to queue i of the other, sharing
// nothing (fwd_queues.h). Each device runs promiscuous (ixy_init turns that on). Every packet received on one device
// is sent on the other with one byte changed (fwd.h says which). Ctrl-C or SIGTERM stops it: it prints a totals line
// per device (print_stats_totals; with more than one queue a "queue app=ixy-fwd ..." line per queue before it) and
// each waiter's, and closes both devices.
#include <inttypes.h>
#include <stdio.h>

#include "common/args.h"
#include "common/rates.h"
#include "common/signals.h"
#include "fwd_queues.h"

#define USAGE                                                                                                          \
	"ixy-fwd " ARG_WAIT_USAGE " " ARG_RING_USAGE " [--queues <n>] <pci1> <pci2>   (PCI addresses like "            \
	"0000:03:00.0)"

int main(int argc, char* argv[]) {
	int32_t wait_ms = 1000;
	uint32_t ring_size = 0, num_queues = 1; // ring_size 0: the driver's default
	int first = arg_options("ixy-fwd", argc, argv, &wait_ms, &ring_size, "queues", &num_queues);
	if (first < 0 || argc - first != 2 || !arg_pci_addrs("ixy-fwd", &argv[first], 2)) { // argv[first]: pci1
		return usage(USAGE);
	}
	uint16_t n = (uint16_t)num_queues;
	struct ixy_config configs[2];
	for (int i = 0; i < 2; i++) {
		configs[i] = (struct ixy_config){
		    .pci_addr = argv[first + i], .rx_queues = n, .tx_queues = n, .interrupt_timeout_ms = wait_ms};
		configs[i].ring_size = ring_size;
	}
	// Both devices and their DMA memory together, before the first is taken: a refusal leaves both as they are.
	if (!ixy_check_configs(configs, 2, 0) || stop_on_signals() != 0) {
		return 1;
	}
	struct ixy_device* devs[2] = {NULL, NULL};
	struct fwd_queue queues[IXY_MAX_QUEUES];
	int failed = 0;
	for (uint16_t q = 0; q < n; q++) {
		queues[q] = (struct fwd_queue){.devs = devs, .queue = q, .waiter = ixy_waiter_create()};
		failed |= !queues[q].waiter;
	}
	for (int i = 0; i < 2 && !failed; i++) {
		devs[i] = ixy_init_config(&configs[i]);
		for (uint16_t q = 0; q < n && !failed; q++) {
			failed = !devs[i] || ixy_waiter_add(queues[q].waiter, devs[i], q) != 0;
		}
	}
	for (uint16_t q = 0; q < n && failed; q++) {
		ixy_waiter_destroy(queues[q].waiter);
	}
	if (failed) {
		ixy_close(devs[0]); // and the second device, if it is a waiter that failed
		ixy_close(devs[1]);
		return 1;
	}
	uint16_t running = fwd_queues_start(queues, n); // the threads of queues 1..n-1, this one's is queue 0
	failed = running < n || ixy_sandbox_enter(&arg_sandbox) != 0; // least privilege from here on (ixy/sandbox.h)
	fwd_queues_go(!failed);
	struct rate_meter meters[2];
	uint64_t last[2][IXY_MAX_QUEUES] = {{0}}; // per device and queue: packets received at the last rates
	rate_meter_init(&meters[0], devs[0]);
	rate_meter_init(&meters[1], devs[1]);
	struct ticker ticker;
	ticker_start(&ticker);
	uint64_t elapsed_ns;
	while (!failed && !stop_requested()) {
		bool slept = fwd_round(&queues[0]); // then the clock moved on more than the rounds say
		if (ticker_due(&ticker, slept, &elapsed_ns)) {
			for (int i = 0; i < 2; i++) {
				fwd_queues_print_rates(queues, n, i, last[i], elapsed_ns);
				rate_meter_print(&meters[i], elapsed_ns, stdout);
			}
		}
	}
	fwd_queues_stop(running);
	// Totals first: stopping resets the device, and with it the statistics registers.
	// Stop both before closing either: buffers of one device's pool may still sit in the other's TX ring.
	for (int i = 0; i < 2; i++) {
		struct fwd_counters sum = {0};
		for (uint16_t q = 0; q < n; q++) { // (the threads are done: their queues are this thread's now)
			sum.forwarded += queues[q].counters[i].forwarded;
			sum.dropped_tx_full += queues[q].counters[i].dropped_tx_full;
			ixy_tx_batch(devs[i], q, NULL, 0); // what was sent since the last batch counts (VirtIO)
		}
		fwd_queues_print_totals(queues, n, i);
		ixy_read_stats(devs[i], &meters[i].total);
		print_stats_totals(stdout, "ixy-fwd", &meters[i].total);
		printf(" forwarded=%" PRIu64 " tx_full=%" PRIu64 "\n", sum.forwarded, sum.dropped_tx_full);
		ixy_stop(devs[i]);
	}
	for (uint16_t q = 0; q < n; q++) {
		ixy_waiter_print(stdout, "ixy-fwd", queues[q].waiter);
		ixy_waiter_destroy(queues[q].waiter);
	}
	ixy_close(devs[0]);
	ixy_close(devs[1]);
	return failed;
}
