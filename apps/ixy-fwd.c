// ixy-fwd: forwards packets between two NICs in both directions, printing rates every second.
//
//   ixy-fwd [--no-sandbox] [--user <name>] [--poll | --wait <ms>] [--ring <descriptors>] [--queues <n>] <pci1> <pci2>
//
// Every packet received on one device is sent on the other with one byte changed (fwd.h says which). Ctrl-C or
// SIGTERM stops it: it prints a totals line per device (print_stats_totals) and closes both devices.
// The options are features, each entered by one call below (common/options.h says what each does):
// --wait (the default, 1000 ms) sleeps while no packet comes, on NICs reached through VFIO and AF_XDP devices
// (ixy/interrupts.h);
// --ring sets the descriptors per ring of both NICs; --queues n forwards queue i of each device to queue i of the
// other in a thread of its own (fwd_queues.h), printing a line per queue before each device's rates and totals;
// --user and --no-sandbox are about the least privilege the app keeps once its devices run (ixy/sandbox.h).
#include <inttypes.h>
#include <stdio.h>

#include <ixy/checks.h>

#include "common/options.h"
#include "common/rates.h"
#include "common/signals.h"
#include "fwd.h"
#include "fwd_queues.h"

#define USAGE                                                                                                          \
	"ixy-fwd " ARG_WAIT_USAGE " " ARG_RING_USAGE " [--queues <n>] <pci1> <pci2>   (PCI addresses like "            \
	"0000:03:00.0)"

static const struct option options[] = {ARG_POLL_WAIT, ARG_RING, ARG_QUEUES, ARG_SANDBOX, ARG_HELP_OPTION, {0}};

int main(int argc, char* argv[]) {
	struct app_options opt = {.wait_ms = 1000, .queues = 1};
	int first = arg_options("ixy-fwd", options, argc, argv, &opt);
	if (first < 0 || !arg_count("ixy-fwd", argc, argv, first, 2, 2, "<pci1> <pci2>") ||
	    !arg_pci_addrs("ixy-fwd", &argv[first], 2)) {
		return arg_exit(USAGE, first, argc);
	}
	uint16_t n = (uint16_t)opt.queues;
	struct ixy_config configs[2];
	for (int i = 0; i < 2; i++) {
		configs[i] = (struct ixy_config){.pci_addr = argv[first + i],
						 .rx_queues = n,
						 .tx_queues = n,
						 .ring_size = opt.ring_size,
						 .interrupt_timeout_ms = (int32_t)opt.wait_ms};
	}
	// Check both devices and their DMA memory before taking the first: a refusal leaves both as they are.
	if (!ixy_check_configs(configs, 2, 0) || stop_on_signals() != 0) {
		return 1;
	}
	struct ixy_device* devs[2] = {ixy_init_config(&configs[0]), NULL};
	devs[1] = devs[0] ? ixy_init_config(&configs[1]) : NULL;
	if (!devs[1]) {
		ixy_give_back(devs[0]); // the app gives up: NIC 1 goes back to its kernel driver (ixy/checks.h)
		return 1;
	}
	struct fwd_queue queues[IXY_MAX_QUEUES] = {{.devs = devs, .queue = 0}}; // queue 0: this thread's
	// Capabilities are dropped before the queues' threads start, so that these start without any (ixy/sandbox.h).
	bool dropped = ixy_sandbox_drop_privileges(&opt.sandbox) == 0;
	bool ok = fwd_queues_start(queues, n, devs) && dropped && ixy_sandbox_enter(&opt.sandbox) == 0;
	fwd_queues_go(ok);

	// Forward both ways until stopped; print the rates once a second.
	struct device_stats stats[2], stats_old[2];
	for (int i = 0; i < 2; i++) {
		stats_init(&stats[i], devs[i]);
		stats_init(&stats_old[i], devs[i]);
	}
	uint64_t last_ns = monotonic_time_ns(), elapsed_ns;
	for (uint64_t round = 1; ok && !stop_requested(); round++) {
		bool slept = fwd_round(&queues[0]); // then the clock moved on more than the rounds say
		if (second_passed(&last_ns, &elapsed_ns, round, slept)) {
			for (int i = 0; i < 2; i++) {
				fwd_queues_print_rates(queues, n, i, elapsed_ns);
				ixy_read_stats(devs[i], &stats[i]);
				print_stats_diff(stdout, &stats[i], &stats_old[i], elapsed_ns);
				stats_old[i] = stats[i];
			}
			// Each second reaches a pipe or log; a failing stdout must not stop the loop.
			(void)fflush(stdout);
		}
	}

	// Totals first: stopping resets the device, and with it the statistics registers. Stop both before closing
	// either: buffers of one device's pool may still sit in the other's TX ring.
	fwd_queues_stop();
	for (int i = 0; i < 2; i++) {
		struct fwd_counters sum = queues[0].counters[i];
		fwd_queues_totals(queues, n, i, &sum); // the other queues' added, and a line per queue
		ixy_read_stats(devs[i], &stats[i]);
		print_stats_totals(stdout, "ixy-fwd", &stats[i]);
		printf(" forwarded=%" PRIu64 " tx_full=%" PRIu64 "\n", sum.forwarded, sum.dropped_tx_full);
		ixy_stop(devs[i]);
	}
	fwd_queues_close(queues, n);
	ixy_close(devs[0]);
	ixy_close(devs[1]);
	return !ok;
}
