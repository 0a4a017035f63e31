// ixy-pktgen: sends UDP test frames (or a pcap file's frames) at a chosen rate, or as fast as the NIC takes them,
// printing rates every second.
//
//   ixy-pktgen [--flows <k>] [--rate <n><unit>] [--size <bytes> | <min>-<max> | imix] [--seed <n>]
//              [--replay <file.pcap> [--loop] [--replay-timing]] [--count <n>] [--seconds <s>]
//              [--no-sandbox] [--user <name>] <pci>
//
// Every packet is the template of common/packet.h, 60 bytes or the size --size gives (common/sizes.h), ending in
// the send time (monotonic_time_ns, read once per batch) and a sequence number 0, 1, 2, ... (32-bit
// little-endian, wrapping at 2^32). --flows k (1 to 1024, default 1): k flows, taking turns, that differ in UDP
// source port (flow f: 42 + (45 f mod 1031), i.e. 42, 87, 132, ...; packet_flow_port in common/packet.h says why not
// consecutive), each with its own sequence number 0, 1, 2, ... (generator.h). --rate paces in software
// (common/pacing.h; Mbit and Gbit count the wire: frame + FCS + preamble + inter-frame gap, 24 bytes per frame).
// --replay file.pcap sends the file's frames instead, byte for byte, once or (--loop) again and again, at --rate, at
// the file's own timing (--replay-timing) or as fast as the NIC takes them (common/replay.h; the file is checked,
// common/pcap_read.h, before the device is taken; --flows, --size and --seed, which shape generated frames, are
// refused with it). --count n stops after n packets sent, --seconds s after s seconds; Ctrl-C or SIGTERM stops it
// too. Then it prints its totals line (print_stats_totals, then the keys below) and closes the device.
#include <inttypes.h>
#include <stdio.h>

#include <ixy/checks.h>

#include "common/generator.h"
#include "common/options.h"
#include "common/rates.h"
#include "common/replay.h"
#include "common/sender.h"
#include "common/signals.h"

#define USAGE                                                                                                          \
	"ixy-pktgen [--flows <k>] [--rate <n><unit>] [--size <bytes> | <min>-<max> | imix] [--seed <n>]\n"             \
	"           [--replay <file.pcap> [--loop] [--replay-timing]] [--count <n>] [--seconds <s>] <pci>\n"           \
	"           (PCI address like 0000:03:00.0)\n"                                                                 \
	"  --rate     units pps, kpps, Mpps, or Mbit, Gbit counting the wire: frame + 4 FCS + 8 preamble/SFD\n"        \
	"             + 12 inter-frame gap bytes (as the 82599 datasheet and MoonGen count); paced in software\n"      \
	"  --size     frame bytes without FCS, 60 to 1514 (default 60); <min>-<max>: uniform; imix: 60/590/1514\n"     \
	"             (64/594/1518 with FCS) in the ratio 7:4:1; random sizes from --seed (default 1)\n"               \
	"  --replay   send a classic pcap file's Ethernet frames (14 to 1514 bytes, none cut) byte for byte, once,\n"  \
	"             or with --loop again and again; at --rate, or at the file's timing with --replay-timing\n"       \
	"  --count    stop after n packets sent; --seconds: after s seconds"

// Enough buffers to fill the TX ring (IXY_DEFAULT_RING_SIZE, 512) with many batches to spare: 4.1 MiB, three huge
// pages (memory_mempool_huge_pages).
#define NUM_BUFS 2048

// How long ixy-pktgen waits at the end for the NIC to send what its TX queue took (wait_until_sent), and how long
// it sleeps between two looks (no busy loop).
#define DRAIN_NS (200 * 1000 * 1000ull)
#define DRAIN_STEP_NS (1000 * 1000ull)

// The NIC sends the frames its TX queue took some time later: before the totals and the stop (which resets the
// device and drops what is still in its ring), wait until the driver has every buffer back and its statistics count
// all `sent` packets as sent (tx_pkts), at most DRAIN_NS, so that all frames of --count, --seconds and --replay leave
// the NIC and the totals count them. buffers_out: the sender's buffers not yet back. The buffers alone do not tell
// over AF_XDP: it copies the sender's packets into its own frames and frees them at once, and counts a packet once
// the kernel's completion ring gave its frame back; each empty tx_batch takes the completions back (and wakes the
// kernel with a sendto while frames wait in the TX ring).
static void wait_until_sent(struct ixy_device* dev, uint32_t (*buffers_out)(const void*), const void* self,
			    uint64_t sent, struct device_stats* stats) {
	uint64_t now = monotonic_time_ns(), end_ns = now + DRAIN_NS;
	ixy_tx_batch(dev, 0, NULL, 0); // cleans the TX queue: what the NIC has sent comes back
	ixy_read_stats(dev, stats);
	while ((buffers_out(self) > 0 || stats->tx_pkts < sent) && now < end_ns) {
		pacing_sleep_until(now, now + DRAIN_STEP_NS, NULL); // (also after a stop)
		ixy_tx_batch(dev, 0, NULL, 0);
		ixy_read_stats(dev, stats);
		now = monotonic_time_ns();
	}
}

static uint32_t generator_out(const void* self) {
	const struct generator* gen = self;
	return gen->pool->num_entries - gen->pool->free_stack_top;
}

