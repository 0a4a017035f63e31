// ixy-fwd: forwards packets between two NICs in both directions, printing rates every second.
//
//   ixy-fwd <pci1> <pci2>   the paper's forwarder (fwd_paper.c): polls, one queue each
//   ixy-fwd [--no-sandbox] [--user <name>] [--poll | --wait <ms>] [--ring <descriptors>] [--queues <n>] <pci1> <pci2>
//                           the full build (fwd_features.c says what each option does; without one, it polls)
//
// Every packet received on one device is sent on the other with one byte changed (fwd.h says which). Ctrl-C or
// SIGTERM stops it: it prints a totals line per device (print_stats_totals) and closes both devices.
// main() is the paper's path; the features join it through fwd.h's struct fwd_entry, one call per step.
#include <inttypes.h>
#include <stdio.h>

#include "common/rates.h"
#include "common/signals.h"
#include "fwd.h"

int main(int argc, char* argv[]) {
	struct ixy_config configs[2];
	int exit_code = 1;
	if (!fwd_entry.parse(argc, argv, configs, &exit_code) || stop_on_signals() != 0) {
		return exit_code;
	}
	struct ixy_device* devs[2] = {ixy_init_config(&configs[0]), NULL};
	devs[1] = devs[0] ? ixy_init_config(&configs[1]) : NULL;
	if (!devs[1]) {
		fwd_entry.give_up(devs[0]);
		return 1;
	}
	struct fwd_counters counters[2] = {{0}};
	bool ok = !fwd_entry.start || fwd_entry.start(devs, counters);

	// Forward both ways until stopped; print the rates once a second.
	struct device_stats stats[2], stats_old[2];
	for (int i = 0; i < 2; i++) {
		stats_init(&stats[i], devs[i]);
		stats_init(&stats_old[i], devs[i]);
	}
	uint64_t last_ns = monotonic_time_ns(), elapsed_ns;
	for (uint64_t round = 1; ok && !stop_requested(); round++) {
		uint32_t received = forward(devs[0], 0, devs[1], 0, &counters[0]);
		received += forward(devs[1], 0, devs[0], 0, &counters[1]);
		bool slept = fwd_entry.idle && fwd_entry.idle(received); // then the clock moved on more than rounds say
		if (second_passed(&last_ns, &elapsed_ns, round, slept)) {
			if (fwd_entry.rates) {
				fwd_entry.rates(elapsed_ns);
			}
			for (int i = 0; i < 2; i++) {
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
	if (fwd_entry.stop) {
		fwd_entry.stop();
	}
	for (int i = 0; i < 2; i++) {
		ixy_read_stats(devs[i], &stats[i]);
		print_stats_totals(stdout, "ixy-fwd", &stats[i]);
		printf(" forwarded=%" PRIu64 " tx_full=%" PRIu64 "\n", counters[i].forwarded,
		       counters[i].dropped_tx_full);
		ixy_stop(devs[i]);
	}
	ixy_close(devs[0]);
	ixy_close(devs[1]);
	return !ok;
}
