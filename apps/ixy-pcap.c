// ixy-pcap: writes the packets a NIC receives into a pcap file, readable by tcpdump and Wireshark, and with --report
// measures ixy-pktgen's traffic: loss, reordering, duplicates per flow and latency (common/report.h, issue 30).
//
//   ixy-pcap [--no-sandbox] [--user <name>] [--poll | --wait <ms>] [--ring <descriptors>] [--queues <k>] [--report]
//            <pci> <file | -> [n]
//
// File "-" (only with --report): no file is written, the report alone. --report prints its lines (report.h:
// "flow ...", "report ...", "latency ...") once a second with the rates (end=0) and at the end before the totals
// (end=1). The receive time of a batch is one read of the monotonic clock. All queues are read by one thread, so one
// report sees every queue and a flow spread over queues is still one flow (its frames of different queues may then
// count as reordered).
//
// Stops after n packets (exit code 0) if n is given, else on Ctrl-C or SIGTERM. The file is opened before the device
// is taken, so that a path that cannot be written fails without touching the NIC; it is emptied only once the
// device runs, and a file the app created is removed again if the device cannot be taken. An existing file must be a
// regular file (or /dev/null) of the user the capture runs as (--user, else the real uid), not a symbolic link
// (common/pcap.h): else it is refused with one line and exit code 1. All packets of a batch
// get the time the batch was received as their timestamp. At the end it prints its totals line (print_stats_totals)
// and the waiter's.
// --wait (the default, 1000 ms): while no packet comes, sleep until the NIC's interrupt (VFIO; an AF_XDP device: until
// the kernel wakes its socket; through sysfs it is polled), at most <ms> at a time; the file is flushed before each
// sleep, so a reader sees every packet received so far. --queues k (1 to 64, default 1): k RX queues, over which the
// NIC spreads the flows (receive side scaling, ixy/rss.h); each round takes one batch from queue 0, then one from queue
// 1, ..., so packets of a queue (of a flow) stay in order in the file, and those of different queues interleave by
// batch. The totals line is then preceded by one line per queue: "queue app=ixy-pcap pci=<addr> queue=<i>
// rx_packets=<n> captured=<n>".
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <ixy/interrupts.h>

#include <ixy/checks.h>

#include "common/options.h"
#include "common/pcap.h"
#include "common/report.h"
#include "common/queue_rate.h"
#include "common/rates.h"
#include "common/signals.h"

#define USAGE                                                                                                          \
	"ixy-pcap " ARG_WAIT_USAGE " " ARG_RING_USAGE                                                                  \
	" [--queues <k>] [--report] <pci> <file | -> [n]   (PCI address like 0000:03:00.0; file - : none, with"        \
	" --report; stop after n packets, n >= 1)"
#define BATCH_SIZE 32

static const struct option options[] = {ARG_POLL_WAIT, ARG_RING,        ARG_QUEUES, ARG_REPORT,
					ARG_SANDBOX,   ARG_HELP_OPTION, {0}};

struct capture {
	struct pcap_writer pcap;
	bool writing;          // a file is written (not "-")
	struct report* report; // --report, else NULL
	uint64_t limit;        // packets to capture, then stop
	uint64_t taken;        // packets taken: given to the file (pcap.packets_in_file: what reached it) or reported
	bool failed;           // a write failed: the file is incomplete
	uint64_t received[IXY_MAX_QUEUES], captured[IXY_MAX_QUEUES], received_at_rates[IXY_MAX_QUEUES]; // per RX queue
};

static bool capturing(const struct capture* cap) {
	return !cap->failed && cap->taken < cap->limit;
}

