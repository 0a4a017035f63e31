// ixy-pktgen: sends UDP test frames (or a pcap file's frames) at a chosen rate, or as fast as the NIC takes them,
// printing rates every second.
//
//   ixy-pktgen [--flows <k>] [--rate <n><unit>] [--size <bytes> | <min>-<max> | imix] [--seed <n>]
//              [--count <n>] [--seconds <s>] [--no-sandbox] [--user <name>] <pci>
//
// Every packet is the template of common/packet.h, 60 bytes or the size --size gives (common/sizes.h), ending in
// the send time (monotonic_time_ns, read once per batch) and a sequence number 0, 1, 2, ... (32-bit
// little-endian, wrapping at 2^32). --flows k (1 to 1024, default 1): k flows, taking turns, that differ in UDP
// source port (flow f: 42 + (45 f mod 1031), i.e. 42, 87, 132, ...; packet_flow_port in common/packet.h says why not
// consecutive), each with its own sequence number 0, 1, 2, ... (generator.h). --rate paces in software
// (common/pacing.h; Mbit and Gbit count the wire: frame + FCS + preamble + inter-frame gap, 24 bytes per frame).
// --count n stops after n packets sent, --seconds s after s seconds; Ctrl-C or SIGTERM stops it too. Then it prints
// its totals line (print_stats_totals, then the keys below) and closes the device.
#include <inttypes.h>
#include <stdio.h>

#include <ixy/checks.h>

#include "common/generator.h"
#include "common/options.h"
#include "common/rates.h"
#include "common/signals.h"

#define USAGE                                                                                                          \
	"ixy-pktgen [--flows <k>] [--rate <n><unit>] [--size <bytes> | <min>-<max> | imix] [--seed <n>]\n"             \
	"           [--count <n>] [--seconds <s>] <pci>   (PCI address like 0000:03:00.0)\n"                           \
	"  --rate     units pps, kpps, Mpps, or Mbit, Gbit counting the wire: frame + 4 FCS + 8 preamble/SFD\n"        \
	"             + 12 inter-frame gap bytes (as the 82599 datasheet and MoonGen count); paced in software\n"      \
	"  --size     frame bytes without FCS, 60 to 1514 (default 60); <min>-<max>: uniform; imix: 60/590/1514\n"     \
	"             (64/594/1518 with FCS) in the ratio 7:4:1; random sizes from --seed (default 1)\n"               \
	"  --count    stop after n packets sent; --seconds: after s seconds"

// Enough buffers to fill the TX ring (IXY_DEFAULT_RING_SIZE, 512) with many batches to spare: 4.1 MiB, three huge
// pages (memory_mempool_huge_pages).
#define NUM_BUFS 2048

static const struct option options[] = {ARG_FLOWS, ARG_PKTGEN, ARG_SANDBOX, ARG_HELP_OPTION, {0}};

// Whether --count or --seconds says stop, and how many packets the next batch may hold.
static uint32_t batch_limit(const struct app_options* opt, uint64_t sent, uint64_t elapsed_ns) {
	if (opt->seconds && elapsed_ns >= opt->seconds * ONE_SECOND_NS) {
		return 0;
	}
	if (opt->count && opt->count - sent < GENERATOR_BATCH_SIZE) {
		return (uint32_t)(opt->count - sent);
	}
	return GENERATOR_BATCH_SIZE;
}

int main(int argc, char* argv[]) {
	struct app_options opt = {.flows = 1, .sizes = {.mode = SIZE_FIXED, .min = 60, .max = 60, .state = 1}};
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
	generator_set_sizes(&gen, &opt.sizes);
	int locked_out = ixy_sandbox_enter(&opt.sandbox) != 0; // the filter cannot be installed: stop and close
	struct device_stats stats, stats_old;
	stats_init(&stats, dev);
	stats_init(&stats_old, dev);
	uint64_t start_ns = monotonic_time_ns(), last_ns = start_ns, elapsed_ns;
	struct pacer pacer;
	pacer_init(&pacer, &opt.rate, start_ns);
	struct pacer* paced = opt.rate.per_second > 0 ? &pacer : NULL;
	for (uint64_t round = 1; !locked_out && !stop_requested(); round++) {
		uint64_t now = monotonic_time_ns(); // once per batch: the send time stamped, the pacing, the limits
		uint32_t limit = batch_limit(&opt, gen.sent, now - start_ns);
		if (limit == 0) {
			break;
		}
		generator_send(&gen, dev, 0, now, limit, paced);
		// Ahead of the rate: sleep until the next frame is due (or the time is up), once per batch at most.
		uint64_t next_ns = paced ? pacer_next_ns(paced) : 0;
		if (next_ns > now) {
			uint64_t end_ns = opt.seconds ? start_ns + opt.seconds * ONE_SECOND_NS : next_ns;
			pacing_sleep_until(next_ns < end_ns ? next_ns : end_ns);
		}
		if (second_passed(&last_ns, &elapsed_ns, round, next_ns > now)) {
			ixy_read_stats(dev, &stats);
			print_stats_diff(stdout, &stats, &stats_old, elapsed_ns);
			stats_old = stats;
			// Each second reaches a pipe or log; a failing stdout must not stop the loop.
			(void)fflush(stdout);
		}
	}
	uint64_t run_ns = monotonic_time_ns() - start_ns;
	// Totals first: stopping resets the device, and with it the statistics registers. Then stop it: no more DMA,
	// and the buffers still in its TX ring are back in the pool, so pool_free shows a leak as pool_free <
	// pool_size.
	ixy_tx_batch(dev, 0, NULL, 0); // what the device sent since the last batch counts now (VirtIO counts there)
	ixy_read_stats(dev, &stats);
	ixy_stop(dev);
	// sent: packets the TX queue took; tx_full: packets a full TX queue refused (and the generator sent again);
	// bytes: their bytes without FCS; run_ns: from the first batch to the end; rate_pps or rate_bit: the target
	// (--rate; rate_pps=0: none) in packets or wire bits per second; size: the --size given (60, 60-1514, imix).
	char sizes[32];
	format_sizes(&opt.sizes, sizes, sizeof(sizes));
	print_stats_totals(stdout, "ixy-pktgen", &stats);
	printf(" sent=%" PRIu64 " next_seq=%" PRIu32 " tx_full=%" PRIu64 " pool_free=%" PRIu32 " pool_size=%" PRIu32,
	       gen.sent, gen.next_seq, gen.not_taken, pool->free_stack_top, pool->num_entries);
	printf(" bytes=%" PRIu64 " run_ns=%" PRIu64 " %s=%.0f size=%s", gen.bytes, run_ns,
	       opt.rate.wire_bits ? "rate_bit" : "rate_pps", opt.rate.per_second, sizes);
	if (opt.flows > 1) {
		printf(" flows=%" PRIu32, opt.flows);
	}
	printf("\n");
	ixy_close(dev);
	memory_free_mempool(pool);
	return locked_out;
}
