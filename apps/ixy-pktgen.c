// ixy-pktgen: sends minimum-sized UDP packets as fast as the NIC takes them, printing rates every second.
//
//   ixy-pktgen [--no-sandbox] [--user <name>] [--flows <k>] <pci>
//
// Every packet is the 60 byte template of common/packet.h with a sequence number 0, 1, 2, ... (32-bit
// little-endian, wrapping at 2^32) in its last 4 bytes. --flows k (1 to 1024, default 1): k flows, taking turns,
// that differ in UDP source port (flow f: 42 + (45 f mod 1031), i.e. 42, 87, 132, ...; packet_flow_port in
// common/packet.h says why not consecutive), each with its own sequence number 0, 1, 2, ... (generator.h); the
// totals line then ends with " flows=<k>". Ctrl-C or SIGTERM stops it: it prints its totals line
// (print_stats_totals) and closes the device.
#include <inttypes.h>
#include <stdio.h>

#include <ixy/checks.h>

#include "common/options.h"
#include "common/generator.h"
#include "common/rates.h"
#include "common/signals.h"

#define USAGE "ixy-pktgen [--flows <k>] <pci>   (PCI address like 0000:03:00.0)"

// Enough buffers to fill the TX ring (IXY_DEFAULT_RING_SIZE, 512) with many batches to spare: 4.1 MiB, three huge
// pages (memory_mempool_huge_pages).
#define NUM_BUFS 2048

static const struct option options[] = {ARG_FLOWS, ARG_SANDBOX, ARG_HELP_OPTION, {0}};

int main(int argc, char* argv[]) {
	struct app_options opt = {.flows = 1};
	int first = arg_options("ixy-pktgen", options, argc, argv, &opt);
	if (first < 0 || argc - first != 1 || !arg_pci_addrs("ixy-pktgen", &argv[first], 1)) {
		return usage(USAGE, first == ARG_HELP);
	}
	// One RX queue too, although nothing is received: it keeps the device configuration the same as in the other
	// apps. What arrives fills the RX ring and is then dropped by the NIC (counted as RX dropped).
	struct ixy_config config = {.pci_addr = argv[first], .rx_queues = 1, .tx_queues = 1};
	// The device and the packet pool allocated after it: both checked before the device is taken.
	if (!ixy_check_configs(&config, 1, memory_mempool_huge_pages(NUM_BUFS, 0)) || stop_on_signals() != 0) {
		return 1;
	}
	struct ixy_device* dev = ixy_init_config(&config);
	if (!dev) {
		return 1;
	}
	uint8_t mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
	if (ixy_get_mac_addr(dev, mac) != 0) {
		fprintf(stderr, "ixy-pktgen: cannot read the MAC address of %s, sending from 02:00:00:00:00:01\n",
			argv[first]);
	}
	struct mempool* pool = memory_allocate_mempool(NUM_BUFS, 0);
	struct generator gen;
	if (!pool || generator_init(&gen, pool, mac) != 0) {
		ixy_give_back(dev); // the app gives up: the NIC goes back to its kernel driver (ixy/checks.h)
		memory_free_mempool(pool);
		return 1;
	}
	gen.flows = opt.flows;
	int locked_out = ixy_sandbox_enter(&opt.sandbox) != 0; // the filter cannot be installed: stop and close
	struct device_stats stats, stats_old;
	stats_init(&stats, dev);
	stats_init(&stats_old, dev);
	uint64_t last_ns = monotonic_time_ns(), elapsed_ns;
	for (uint64_t round = 1; !locked_out && !stop_requested(); round++) {
		generator_send(&gen, dev, 0);
		if (second_passed(&last_ns, &elapsed_ns, round, false)) {
			ixy_read_stats(dev, &stats);
			print_stats_diff(stdout, &stats, &stats_old, elapsed_ns);
			stats_old = stats;
			// Each second reaches a pipe or log; a failing stdout must not stop the loop.
			(void)fflush(stdout);
		}
	}
	// Totals first: stopping resets the device, and with it the statistics registers. Then stop it: no more DMA,
	// and the buffers still in its TX ring are back in the pool, so pool_free shows a leak as pool_free <
	// pool_size.
	ixy_tx_batch(dev, 0, NULL, 0); // what the device sent since the last batch counts now (VirtIO counts there)
	ixy_read_stats(dev, &stats);
	ixy_stop(dev);
	// sent: packets the TX queue took; tx_full: packets a full TX queue refused (and the generator sent again).
	print_stats_totals(stdout, "ixy-pktgen", &stats);
	printf(" sent=%" PRIu64 " next_seq=%" PRIu32 " tx_full=%" PRIu64 " pool_free=%" PRIu32 " pool_size=%" PRIu32,
	       gen.sent, gen.next_seq, gen.not_taken, pool->free_stack_top, pool->num_entries);
	if (opt.flows > 1) {
		printf(" flows=%" PRIu32, opt.flows);
	}
	printf("\n");
	ixy_close(dev);
	memory_free_mempool(pool);
	return locked_out;
}
