// ixy's driver for VirtIO network devices (QEMU, VirtualBox, cloud VMs), over either PCI transport.
//
// A VirtIO NIC has no packet registers: driver and device share "virtqueues" in memory (spec 2.4). Queue 0
// receives, queue 1 transmits, queue 2 carries control commands (promiscuous mode, MAC address). With more than one
// queue pair (virtio_rss.c) RX queue k is virtqueue 2k, TX queue k 2k + 1, and the control queue comes after the
// device's last pair (5.1.2). A virtqueue is a
// descriptor table (where the buffers are), an available ring (chains the driver offers to the device) and a used
// ring (chains the device has finished). The device is reached through one of two PCI transports, chosen once when
// the device is opened (virtio_transport.h): the modern one (a memory BAR, 4.1.4) when the device has it, else the
// legacy one (an IO-port BAR, 4.1.4.8). IXY_VIRTIO_LEGACY=1 in the environment picks legacy on a device with both.
// Everything here is the same for both; the packet path touches the transport only to notify, at most once per batch.
//
// A packet is a chain of one descriptor when the device allows it (VIRTIO_F_VERSION_1, or VIRTIO_F_ANY_LAYOUT on
// the legacy interface: 2.6.4 "message framing", 5.1.6.6): the virtio-net header (10 bytes legacy, 12 with
// VERSION_1) sits in the buffer's head room right in front of the frame, and one descriptor covers both. Otherwise
// (VirtualBox offers neither) a packet is a chain of two: the header, then the frame; chain c then uses descriptors
// 2c and 2c+1, so a queue of n descriptors holds n/2 packets instead of n. The layout is chosen once at init
// (virtqueue.chain_shift), and with it the packet path: one copy per layout, without a test of the layout inside.
//
// The device is trusted with nothing: a used ring entry that names no chain the device holds, reports more bytes
// than the buffer has, or a used index that runs ahead of what the device was given, is dropped and counted, and
// reported once (a broken or hostile hypervisor cannot make the app crash or free a buffer twice).
//
// Section numbers refer to the VirtIO 1.0 specification; src/driver/virtio_spec.h has the definitions.
//
// Where to start reading (the order of docs/book/06-virtio.md): virtio_init() at the bottom, then start_device()
// and setup_queue(); then the packet path, virtio_rx_batch() and virtio_tx_batch(); the transport behind
// virtio_transport.h comes last (virtio_legacy.c, virtio_modern.c).
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <ixy/interrupts.h>
#include <ixy/settings.h>

#include "../pci_interrupts.h"
#include "../trace.h" // ixy_trace_bar: the register trace for students
#include "driver.h"
#include "injected_failure.h"
#include "virtio_queue.h"
#include "virtio_rss.h"
#include "virtio_spec.h"
#include "virtio_transport.h"

// The control queue's index without VIRTIO_NET_F_MQ and VIRTIO_NET_F_RSS: after one pair (5.1.2).
#define CTRL_QUEUE_ONE_PAIR 2
// The control queue needs 3 descriptors; where the driver may choose (modern), it asks for this many.
#define CTRL_QUEUE_SIZE 64

// Receive buffers (at least 4 per RX chain): for the RX ring, a TX ring of forwarded packets and the app's batches.
#define RX_MEMPOOL_ENTRIES 4096
// The largest queue the driver takes when the app leaves the size to it (ring_size 0), and so what ixy counts on when
// it checks the huge pages it will need, before it may ask the device: QEMU's largest (rx_queue_size=1024). A modern
// device may offer more (up to 32768, 2.4); the legacy interface lets the driver choose nothing, and a legacy queue
// larger than this works only if the huge pages are there.
#define LARGEST_EXPECTED_QUEUE 1024
// How long a control command may take. QEMU answers during the notify write itself.
#define CTRL_TIMEOUT_US 1000000
#define CTRL_POLL_US 100
// How long a reset may take (4.1.4.3.2: the driver waits until the status reads 0).
#define RESET_TIMEOUT_US 100000
// Without a link speed in the configuration (legacy, or no VIRTIO_NET_F_SPEED_DUPLEX), report this while the link
// is up.
#define NOMINAL_LINK_SPEED_MBIT 1000

// The features ixy uses, if the device offers them; nothing else is accepted (5.1.3), apart from what a transport
// requires (VERSION_1 on the modern one). No checksum offloads and no mergeable RX buffers: QEMU's hub, socket and
// user networks do not offer them, and ixy needs neither.
#define WANTED_FEATURES                                                                                                \
	(VIRTIO_NET_F_MAC | VIRTIO_NET_F_STATUS | VIRTIO_NET_F_CTRL_VQ | VIRTIO_NET_F_CTRL_RX |                        \
	 VIRTIO_NET_F_CTRL_MAC_ADDR | VIRTIO_NET_F_SPEED_DUPLEX | VIRTIO_F_ANY_LAYOUT | VIRTIO_RING_F_EVENT_IDX)

// ---- Device status

// Writing 0 to the status resets the device: it forgets features and queues and stops all DMA (2.1, 4.1.4.3.2).
static int reset_device(struct virtio_device* dev) {
	struct virtio_transport* t = dev->transport;
	uint8_t status = 0xff;
	if (t->ops->set_status(t, 0) != 0) {
		return -1;
	}
	for (uint32_t waited_us = 0; waited_us <= RESET_TIMEOUT_US; waited_us += CTRL_POLL_US) {
		if (t->ops->get_status(t, &status) != 0) {
			return -1;
		}
		if (status == 0) {
			return 0;
		}
		ixy_usleep(CTRL_POLL_US);
	}
	ixy_error("%s: the device did not reset (status 0x%02x)", dev->ixy.pci_addr, status);
	return -1;
}

// Adds bits to the device status (3.1.1: each step of the initialisation sets one more).
static int add_status(struct virtio_device* dev, uint8_t bits) {
	struct virtio_transport* t = dev->transport;
	uint8_t status;
	return t->ops->get_status(t, &status) == 0 ? t->ops->set_status(t, status | bits) : -1;
}

// ---- Virtqueues

static size_t align_up(size_t value, size_t alignment) {
	return (value + alignment - 1) / alignment * alignment;
}

// The legacy layout (2.4.2), used on both transports: descriptor table, available ring (flags, idx, ring,
// used_event), then the used ring (flags, idx, ring, avail_event) at the next 4096 byte boundary.
static size_t used_ring_offset(uint16_t size) {
	size_t avail_end =
	    size * sizeof(struct vring_desc) + sizeof(struct vring_avail) + (size + 1u) * sizeof(uint16_t);
	return align_up(avail_end, VIRTIO_LEGACY_QUEUE_ALIGN);
}

static size_t extra_offset(uint16_t size) {
	size_t used_end = used_ring_offset(size) + sizeof(struct vring_used) + size * sizeof(struct vring_used_elem) +
			  sizeof(uint16_t);
	return align_up(used_end, 64);
}

// With VIRTIO_RING_F_EVENT_IDX (VirtIO 1.2, 2.7.7, 2.7.10): the device's avail_event behind the used ring (the
// available index it wants to be notified about), and the driver's used_event behind the available ring (the used index
// it wants an interrupt for).
static volatile uint16_t* avail_event(const struct virtqueue* q) {
	return (volatile uint16_t*)&q->used->ring[q->size];
}
static volatile uint16_t* used_event(const struct virtqueue* q) {
	return &q->avail->ring[q->size];
}

// With VIRTIO_RING_F_EVENT_IDX: publishes, and notifies only if this batch passed the device's avail_event
// (VirtIO 1.2, 2.7.10). A function of its own, so that the path without the feature stays as short as it was.
static void publish_and_notify_event_idx(const struct virtio_device* dev, struct virtqueue* q) {
	uint16_t old_idx = q->avail->idx;
	store_release(&q->avail->idx, q->avail_idx); // after the descriptors and ring entries it covers
	full_barrier(); // the index before reading avail_event, or we may miss that the device went to sleep
	if (vring_need_event(*avail_event(q), q->avail_idx, old_idx)) {
		dev->transport->ops->notify(dev->transport, q->index);
	}
}

