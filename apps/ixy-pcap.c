// ixy-pcap: writes the packets a NIC receives into a pcap file, readable by tcpdump and Wireshark.
//
//   ixy-pcap [--no-sandbox] [--user <name>] [--poll | --wait <ms>] [--ring <descriptors>] [--queues <k>] <pci> <file>
//            [n]
//
// --queues k (1 to 64, default 1): k RX queues, over which the NIC spreads the flows (receive side scaling, ixy/rss.h);
// each round takes one batch from queue 0, then one from queue 1, ..., so packets of a queue (of a flow) stay in
// order in the file, and those of different queues interleave by batch. The totals line is then preceded by one line
// per queue: "queue app=ixy-pcap pci=<addr> queue=<i> rx_packets=<n> captured=<n>".
// Stops after n packets (exit code 0) if n is given, else on Ctrl-C or SIGTERM. The file is opened before the device
// is taken, so that a path that cannot be written fails without touching the NIC; it is emptied only once the
// device runs, and a file the app created is removed again if the device cannot be taken. All packets of a batch
// get the time the batch was received as their timestamp. --wait (the default, 1000 ms): while no packet comes, sleep
// until the NIC's interrupt (VFIO only; through sysfs it is polled), at most <ms> at a time; the file is flushed
// before each sleep, so a reader sees every packet received so far. At the end it prints its totals line
// (print_stats_totals) and the waiter's.
#include <inttypes.h>
#include <stdio.h>

#include <ixy/interrupts.h>

#include "common/args.h"
#include "common/pcap.h"
#include "common/rates.h"
#include "common/signals.h"

#define USAGE                                                                                                          \
	"ixy-pcap " ARG_WAIT_USAGE " " ARG_RING_USAGE                                                                  \
	" [--queues <k>] <pci> <file> [n]   (PCI address like 0000:03:00.0; stop after n packets, n >= 1)"
#define BATCH_SIZE 32

// The waiter's hook: what was captured reaches the file before the app sleeps (a write error shows at the next flush).
static void flush_before_sleep(void* pcap) {
	(void)pcap_flush(pcap);
}

int main(int argc, char* argv[]) {
	int32_t wait_ms = 1000;
	uint32_t ring_size = 0, num_queues = 1; // ring_size 0: the driver's default
	int first = arg_options("ixy-pcap", argc, argv, &wait_ms, &ring_size, "queues", &num_queues);
	if (first < 0 || (argc - first != 2 && argc - first != 3) || !arg_pci_addrs("ixy-pcap", &argv[first], 1)) {
		return usage(USAGE);
	}
	const char* pci_addr = argv[first];
	const char* path = argv[first + 1];
	uint64_t limit = UINT64_MAX; // no n: until stopped (2^64 - 1 packets is as good as forever)
	if (argc - first == 3 && !arg_u64("ixy-pcap", "packet count", argv[first + 2], 1, UINT64_MAX, &limit)) {
		return usage(USAGE);
	}
	if (stop_on_signals() != 0) {
		return 1;
	}
	struct pcap_writer pcap;
	if (pcap_open(&pcap, path) != 0) {
		return 1;
	}
	// ixy_init starts the device in promiscuous mode: the capture sees frames for any destination MAC. The app has
	// no pools of its own: the device's DMA memory is all it needs.
	uint16_t n = (uint16_t)num_queues;
	struct ixy_config config = {.pci_addr = pci_addr,
				    .rx_queues = n,
				    .tx_queues = 1,
				    .ring_size = ring_size,
				    .interrupt_timeout_ms = wait_ms};
	struct ixy_device* dev = ixy_check_configs(&config, 1, 0) ? ixy_init_config(&config) : NULL;
	struct ixy_waiter* waiter = dev ? ixy_waiter_create() : NULL;
	bool added = waiter != NULL;
	for (uint16_t q = 0; q < n && added; q++) {
		added = ixy_waiter_add(waiter, dev, q) == 0;
	}
	if (!added) {
		ixy_waiter_destroy(waiter);
		ixy_close(dev);
		pcap_discard(&pcap);
		return 1;
	}
	if (pcap_start(&pcap) != 0) {
		pcap_close(&pcap);
		ixy_waiter_destroy(waiter);
		ixy_close(dev);
		return 1;
	}
	ixy_waiter_before_sleep(waiter, flush_before_sleep, &pcap);
	int locked_out = ixy_sandbox_enter(&arg_sandbox) != 0; // the filter cannot be installed: stop and close
	struct rate_meter meter;
	rate_meter_init(&meter, dev);
	struct ticker ticker;
	ticker_start(&ticker);
	uint64_t elapsed_ns;
	uint64_t not_captured = 0; // received but not written: after the n-th packet (same batch) or a write error
	uint64_t received[IXY_MAX_QUEUES] = {0}, captured[IXY_MAX_QUEUES] = {0}; // per RX queue
	uint64_t last_received[IXY_MAX_QUEUES] = {0};                            // received at the last rates
	int failed = 0;
	while (!locked_out && !stop_requested() && !failed && pcap.packets_written < limit) {
		uint32_t round_rx = 0;
		for (uint16_t q = 0; q < n && !failed && pcap.packets_written < limit; q++) {
			struct pkt_buf* bufs[BATCH_SIZE];
			uint32_t num_rx = ixy_rx_batch(dev, q, bufs, BATCH_SIZE);
			uint64_t timestamp_ns = num_rx > 0 ? pcap_time_now_ns() : 0;
			for (uint32_t i = 0; i < num_rx; i++) {
				if (!failed && pcap.packets_written < limit) {
					failed =
					    pcap_write_packet(&pcap, bufs[i]->data, bufs[i]->size, timestamp_ns) != 0;
					captured[q] += !failed;
				} else {
					not_captured++;
				}
				pkt_buf_free(bufs[i]);
			}
			received[q] += num_rx;
			round_rx += num_rx;
		}
		bool slept = ixy_waiter_round(waiter, round_rx); // then the clock moved on more than the passes say
		if (ticker_due(&ticker, slept, &elapsed_ns)) {
			for (uint16_t q = 0; q < n && n > 1; q++) { // with several queues, each's rate first
				print_queue_rate(stdout, pci_addr, q, received[q], &last_received[q], elapsed_ns);
			}
			rate_meter_print(&meter, elapsed_ns, stdout);
			failed = failed || pcap_flush(&pcap) != 0;
		}
	}
	failed = pcap_close(&pcap) != 0 || failed;
	ixy_read_stats(dev, &meter.total);
	// captured: packets written into the file; not_written: received after the n-th or after a write error;
	// write_failed=1: the file is incomplete.
	for (uint16_t q = 0; q < n && n > 1; q++) {
		printf("queue app=ixy-pcap pci=%s queue=%u rx_packets=%" PRIu64 " captured=%" PRIu64 "\n", pci_addr, q,
		       received[q], captured[q]);
	}
	print_stats_totals(stdout, "ixy-pcap", &meter.total);
	printf(" captured=%" PRIu64 " not_written=%" PRIu64 " write_failed=%d\n", pcap.packets_written, not_captured,
	       failed);
	if (failed) {
		fprintf(stderr, "ixy-pcap: writing %s failed: the file is incomplete\n", path);
	}
	ixy_waiter_print(stdout, "ixy-pcap", waiter);
	ixy_waiter_destroy(waiter);
	ixy_close(dev);
	return failed || locked_out ? 1 : 0;
}
