// ixy-fwd: forwards packets between two NICs in both directions, printing rates every second.
//
//   ixy-fwd <pci1> <pci2>
//
// Each device gets one RX and one TX queue and runs promiscuous. Every packet received on one device is sent on the
// other with one byte changed (fwd.h says which). Ctrl-C or SIGTERM stops it: it prints totals and closes both devices.
#include <stdio.h>

#include "common/args.h"
#include "common/open.h"
#include "common/rates.h"
#include "common/signals.h"
#include "fwd.h"

#define USAGE "ixy-fwd <pci1> <pci2>   (PCI addresses like 0000:03:00.0; forwards in both directions)"

int main(int argc, char* argv[]) {
	if (argc != 3 || !arg_pci_addr("ixy-fwd", argv[1]) || !arg_pci_addr("ixy-fwd", argv[2])) {
		return usage(USAGE);
	}
	if (stop_on_signals() != 0) {
		return 1;
	}
	struct ixy_device* dev1 = open_promiscuous(argv[1]);
	struct ixy_device* dev2 = dev1 ? open_promiscuous(argv[2]) : NULL;
	if (!dev2) {
		ixy_close(dev1); // does nothing if dev1 is NULL
		return 1;
	}
	struct rate_meter meter1, meter2;
	rate_meter_init(&meter1, dev1);
	rate_meter_init(&meter2, dev2);
	struct fwd_counters one_to_two = {0}, two_to_one = {0};
	struct ticker ticker;
	ticker_start(&ticker, ONE_SECOND_NS);
	uint64_t elapsed_ns;
	while (!stop_requested()) {
		forward(dev1, 0, dev2, 0, &one_to_two);
		forward(dev2, 0, dev1, 0, &two_to_one);
		if (ticker_due(&ticker, &elapsed_ns)) {
			rate_meter_print(&meter1, elapsed_ns, stdout);
			rate_meter_print(&meter2, elapsed_ns, stdout);
		}
	}
	rate_meter_print_total(&meter1, stdout);
	rate_meter_print_total(&meter2, stdout);
	printf("%s -> %s: forwarded %llu packets, dropped %llu (TX queue full)\n", argv[1], argv[2],
	       (unsigned long long)one_to_two.forwarded, (unsigned long long)one_to_two.dropped_tx_full);
	printf("%s -> %s: forwarded %llu packets, dropped %llu (TX queue full)\n", argv[2], argv[1],
	       (unsigned long long)two_to_one.forwarded, (unsigned long long)two_to_one.dropped_tx_full);
	ixy_close(dev1);
	ixy_close(dev2);
	return 0;
}