// Makes the chains added since the last call visible to the device, then notifies it unless it said it does not
// need that (3.2.1.3, 3.2.1.4): VRING_USED_F_NO_NOTIFY in its flags, or with VIRTIO_RING_F_EVENT_IDX its
// avail_event (publish_and_notify_event_idx). One notification per batch, and usually none: the device polls while
// busy.
static void publish_and_notify(const struct virtio_device* dev, struct virtqueue* q) {
	if (q->event_idx) {
		publish_and_notify_event_idx(dev, q);
		return;
	}
	store_release(&q->avail->idx, q->avail_idx); // after the descriptors and ring entries it covers
	full_barrier(); // the index before reading the device's flags, or we may miss that it went to sleep
	if (!(q->used->flags & VRING_USED_F_NO_NOTIFY)) {
		dev->transport->ops->notify(dev->transport, q->index);
	}
}

// The chains the device holds: every RX chain (each always has a buffer, until virtio_stop frees them); the TX
// chains offered and not returned, in order, else those not on the free stack. Only in order avail_idx - used_idx:
// out of order, a bad used entry advances used_idx without returning a chain, and that difference would shrink for
// good, until a device returning all it holds looked as if its index ran ahead.
static uint16_t chains_with_device(const struct virtio_device* dev, const struct virtqueue* q) {
	if (q->kind == QUEUE_TX) {
		return (uint16_t)(q->in_order ? q->avail_idx - q->used_idx : q->num_chains - q->num_free_chains);
	}
	return dev->stopped ? 0 : q->num_chains;
}

// The used entries the device added since we last looked, or 0 if its index ran further ahead than the chains it
// holds: then the index is garbage and no entry behind it can be trusted.
static uint16_t new_used_entries(const struct virtio_device* dev, struct virtqueue* q, uint16_t device_used_idx) {
	uint16_t entries = (uint16_t)(device_used_idx - q->used_idx);
	if (entries > chains_with_device(dev, q)) {
		virtio_bad_used_entry(dev, q, "a used index beyond the chains it holds", device_used_idx, entries);
		return 0;
	}
	return entries;
}

// The split layout (VirtIO 1.2, 2.7; 2.4 in 1.0): the rings, the descriptors that never change, then the three
// addresses for the device.
static int split_setup_queue(struct virtio_device* dev, struct virtqueue* q, size_t extra) {
	struct virtio_transport* t = dev->transport;
	size_t extra_at = extra_offset(q->size);
	if (virtio_alloc_queue(dev, q, extra_at + extra) != 0) {
		return -1;
	}
	uint8_t* base = q->mem.virt;
	q->desc = (volatile struct vring_desc*)base;
	q->avail = (volatile struct vring_avail*)(base + q->size * sizeof(struct vring_desc));
	q->used = (volatile struct vring_used*)(base + used_ring_offset(q->size));
	q->extra = base + extra_at;
	q->extra_phy = q->mem.phy + extra_at;
	q->event_idx = dev->features & VIRTIO_RING_F_EVENT_IDX;
	// ixy polls: interrupts would only cost time. With EVENT_IDX the flags must be 0 (VirtIO 1.2, 2.7.7) and the
	// used event index says when: one behind the used index, which the device passes again only 65536 entries
	// later. It is not kept trailing (a store per batch): on a queue with an MSI-X vector (an RX queue whose app
	// waits, split_set_rx_interrupt) the device then interrupts once per 65536 entries the app polls, which at
	// most wakes its waiter once early; a queue without a vector is never interrupted.
	q->avail->flags = q->event_idx ? 0 : VRING_AVAIL_F_NO_INTERRUPT;
	*used_event(q) = (uint16_t)(q->used_idx - 1); // read only with EVENT_IDX
	// What never changes is set up once: the data descriptor's direction, and in the two-descriptor layout the
	// header descriptor, which links to the data descriptor. RX headers go into each buffer's head room (the
	// device writes them); all TX chains share the one all-zero header in `extra`.
	for (uint16_t chain = 0; chain < q->num_chains && q->kind != QUEUE_CTRL; chain++) {
		uint16_t head = (uint16_t)(chain << q->chain_shift);
		uint16_t write = q->kind == QUEUE_RX ? VRING_DESC_F_WRITE : 0;
		q->desc[head + q->chain_shift].flags = write;
		if (q->chain_shift) {
			q->desc[head] =
			    (struct vring_desc){q->extra_phy, dev->net_hdr_len, (uint16_t)(VRING_DESC_F_NEXT | write),
						(uint16_t)(head + 1)};
		}
	}
	// RX and TX start in order: chain c in the available ring's entries c, c + num_chains, ..., written once.
	for (uint32_t entry = 0; entry < q->size && q->in_order; entry++) {
		q->avail->ring[entry] = (uint16_t)((entry & (q->num_chains - 1u)) << q->chain_shift);
	}
	return t->ops->enable_queue(t, q->index, q->size, q->mem.phy, q->mem.phy + q->size * sizeof(struct vring_desc),
				    q->mem.phy + used_ring_offset(q->size));
}

// 4.1.5.1.3: the queue's size (at most `wanted` where the transport lets the driver choose), what both layouts
// share, its MSI-X vector, then the layout's rings with the command behind them (control queue).
static int setup_queue(struct virtio_device* dev, struct virtqueue* q, uint16_t index, enum queue_kind kind,
		       uint16_t wanted) {
	struct virtio_transport* t = dev->transport;
	q->index = index;
	q->kind = kind;
	if (t->ops->queue_size(t, index, wanted, &q->size) != 0) {
		return -1;
	}
	// A split queue's size is a power of two (2.7; 2.4 in 1.0), a packed queue's any number up to 32768 (2.8).
	bool packed = dev->ring == &virtio_packed_ops;
	if (q->size < 4 || (!packed && (q->size & (q->size - 1)) != 0)) {
		ixy_error("%s: virtqueue %u has size %u, expected %s from 4", dev->ixy.pci_addr, index, q->size,
			  packed ? "a size" : "a power of two");
		return -1;
	}
	q->chain_shift = dev->one_descriptor ? 0 : 1;
	q->num_chains = (uint16_t)(q->size >> q->chain_shift);
	q->hdr_in_data = dev->one_descriptor ? dev->net_hdr_len : 0;
	q->in_order = kind != QUEUE_CTRL;
	// RX queue k signals vector k (setup_interrupts).
	if (kind == QUEUE_RX && dev->ixy.interrupts && t->ops->set_queue_vector(t, index, index / 2) != 0) {
		return -1;
	}
	return dev->ring->setup_queue(dev, q, sizeof(struct ctrl_command));
}

static void free_queue(struct virtqueue* q) {
	memory_free_dma(&q->mem);
	free(q->bufs);
	free(q->free_chains);
	free(q->taken_in);
	memory_free_mempool(q->pool);
	q->bufs = NULL;
	q->free_chains = NULL;
	q->taken_in = NULL;
	q->pool = NULL;
}

// ---- Receive and transmit
//
// Each queue goes one of two ways (virtqueue.in_order):
// - In order, from the start: chain c always sits in the available ring's entries c, c + num_chains, ... (written
//   once, setup_queue), and the chains are offered in that order, so offering them is one store of avail->idx per
//   batch. A device that uses them in order, as QEMU's does, returns them in the same order: the used entry at index
//   u must name chain u mod num_chains, a single compare per packet that also bounds the id, and the chains taken
//   are one run in the table of buffers, as in ixgbe's ring (TX frees them from there in one call).
// - In any order, from the first used entry that names another chain on, for good: the device may use chains in
//   any order (2.4.8). Each id is bounded and looked up; RX writes each chain into the available ring, TX keeps a
//   stack of free chains. A bad id goes this way too, and is then dropped and counted.
//
// The packet path exists once per layout and header length: virtio_rx_batch() and virtio_tx_batch() take them
// (`shift`, the queue's chain_shift; `hdr_len`) as constant arguments and are inlined into the small functions at
// the end, which start_device puts into the device struct once it knows the layout. So each copy has no test of the
// layout, and its lengths and offsets are immediates. The queue's pointers and indexes are read into locals once per
// batch: the stores into the (volatile) rings would otherwise make the compiler load them again for every packet.
// Whether an id from the device is the head of a chain: below the queue's size (mask + 1, a power of two), and with
// two descriptors per chain even (odd ones are data descriptors).
static ALWAYS_INLINE bool is_head(uint32_t id, uint32_t mask, uint32_t shift) {
	return id <= mask && !(id & shift);
}

