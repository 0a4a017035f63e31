// ixy-pktgen: sends UDP test frames (or a pcap file's frames) at a chosen rate, or as fast as the NIC takes them,
// printing rates every second.
//
//   ixy-pktgen [--flows <k>] [--rate <n><unit>] [--size <bytes> | <min>-<max> | imix] [--seed <n>]
//              [--src-mac <mac>] [--dst-mac <mac>] [--src-ip <ip>[-<ip>]] [--dst-ip <ip>[-<ip>]]
//              [--src-port <port>[-<port>]] [--dst-port <port>[-<port>]] [--vlan <id>[:<priority>]] [--queues <n>]
//              [--mark-end] [--replay <file.pcap> [--loop] [--replay-timing]] [--count <n>] [--seconds <s>]
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
// Issue 37: the addresses, the 802.1Q tag and the IP family of the frames, and ranges the flows walk (common/flows.h);
// without --flows, as many flows as the longest range has values (and at least --queues). With --mark-end, when it
// stops, each flow sends FLOWS_END_REPEAT end markers carrying its count (flows.h; not in sent=, counted as
// end_frames=), so that ixy-pcap --report also counts the frames lost at the end. --queues n (generated frames only): n
// TX queues, a thread each (queue 0 the main thread's), shared nothing as in ixy-fwd (fwd_queues.h): each has its own
// pool, generator, flows (flow f on queue f mod n, each with its own sequence numbers), share of --count and of --rate.
// Before the totals line, with n > 1, one line per queue: "queue app=ixy-pktgen pci=<addr> queue=<i> sent=<n> ...".
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ixy/checks.h>
#include <ixy/settings.h>

#include "common/generator.h"
#include "common/pktgen_options.h"
#include "common/rates.h"
#include "common/replay.h"
#include "common/sender.h"
#include "common/signals.h"

#define USAGE                                                                                                          \
	"ixy-pktgen [--flows <k>] [--rate <n><unit>] [--size <bytes> | <min>-<max> | imix] [--seed <n>]\n"             \
	"           [--src-mac <mac>] [--dst-mac <mac>] [--src-ip <ip>[-<ip>]] [--dst-ip <ip>[-<ip>]]\n"               \
	"           [--src-port <port>[-<port>]] [--dst-port <port>[-<port>]] [--vlan <id>[:<priority>]]\n"            \
	"           [--queues <n>] [--mark-end] [--replay <file.pcap> [--loop] [--replay-timing]] [--count <n>]\n"     \
	"           [--seconds <s>] <pci>\n"                                                                           \
	"           (PCI address like 0000:03:00.0)\n"                                                                 \
	"  --rate     units pps, kpps, Mpps, or Mbit, Gbit counting the wire: frame + 4 FCS + 8 preamble/SFD\n"        \
	"             + 12 inter-frame gap bytes (as the 82599 datasheet and MoonGen count); paced in software\n"      \
	"  --size     frame bytes without FCS, 60 to 1514 (default 60); <min>-<max>: uniform; imix: 60/590/1514\n"     \
	"             (64/594/1518 with FCS) in the ratio 7:4:1; random sizes from --seed (default 1)\n"               \
	"  --replay   send a classic pcap file's Ethernet frames (14 to 1514 bytes, none cut) byte for byte, once,\n"  \
	"             or with --loop again and again; at --rate, or at the file's timing with --replay-timing\n"       \
	"  --count    stop after n packets sent; --seconds: after s seconds\n"                                         \
	"  --src-ip, --dst-ip, --src-port, --dst-port: one value or a range <first>-<last> that the flows walk;\n"     \
	"             IPv4 or IPv6 (not mixed); --vlan: an 802.1Q tag, id 0 to 4094, priority 0 to 7\n"                \
	"  --mark-end at the end, each flow's count in 3 end markers (ixy-pcap --report: loss at the end)\n"           \
	"  --queues   n TX queues, a thread each, the flows split between them"

// Enough buffers to fill the TX ring (IXY_DEFAULT_RING_SIZE, 512) with many batches to spare: 4.1 MiB, three huge
// pages (memory_mempool_huge_pages).
#define NUM_BUFS 2048

// How long ixy-pktgen waits at the end for the NIC to send what its TX queue took (wait_until_sent), and how long
// it sleeps between two looks (no busy loop).
#define DRAIN_NS (200 * 1000 * 1000ull)
#define DRAIN_STEP_NS (1000 * 1000ull)

