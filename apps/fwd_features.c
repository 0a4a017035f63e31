// ixy-fwd's features, entered from its main() through fwd.h's struct fwd_entry (the full build; the paper's build
// takes fwd_paper.c instead). The options (common/options.h):
//   --poll (the default) never sleeps; --wait <ms> sleeps while no packet comes, at most <ms> at a time, on NICs
//   reached through VFIO and AF_XDP devices (ixy/interrupts.h);
//   --ring sets the descriptors per ring of both NICs;
//   --queues n forwards queue i of each device to queue i of the other in a thread of its own (fwd_queues.h), printing
//   each second the lines of both devices' queues before the devices' rates, and at the end the queues' lines before
//   the devices' totals;
//   --user and --no-sandbox are about the least privilege the app keeps once its devices run (ixy/sandbox.h).
// Both devices and their DMA memory are checked before the first is taken (ixy/checks.h).
#include <ixy/checks.h>
#include <ixy/sandbox.h>

#include "common/options.h"
#include "fwd.h"
#include "fwd_queues.h"

#define USAGE                                                                                                          \
	"ixy-fwd " ARG_WAIT_USAGE " " ARG_RING_USAGE " [--queues <n>] <pci1> <pci2>   (PCI addresses like "            \
	"0000:03:00.0)\n  it polls, as the paper's forwarder, unless --wait <ms> lets it sleep while no packet comes"

static const struct option options[] = {ARG_POLL_WAIT, ARG_RING, ARG_QUEUES, ARG_SANDBOX, ARG_HELP_OPTION, {0}};

static struct app_options opt;
static struct fwd_queue queues[IXY_MAX_QUEUES]; // queues[0]: main's, whose counters main keeps (main_counters)
static struct fwd_counters* main_counters;
static uint16_t n; // queues per device

static bool features_parse(int argc, char* argv[], struct ixy_config configs[2], int* exit_code) {
	opt = (struct app_options){.wait_ms = 0, .queues = 1};
	int first = arg_options("ixy-fwd", options, argc, argv, &opt);
	if (first < 0 || !arg_count("ixy-fwd", argc, argv, first, 2, 2, "<pci1> <pci2>") ||
	    !arg_pci_addrs("ixy-fwd", &argv[first], 2)) {
		*exit_code = arg_exit(USAGE, first, argc);
		return false;
	}
	n = (uint16_t)opt.queues;
	for (int i = 0; i < 2; i++) {
		configs[i] = (struct ixy_config){.pci_addr = argv[first + i],
						 .rx_queues = n,
						 .tx_queues = n,
						 .ring_size = opt.ring_size,
						 .interrupt_timeout_ms = (int32_t)opt.wait_ms};
	}
	// Check both devices and their DMA memory before taking the first: a refusal leaves both as they are.
	return ixy_check_configs(configs, 2, 0);
}

static bool features_start(struct ixy_device* devs[2], struct fwd_counters counters[2]) {
	main_counters = counters;
	queues[0] = (struct fwd_queue){.devs = devs, .queue = 0};
	// Capabilities are dropped before the queues' threads start, so that these start without any (ixy/sandbox.h).
	bool dropped = ixy_sandbox_drop_privileges(&opt.sandbox) == 0;
	bool ok = fwd_queues_start(queues, n, devs, opt.wait_ms > 0) && dropped && ixy_sandbox_enter(&opt.sandbox) == 0;
	fwd_queues_go(ok);
	return ok;
}

static bool features_idle(uint32_t received) {
	return ixy_waiter_round(queues[0].waiter, received);
}

// Queue 0's counters are main's own: copied for the queues' file to read (no other thread writes them).
static void features_rates(uint64_t elapsed_ns) {
	for (int i = 0; i < 2; i++) {
		queues[0].counters[i] = main_counters[i];
		fwd_queues_print_rates(queues, n, i, elapsed_ns);
	}
}

static void features_stop(void) {
	fwd_queues_stop();
	for (int i = 0; i < 2; i++) {
		queues[0].counters[i] = main_counters[i];
		fwd_queues_totals(queues, n, i, &main_counters[i]); // the other queues' added, and a line per queue
	}
	fwd_queues_close(queues, n);
}

// The app gives up: the first NIC goes back to its kernel driver (ixy/checks.h).
const struct fwd_entry fwd_entry = {.parse = features_parse,
				    .give_up = ixy_give_back,
				    .start = features_start,
				    .idle = features_idle,
				    .rates = features_rates,
				    .stop = features_stop};