// Puts buf into the RX chain starting at descriptor `head` (5.1.6.3): the device writes the header into the
// buffer's head room, right in front of the packet data, and the frame into the data. One descriptor covers both
// (shift 0), or the header descriptor covers the head room's last hdr_len bytes and the data descriptor the data
// (shift 1). Lengths and flags never change (setup_queue, start_device).
static ALWAYS_INLINE void rx_give_buffer(volatile struct vring_desc* desc, uint32_t head, const struct pkt_buf* buf,
					 uint32_t shift, uint32_t hdr_len) {
	uintptr_t data_phy = buf->buf_addr_phy + offsetof(struct pkt_buf, data);
	desc[head].addr = data_phy - hdr_len; // where the header starts (one descriptor: also the frame after it)
	if (shift) {
		desc[head + 1].addr = data_phy;
	}
}

// A used entry of the RX queue that is no packet (cold: see bad_used_entry): counted as dropped.
static __attribute__((cold)) void rx_bad_entry(const struct virtio_device* dev, struct virtqueue* q, const char* what,
					       uint32_t id, uint32_t len) {
	virtio_bad_used_entry(dev, q, what, id, len);
	count(&q->dropped, 1);
}

// The RX queue goes out of order for good (cold: once per device at most). Nothing else changes: every chain keeps
// its buffer, and the available ring's entries are chains, whichever order they are in.
static __attribute__((cold)) void rx_out_of_order(const struct virtio_device* dev, struct virtqueue* q, uint32_t id) {
	ixy_info("%s: RX chain id %u came back out of order: taking chains in any order from now on", dev->ixy.pci_addr,
		 id);
	q->in_order = false;
}

// A run of the chains first .. end - 1 in the table, no index wrapping: in order, the used entries and the chains
// advance together, so a pointer steps through each (ixgbe stops a call at the ring's end for the same reason).
// Returns the end of the run of at most n chains from `first`.
static ALWAYS_INLINE uint32_t run_end(const struct virtqueue* q, uint32_t first, uint32_t n) {
	return first + (n < q->num_chains - first ? n : q->num_chains - first);
}

// In order: takes the packets of up to `entries` used entries, each swapped for one of the fresh buffers in bufs[]
// (5.1.6.4), and offers their chains again. The entry at used index u must name chain u mod num_chains (a single
// compare), whose available ring entry is already there; the take stops at the first that does not, and the queue
// goes out of order. Returns the packets, in bufs[]; the fresh buffers left over follow them.
static ALWAYS_INLINE uint32_t rx_take_in_order(struct virtio_device* dev, struct virtqueue* q, struct pkt_buf* bufs[],
					       uint32_t entries, uint32_t shift, uint32_t hdr_len) {
	// The queue in locals, read once per batch: every store into the rings would make the compiler load q again.
	volatile struct vring_used_elem* used_ring = q->used->ring;
	volatile struct vring_desc* desc = q->desc;
	struct pkt_buf** ring_bufs = q->bufs;
	const uint32_t mask = q->size - 1u, chain_mask = mask >> shift;
	uint32_t taken = 0, received = 0;
	uint64_t rx_bytes = 0;
	// At most two runs: up to the table's end, then from its start.
	while (taken < entries && q->in_order) {
		uint32_t used_idx = q->used_idx + taken, first = used_idx & chain_mask, chain = first;
		volatile struct vring_used_elem* done = &used_ring[used_idx & mask];
		for (uint32_t end = run_end(q, first, entries - taken); chain < end; chain++, done++) {
			uint32_t id = done->id;
			uint32_t length = done->len - hdr_len; // the frame: len is header plus frame (5.1.6.4)
			// __builtin_expect: bad entries are rare, the straight path is the packet.
			if (__builtin_expect(id != chain << shift, 0)) {
				rx_out_of_order(dev, q, id);
				break;
			}
			// A length of 0 (length - 1 wraps around) or beyond the buffer is a device bug: the buffer
			// stays, unread, and the chain is offered again.
			if (__builtin_expect(length - 1 >= RX_BUF_DATA_ROOM, 0)) {
				rx_bad_entry(dev, q, "a bad length", id, length + hdr_len);
				continue;
			}
			// Take the packet, refill the chain with a fresh buffer (5.1.6.3).
			struct pkt_buf* buf = ring_bufs[chain];
			buf->size = length;
			rx_bytes += length;
			ring_bufs[chain] = bufs[received];
			rx_give_buffer(desc, id, bufs[received], shift, hdr_len);
			bufs[received++] = buf;
		}
		taken += chain - first;
	}
	count(&q->pkts, received);
	count(&q->bytes, rx_bytes);
	q->used_idx = (uint16_t)(q->used_idx + taken);
	q->avail_idx = (uint16_t)(q->avail_idx + taken); // every chain taken is offered again
	return received;
}

// Out of order: the same, but each id is bounded, and written into the available ring (2.4.6). An id the batch
// took already (its chain was offered again, the device holds it) is no chain the device returned: refused.
static ALWAYS_INLINE uint32_t rx_take_any_order(struct virtio_device* dev, struct virtqueue* q, struct pkt_buf* bufs[],
						uint32_t entries, uint32_t batch, uint32_t shift, uint32_t hdr_len) {
	volatile struct vring_used_elem* used_ring = q->used->ring; // in locals, as in rx_take_in_order
	volatile struct vring_desc* desc = q->desc;
	volatile uint16_t* avail_ring = q->avail->ring;
	struct pkt_buf** ring_bufs = q->bufs;
	uint32_t* taken_in = q->taken_in;
	const uint32_t mask = q->size - 1u;
	uint32_t used_idx = q->used_idx, avail_idx = q->avail_idx, received = 0;
	uint64_t rx_bytes = 0;
	for (uint32_t last = used_idx + entries; used_idx != last; used_idx++) {
		volatile struct vring_used_elem* done = &used_ring[used_idx & mask];
		uint32_t id = done->id;
		uint32_t length = done->len - hdr_len;
		if (__builtin_expect(!is_head(id, mask, shift) || taken_twice(taken_in, id >> shift, batch), 0)) {
			rx_bad_entry(dev, q, "a chain it does not hold", id, length + hdr_len);
			continue;
		}
		avail_ring[avail_idx++ & mask] = (uint16_t)id; // offered again: with a fresh buffer, or its own
		if (__builtin_expect(length - 1 >= RX_BUF_DATA_ROOM, 0)) {
			rx_bad_entry(dev, q, "a bad length", id, length + hdr_len);
			continue;
		}
		struct pkt_buf* buf = ring_bufs[id >> shift];
		buf->size = length;
		rx_bytes += length;
		ring_bufs[id >> shift] = bufs[received];
		rx_give_buffer(desc, id, bufs[received], shift, hdr_len);
		bufs[received++] = buf;
	}
	count(&q->pkts, received);
	count(&q->bytes, rx_bytes);
	q->used_idx = (uint16_t)used_idx;
	q->avail_idx = (uint16_t)avail_idx;
	return received;
}

// Receives up to num_bufs packets (5.1.6.4): the used ring returns RX chains the device wrote a packet into.
static ALWAYS_INLINE uint32_t virtio_rx_batch(struct ixy_device* ixy, uint16_t queue_id, struct pkt_buf* bufs[],
					      uint32_t num_bufs, uint32_t shift, uint32_t hdr_len) {
	struct virtio_device* dev = IXY_TO_DRIVER(struct virtio_device, ixy);
	// (queue_id is one of the device's: ixy_rx_batch and ixy_tx_batch refuse any other, ixy.h)
	struct virtqueue* q = &dev->rx[queue_id];
	uint16_t device_used_idx = load_acquire(&q->used->idx); // once per batch; before the entries it covers (3.2.2)
	uint16_t entries = new_used_entries(dev, q, device_used_idx);
	// The used ring says up front how many chains come back: so the fresh buffers come first, one batch
	// allocation, and each chain taken swaps its packet for one of them. One used entry per fresh buffer: if the
	// app holds every buffer, the packets wait in the used ring until it frees some.
	uint32_t fresh = pkt_buf_alloc_batch(q->pool, bufs, num_bufs < entries ? num_bufs : entries);
	uint16_t first = q->used_idx, offered = q->avail_idx;
	uint32_t received = q->in_order ? rx_take_in_order(dev, q, bufs, fresh, shift, hdr_len) : 0;
	if (!q->in_order) { // from the start, or from the entry that was out of order
		uint32_t taken = (uint16_t)(q->used_idx - first);
		uint32_t batch = rx_any_order_batch(q, first, taken); // the chains taken in order count
		received += rx_take_any_order(dev, q, &bufs[received], fresh - taken, batch, shift, hdr_len);
	}
	// Fresh buffers that bad entries left over go back in one batch.
	pkt_buf_free_batch(&bufs[received], fresh - received);
	if (q->avail_idx != offered) {
		publish_and_notify(dev, q);
	}
	return received;
}