// One TX queue's sender (issue 37: --queues): its own generator and pool, pacer and share of --count.
struct queue_run {
	uint16_t queue;
	uint64_t limit; // packets this queue may send (its share of --count); UINT64_MAX: no limit
	const struct sender_ops* sender;
	void* self; // the generator below, or the replay
	struct pacer pacer;
	struct pacer* paced; // &pacer with --rate, else NULL
	struct mempool* pool;
	struct generator gen; // (large: its flow table)
};

// The NIC sends the frames its TX queue took some time later: before the totals and the stop (which resets the
// device and drops what is still in its ring), wait until the driver has every buffer of each of the n queues back
// and its statistics count all `sent` packets as sent (tx_pkts), at most DRAIN_NS, so that all frames of --count,
// --seconds and --replay (and the end markers) leave the NIC and the totals count them. buffers_out: a sender's
// buffers not yet back. The buffers alone do not tell over AF_XDP: it copies the sender's packets into its own frames
// and frees them at once, and counts a packet once the kernel's completion ring gave its frame back; each empty
// tx_batch takes the completions back (and wakes the kernel with a sendto while frames wait in the TX ring).
static void wait_until_sent(struct ixy_device* dev, struct queue_run* const queues[], uint16_t n,
			    uint32_t (*buffers_out)(const void*), uint64_t sent, struct device_stats* stats) {
	uint64_t now = monotonic_time_ns(), end_ns = now + DRAIN_NS;
	uint32_t out = 0;
	for (uint16_t q = 0; q < n; q++) {
		ixy_tx_batch(dev, q, NULL, 0); // cleans the TX queue: what the NIC has sent comes back
		out += buffers_out(queues[q]->self);
	}
	ixy_read_stats(dev, stats);
	while ((out > 0 || stats->tx_pkts < sent) && now < end_ns) {
		pacing_sleep_until(now, now + DRAIN_STEP_NS, NULL); // (also after a stop)
		out = 0;
		for (uint16_t q = 0; q < n; q++) {
			ixy_tx_batch(dev, q, NULL, 0);
			out += buffers_out(queues[q]->self);
		}
		ixy_read_stats(dev, stats);
		now = monotonic_time_ns();
	}
}