static uint32_t replay_out(const void* self) {
	const struct replay* replay = self;
	return replay->buffers - replay_free_buffers(replay);
}

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
	if (first < 0 || !arg_count("ixy-pktgen", argc, argv, first, 1, 1, "<pci>") ||
	    !arg_pci_addrs("ixy-pktgen", &argv[first], 1)) {
		return arg_exit(USAGE, first, argc);
	}
	if ((opt.loop || opt.replay_timing) && !opt.replay) {
		fprintf(stderr, "ixy-pktgen: --loop and --replay-timing need --replay\n");
		return EXIT_USAGE;
	}
	if (opt.replay && opt.generator_shaped) {
		// A replay sends the file's frames as they are: sizes and flows would be silently ignored.
		fprintf(stderr, "ixy-pktgen: --flows, --size and --seed shape generated frames: not with --replay\n");
		return EXIT_USAGE;
	}
	if (opt.replay_timing && opt.rate.per_second > 0) {
		fprintf(stderr, "ixy-pktgen: give --rate or --replay-timing, not both\n");
		return EXIT_USAGE;
	}
	struct replay replay = {0};
	if (opt.replay && replay_open(&replay, opt.replay, opt.loop, opt.replay_timing) != 0) {
		return 1; // the file is refused before any device is taken
	}
	// One RX queue too, although nothing is received: it keeps the device configuration the same as in the other
	// apps. What arrives fills the RX ring and is then dropped by the NIC (counted as RX dropped).
	struct ixy_config config = {.pci_addr = argv[first], .rx_queues = 1, .tx_queues = 1};
	// The device and the packet pool allocated after it: both checked before the device is taken.
	uint32_t num_bufs = opt.replay ? replay_buffers(&replay) : NUM_BUFS;
	if (!ixy_check_configs(&config, 1, memory_mempool_huge_pages(num_bufs, 0)) || stop_on_signals() != 0) {
		replay_free(&replay);
		return 1;
	}
	struct ixy_device* dev = ixy_init_config(&config);
	if (!dev) {
		replay_free(&replay);
		return 1;
	}
	uint8_t mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
	if (ixy_get_mac_addr(dev, mac) != 0) {
		fprintf(stderr, "ixy-pktgen: cannot read the MAC address of %s, sending from 02:00:00:00:00:01\n",
			argv[first]);
	}
	// The sender, chosen once: the generator with its pool, or the replay with the file's frames in its own.
	struct mempool* pool = opt.replay ? NULL : memory_allocate_mempool(NUM_BUFS, 0);
	struct generator gen = {0};
	if (opt.replay ? replay_load(&replay) != 0 : !pool || generator_init(&gen, pool, mac) != 0) {
		ixy_give_back(dev); // the app gives up: the NIC goes back to its kernel driver (ixy/checks.h)
		memory_free_mempool(pool);
		replay_free(&replay);
		return 1;
	}
	gen.flows = opt.flows;
	generator_set_sizes(&gen, &opt.sizes);
	const struct sender_ops* sender = opt.replay ? &replay_sender : &generator_sender;
	void* self = opt.replay ? (void*)&replay : (void*)&gen;
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
		uint32_t limit = batch_limit(&opt, opt.replay ? replay.position : gen.sent, now - start_ns);
		if (limit == 0) {
			break;
		}
		sender->send(self, dev, 0, now, limit, paced);
		// Ahead of the rate: sleep until the next frame is due (or the time is up), once per batch at most.
		uint64_t next_ns = sender->next_ns(self, paced);
		if (next_ns == UINT64_MAX) {
			break; // a replay without --loop: all sent
		}
		if (next_ns > now) {
			uint64_t end_ns = opt.seconds ? start_ns + opt.seconds * ONE_SECOND_NS : next_ns;
			pacing_sleep_until(now, next_ns < end_ns ? next_ns : end_ns, &stop_signal);
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
	// (VirtIO and AF_XDP count what they sent in the empty tx_batch calls of the wait.)
	wait_until_sent(dev, opt.replay ? replay_out : generator_out, self, opt.replay ? replay.position : gen.sent,
			&stats);
	ixy_stop(dev);
	// sent: packets the TX queue took; tx_full: packets a full TX queue refused (and the generator sent again);
	// bytes: their bytes without FCS; run_ns: from the first batch to the end; rate_pps or rate_bit: the target
	// (--rate; rate_pps=0: none) in packets or wire bits per second; size: the --size given (60, 60-1514, imix).
	char sizes[32];
	format_sizes(&opt.sizes, sizes, sizeof(sizes));
	// With --replay: sent counts the file's frames sent, next_seq is 0 (nothing is stamped), the pools are the
	// replay's, and replay_frames=<frames in the file> follows.
	struct sender_totals totals =
	    opt.replay ? (struct sender_totals){replay.position,
						replay.bytes,
						replay.not_taken,
						0,
						replay_free_buffers(&replay),
						replay.buffers}
		       : (struct sender_totals){
			     gen.sent, gen.bytes, gen.not_taken, gen.next_seq, pool->free_stack_top, pool->num_entries};
	print_stats_totals(stdout, "ixy-pktgen", &stats);
	printf(" sent=%" PRIu64 " next_seq=%" PRIu32 " tx_full=%" PRIu64 " pool_free=%" PRIu32 " pool_size=%" PRIu32,
	       totals.sent, totals.next_seq, totals.not_taken, totals.pool_free, totals.pool_size);
	printf(" bytes=%" PRIu64 " run_ns=%" PRIu64 " %s=%.0f size=%s", totals.bytes, run_ns,
	       opt.rate.wire_bits ? "rate_bit" : "rate_pps", opt.rate.per_second, opt.replay ? "replay" : sizes);
	if (opt.replay) {
		printf(" replay_frames=%" PRIu32, replay.frames);
	}
	if (opt.flows > 1) { // (never with --replay)
		printf(" flows=%" PRIu32, opt.flows);
	}
	printf("\n");
	ixy_close(dev);
	memory_free_mempool(pool);
	replay_free(&replay);
	return locked_out;
}