// The TX queue goes out of order for good (cold: once per device at most): the chains it does not hold, those
// after the window used_idx .. avail_idx - 1, go onto the free stack, with no buffer (the window's chains keep
// theirs). Also at stop, so that the buffers in the table are exactly those of the chains the device holds.
static __attribute__((cold)) void tx_leave_in_order(struct virtqueue* q) {
	uint16_t held = (uint16_t)(q->avail_idx - q->used_idx);
	for (uint32_t k = held; k < q->num_chains; k++) {
		uint16_t chain = (uint16_t)((q->used_idx + k) & (q->num_chains - 1u));
		q->bufs[chain] = NULL;
		q->free_chains[q->num_free_chains++] = chain;
	}
	q->in_order = false;
}

// The used entry at used_idx named chain id, out of order.
static __attribute__((cold)) void tx_out_of_order(const struct virtio_device* dev, struct virtqueue* q, uint32_t id,
						  uint16_t used_idx) {
	ixy_info("%s: TX chain id %u came back out of order: taking chains in any order from now on", dev->ixy.pci_addr,
		 id);
	q->used_idx = used_idx; // the window starts at the entry out of order
	tx_leave_in_order(q);
}

// In order: the used entries must name the chains of the window, oldest first (a single compare each), so that the
// buffers sent are one run in the table (two where it wraps), each freed with one call, as in ixgbe's tx_clean.
// Stops at the first entry that names another chain: the queue then goes out of order. Returns the entries taken.
static ALWAYS_INLINE uint32_t tx_clean_in_order(struct virtio_device* dev, struct virtqueue* q, uint32_t entries,
						uint32_t shift) {
	volatile struct vring_used_elem* used_ring = q->used->ring; // in locals, as in rx_take_in_order
	struct pkt_buf** ring_bufs = q->bufs;
	const uint32_t mask = q->size - 1u, chain_mask = mask >> shift;
	uint32_t start = q->used_idx, taken = 0;
	uint64_t tx_bytes = 0;
	while (taken < entries && q->in_order) { // at most two runs, as in rx_take_in_order
		uint32_t used_idx = start + taken, first = used_idx & chain_mask, chain = first;
		volatile struct vring_used_elem* done = &used_ring[used_idx & mask];
		uint32_t end = run_end(q, first, entries - taken);
		// __builtin_expect: the straight path is the chain expected; another is allowed (2.4.8), or a bad
		// entry.
		for (; chain < end && __builtin_expect(done->id == chain << shift, 1); chain++, done++) {
			tx_bytes += ring_bufs[chain]->size;
		}
		pkt_buf_free_batch(&ring_bufs[first], chain - first);
		taken += chain - first;
		if (chain != end) { // after the free: going out of order takes the buffers out of the table
			tx_out_of_order(dev, q, done->id, (uint16_t)(start + taken));
		}
	}
	q->used_idx = (uint16_t)(start + taken);
	count(&q->pkts, taken);
	count(&q->bytes, tx_bytes);
	return taken;
}

// Sent buffers are freed in batches of up to this many: one call to the pool instead of one per packet.
#define TX_FREE_BATCH 32

// Out of order: each entry's chain is looked up; it must be one the device holds (it has a buffer). Its buffer is
// freed, the chain goes onto the free stack.
static ALWAYS_INLINE void tx_clean_any_order(struct virtio_device* dev, struct virtqueue* q, uint32_t entries,
					     uint32_t shift) {
	struct pkt_buf* sent[TX_FREE_BATCH];
	uint32_t num_sent = 0;
	uint64_t tx_bytes = 0;
	volatile struct vring_used_elem* used_ring = q->used->ring; // in locals, as in virtio_rx_batch
	struct pkt_buf** ring_bufs = q->bufs;
	uint16_t* free_chains = q->free_chains;
	const uint32_t mask = q->size - 1u;
	uint32_t used_idx = q->used_idx, num_free = q->num_free_chains, num_free_before = num_free;
	for (uint32_t last = used_idx + entries; used_idx != last; used_idx++) {
		uint32_t id = used_ring[used_idx & mask].id;
		// A chain the device holds has a buffer; an id that is no head, or a chain it returned already, has
		// not.
		struct pkt_buf* buf = is_head(id, mask, shift) ? ring_bufs[id >> shift] : NULL;
		if (__builtin_expect(!buf, 0)) {
			virtio_bad_used_entry(dev, q, "a chain it does not hold", id, used_ring[used_idx & mask].len);
			continue;
		}
		tx_bytes += buf->size;
		ring_bufs[id >> shift] = NULL;
		free_chains[num_free++] = (uint16_t)(id >> shift);
		sent[num_sent++] = buf;
		if (num_sent == TX_FREE_BATCH) {
			pkt_buf_free_batch(sent, num_sent);
			num_sent = 0;
		}
	}
	pkt_buf_free_batch(sent, num_sent);
	q->used_idx = (uint16_t)used_idx;
	q->num_free_chains = (uint16_t)num_free;
	count(&q->pkts, num_free - num_free_before);
	count(&q->bytes, tx_bytes);
}

// Frees the buffers of the TX chains the device has sent (5.1.6.2): they are in the used ring.
static ALWAYS_INLINE void tx_clean(struct virtio_device* dev, struct virtqueue* q, uint32_t shift) {
	uint16_t device_used_idx = load_acquire(&q->used->idx); // before the entries it covers (3.2.2)
	uint32_t entries = new_used_entries(dev, q, device_used_idx);
	if (q->in_order) {
		entries -= tx_clean_in_order(dev, q, entries, shift);
	}
	if (!q->in_order) {
		tx_clean_any_order(dev, q, entries, shift);
	}
}

// Puts buf into the TX chain `chain` (5.1.6.2). One descriptor: an all-zero header (no offloads, 5.1.6.2.1) goes into
// the head room in front of the frame, as 12 bytes whatever the header length (two stores). Two descriptors: the
// header descriptor already points at the shared zero header.
static ALWAYS_INLINE void tx_fill_chain(volatile struct vring_desc* desc, struct pkt_buf** ring_bufs, uint32_t chain,
					struct pkt_buf* buf, uint32_t shift, uint32_t hdr_len) {
	const uint32_t in_data = shift ? 0 : hdr_len; // header bytes in the data descriptor
	volatile struct vring_desc* data = &desc[(chain << shift) + shift];
	if (!shift) {
		memset(buf->head_room + PKT_BUF_HEAD_ROOM - VIRTIO_NET_HDR_LEN_V1, 0, VIRTIO_NET_HDR_LEN_V1);
	}
	data->addr = buf->buf_addr_phy + offsetof(struct pkt_buf, data) - in_data;
	data->len = buf->size + in_data;
	ring_bufs[chain] = buf;
}

// In order: puts up to num_bufs packets into the chains after the window, whose available ring entries are already
// there, and offers them. Returns how many it took.
static ALWAYS_INLINE uint32_t tx_offer_in_order(struct virtqueue* q, struct pkt_buf* bufs[], uint32_t num_bufs,
						uint32_t shift, uint32_t hdr_len) {
	volatile struct vring_desc* desc = q->desc; // in locals, as in rx_take_in_order
	struct pkt_buf** ring_bufs = q->bufs;
	const uint32_t chain_mask = q->num_chains - 1u, free = q->num_chains - (uint16_t)(q->avail_idx - q->used_idx);
	uint32_t wanted = num_bufs < free ? num_bufs : free, queued = 0;
	while (queued < wanted) { // at most two runs, as in rx_take_in_order
		uint32_t chain = (q->avail_idx + queued) & chain_mask;
		for (uint32_t end = run_end(q, chain, wanted - queued); chain < end; chain++) {
			tx_fill_chain(desc, ring_bufs, chain, bufs[queued++], shift, hdr_len);
		}
	}
	q->avail_idx = (uint16_t)(q->avail_idx + queued);
	return queued;
}