// A generator's end markers (generator_send_end), waiting for room in a full TX queue at most DRAIN_NS.
static void send_end(struct ixy_device* dev, struct generator* gen, uint16_t queue) {
	uint64_t now = monotonic_time_ns(), end_ns = now + DRAIN_NS;
	while (generator_send_end(gen, dev, queue) > 0 && now < end_ns) {
		pacing_sleep_until(now, now + DRAIN_STEP_NS / 10, NULL); // (also after a stop)
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

static const struct option options[] = {ARG_FLOWS,       ARG_PKTGEN, ARG_ADDRESSES, ARG_QUEUES, ARG_SANDBOX,
					ARG_HELP_OPTION, {0}};

// What all queues share, read-only while they run.
struct run {
	const struct pktgen_options* opt;
	struct ixy_device* dev;
	uint64_t start_ns;
};

static atomic_int phase; // set by the main thread only: 0 wait (for the sandbox), 1 send, 2 stop
static atomic_int signs; // each thread of queues 1..n-1 signs in when it runs and out when it has left its loop

static uint64_t sent_of(const struct queue_run* q) {
	return q->self == &q->gen ? q->gen.sent : ((const struct replay*)q->self)->position;
}

// Whether --count or --seconds says stop, and how many packets the next batch may hold.
static uint32_t batch_limit(const struct run* run, const struct queue_run* q, uint64_t elapsed_ns) {
	uint64_t sent = sent_of(q);
	if (run->opt->seconds && elapsed_ns >= run->opt->seconds * ONE_SECOND_NS) {
		return 0;
	}
	if (q->limit - sent < GENERATOR_BATCH_SIZE) {
		return (uint32_t)(q->limit - sent);
	}
	return GENERATOR_BATCH_SIZE;
}

// One batch of queue q, and the sleep until its next frame is due. Returns false when the queue is done; *slept
// says whether it slept.
static bool queue_round(const struct run* run, struct queue_run* q, bool* slept) {
	uint64_t now = monotonic_time_ns(); // once per batch: the send time stamped, the pacing, the limits
	uint32_t limit = batch_limit(run, q, now - run->start_ns);
	if (limit == 0) {
		return false;
	}
	q->sender->send(q->self, run->dev, q->queue, now, limit, q->paced);
	// Ahead of the rate: sleep until the next frame is due (or the time is up), once per batch at most.
	uint64_t next_ns = q->sender->next_ns(q->self, q->paced);
	if (next_ns == UINT64_MAX) {
		return false; // a replay without --loop: all sent
	}
	*slept = next_ns > now;
	if (next_ns > now) {
		uint64_t end_ns = run->opt->seconds ? run->start_ns + run->opt->seconds * ONE_SECOND_NS : next_ns;
		pacing_sleep_until(now, next_ns < end_ns ? next_ns : end_ns, &stop_signal);
	}
	return true;
}

static struct run the_run; // the threads' view of the run (set before they start)

static void* queue_thread(void* arg) { // queues 1..n-1
	struct queue_run* q = arg;
	atomic_fetch_add(&signs, 1);
	for (int now; (now = atomic_load_explicit(&phase, memory_order_relaxed)) != 2 && !stop_requested();) {
		bool slept;
		if (now == 1 && !queue_round(&the_run, q, &slept)) {
			break;
		}
	}
	atomic_fetch_add(&signs, 1);
	return NULL;
}

static void wait_for_signs(int count) {
	while (atomic_load(&signs) < count) {
		(void)nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
	}
}

// Starts the threads of queues 1..n-1 and waits until each runs; returns how many started.
static uint16_t start_threads(struct queue_run* queues[], uint16_t n) {
	uint16_t started = 0;
	for (uint16_t i = 1; i < n; i++) {
		pthread_t thread;
		int err = pthread_create(&thread, NULL, queue_thread, queues[i]);
		err = err ? err : pthread_detach(thread);
		if (err) {
			fprintf(stderr, "ixy-pktgen: no thread for queue %u: %s\n", i, strerror(err));
			break;
		}
		started++;
	}
	wait_for_signs(started);
	return started;
}

// Queue q's generator on its own pool, with flows q, q + n, ... of the spec; NULL with a message.
static struct queue_run* queue_create(const struct pktgen_options* opt, uint16_t q, uint16_t n, const uint8_t mac[6],
				      uint32_t flows) {
	struct queue_run* run = calloc(1, sizeof(*run));
	if (!run) {
		fprintf(stderr, "ixy-pktgen: out of memory\n");
		return NULL;
	}
	run->queue = q;
	run->pool = memory_allocate_mempool(NUM_BUFS, 0);
	if (!run->pool || generator_init_spec(&run->gen, run->pool, &opt->spec, mac, q, n) != 0) {
		memory_free_mempool(run->pool);
		free(run);
		return NULL;
	}
	run->gen.flows = flows / n + (q < flows % n);
	struct frame_sizes sizes = opt->sizes;
	if (!opt->size_given) { // the default: the form's smallest frame (60 bytes without tag and IPv6)
		sizes.min = sizes.max = run->gen.form.min_size;
	}
	generator_set_sizes(&run->gen, &sizes);
	run->sender = &generator_sender;
	run->self = &run->gen;
	return run;
}

static void queue_free(struct queue_run* q) {
	if (q) {
		memory_free_mempool(q->pool);
		free(q);
	}
}

// Refuses what the addresses and queues cannot do (one line, exit 2), and sets the number of flows.
static bool check_shape(struct pktgen_options* opt) {
	const char* problem = spec_problem(&opt->spec);
	struct packet_form form;
	spec_form(&opt->spec, &form);
	if (problem) {
		fprintf(stderr, "ixy-pktgen: %s\n", problem);
		return false;
	}
	if (opt->size_given && opt->sizes.min < form.min_size) {
		fprintf(stderr, "ixy-pktgen: --size below %u bytes: too short for the tag and the headers\n",
			form.min_size);
		return false;
	}
	if (opt->replay && opt->app.queues > 1) {
		fprintf(stderr, "ixy-pktgen: --queues splits generated flows: not with --replay\n");
		return false;
	}
	if (opt->flows_given && opt->flows < opt->app.queues) {
		fprintf(stderr, "ixy-pktgen: --flows %u: fewer flows than --queues %u\n", opt->flows, opt->app.queues);
		return false;
	}
	if (!opt->flows_given) {
		uint32_t walked = spec_flows(&opt->spec, ARG_MAX_FLOWS);
		opt->flows = walked > opt->app.queues ? walked : opt->app.queues;
	}
	return true;
}

// With n > 1 queues, a line per queue; adds each queue's counts to *sum.
static void queue_totals(const char* pci, struct queue_run* queues[], uint16_t n, struct sender_totals* sum,
			 uint64_t* end_frames) {
	for (uint16_t i = 0; i < n; i++) {
		const struct generator* g = &queues[i]->gen;
		sum->sent += g->sent;
		sum->bytes += g->bytes;
		sum->not_taken += g->not_taken;
		sum->pool_free += queues[i]->pool->free_stack_top;
		sum->pool_size += queues[i]->pool->num_entries;
		*end_frames += g->end_frames;
		if (n > 1) {
			printf("queue app=ixy-pktgen pci=%s queue=%u sent=%" PRIu64 " bytes=%" PRIu64
			       " tx_full=%" PRIu64 " end_frames=%" PRIu64 " flows=%u\n",
			       pci, i, g->sent, g->bytes, g->not_taken, g->end_frames, g->flows);
		}
	}
	sum->next_seq = queues[0]->gen.next_seq;
}

int main(int argc, char* argv[]) {
	struct pktgen_options opt = {
	    .app.queues = 1, .flows = 1, .sizes = {.mode = SIZE_FIXED, .min = 60, .max = 60, .state = 1}};
	spec_default(&opt.spec);
	int first = pktgen_arg_options("ixy-pktgen", options, argc, argv, &opt);
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
	if (!check_shape(&opt)) {
		return EXIT_USAGE;
	}
	struct replay replay = {0};
	if (opt.replay && replay_open(&replay, opt.replay, opt.loop, opt.replay_timing) != 0) {
		return 1; // the file is refused before any device is taken
	}
	uint16_t n = (uint16_t)opt.app.queues;
	// One RX queue too, although nothing is received: it keeps the device configuration the same as in the other
	// apps. What arrives fills the RX ring and is then dropped by the NIC (counted as RX dropped).
	struct ixy_config config = {.pci_addr = argv[first], .rx_queues = 1, .tx_queues = n};
	// The device and the packet pools allocated after it: all checked before the device is taken.
	uint32_t pages = opt.replay ? memory_mempool_huge_pages(replay_buffers(&replay), 0)
				    : memory_mempool_huge_pages(NUM_BUFS, 0) * n;
	if (!ixy_check_configs(&config, 1, pages) || stop_on_signals() != 0) {
		replay_free(&replay);
		return 1;
	}
	struct ixy_device* dev = ixy_init_config(&config);
	if (!dev) {
		replay_free(&replay);
		return 1;
	}
	uint8_t mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
	if (!opt.spec.src_mac_given && ixy_get_mac_addr(dev, mac) != 0) {
		fprintf(stderr, "ixy-pktgen: cannot read the MAC address of %s, sending from 02:00:00:00:00:01\n",
			argv[first]);
	}
	// The senders, chosen once: a generator with its pool per queue, or the replay with the file's frames in its
	// own.
	struct queue_run* queues[IXY_MAX_QUEUES] = {0};
	struct queue_run replay_run = {.sender = &replay_sender, .self = &replay};
	bool ready = true;
	if (opt.replay) {
		queues[0] = &replay_run;
		ready = replay_load(&replay) == 0;
	}
	for (uint16_t q = 0; q < n && ready && !opt.replay; q++) {
		ready = (queues[q] = queue_create(&opt, q, n, mac, opt.flows)) != NULL;
	}
	if (!ready) {
		ixy_give_back(dev); // the app gives up: the NIC goes back to its kernel driver (ixy/checks.h)
		for (uint16_t q = 0; q < n && !opt.replay; q++) {
			queue_free(queues[q]);
		}
		replay_free(&replay);
		return 1;
	}
	uint64_t start_ns = monotonic_time_ns();
	for (uint16_t q = 0; q < n; q++) {
		struct rate rate = opt.rate;
		rate.per_second /= n; // each queue its share
		pacer_init(&queues[q]->pacer, &rate, start_ns);
		queues[q]->paced = opt.rate.per_second > 0 ? &queues[q]->pacer : NULL;
		queues[q]->limit = opt.count ? opt.count / n + (q < opt.count % n) : UINT64_MAX;
	}
	the_run = (struct run){.opt = &opt, .dev = dev, .start_ns = start_ns};
	atomic_store(&phase, 0);
	atomic_store(&signs, 0);
	// Capabilities are dropped before the queues' threads start, so that these start without any (ixy/sandbox.h).
	bool dropped = n == 1 || ixy_sandbox_drop_privileges(&opt.app.sandbox) == 0;
	uint16_t threads = n > 1 && dropped ? start_threads(queues, n) : 0;
	// The filter cannot be installed, or a thread did not start: stop and close
	int locked_out = !dropped || threads != n - 1 || ixy_sandbox_enter(&opt.app.sandbox) != 0;
	atomic_store(&phase, locked_out ? 2 : 1);
	struct device_stats stats, stats_old;
	stats_init(&stats, dev);
	stats_init(&stats_old, dev);
	uint64_t last_ns = start_ns, elapsed_ns;
	bool slept = false;
	for (uint64_t round = 1; !locked_out && !stop_requested() && queue_round(&the_run, queues[0], &slept);
	     round++) {
		if (second_passed(&last_ns, &elapsed_ns, round, slept)) {
			ixy_read_stats(dev, &stats);
			print_stats_diff(stdout, &stats, &stats_old, elapsed_ns);
			stats_old = stats;
			// Each second reaches a pipe or log; a failing stdout must not stop the loop.
			(void)fflush(stdout);
		}
	}
	if (locked_out || stop_requested()) {
		atomic_store(&phase, 2);
	}
	wait_for_signs(2 *
		       threads); // the other queues end (their share sent, time up, or stopped): the queues are ours
	uint64_t run_ns = monotonic_time_ns() - start_ns;
	// Each flow's end markers, then totals: stopping resets the device, and with it the statistics registers. Then
	// stop it: no more DMA, and the buffers still in its TX ring are back in the pool, so pool_free shows a leak
	// as pool_free < pool_size.
	uint64_t to_leave = opt.replay ? replay.position : 0;
	for (uint16_t q = 0; q < n && !opt.replay; q++) {
		if (opt.spec.mark_end && !locked_out) {
			send_end(dev, &queues[q]->gen, q);
		}
		to_leave += queues[q]->gen.sent + queues[q]->gen.end_frames;
	}
	// (VirtIO and AF_XDP count what they sent in the empty tx_batch calls of the wait.)
	wait_until_sent(dev, queues, n, opt.replay ? replay_out : generator_out, to_leave, &stats);
	ixy_stop(dev);
	// sent: packets the TX queue took; tx_full: packets a full TX queue refused (and the generator sent again);
	// bytes: their bytes without FCS; run_ns: from the first batch to the end; rate_pps or rate_bit: the target
	// (--rate; rate_pps=0: none) in packets or wire bits per second; size: the --size given (60, 60-1514, imix);
	// end_frames: the end markers sent after them (not in sent or bytes). With --queues n > 1 the sums of the
	// queues (next_seq: queue 0's).
	char sizes[32];
	struct frame_sizes shown = opt.replay ? opt.sizes : queues[0]->gen.sizes;
	format_sizes(&shown, sizes, sizeof(sizes));
	// With --replay: sent counts the file's frames sent, next_seq is 0 (nothing is stamped), the pools are the
	// replay's, and replay_frames=<frames in the file> follows.
	struct sender_totals totals = {0};
	uint64_t end_frames = 0;
	if (opt.replay) {
		totals = (struct sender_totals){
		    replay.position, replay.bytes, replay.not_taken, 0, replay_free_buffers(&replay), replay.buffers};
	} else {
		queue_totals(argv[first], queues, n, &totals, &end_frames);
	}
	print_stats_totals(stdout, "ixy-pktgen", &stats);
	printf(" sent=%" PRIu64 " next_seq=%" PRIu32 " tx_full=%" PRIu64 " pool_free=%" PRIu32 " pool_size=%" PRIu32,
	       totals.sent, totals.next_seq, totals.not_taken, totals.pool_free, totals.pool_size);
	printf(" bytes=%" PRIu64 " run_ns=%" PRIu64 " %s=%.0f size=%s", totals.bytes, run_ns,
	       opt.rate.wire_bits ? "rate_bit" : "rate_pps", opt.rate.per_second, opt.replay ? "replay" : sizes);
	if (opt.replay) {
		printf(" replay_frames=%" PRIu32, replay.frames);
	} else if (opt.spec.mark_end) {
		printf(" end_frames=%" PRIu64, end_frames);
	}
	if (opt.flows > 1) { // (never with --replay)
		printf(" flows=%" PRIu32, opt.flows);
	}
	if (n > 1) {
		printf(" queues=%u", n);
	}
	printf("\n");
	ixy_close(dev);
	for (uint16_t q = 0; q < n && !opt.replay; q++) {
		queue_free(queues[q]);
	}
	replay_free(&replay);
	return locked_out;
}
