// What the two layouts of VirtIO's virtqueues share inside the driver: the device and queue structs, the receive
// buffers, the barriers, and the small set of ring operations each layout brings (chosen once at init, as the
// transport is, virtio_transport.h):
//   split (virtio.c, spec 2.6): descriptor table, available ring and used ring; both transports.
//   packed (virtio_packed.c, VirtIO 1.2 2.8; 2.7 in 1.1): one ring of descriptors the driver and the
//          device walk in the same direction, with wrap counters; the modern transport with VIRTIO_F_RING_PACKED.
// virtio.c keeps everything else: init, features, the control flow, statistics.
#ifndef IXY_VIRTIO_QUEUE_H
#define IXY_VIRTIO_QUEUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <ixy/interrupts.h>

#include "driver.h"
#include "virtio_rss.h"
#include "virtio_spec.h"
#include "virtio_transport.h"

// Their size: 2 KiB of frame (more than the 1514 bytes of the largest frame without VIRTIO_NET_F_MTU or offloads)
// after the 64 byte header. A constant, so that the packet path bounds the device's lengths with an immediate.
#define RX_BUF_SIZE (64 + 2048)
#define RX_BUF_DATA_ROOM (RX_BUF_SIZE - offsetof(struct pkt_buf, data))

// Memory shared with the device (3.2.1.3.1, 3.2.1.4.1, 3.2.2; packed: VirtIO 1.2, 2.8): what says the device has
// written something (split: the used index; packed: a descriptor's flags) is read with an acquire load, so that nothing
// the driver or the app reads or writes after it (the used entry, the packet, the buffer's reuse) moves before it; what
// hands something to the device (split: the available index; packed: a descriptor's flags) is written with a release
// store, so that everything written before it (addresses, lengths, ids, ring entries) is visible first. On x86 both
// are plain moves (the compiler may not reorder around them); on AArch64 ldar (ldapr with RCpc) and stlr, as DPDK's
// virtio does on weakly ordered CPUs. A full fence (a store followed by a load: mfence, dmb ish) is needed only
// where the driver publishes and then reads whether the device wants to hear about it.
#define load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define full_barrier() atomic_thread_fence(memory_order_seq_cst)

// A control command, in the control queue's DMA memory behind its used ring (5.1.6.5).
struct ctrl_command {
	uint8_t class_and_command[2];        // the device reads them
	uint8_t data[VIRTIO_RSS_CONFIG_LEN]; // the device reads them (1 byte for promiscuous mode, 6 for a MAC, ...)
	uint8_t ack;                         // the device writes VIRTIO_NET_OK or VIRTIO_NET_ERR
};

enum queue_kind { QUEUE_RX, QUEUE_TX, QUEUE_CTRL };

// A position in a packed virtqueue's ring and the flags of its round (virtio_packed.c). The driver's next_avail: the
// flags a descriptor made available there carries, AVAIL set to the driver's wrap counter and USED to the inverse.
// next_used: the flags the device writes into a used descriptor there, both set to its wrap counter (2.8.1). Passing
// the ring's end flips both bits.
struct packed_cursor {
	uint16_t pos;
	uint16_t flags;
};