// Out of order: the same with chains from the free stack, each written into the available ring (2.4.6).
static ALWAYS_INLINE uint32_t tx_offer_any_order(struct virtqueue* q, struct pkt_buf* bufs[], uint32_t num_bufs,
						 uint32_t shift, uint32_t hdr_len) {
	uint32_t queued = num_bufs < q->num_free_chains ? num_bufs : q->num_free_chains;
	const uint16_t* free_chains = &q->free_chains[q->num_free_chains - queued]; // the top `queued` of the stack
	for (uint32_t i = 0; i < queued; i++) {
		tx_fill_chain(q->desc, q->bufs, free_chains[i], bufs[i], shift, hdr_len);
		q->avail->ring[(q->avail_idx + i) & (q->size - 1u)] = (uint16_t)(free_chains[i] << shift);
	}
	q->num_free_chains = (uint16_t)(q->num_free_chains - queued);
	q->avail_idx = (uint16_t)(q->avail_idx + queued);
	return queued;
}

// Queues up to num_bufs packets for sending (5.1.6.2), one chain each. Returns how many it took; the rest stay with
// the caller.
static ALWAYS_INLINE uint32_t virtio_tx_batch(struct ixy_device* ixy, uint16_t queue_id, struct pkt_buf* bufs[],
					      uint32_t num_bufs, uint32_t shift, uint32_t hdr_len) {
	struct virtio_device* dev = IXY_TO_DRIVER(struct virtio_device, ixy);
	struct virtqueue* q = &dev->tx[queue_id];
	tx_clean(dev, q, shift);
	uint32_t queued = q->in_order ? tx_offer_in_order(q, bufs, num_bufs, shift, hdr_len)
				      : tx_offer_any_order(q, bufs, num_bufs, shift, hdr_len);
	if (queued > 0) {
		publish_and_notify(dev, q);
	}
	return queued;
}

// The three instances: the modern interface (one descriptor, 12-byte header), the legacy one with ANY_LAYOUT (one
// descriptor, 10 bytes), the legacy one without (two descriptors, 10 bytes). start_device puts one of each into the
// device struct.
static uint32_t virtio_rx_any_layout(struct ixy_device* ixy, uint16_t queue_id, struct pkt_buf* bufs[], uint32_t num) {
	return virtio_rx_batch(ixy, queue_id, bufs, num, 0, VIRTIO_NET_HDR_LEN_LEGACY);
}
static uint32_t virtio_rx_two_desc(struct ixy_device* ixy, uint16_t queue_id, struct pkt_buf* bufs[], uint32_t num) {
	return virtio_rx_batch(ixy, queue_id, bufs, num, 1, VIRTIO_NET_HDR_LEN_LEGACY);
}
static uint32_t virtio_rx_version_1(struct ixy_device* ixy, uint16_t queue_id, struct pkt_buf* bufs[], uint32_t num) {
	return virtio_rx_batch(ixy, queue_id, bufs, num, 0, VIRTIO_NET_HDR_LEN_V1);
}
static uint32_t virtio_tx_any_layout(struct ixy_device* ixy, uint16_t queue_id, struct pkt_buf* bufs[], uint32_t num) {
	return virtio_tx_batch(ixy, queue_id, bufs, num, 0, VIRTIO_NET_HDR_LEN_LEGACY);
}
static uint32_t virtio_tx_two_desc(struct ixy_device* ixy, uint16_t queue_id, struct pkt_buf* bufs[], uint32_t num) {
	return virtio_tx_batch(ixy, queue_id, bufs, num, 1, VIRTIO_NET_HDR_LEN_LEGACY);
}
static uint32_t virtio_tx_version_1(struct ixy_device* ixy, uint16_t queue_id, struct pkt_buf* bufs[], uint32_t num) {
	return virtio_tx_batch(ixy, queue_id, bufs, num, 0, VIRTIO_NET_HDR_LEN_V1);
}

// The RX queue's interrupt (ixy_waiter). Split, without VIRTIO_RING_F_EVENT_IDX: the device signals the queue's
// vector after it added used entries, unless the driver's flags say VRING_AVAIL_F_NO_INTERRUPT (VirtIO 1.2, 2.7.7).
// With it: once the used index passes used_event (2.7.7; 2.6.7 in VirtIO 1.1), so arming asks for the next entry,
// and disarming for the one just behind, which the device passes again 65536 entries later: EVENT_IDX has no
// "never", so an app that polls without arming gets an interrupt per 65536 entries (split_setup_queue).
static void split_set_rx_interrupt(struct virtqueue* q, bool armed) {
	if (q->event_idx) {
		*used_event(q) = armed ? q->used_idx : (uint16_t)(q->used_idx - 1);
	} else {
		q->avail->flags = armed ? 0 : VRING_AVAIL_F_NO_INTERRUPT;
	}
}

static void virtio_set_rx_interrupt(struct ixy_device* ixy, uint16_t queue_id, bool armed) {
	struct virtio_device* dev = IXY_TO_DRIVER(struct virtio_device, ixy);
	dev->ring->set_rx_interrupt(&dev->rx[queue_id], armed);
	full_barrier(); // the request is visible before the app looks at the used ring again
}

// Interrupts, if the app asked for them: MSI-X vector k for RX queue k, through VFIO (the only way ixy gets
// interrupts; it takes only the modern interface, with queue_msix_vector). A device without MSI-X is polled.
static int setup_interrupts(struct virtio_device* dev, const struct ixy_config* config) {
	int ret = config->interrupt_timeout_ms == 0
		      ? 0
		      : pci_setup_rx_interrupts(dev->pci, dev->mq.pairs, dev->rx_interrupt_fds);
	if (ret != 1) {
		return ret; // 0: the device is polled
	}
	dev->interrupts =
	    (struct ixy_interrupts){dev->rx_interrupt_fds, config->interrupt_timeout_ms, virtio_set_rx_interrupt};
	dev->ixy.interrupts = &dev->interrupts;
	return 0;
}

// TX packets count once the device has taken them (used ring) and a tx_batch on the queue has seen that: read_stats
// touches no queue, as the queues may belong to other threads (ixy.h), so an app that wants its last batch counted
// calls tx_batch(dev, queue, NULL, 0) from the queue's thread first. rx_dropped counts only what the driver dropped:
// a VirtIO device does not report the frames it could not deliver for lack of RX buffers.
// The queues' counters only grow and are written by their threads alone; this reader only loads them (relaxed: each
// counter on its own, a count that lands during the loop is in this sum or the next) and adds what grew since the
// sums it saw last, which it alone keeps (dev->seen). Nothing is lost or counted twice, and rx_batch pays nothing
// for it.
static void virtio_read_stats(struct ixy_device* ixy, struct device_stats* stats) {
	struct virtio_device* dev = IXY_TO_DRIVER(struct virtio_device, ixy);
	struct virtio_counts now = {0};
	for (uint32_t i = 0; i < dev->mq.pairs; i++) {
		now.rx_pkts += __atomic_load_n(&dev->rx[i].pkts, __ATOMIC_RELAXED);
		now.rx_bytes += __atomic_load_n(&dev->rx[i].bytes, __ATOMIC_RELAXED);
		now.rx_dropped += __atomic_load_n(&dev->rx[i].dropped, __ATOMIC_RELAXED);
		now.tx_pkts += __atomic_load_n(&dev->tx[i].pkts, __ATOMIC_RELAXED);
		now.tx_bytes += __atomic_load_n(&dev->tx[i].bytes, __ATOMIC_RELAXED);
	}
	// Each sum only grows, and so does each with the CRC bytes of its packets: the differences stay exact.
	now.rx_bytes += now.rx_pkts * IXY_ETHER_CRC_BYTES;
	now.tx_bytes += now.tx_pkts * IXY_ETHER_CRC_BYTES;
	if (stats) {
		stats->rx_pkts += now.rx_pkts - dev->seen.rx_pkts;
		stats->tx_pkts += now.tx_pkts - dev->seen.tx_pkts;
		stats->rx_bytes += now.rx_bytes - dev->seen.rx_bytes;
		stats->tx_bytes += now.tx_bytes - dev->seen.tx_bytes;
		stats->rx_dropped += now.rx_dropped - dev->seen.rx_dropped;
	}
	dev->seen = now;
}

// ---- Control queue