// One batch from each of the n RX queues into the file. Returns the number of packets received.
static uint32_t capture_round(struct ixy_device* dev, uint16_t n, struct capture* cap) {
	uint32_t round_rx = 0;
	for (uint16_t q = 0; q < n && capturing(cap); q++) {
		struct pkt_buf* bufs[BATCH_SIZE];
		uint32_t num_rx = ixy_rx_batch(dev, q, bufs, BATCH_SIZE);
		// One clock read per batch for each: the file's wall-clock time, the report's monotonic receive time.
		uint64_t timestamp_ns = num_rx > 0 && cap->writing ? pcap_time_now_ns() : 0;
		uint64_t received_ns = num_rx > 0 && cap->report ? monotonic_time_ns() : 0;
		for (uint32_t i = 0; i < num_rx; i++) {
			if (capturing(cap)) {
				if (cap->report) {
					report_frame(cap->report, bufs[i]->data, bufs[i]->size, received_ns);
				}
				if (cap->writing) {
					cap->failed = pcap_write_tagged(&cap->pcap, (uint8_t)q, bufs[i]->data,
									bufs[i]->size, timestamp_ns) != 0;
				}
				cap->taken += !cap->failed;
				cap->captured[q] += !cap->failed; // (with a file, the writer counts what reached it)
			}
			pkt_buf_free(bufs[i]);
		}
		cap->received[q] += num_rx;
		round_rx += num_rx;
	}
	return round_rx;
}

// The waiter's hook: what was captured reaches the file before the app sleeps (a write error shows at the next flush).
static void flush_before_sleep(void* cap) {
	if (((struct capture*)cap)->writing) {
		(void)pcap_flush(&((struct capture*)cap)->pcap);
	}
}

// A waiter on the device's n RX queues, or NULL with a message.
static struct ixy_waiter* capture_waiter(struct ixy_device* dev, uint16_t n) {
	struct ixy_waiter* waiter = ixy_waiter_create();
	if (waiter) {
		ixy_waiter_stop_on(waiter, &stop_signal); // a stop ends its sleep within a slice, whatever --wait
	}
	for (uint16_t q = 0; q < n && waiter; q++) {
		if (ixy_waiter_add(waiter, dev, q) != 0) {
			ixy_waiter_destroy(waiter);
			waiter = NULL;
		}
	}
	return waiter;
}

// Once a second: each queue's rate with several queues, then the device's, the report; then the file is flushed.
static void print_rates(struct ixy_device* dev, uint16_t n, struct capture* cap, struct device_stats stats[2],
			uint64_t elapsed_ns) {
	for (uint16_t q = 0; q < n && n > 1; q++) {
		print_queue_rate(stdout, dev->pci_addr, q, cap->received[q], &cap->received_at_rates[q], elapsed_ns);
	}
	ixy_read_stats(dev, &stats[0]);
	print_stats_diff(stdout, &stats[0], &stats[1], elapsed_ns);
	stats[1] = stats[0];
	if (cap->report) {
		report_print(stdout, "ixy-pcap", dev->pci_addr, cap->report, false);
	}
	// Each second reaches a pipe or log; a failing stdout must not stop the loop.
	(void)fflush(stdout);
	cap->failed = cap->failed || (cap->writing && pcap_flush(&cap->pcap) != 0);
}

// The totals: the report's final lines (--report), with several queues a line per queue, then the device's.
// captured: packets whose bytes reached the file (the writer counts them as it writes its buffer: after a failed write,
// only the records that reached the file whole; without a file: reported); not_written: the others received (after
// the n-th, after a write error, or lost in the failed write); write_failed=1: the file is incomplete.
static void print_totals(struct ixy_device* dev, uint16_t n, const struct capture* cap, struct device_stats* stats) {
	ixy_read_stats(dev, stats);
	if (cap->report) {
		report_print(stdout, "ixy-pcap", dev->pci_addr, cap->report, true);
	}
	uint64_t received = 0;
	for (uint16_t q = 0; q < n; q++) {
		received += cap->received[q];
		if (n > 1) {
			printf("queue app=ixy-pcap pci=%s queue=%u rx_packets=%" PRIu64 " captured=%" PRIu64 "\n",
			       dev->pci_addr, q, cap->received[q],
			       cap->writing ? cap->pcap.in_file[q] : cap->captured[q]);
		}
	}
	uint64_t captured = cap->writing ? cap->pcap.packets_in_file : cap->taken;
	print_stats_totals(stdout, "ixy-pcap", stats);
	printf(" captured=%" PRIu64 " not_written=%" PRIu64 " write_failed=%d\n", captured, received - captured,
	       cap->failed);
}