// Each queue starts a cache line of its own (_Alignas; driver.h, IXY_CACHE_LINE): RX queue k and k + 1 may be two
// threads', and neither's writes (indexes, counters) may take the other's line away. The statistics reader only reads
// a queue; what it writes is the device's `seen`.
struct virtqueue {
	// RX queue k: 2k, TX queue k: 2k + 1, control: after the last pair (5.1.2). (_Alignas: see above.)
	_Alignas(IXY_CACHE_LINE) uint16_t index;
	enum queue_kind kind;
	uint16_t size;         // descriptors; split: a power of two; packed: any from 4 (wrapped by compare)
	struct dma_memory mem; // descriptor table, available ring, used ring, then `extra`
	volatile struct vring_desc* desc;
	volatile struct vring_avail* avail;
	volatile struct vring_used* used;
	uint16_t avail_idx; // our copy of avail->idx: chains offered so far, wrapping at 65536
	uint16_t used_idx;  // used ring entries processed so far, wrapping at 65536 like used->idx
	// After the rings: TX: one all-zero net header that every TX chain points to; control: the command.
	volatile uint8_t* extra;
	uintptr_t extra_phy;
	// RX and TX: chain c starts at descriptor c << chain_shift. 0: one descriptor per packet, header in the
	// buffer's head room; 1: two, a header descriptor then the data descriptor (head + chain_shift).
	uint16_t chain_shift;
	uint16_t num_chains;   // size >> chain_shift: the packets the queue holds
	uint32_t hdr_in_data;  // header bytes in front of the frame in the data descriptor: net_hdr_len or 0
	struct pkt_buf** bufs; // RX and TX: the buffer in each chain, indexed by chain
	// RX and TX: true until the device returns a chain out of order (see "Receive and transmit"). TX in order: the
	// device holds the chains of used_idx .. avail_idx - 1, mod num_chains. TX out of order: free_chains, a stack
	// of the chains it does not hold.
	bool in_order;
	uint16_t* free_chains;
	uint16_t num_free_chains;
	struct mempool* pool; // RX: the buffers of this queue (one pool per queue: an app may serve each on a core)
	// RX in any order: the number of the batch that last took each chain (packed: buffer id), so that the device
	// naming one twice in a batch is caught (rx_any_order_batch, taken_twice); rx_any_batches counts those batches.
	uint32_t* taken_in;
	uint32_t rx_any_batches;
	// Written only by the thread that owns the queue, with relaxed atomic stores (plain moves on x86), and never
	// reset: read_stats, maybe in another thread, reads them with relaxed atomic loads (see virtio_read_stats).
	// RX: packets and bytes received, entries dropped (bad ones); TX: packets and bytes the device took. The bytes
	// of the frames only: read_stats adds the CRC's, IXY_ETHER_CRC_BYTES per packet (not the batch's work).
	uint64_t pkts, bytes, dropped;
	uint64_t bad_used_entries; // used ring entries ignored (device bugs), the first reported; summed at close
	// Split with VIRTIO_RING_F_EVENT_IDX (VirtIO 1.2, 2.7.7, 2.7.10): kicks and interrupts follow the event indexes
	// behind the rings (avail_event, used_event) instead of the flags.
	bool event_idx;
	// Packed (virtio_packed.c, VirtIO 1.2, 2.8): the one ring, the two event suppression areas, the driver's next
	// descriptor to make available and the next it takes back from the device, each with the flags of its round
	// (which carry the wrap counters, 2.8.1), and the descriptors the device holds. `bufs` is then indexed by
	// buffer id; TX keeps the free ids in free_chains.
	volatile struct vring_packed_desc* ring;
	volatile struct vring_packed_event* driver_event; // the driver writes it: interrupts (2.8.10)
	volatile struct vring_packed_event* device_event; // the device writes it: notifications (2.8.10)
	struct packed_cursor next_avail, next_used;
	uint16_t in_flight;
};
_Static_assert(sizeof(struct virtqueue) % IXY_CACHE_LINE == 0, "queues in an array start cache lines");

// The counters of the queues, summed: what read_stats saw the last time.
struct virtio_counts {
	uint64_t rx_pkts, tx_pkts, rx_bytes, tx_bytes, rx_dropped;
};

struct virtio_device;

// What a virtqueue layout brings (split: virtio.c; packed: virtio_packed.c), chosen once in start_device.
struct virtio_ring_ops {
	const char* name; // "split" or "packed"
	// Lays out q->size descriptors (known) in DMA memory with room for `extra` bytes behind the rings (q->extra),
	// sets up what never changes, and gives the queue to the device (after its MSI-X vector, if any).
	int (*setup_queue)(struct virtio_device* dev, struct virtqueue* q, size_t extra);
	// Offers every RX buffer in q->bufs (one per chain) to the device.
	void (*fill_rx)(const struct virtio_device* dev, struct virtqueue* q);
	// The packet path: the ixy_device's rx_batch and tx_batch.
	uint32_t (*rx_batch)(struct ixy_device* ixy, uint16_t queue_id, struct pkt_buf* bufs[], uint32_t num_bufs);
	uint32_t (*tx_batch)(struct ixy_device* ixy, uint16_t queue_id, struct pkt_buf* bufs[], uint32_t num_bufs);
	// The control queue: offers the chain of class/command, len bytes of data and the ack (5.1.6.5), in q->extra
	// (struct ctrl_command), and notifies; then whether the device has returned it (it is consumed if so).
	void (*ctrl_offer)(struct virtio_device* dev, struct virtqueue* q, uint32_t len);
	bool (*ctrl_returned)(struct virtqueue* q);
	// Asks the device for an interrupt on new used buffers of RX queue q, or asks it for none (ixy_waiter).
	void (*set_rx_interrupt)(struct virtqueue* q, bool armed);
	// TX queue q goes out of order for good: its buffer table then holds the buffers of the chains the device
	// holds only, and the free stack the others (also at stop, so that the table's buffers can be freed).
	void (*tx_leave_in_order)(struct virtqueue* q);
};
extern const struct virtio_ring_ops virtio_split_ops, virtio_packed_ops;