// Split: the chain is descriptors 0, 1, 2: class and command, data, ack, each in a descriptor of its own, as the
// legacy interface requires without VIRTIO_F_ANY_LAYOUT (5.1.6.6). Only one command is ever in flight, so it always
// uses the same descriptors.
static void split_ctrl_offer(struct virtio_device* dev, struct virtqueue* q, uint32_t len) {
	q->desc[0] = (struct vring_desc){q->extra_phy + offsetof(struct ctrl_command, class_and_command), 2,
					 VRING_DESC_F_NEXT, 1};
	q->desc[1] = (struct vring_desc){q->extra_phy + offsetof(struct ctrl_command, data), len, VRING_DESC_F_NEXT, 2};
	q->desc[2] = (struct vring_desc){q->extra_phy + offsetof(struct ctrl_command, ack), 1, VRING_DESC_F_WRITE, 0};
	q->avail->ring[q->avail_idx++ & (q->size - 1)] = 0;
	publish_and_notify(dev, q);
}

// Whatever the device returned: the one chain is back.
static bool split_ctrl_returned(struct virtqueue* q) {
	uint16_t device_used_idx = load_acquire(&q->used->idx); // before the ack the device wrote
	if (device_used_idx == q->used_idx) {
		return false;
	}
	q->used_idx = device_used_idx;
	return true;
}

// Sends one command and waits for the device's ack (5.1.6.5), on either layout.
static int ctrl_command(struct virtio_device* dev, uint8_t class, uint8_t command, const uint8_t* data, uint32_t len) {
	if (!dev->has_ctrl_queue || dev->ctrl_broken) {
		ixy_error("%s: %s", dev->ixy.pci_addr,
			  dev->ctrl_broken ? "an earlier control command timed out, sending no more"
					   : "the device has no control queue (no VIRTIO_NET_F_CTRL_VQ)");
		return -1;
	}
	struct virtqueue* q = &dev->ctrl;
	volatile struct ctrl_command* cmd = (volatile struct ctrl_command*)q->extra;
	if (len > sizeof(cmd->data)) {
		ixy_panic("control command data of %u bytes does not fit", len);
	}
	cmd->class_and_command[0] = class;
	cmd->class_and_command[1] = command;
	for (uint32_t i = 0; i < len; i++) {
		cmd->data[i] = data[i];
	}
	cmd->ack = 0xff; // neither OK nor ERR: shows whether the device wrote it
	dev->ring->ctrl_offer(dev, q, len);
	for (uint32_t waited_us = 0; !dev->ring->ctrl_returned(q); waited_us += CTRL_POLL_US) {
		if (waited_us >= CTRL_TIMEOUT_US) {
			ixy_error("%s: no answer to control command %u/%u within %u ms", dev->ixy.pci_addr, class,
				  command, CTRL_TIMEOUT_US / 1000);
			dev->ctrl_broken = true;
			return -1;
		}
		ixy_usleep(CTRL_POLL_US);
	}
	// The ack: ctrl_returned read the device's used index or flags with an acquire load (virtio_queue.h).
	if (cmd->ack != VIRTIO_NET_OK) {
		ixy_error("%s: the device refused control command %u/%u (ack %u)", dev->ixy.pci_addr, class, command,
			  cmd->ack);
		return -1;
	}
	return 0;
}

static int virtio_set_promisc(struct ixy_device* ixy, bool enabled) {
	struct virtio_device* dev = IXY_TO_DRIVER(struct virtio_device, ixy);
	if (!(dev->features & VIRTIO_NET_F_CTRL_RX)) {
		ixy_error("%s: the device cannot switch promiscuous mode (no VIRTIO_NET_F_CTRL_RX)", ixy->pci_addr);
		return -1;
	}
	uint8_t on = enabled ? 1 : 0;
	return ctrl_command(dev, VIRTIO_NET_CTRL_RX, VIRTIO_NET_CTRL_RX_PROMISC, &on, 1);
}

// ---- Device configuration: MAC address and link (5.1.4)

static int virtio_get_mac_addr(const struct ixy_device* ixy, uint8_t mac[6]) {
	const struct virtio_device* dev = IXY_TO_DRIVER(const struct virtio_device, ixy);
	if (!(dev->features & VIRTIO_NET_F_MAC)) {
		ixy_error("%s: the device has no MAC address in its configuration (no VIRTIO_NET_F_MAC)",
			  ixy->pci_addr);
		return -1;
	}
	return dev->transport->ops->read_config(dev->transport, VIRTIO_NET_CONFIG_MAC, mac, 6);
}

// With VIRTIO_NET_F_CTRL_MAC_ADDR through the control queue; without it, only the legacy interface lets the
// driver write the mac field of the configuration (5.1.4).
static int virtio_set_mac_addr(struct ixy_device* ixy, const uint8_t mac[6]) {
	struct virtio_device* dev = IXY_TO_DRIVER(struct virtio_device, ixy);
	if (dev->features & VIRTIO_NET_F_CTRL_MAC_ADDR) {
		return ctrl_command(dev, VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_ADDR_SET, mac, 6);
	}
	return dev->transport->ops->write_config(dev->transport, VIRTIO_NET_CONFIG_MAC, mac, 6);
}

// With VIRTIO_NET_F_STATUS the device says whether the link is up (without it, the link is up by definition); with
// VIRTIO_NET_F_SPEED_DUPLEX it also gives the speed. Otherwise (always on the legacy interface) we report the
// nominal NOMINAL_LINK_SPEED_MBIT while the link is up.
static uint32_t virtio_get_link_speed(const struct ixy_device* ixy) {
	const struct virtio_device* dev = IXY_TO_DRIVER(const struct virtio_device, ixy);
	struct virtio_transport* t = dev->transport;
	uint16_t status = VIRTIO_NET_S_LINK_UP;
	if ((dev->features & VIRTIO_NET_F_STATUS) &&
	    t->ops->read_config(t, VIRTIO_NET_CONFIG_STATUS, &status, sizeof(status)) != 0) {
		return 0;
	}
	uint32_t speed = VIRTIO_NET_SPEED_UNKNOWN;
	if ((dev->features & VIRTIO_NET_F_SPEED_DUPLEX) &&
	    t->ops->read_config(t, VIRTIO_NET_CONFIG_SPEED, &speed, sizeof(speed)) != 0) {
		return 0;
	}
	if (!(status & VIRTIO_NET_S_LINK_UP)) {
		return 0;
	}
	return speed == VIRTIO_NET_SPEED_UNKNOWN || speed == 0 ? NOMINAL_LINK_SPEED_MBIT : speed;
}

// ---- Init and close

// Resets the device, so that it stops using our memory, then gives the buffers in its RX and TX chains back to
// their pools: every RX chain holds one, a TX chain one until the device sent it.
static void virtio_stop(struct ixy_device* ixy) {
	struct virtio_device* dev = IXY_TO_DRIVER(struct virtio_device, ixy);
	if (dev->stopped) {
		return;
	}
	dev->stopped = true;
	if (dev->transport) {
		reset_device(dev); // prints on failure; nothing else we could do
	}
	for (uint32_t i = 0; i < 2u * dev->mq.pairs; i++) {
		struct virtqueue* q = i % 2 ? &dev->tx[i / 2] : &dev->rx[i / 2];
		if (q->kind == QUEUE_TX && q->in_order && q->bufs) {
			dev->ring->tx_leave_in_order(q); // the table then holds the buffers of the chains held only
		}
		for (uint32_t chain = 0; q->bufs && chain < q->num_chains; chain++) {
			if (q->bufs[chain]) {
				pkt_buf_free(q->bufs[chain]);
				q->bufs[chain] = NULL;
			}
		}
	}
}

// Stops the device, then frees everything and gives up the device. Also the cleanup of a failed init.
static void virtio_close(struct ixy_device* ixy) {
	struct virtio_device* dev = IXY_TO_DRIVER(struct virtio_device, ixy);
	virtio_stop(&dev->ixy);
	uint32_t free_bufs = 0, pool_bufs = 0; // over the RX queues' pools
	uint64_t bad_used_entries = dev->ctrl.bad_used_entries;
	for (uint32_t i = 0; i < dev->mq.pairs; i++) {
		free_bufs += dev->rx[i].pool ? dev->rx[i].pool->free_stack_top : 0;
		pool_bufs += dev->rx[i].pool ? dev->rx[i].pool->num_entries : 0;
		bad_used_entries += dev->rx[i].bad_used_entries + dev->tx[i].bad_used_entries;
	}
	if (dev->rx[0].pool) {
		ixy_info("%s: closed; RX mempool: %u of %u buffers free; %llu bad used ring entries ignored",
			 dev->ixy.pci_addr, free_bufs, pool_bufs, (unsigned long long)bad_used_entries);
	}
	for (uint32_t i = 0; i < dev->mq.pairs; i++) {
		free_queue(&dev->rx[i]);
		free_queue(&dev->tx[i]);
	}
	free_queue(&dev->ctrl);
	if (dev->transport) {
		dev->transport->ops->close(dev->transport);
	}
	pci_set_bus_master(dev->pci, false);
	pci_close(dev->pci);
	free(dev);
}

