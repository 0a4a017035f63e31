// ixy-fwd: forwards packets between two NICs in both directions, printing rates every second.
//
//   ixy-fwd <pci1> <pci2>
//
// Each device gets one RX and one TX queue and runs promiscuous (ixy_init turns that on). Every packet received on one
// device is sent on the other with one byte changed (fwd.h says which). Ctrl-C or SIGTERM stops it: it prints totals
// and closes both devices.
#include <signal.h>
#include <stdio.h>
#include <strings.h>

#include "fwd.h"

// The signal that asked to stop (SIGINT or SIGTERM), 0 until then.
static volatile sig_atomic_t stop_signal;

static void request_stop(int signum) {
	stop_signal = signum;
}

int main(int argc, char* argv[]) {
	if (argc != 3) {
		fprintf(stderr, "usage: ixy-fwd <pci1> <pci2>   (PCI addresses like 0000:03:00.0)\n");
		return 2;
	}
	// The second ixy_init would reset the device under the first one (hex digits may differ in case only).
	if (strcasecmp(argv[1], argv[2]) == 0) {
		fprintf(stderr, "ixy-fwd: %s given twice: forwarding needs two different NICs\n", argv[1]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		if (!ixy_valid_pci_addr(argv[i])) {
			fprintf(stderr, "ixy-fwd: '%s' is not a PCI address like 0000:03:00.0\n", argv[i]);
			return 2;
		}
	}
	// Both devices pass every check before either is taken: a bad second one must not leave the first unbound.
	for (int i = 1; i < argc; i++) {
		struct ixy_config config = {.pci_addr = argv[i], .rx_queues = 1, .tx_queues = 1};
		if (!ixy_check_config(&config)) {
			return 1;
		}
	}
	// SA_RESETHAND: a second Ctrl-C kills at once (e.g. while ixy_init waits for a link).
	struct sigaction action = {.sa_handler = request_stop, .sa_flags = SA_RESETHAND};
	if (sigaction(SIGINT, &action, NULL) != 0 || sigaction(SIGTERM, &action, NULL) != 0) {
		perror("ixy-fwd: sigaction");
		return 1;
	}
	struct ixy_device* devs[2] = {NULL, NULL};
	struct device_stats stats[2], last_stats[2];
	for (int i = 0; i < 2; i++) {
		devs[i] = ixy_init(argv[1 + i], 1, 1);
		if (!devs[i]) {
			ixy_close(devs[0]); // the first device, if it is the second that failed
			return 1;
		}
		stats_init(&stats[i], devs[i]);
		last_stats[i] = stats[i];
	}
	struct fwd_counters counters[2] = {{0}}; // counters[i]: from devs[i] to the other one
	uint64_t last_print_ns = monotonic_time_ns();
	for (uint32_t round = 1; !stop_signal; round++) {
		forward(devs[0], 0, devs[1], 0, &counters[0]);
		forward(devs[1], 0, devs[0], 0, &counters[1]);
		// Reading the clock for every batch would cost more than the packets: look only every 4096 rounds.
		uint64_t now_ns = round % 4096 == 0 ? monotonic_time_ns() : last_print_ns;
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
	ixy_close(devs[0]);
	ixy_close(devs[1]);
	return 0;
}