struct virtio_device {
	struct ixy_device ixy;
	const struct virtio_ring_ops* ring; // split or packed, chosen in start_device
	struct pci_device* pci;
	struct virtio_transport* transport; // legacy or modern, chosen in virtio_init
	uint64_t features;                  // negotiated
	uint32_t net_hdr_len;               // 10 (legacy) or 12 (VIRTIO_F_VERSION_1)
	bool one_descriptor;                // VERSION_1 or ANY_LAYOUT: header and frame in one descriptor
	struct virtio_mq mq;                // queue pairs (virtio_rss.c)
	struct virtqueue rx[IXY_MAX_QUEUES], tx[IXY_MAX_QUEUES], ctrl;
	bool has_ctrl_queue;
	bool ctrl_broken;                     // a command timed out: the device may still use its buffers, send no more
	bool stopped;                         // reset by virtio_stop: it no longer touches our memory
	int rx_interrupt_fds[IXY_MAX_QUEUES]; // the eventfds of the RX queues' MSI-X vectors (VFIO)
	struct ixy_interrupts interrupts;     // ixy.interrupts points here if the app asked for interrupts
	// The device counts nothing; the queues count (struct virtqueue). Owned by read_stats' one reader: the sums it
	// saw last, so that it adds the difference without writing the queues' counters. On lines of their own
	// (_Alignas): the reader's writes do not meet a queue thread's.
	_Alignas(IXY_CACHE_LINE) struct virtio_counts seen;
};

#define ALWAYS_INLINE inline __attribute__((always_inline))

// Adds n to a queue's counter. Only the queue's thread writes it, so load and add need no atomic read-modify-write;
// the store is atomic (relaxed) for read_stats in another thread.
static ALWAYS_INLINE void count(uint64_t* counter, uint64_t n) {
	__atomic_store_n(counter, *counter + n, __ATOMIC_RELAXED);
}

// The spec's test whether the other side asked to hear about the entries old_idx .. new_idx - 1 (VirtIO 1.2,
// 2.7.7.2 and 2.7.10.2, with 16 bit wrapping indexes): its event index lies in that range.
static inline bool vring_need_event(uint16_t event_idx, uint16_t new_idx, uint16_t old_idx) {
	return (uint16_t)(new_idx - event_idx - 1) < (uint16_t)(new_idx - old_idx);
}

// An RX batch in any order starts (split and packed): its number, never 0 (taken_in starts zeroed, and is zeroed
// again when the count comes round). The n chains (buffer ids) from `first` on, mod num_chains, which the batch took
// in order before it went out of order, count as taken in it.
static inline uint32_t rx_any_order_batch(struct virtqueue* q, uint32_t first, uint32_t n) {
	if (__builtin_expect(++q->rx_any_batches == 0, 0)) {
		memset(q->taken_in, 0, q->num_chains * sizeof(*q->taken_in));
		q->rx_any_batches = 1;
	}
	for (uint32_t k = 0; k < n; k++) {
		q->taken_in[(first + k) % q->num_chains] = q->rx_any_batches;
	}
	return q->rx_any_batches;
}

// Whether the batch took the chain (buffer id, below num_chains) already: the device named it twice, and its
// buffer is the fresh one just offered, which the device holds. Otherwise it is taken now.
static ALWAYS_INLINE bool taken_twice(uint32_t* taken_in, uint32_t chain, uint32_t batch) {
	bool twice = taken_in[chain] == batch;
	taken_in[chain] = batch;
	return twice;
}

// Counts a used entry the device got wrong, in the queue; the first one of each queue is reported (virtio_queue.c).
void virtio_bad_used_entry(const struct virtio_device* dev, struct virtqueue* q, const char* what, uint32_t id,
			   uint32_t len);
// Allocates the queue's DMA memory (bytes) and its buffer table and TX free stack; 0 or -1 with a message
// (virtio_queue.c).
int virtio_alloc_queue(const struct virtio_device* dev, struct virtqueue* q, size_t bytes);

#endif