static uint32_t rx_pool_entries(uint32_t rx_queue_size) {
	return RX_MEMPOOL_ENTRIES > 4 * rx_queue_size ? RX_MEMPOOL_ENTRIES : 4 * rx_queue_size;
}

// Split: each chain's buffer into its descriptors, then the available ring's entries, there since setup_queue.
static void split_fill_rx(const struct virtio_device* dev, struct virtqueue* rx) {
	for (uint16_t chain = 0; chain < rx->num_chains; chain++) {
		// The data descriptor's length never changes: the data room, and the header if it is in there.
		rx->desc[(chain << rx->chain_shift) + rx->chain_shift].len = RX_BUF_DATA_ROOM + rx->hdr_in_data;
		rx_give_buffer(rx->desc, (uint32_t)chain << rx->chain_shift, rx->bufs[chain], rx->chain_shift,
			       dev->net_hdr_len);
	}
	rx->avail_idx = rx->num_chains;
	store_release(&rx->avail->idx, rx->avail_idx); // after the descriptors
}

// The split layout's operations; the packet path's copy for the negotiated layout replaces rx_batch and tx_batch
// (choose_layout).
const struct virtio_ring_ops virtio_split_ops = {
    .name = "split",
    .setup_queue = split_setup_queue,
    .fill_rx = split_fill_rx,
    .rx_batch = virtio_rx_two_desc,
    .tx_batch = virtio_tx_two_desc,
    .ctrl_offer = split_ctrl_offer,
    .ctrl_returned = split_ctrl_returned,
    .set_rx_interrupt = split_set_rx_interrupt,
    .tx_leave_in_order = tx_leave_in_order,
};

// An RX queue's pool, and a buffer in each of its chains (5.1.5), offered to the device.
static int fill_rx_queue(const struct virtio_device* dev, struct virtqueue* rx) {
	rx->pool = memory_allocate_mempool(rx_pool_entries(rx->size), RX_BUF_SIZE);
	if (!rx->pool) {
		return -1;
	}
	// cannot fail: the pool holds 4 rings
	pkt_buf_alloc_batch(rx->pool, rx->bufs, rx->num_chains);
	dev->ring->fill_rx(dev, rx);
	return 0;
}

// After DRIVER_OK, with more than one queue pair: VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET (5.1.6.5.6) with VIRTIO_NET_F_MQ,
// then with RSS VIRTIO_NET_CTRL_MQ_RSS_CONFIG (5.1.6.5.7), which takes the number of pairs too (max_tx_vq); the last
// command decides how the device steers (5.1.6.5.5).
static int start_queue_pairs(struct virtio_device* dev, const struct ixy_config* config) {
	if (dev->features & VIRTIO_NET_F_MQ) {
		uint8_t pairs[2] = {(uint8_t)dev->mq.pairs, (uint8_t)(dev->mq.pairs >> 8)}; // le16
		if (ctrl_command(dev, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, pairs, sizeof(pairs)) != 0) {
			return -1;
		}
	}
	if (dev->mq.rss) {
		uint8_t data[VIRTIO_RSS_CONFIG_LEN];
		size_t len = virtio_rss_config_data(config, &dev->mq, data);
		return ctrl_command(dev, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_RSS_CONFIG, data, (uint32_t)len);
	}
	return 0;
}

// 3.1.1 steps 4 to 6: accept only the features ixy uses, and what the transport requires (the transport sets and
// checks FEATURES_OK where it has it). 0, or -1 with a message.
static int negotiate_features(struct virtio_device* dev, const struct ixy_config* config) {
	struct virtio_transport* t = dev->transport;
	// Behind an IOMMU (VFIO) the device must send its DMA through it (6.1): VIRTIO_F_ACCESS_PLATFORM. Without
	// it, it would take our IO virtual addresses for physical ones.
	uint64_t required = t->required_features |
			    (dev->pci->access->dma && dev->pci->access->dma->iommu ? VIRTIO_F_ACCESS_PLATFORM : 0);
	uint64_t offered;
	if (t->ops->get_features(t, &offered) != 0) {
		return -1;
	}
	if ((offered & required) != required) {
		ixy_error(
		    "%s: the device offers features 0x%llx, without 0x%llx that ixy needs here (bit 32 VERSION_1: "
		    "the modern interface; bit 33 ACCESS_PLATFORM: DMA through the IOMMU, QEMU: iommu_platform=on)",
		    dev->ixy.pci_addr, (unsigned long long)offered, (unsigned long long)(required & ~offered));
		return -1;
	}
	// Packed virtqueues (VirtIO 1.1, 2.7) unless config->virtio_split (IXY_VIRTIO_SPLIT=1) asks for split ones:
	// only the modern transport has feature bits beyond 31 to offer them.
	uint64_t packed = config->virtio_split ? 0 : VIRTIO_F_RING_PACKED;
	dev->features = offered & (WANTED_FEATURES | packed | required | virtio_mq_features(config, offered));
	// ANY_LAYOUT is a legacy bit (6): with VERSION_1 any layout goes anyway (2.6.4), so it is not accepted there.
	if (dev->features & VIRTIO_F_VERSION_1) {
		dev->features &= ~VIRTIO_F_ANY_LAYOUT;
	}
	if (!(dev->features & VIRTIO_NET_F_CTRL_VQ)) { // all of these are control commands
		dev->features &=
		    ~(VIRTIO_NET_F_CTRL_RX | VIRTIO_NET_F_CTRL_MAC_ADDR | VIRTIO_NET_F_MQ | VIRTIO_NET_F_RSS);
	}
	return t->ops->set_features(t, dev->features);
}

// What the negotiated features decide: the net header's length, one descriptor or two per packet, and with them
// the packet path's copies.
static void choose_layout(struct virtio_device* dev) {
	dev->net_hdr_len = (dev->features & VIRTIO_F_VERSION_1) ? VIRTIO_NET_HDR_LEN_V1 : VIRTIO_NET_HDR_LEN_LEGACY;
	dev->one_descriptor = dev->features & (VIRTIO_F_VERSION_1 | VIRTIO_F_ANY_LAYOUT);
	dev->ring = dev->features & VIRTIO_F_RING_PACKED ? &virtio_packed_ops : &virtio_split_ops;
	if (dev->ring == &virtio_packed_ops) { // modern only: VERSION_1, one descriptor per packet
		dev->ixy.rx_batch = virtio_packed_ops.rx_batch;
		dev->ixy.tx_batch = virtio_packed_ops.tx_batch;
		return;
	}
	dev->ixy.rx_batch = dev->features & VIRTIO_F_VERSION_1 ? virtio_rx_version_1
			    : dev->one_descriptor              ? virtio_rx_any_layout
							       : virtio_rx_two_desc;
	dev->ixy.tx_batch = dev->features & VIRTIO_F_VERSION_1 ? virtio_tx_version_1
			    : dev->one_descriptor              ? virtio_tx_any_layout
							       : virtio_tx_two_desc;
}

// The virtqueues (5.1.2): each pair's RX queue with a receive buffer in every chain (5.1.5) and its TX queue, then
// the control queue. ring_size: descriptors per RX and TX queue where the transport lets the driver choose.
static int setup_queues(struct virtio_device* dev, uint16_t ring_size) {
	for (uint16_t k = 0; k < dev->mq.pairs; k++) {
		if (setup_queue(dev, &dev->rx[k], (uint16_t)(2 * k), QUEUE_RX, ring_size) != 0 ||
		    setup_queue(dev, &dev->tx[k], (uint16_t)(2 * k + 1), QUEUE_TX, ring_size) != 0 ||
		    fill_rx_queue(dev, &dev->rx[k]) != 0) {
			return -1;
		}
	}
	// 5.1.2: the control queue follows the device's last pair, whether ixy uses them all or not.
	uint16_t ctrl_index = dev->features & (VIRTIO_NET_F_MQ | VIRTIO_NET_F_RSS) ? (uint16_t)(2 * dev->mq.max_pairs)
										   : CTRL_QUEUE_ONE_PAIR;
	if (dev->has_ctrl_queue && setup_queue(dev, &dev->ctrl, ctrl_index, QUEUE_CTRL, CTRL_QUEUE_SIZE) != 0) {
		return -1;
	}
	return 0;
}