int main(int argc, char* argv[]) {
	struct app_options opt = {.wait_ms = 1000, .queues = 1};
	int first = arg_options("ixy-pcap", options, argc, argv, &opt);
	if (first < 0 || !arg_count("ixy-pcap", argc, argv, first, 2, 3, "<pci> <file | -> [n]") ||
	    !arg_pci_addrs("ixy-pcap", &argv[first], 1)) {
		return arg_exit(USAGE, first, argc);
	}
	const char* pci_addr = argv[first];
	const char* path = argv[first + 1];
	// no n: until stopped (2^64 - 1 packets is as good as forever)
	struct capture cap = {.limit = UINT64_MAX, .writing = strcmp(path, "-") != 0};
	if (argc - first == 3 && !arg_u64("ixy-pcap", "packet count", argv[first + 2], 1, UINT64_MAX, &cap.limit)) {
		return EXIT_USAGE;
	}
	if (!cap.writing && !opt.report) {
		fprintf(stderr, "ixy-pcap: file - (none) needs --report\n");
		return EXIT_USAGE;
	}
	if (stop_on_signals() != 0 ||
	    (cap.writing && pcap_open(&cap.pcap, path, opt.sandbox.drop_user ? opt.sandbox.uid : getuid()) != 0)) {
		return 1;
	}
	if (opt.report && !(cap.report = report_create())) {
		if (cap.writing) {
			pcap_discard(&cap.pcap);
		}
		return 1;
	}
	// ixy_init starts the device in promiscuous mode: the capture sees frames for any destination MAC. The app has
	// no pools of its own: the device's DMA memory is all it needs.
	uint16_t n = (uint16_t)opt.queues;
	struct ixy_config config = {.pci_addr = pci_addr,
				    .rx_queues = n,
				    .tx_queues = 1,
				    .ring_size = opt.ring_size,
				    .interrupt_timeout_ms = (int32_t)opt.wait_ms};
	struct ixy_device* dev = ixy_check_configs(&config, 1, 0) ? ixy_init_config(&config) : NULL;
	struct ixy_waiter* waiter = dev ? capture_waiter(dev, n) : NULL;
	if (!waiter) {
		ixy_give_back(dev); // the app gives up: the NIC goes back to its kernel driver (ixy/checks.h)
		if (cap.writing) {
			pcap_discard(&cap.pcap);
		}
		report_destroy(cap.report);
		return 1;
	}
	if (cap.writing && pcap_start(&cap.pcap) != 0) {
		pcap_close(&cap.pcap);
		ixy_waiter_destroy(waiter);
		ixy_give_back(dev);
		report_destroy(cap.report);
		return 1;
	}
	ixy_waiter_before_sleep(waiter, flush_before_sleep, &cap);
	int locked_out = ixy_sandbox_enter(&opt.sandbox) != 0; // the filter cannot be installed: stop and close

	// Capture until stopped or n packets are written; print the rates once a second.
	struct device_stats stats[2]; // now, and at the last rates
	stats_init(&stats[0], dev);
	stats_init(&stats[1], dev);
	uint64_t last_ns = monotonic_time_ns(), elapsed_ns;
	for (uint64_t round = 1; !locked_out && !stop_requested() && capturing(&cap); round++) {
		bool slept = ixy_waiter_round(waiter, capture_round(dev, n, &cap)); // then the clock moved on
		if (second_passed(&last_ns, &elapsed_ns, round, slept)) {
			print_rates(dev, n, &cap, stats, elapsed_ns);
		}
	}

	cap.failed = (cap.writing && pcap_close(&cap.pcap) != 0) || cap.failed;
	print_totals(dev, n, &cap, &stats[0]);
	if (cap.failed) {
		fprintf(stderr, "ixy-pcap: writing %s failed: the file is incomplete\n", path);
	}
	ixy_waiter_print(stdout, "ixy-pcap", waiter);
	ixy_waiter_destroy(waiter);
	ixy_close(dev);
	report_destroy(cap.report);
	return cap.failed || locked_out ? 1 : 0;
}
