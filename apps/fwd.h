// The forwarding step of ixy-fwd: receive a batch on one device, touch each packet, send the batch on another.
// The paper's forwarder, one call away from the driver's rings. Here in a header so that tests can call it.
#ifndef IXY_APPS_FWD_H
#define IXY_APPS_FWD_H

#include <ixy/ixy.h> // also stdint.h

// Packets per rx_batch call (the paper's evaluation uses 32: larger batches gain little and thrash the L1 cache).
// bench/evaluate.sh builds the benchmark with other sizes (-DFWD_BATCH_SIZE=n), as the paper's Figure 4 measures.
#ifndef FWD_BATCH_SIZE
#define FWD_BATCH_SIZE 32
#endif

// forward() adds 1 (mod 256) to the packet byte at this offset, so that the CPU really touches each packet, as a
// real forwarder reading headers would. 45 is the first payload byte after "ixy" in ixy-pktgen's packets
// (Ethernet 14 + IPv4 20 + UDP 8 bytes = 42; "ixy" at 42..44; sequence number at 56..59): no header, no checksum
// (their UDP checksum is 0, i.e. unused) and no sequence number changes. All other bytes stay as received.
// Packets of 45 bytes or fewer are forwarded unchanged.
#define FWD_MODIFIED_BYTE 45

struct fwd_counters {
	uint64_t forwarded;       // packets the TX queue took
	uint64_t dropped_tx_full; // packets received but freed because the TX queue was full
};

// Receives up to FWD_BATCH_SIZE packets from rx_dev's rx_queue, modifies FWD_MODIFIED_BYTE of each and queues
// them on tx_dev's tx_queue; frees (drops) those the TX queue does not take. Returns the number received.
static inline uint32_t forward(struct ixy_device* rx_dev, uint16_t rx_queue, struct ixy_device* tx_dev,
			       uint16_t tx_queue, struct fwd_counters* counters) {
	struct pkt_buf* bufs[FWD_BATCH_SIZE];
	uint32_t num_rx = ixy_rx_batch(rx_dev, rx_queue, bufs, FWD_BATCH_SIZE);
	for (uint32_t i = 0; i < num_rx; i++) {
		if (bufs[i]->size > FWD_MODIFIED_BYTE) {
			bufs[i]->data[FWD_MODIFIED_BYTE]++;
		}
	}
	// Also when nothing arrived: the driver then still frees the buffers of packets it has sent.
	uint32_t num_tx = ixy_tx_batch(tx_dev, tx_queue, bufs, num_rx);
	// The TX queue is full (the output link is slower than the input): drop the rest. Holding them back would
	// only stall reception, and the RX ring would drop packets instead.
	pkt_buf_free_batch(bufs + num_tx, num_rx - num_tx);
	// Relaxed atomic stores (plain moves on x86): ixy-fwd's main thread reads another thread's counters meanwhile.
	__atomic_store_n(&counters->forwarded, counters->forwarded + num_tx, __ATOMIC_RELAXED);
	__atomic_store_n(&counters->dropped_tx_full, counters->dropped_tx_full + num_rx - num_tx, __ATOMIC_RELAXED);
	return num_rx;
}

// ixy-fwd's features (options, checks, queues, waiters, the sandbox) join its main() through this one table, which
// CMake takes from fwd_paper.c (the paper's forwarder: none of them) or fwd_features.c. main() forwards queue 0 both
// ways itself, into counters[2] of its own, and enters the features at these steps, in this order.
struct fwd_entry {
	// Reads the command line into configs[0..1]. False: the app ends with *exit_code (1 unless parse sets another).
	bool (*parse)(int argc, char* argv[], struct ixy_config configs[2], int* exit_code);
	// The second device could not be taken: gives back the first (NULL: none was taken).
	void (*give_up)(struct ixy_device* first);
	// The steps below are NULL where a build has nothing to do in them (the paper's, apps/fwd_paper.c).
	// Starts the other queues, waiters and the sandbox; counters: main's, queue 0's. False: stop at once.
	bool (*start)(struct ixy_device* devs[2], struct fwd_counters counters[2]);
	// After each round of main's loop, which received this many packets: whether it slept.
	bool (*idle)(uint32_t received);
	// Each second, before the devices' rates.
	void (*rates)(uint64_t elapsed_ns);
	// At the end, before the devices' totals: adds the other queues' counts to main's counters, ends the rest.
	void (*stop)(void);
};
extern const struct fwd_entry fwd_entry;

#endif