// 3.1.1 step 8: sets DRIVER_OK and reads the status back; a device that failed or needs a reset did not take it.
// 0, or -1 with a message.
static int set_driver_ok(struct virtio_device* dev) {
	struct virtio_transport* t = dev->transport;
	uint8_t status = 0;
	if (add_status(dev, VIRTIO_STATUS_DRIVER_OK) != 0 || t->ops->get_status(t, &status) != 0) {
		return -1;
	}
	if (!(status & VIRTIO_STATUS_DRIVER_OK) || (status & (VIRTIO_STATUS_NEEDS_RESET | VIRTIO_STATUS_FAILED))) {
		ixy_error("%s: the device did not accept DRIVER_OK (status 0x%02x)", dev->ixy.pci_addr, status);
		return -1;
	}
	return 0;
}

// Negotiates features and sets up the queues: the steps of 3.1.1 (the legacy interface skips 5 and 6, 3.1.2).
// config->ring_size: descriptors per RX and TX queue where the transport lets the driver choose (0: the device's
// maximum, at most LARGEST_EXPECTED_QUEUE).
static int start_device(struct virtio_device* dev, const struct ixy_config* config) {
	struct virtio_transport* t = dev->transport;
	// 1.-3. Reset, then tell the device we noticed it and can drive it. (injected_failure: a test hook.)
	if (reset_device(dev) != 0 || injected_failure(config, "reset") ||
	    add_status(dev, VIRTIO_STATUS_ACKNOWLEDGE) != 0 || add_status(dev, VIRTIO_STATUS_DRIVER) != 0) {
		return -1;
	}
	// 4.-6. Accept only the features we use, and what the transport requires.
	if (negotiate_features(dev, config) != 0) {
		return -1;
	}
	choose_layout(dev);
	// 7. Device-specific setup: the queue pairs the device has (virtio_rss.c), interrupts, the queues (5.1.2), and
	// receive buffers in every RX chain (5.1.5).
	dev->has_ctrl_queue = dev->features & VIRTIO_NET_F_CTRL_VQ;
	uint16_t ring_size = config->ring_size != 0 ? (uint16_t)config->ring_size : LARGEST_EXPECTED_QUEUE;
	if (virtio_mq_setup(config, t, dev->features, &dev->mq) != 0 || setup_interrupts(dev, config) != 0 ||
	    injected_failure(config, "memory") || setup_queues(dev, ring_size) != 0 ||
	    injected_failure(config, "queue")) {
		return -1;
	}
	// 8. Ready: from now on the device may use the queues. Then tell it about the RX buffers.
	if (set_driver_ok(dev) != 0) {
		return -1;
	}
	for (uint16_t k = 0; k < dev->mq.pairs; k++) {
		t->ops->notify(t, dev->rx[k].index);
	}
	// More than one queue pair: tell the device how many, and how to spread received packets over them.
	if (start_queue_pairs(dev, config) != 0) {
		return -1;
	}
	// Receive everything, as the other drivers do. Only possible with the control queue.
	if (dev->features & VIRTIO_NET_F_CTRL_RX) {
		return virtio_set_promisc(&dev->ixy, true);
	}
	ixy_warn("%s: the device has no control queue, cannot switch on promiscuous mode", dev->ixy.pci_addr);
	return 0;
}

// The transport: modern if the device has it, unless config->virtio_legacy (IXY_VIRTIO_LEGACY=1) asks for the legacy
// one. Behind an IOMMU only the modern one will do: a legacy device cannot send its DMA through the IOMMU.
static struct virtio_transport* open_transport(struct pci_device* pci, bool force_legacy) {
	struct virtio_transport* t = NULL;
	if (!force_legacy && virtio_modern_open(pci, &t) != 0) {
		return NULL;
	}
	if (!t && pci->access->dma && pci->access->dma->iommu) {
		ixy_error("%s: %s: the legacy VirtIO interface cannot send DMA through the IOMMU (no "
			  "VIRTIO_F_ACCESS_PLATFORM), so ixy does not drive it through %s",
			  pci->addr, force_legacy ? "IXY_VIRTIO_LEGACY=1" : "the device has only the legacy interface",
			  pci->access->name);
		return NULL;
	}
	return t ? t : virtio_legacy_open(pci);
}

// Promiscuous mode, link speed, MAC address (ixy/settings.h).
static const struct ixy_settings virtio_settings = {.set_promisc = virtio_set_promisc,
						    .get_link_speed = virtio_get_link_speed,
						    .get_mac_addr = virtio_get_mac_addr,
						    .set_mac_addr = virtio_set_mac_addr};

static struct ixy_device* virtio_init(const struct ixy_config* config, struct pci_device* pci,
				      const struct driver_features* features) {
	(void)features; // (ixgbe's init takes its features from the entries; this driver calls its own)
	struct virtio_device* dev = aligned_alloc(IXY_CACHE_LINE, sizeof(*dev)); // (its queues are cache line aligned)
	if (!dev) {
		ixy_error("%s: out of memory", pci->addr);
		pci_set_bus_master(pci, false);
		pci_close(pci);
		return NULL;
	}
	memset(dev, 0, sizeof(*dev)); // (as calloc would)
	dev->pci = pci;
	dev->mq = (struct virtio_mq){.pairs = 1, .max_pairs = 1}; // until start_device knows more
	const char* pci_addr = pci->addr;
	dev->ixy = (struct ixy_device){
	    .pci_addr = pci_addr,
	    .driver_name = "virtio",
	    .num_rx_queues = config->rx_queues,
	    .num_tx_queues = config->tx_queues,
	    .rx_batch = virtio_rx_two_desc, // until start_device knows the layout
	    .tx_batch = virtio_tx_two_desc,
	    .read_stats = virtio_read_stats,
	    .settings = &virtio_settings,
	    .stop = virtio_stop,
	    .close = virtio_close,
	};
	dev->transport = open_transport(pci, config->virtio_legacy);
	if (!dev->transport || start_device(dev, config) != 0) {
		if (dev->transport) {
			// 2.1.1, 3.1.1: the driver gives up on the device (FAILED); virtio_close then resets it.
			add_status(dev, VIRTIO_STATUS_FAILED);
		}
		virtio_close(&dev->ixy);
		return NULL;
	}
	uint16_t ring = dev->rx[0].size;
	if (config->ring_size != 0 && (config->ring_size != ring || dev->tx[0].size != ring)) {
		ixy_warn("%s: ring size %u requested; the device's queues have %u (RX) and %u (TX) descriptors",
			 pci_addr, config->ring_size, ring, dev->tx[0].size);
	}
	ixy_info("%s: VirtIO %s interface, %s virtqueues, features 0x%llx, %u queue pair(s)%s, RX/TX queues of %u/%u "
		 "descriptors, %u descriptor(s) per packet",
		 pci_addr, dev->transport->ops->name, dev->ring->name, (unsigned long long)dev->features, dev->mq.pairs,
		 dev->mq.rss ? " with RSS" : "", ring, dev->tx[0].size, dev->one_descriptor ? 1u : 2u);
	return &dev->ixy;
}

// The DMA memory virtio_init allocates: one huge page per virtqueue, and a pool per RX queue.
static uint32_t virtio_huge_pages_needed(const struct ixy_config* config) {
	uint32_t queue = config->ring_size > LARGEST_EXPECTED_QUEUE ? config->ring_size : LARGEST_EXPECTED_QUEUE;
	uint32_t pairs = config->rx_queues > config->tx_queues ? config->rx_queues : config->tx_queues;
	pairs = pairs > 0 ? pairs : 1;
	return pairs * (2 + memory_mempool_huge_pages(rx_pool_entries(queue), RX_BUF_SIZE)) + 1;
}

// Transitional devices (legacy and usually modern interface) and modern-only ones (4.1.2.1).
static const uint16_t virtio_device_ids[] = {VIRTIO_PCI_DEVICE_ID_NET_TRANSITIONAL, VIRTIO_PCI_DEVICE_ID_NET_MODERN};

const struct ixy_driver virtio_driver = {
    .name = "virtio",
    .vendor_id = VIRTIO_PCI_VENDOR_ID,
    .device_ids = virtio_device_ids,
    .num_device_ids = sizeof(virtio_device_ids) / sizeof(virtio_device_ids[0]),
    .init = virtio_init,
    .huge_pages_needed = virtio_huge_pages_needed,
};
