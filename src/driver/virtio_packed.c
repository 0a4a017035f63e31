// Packed virtqueues (VirtIO 1.2, 2.8; 2.7 in VirtIO 1.1): the second layout of ixy's VirtIO driver, beside split.
//
// A packed virtqueue is one ring of descriptors (struct vring_packed_desc) that the driver and the device walk in the
// same direction. The driver makes a descriptor available in place: address, length and buffer id, then its flags,
// AVAIL set to the driver's wrap counter and USED to its inverse. The device marks it used in place, in the order it
// finishes buffers: the id of the buffer, the bytes it wrote, and AVAIL and USED both set to the device's wrap
// counter. Each side's wrap counter starts at 1 and flips whenever its position passes the ring's end (2.8.1), so
// a descriptor left from the last round never looks new. Beside the ring, the driver area and the device area each
// hold an event suppression structure (2.8.10, 2.8.14): in the device's the device says whether it wants to be
// notified; in the driver's the driver says whether it wants interrupts.
//
// Only the modern transport offers VIRTIO_F_RING_PACKED (bit 34), so a packet is always one descriptor: the 12 byte
// header of VIRTIO_F_VERSION_1 in the buffer's head room, then the frame (as split's version_1 copy). The buffer id
// is the index of the buffer in q->bufs; RX gives a buffer the id of the one it replaces, TX takes free ids from a
// stack. The device may return ids in any order (2.8.8: in order only with VIRTIO_F_IN_ORDER, which ixy does not
// accept), and nothing it writes is trusted: a used descriptor whose flags are not the device's wrap counter's, that
// names no buffer the device holds, or reports more bytes than the buffer has, is dropped and counted, and reported
// once, as split's bad used entries are (virtio_bad_used_entry); the device is never believed to have used more
// descriptors than it holds (in_flight).
//
// The packet path keeps the batched form of split's: RX takes fresh buffers with one pkt_buf_alloc_batch, as many
// as there are used descriptors (in order, a full batch is seen from its last descriptor), and swaps each packet for
// one, making its descriptor available again in the same pass;
// TX frees sent buffers with pkt_buf_free_batch; at most one notification per batch, and only when the device asks
// for it.
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "virtio_queue.h"

// Sent buffers are freed in batches of up to this many (as split's TX_FREE_BATCH).
#define PACKED_TX_FREE_BATCH 32
// What the device writes into a used descriptor's flags in a round where its wrap counter is 1 (2.8.1); 0 in the
// other rounds. Also the two bits that flip in a cursor's flags when it passes the ring's end.
#define USED_FLAGS (VRING_PACKED_DESC_F_AVAIL | VRING_PACKED_DESC_F_USED)
// In a descriptor's len_id_flags: the id and the two flags of USED_FLAGS, what the in-order packet path compares.
#define ID_AND_USED_FLAGS ((uint64_t)USED_FLAGS << 48 | (uint64_t)0xffff << 32)

// The next position in the ring: passing the end flips the wrap counter, in the flags of the round (2.8.1).
static ALWAYS_INLINE void advance(struct packed_cursor* at, uint32_t size) {
	if (++at->pos == size) {
		at->pos = 0;
		at->flags ^= USED_FLAGS;
	}
}

// Whether the device has written the descriptor under the cursor: its USED flag is the device's wrap counter. The
// AVAIL flag must then be too (the packet path checks both bits against the cursor's flags); one that is not is a
// descriptor the device got wrong.
static ALWAYS_INLINE bool device_wrote(uint16_t flags, struct packed_cursor used) {
	return (flags & VRING_PACKED_DESC_F_USED) == (used.flags & VRING_PACKED_DESC_F_USED);
}

// Makes the descriptor under the cursor available: address, length and id, then the flags, which hand it over
// (2.8.1), then the cursor moves on.
static ALWAYS_INLINE void make_available(volatile struct vring_packed_desc* ring, struct packed_cursor* avail,
					 uint32_t size, uint64_t addr, uint32_t len, uint16_t id, uint16_t flags) {
	volatile struct vring_packed_desc* desc = &ring[avail->pos];
	desc->addr = addr;
	desc->len = len;
	desc->id = id;
	store_release(&desc->flags, (uint16_t)(flags | avail->flags)); // after address, length and id: hands it over
	advance(avail, size);
}

// The used descriptors from `used` on, at most max: those the device has written, never more than it holds
// (in_flight: a descriptor beyond is not looked at). Runs up to the ring's end, so that the position needs no test
// per descriptor (as the packet path's).
static ALWAYS_INLINE uint32_t used_descriptors(const struct virtqueue* q, struct packed_cursor used, uint32_t max) {
	volatile struct vring_packed_desc* ring = q->ring;
	const uint32_t size = q->size;
	uint32_t n = 0, pos = used.pos;
	uint16_t wrap = used.flags & VRING_PACKED_DESC_F_USED; // the USED flag of the round
	max = max < q->in_flight ? max : q->in_flight;
	while (n < max) {
		uint32_t run = max - n < size - pos ? max - n : size - pos;
		volatile struct vring_packed_desc* desc = &ring[pos];
		volatile struct vring_packed_desc* const end = desc + run;
		while (desc < end && (load_acquire(&desc->flags) & VRING_PACKED_DESC_F_USED) == wrap) {
			desc++;
		}
		uint32_t seen = (uint32_t)(desc - &ring[pos]);
		n += seen;
		if (seen < run) {
			break; // the device has not written this one yet
		}
		pos += run;
		if (pos == size) { // passing the end flips the wrap counter (2.8.1)
			pos = 0;
			wrap ^= VRING_PACKED_DESC_F_USED;
		}
	}
	return n;
}

// The device's event suppression structure in one load (2.8.14: off_wrap in bytes 0-1, flags in bytes 2-3, little
// endian), so that its offset and its flags are from the same moment.
union packed_event_snapshot {
	struct vring_packed_event fields;
	uint32_t both;
};
// 2.8.14: the flags field's bits 0-1 are desc_event_flags; bits 2-15 are reserved (the device should write 0).
#define PACKED_EVENT_FLAGS_MASK 3u

// Notifies the device of the `added` descriptors just made available, unless its event suppression structure says
// it does not want that (2.8.10): DISABLE, or with VIRTIO_RING_F_EVENT_IDX DESC for a descriptor outside this batch.
// Only the 2-bit field counts, not the reserved bits beside it; its reserved value 3 (and DESC without EVENT_IDX,
// which the device must not write) is taken as ENABLE: a notification the device did not want costs it one look
// at the ring, one it wanted and did not get leaves TX stalled.
// The descriptor it names (off_wrap: offset and wrap counter) is mapped onto the driver's running position, the
// previous round counting below 0, so that the split ring's test applies (vring_need_event).
static void notify_if_wanted(const struct virtio_device* dev, const struct virtqueue* q, uint16_t added) {
	full_barrier(); // the descriptors' flags before reading the device's wishes, or we may miss that it slept
	union packed_event_snapshot event_area = {
	    .both = ((const volatile union packed_event_snapshot*)q->device_event)->both};
	uint16_t flags = event_area.fields.flags & PACKED_EVENT_FLAGS_MASK;
	bool wanted = flags != VRING_PACKED_EVENT_FLAG_DISABLE;
	if (flags == VRING_PACKED_EVENT_FLAG_DESC && q->event_idx) {
		uint16_t off_wrap = event_area.fields.off_wrap;
		uint16_t event = off_wrap & (uint16_t)((1u << VRING_PACKED_EVENT_WRAP_SHIFT) - 1);
		bool event_wrap = off_wrap >> VRING_PACKED_EVENT_WRAP_SHIFT;
		bool avail_wrap = q->next_avail.flags & VRING_PACKED_DESC_F_AVAIL;
		if (event_wrap != avail_wrap) { // in the round before the driver's current one
			event = (uint16_t)(event - q->size);
		}
		uint16_t new_pos = q->next_avail.pos;
		wanted = vring_need_event(event, new_pos, (uint16_t)(new_pos - added));
	}
	if (wanted) {
		dev->transport->ops->notify(dev->transport, q->index);
	}
}

// ---- Setup

// The ring, then the driver area and the device area (4 bytes each, 2.8.10), then `extra` at a cache line. The
// descriptors must be 16 byte aligned, the areas 4 byte aligned (2.8.10.1; the block is a huge page).
static size_t driver_area_offset(uint16_t size) {
	return size * sizeof(struct vring_packed_desc);
}
static size_t packed_extra_offset(uint16_t size) {
	return (driver_area_offset(size) + 2 * sizeof(struct vring_packed_event) + 63) / 64 * 64;
}

static int packed_setup_queue(struct virtio_device* dev, struct virtqueue* q, size_t extra) {
	struct virtio_transport* t = dev->transport;
	size_t extra_at = packed_extra_offset(q->size);
	if (virtio_alloc_queue(dev, q, extra_at + extra) != 0) {
		return -1;
	}
	uint8_t* base = q->mem.virt; // zeroed: no descriptor is available or used
	q->ring = (volatile struct vring_packed_desc*)base;
	q->driver_event = (volatile struct vring_packed_event*)(base + driver_area_offset(q->size));
	q->device_event = q->driver_event + 1;
	q->extra = base + extra_at;
	q->extra_phy = q->mem.phy + extra_at;
	q->event_idx = dev->features & VIRTIO_RING_F_EVENT_IDX;
	q->driver_event->flags = VRING_PACKED_EVENT_FLAG_DISABLE; // ixy polls: interrupts would only cost time
	// 2.8.1: both wrap counters start at 1, at position 0.
	q->next_avail = (struct packed_cursor){0, VRING_PACKED_DESC_F_AVAIL};
	q->next_used = (struct packed_cursor){0, USED_FLAGS};
	q->in_flight = 0;
	// TX starts in order (ids are positions, no free stack: packed_tx_leave_in_order fills it); RX ids are always
	// with the device.
	q->num_free_chains = 0;
	// In order TX offers buffer id p at position p, where the id stays between rounds (the device returned it
	// there, tx_clean_in_order checked that): written once here, not per packet.
	for (uint16_t pos = 0; pos < q->size && q->kind == QUEUE_TX; pos++) {
		q->ring[pos].id = pos;
	}
	uint64_t driver_area = q->mem.phy + driver_area_offset(q->size);
	return t->ops->enable_queue(t, q->index, q->size, q->mem.phy, driver_area,
				    driver_area + sizeof(struct vring_packed_event));
}

// Receive buffers: the device writes the header into the head room in front of the frame, one descriptor for both.
static inline uint64_t rx_buffer_addr(const struct pkt_buf* buf) {
	return buf->buf_addr_phy + offsetof(struct pkt_buf, data) - VIRTIO_NET_HDR_LEN_V1;
}
#define RX_DESC_LEN (RX_BUF_DATA_ROOM + VIRTIO_NET_HDR_LEN_V1)

// Every RX buffer available, buffer id i in descriptor i.
static void packed_fill_rx(const struct virtio_device* dev, struct virtqueue* rx) {
	(void)dev;
	for (uint16_t id = 0; id < rx->num_chains; id++) {
		make_available(rx->ring, &rx->next_avail, rx->size, rx_buffer_addr(rx->bufs[id]), RX_DESC_LEN, id,
			       VRING_DESC_F_WRITE);
	}
	rx->in_flight = rx->num_chains;
}

// ---- Receive

// A used RX descriptor that is no packet (cold: as split's): counted as dropped.
static __attribute__((cold)) void rx_bad_desc(const struct virtio_device* dev, struct virtqueue* q, const char* what,
					      uint32_t id, uint32_t len) {
	virtio_bad_used_entry(dev, q, what, id, len);
	count(&q->dropped, 1);
}

// RX goes one of two ways (virtqueue.in_order), as TX does: in order, from the start, the used descriptor at
// position p must name buffer id p (one compare, which also bounds the id), and the buffer goes back to the same
// position, so that the driver's position is the device's and the id the device wrote stays; in any order, from
// the first descriptor that names another id or has bad flags on, for good, each id is bounded and its buffer made
// available at the driver's own position.

// The RX queue goes out of order for good (cold: once per device at most). Nothing else changes: every buffer stays
// in the table under its id.
static __attribute__((cold)) void rx_out_of_order(const struct virtio_device* dev, struct virtqueue* q, uint32_t id) {
	ixy_info("%s: RX buffer id %u came back out of order: taking buffers in any order from now on",
		 dev->ixy.pci_addr, id);
	q->in_order = false;
}

// In order: takes the packets of the used descriptors from next_used on, at most max, in one pass. If the first one
// is used, one batch allocation puts as many fresh buffers into bufs[] as the device has filled (at most max and
// what it holds); then, in runs up to the ring's end, each descriptor that is a packet at its own position (id p,
// the flags of the round, a good length) gives its packet to bufs[] and takes the fresh buffer from there, and is
// made available again at once: its address, then length, id and flags in one 8 byte release store. The take
// stops at the first descriptor that is not such a packet: one the device has not written yet ends it; one with a
// bad length is made available again with its own buffer, unread, and the take goes on; one that names another id
// (or has flags against the wrap counter) makes the queue go out of order. Fresh buffers left over (bad
// descriptors) go back in one batch. Returns the packets, in bufs[]; *offered: the descriptors made available again
// (all those consumed).
static ALWAYS_INLINE uint32_t rx_take_in_order(struct virtio_device* dev, struct virtqueue* q, struct pkt_buf* bufs[],
					       uint32_t max, uint32_t* offered) {
	volatile struct vring_packed_desc* ring = q->ring;
	struct pkt_buf** ring_bufs = q->bufs;
	const uint32_t size = q->size;
	// One position for both sides, and the flags a used descriptor has there.
	uint32_t pos = q->next_used.pos, used_flags = q->next_used.flags;
	uint32_t consumed = 0, received = 0;
	uint64_t rx_bytes = 0;
	max = max < q->in_flight ? max : q->in_flight; // never more than the device holds
	*offered = 0;
	// The device marks descriptors used in ring order (its used position only moves on, 2.8): if the last of the
	// max is used, so are all (a busy link: one load); otherwise they are counted, and if none is, nothing is
	// allocated. Either way a guess: the pass below checks each one.
	uint32_t last = pos + max - 1, last_flags = used_flags;
	if (last >= size) {
		last -= size;
		last_flags ^= USED_FLAGS;
	}
	if (max == 0 || ((load_acquire(&ring[last].flags) ^ last_flags) & VRING_PACKED_DESC_F_USED) != 0) {
		max = used_descriptors(q, q->next_used, max);
		if (max == 0) {
			return 0;
		}
	}
	const uint32_t fresh = pkt_buf_alloc_batch(q->pool, bufs, max);
	// A used descriptor's len_id_flags made into the available one at its place by one XOR: the length (the used
	// word's is 0 there: `expected` has none), AVAIL flipped (the driver's wrap counter is one round ahead of the
	// device's) and WRITE set.
	const uint64_t make_available = (uint64_t)(VRING_PACKED_DESC_F_AVAIL | VRING_DESC_F_WRITE) << 48 | RX_DESC_LEN;
	bool more = true;
	while (more && received < fresh && consumed < max) {
		uint32_t run = fresh - received < size - pos ? fresh - received : size - pos;
		run = run < max - consumed ? run : max - consumed;
		// The descriptor at position p, in one acquire load (len_id_flags), must have id p and the flags of
		// the round: one compare of its id and flags against `expected`, which steps by one id per position.
		// The flags, id and length come from one aligned 8 byte load, so id and length are never older than
		// the flags; an acquire load (virtio_queue.h), so the packet the app reads is not either.
		uint64_t expected = (uint64_t)used_flags << 48 | (uint64_t)pos << 32, word = 0;
		volatile struct vring_packed_desc* done = &ring[pos];
		volatile struct vring_packed_desc* const end = done + run;
		struct pkt_buf** slot = &ring_bufs[pos];
		struct pkt_buf** out = &bufs[received]; // the next fresh buffer, where the next packet goes
		bool stopped = false;
		for (; done < end; done++, slot++, out++, expected += 1ull << 32) {
			word = load_acquire(&done->len_id_flags);
			uint32_t length = (uint32_t)word - VIRTIO_NET_HDR_LEN_V1; // header plus frame (5.1.6.4)
			// A length of 0 (length - 1 wraps around) or beyond the buffer is no packet. __builtin_expect:
			// the straight path is the packet expected.
			if (__builtin_expect((word & ID_AND_USED_FLAGS) != expected || length - 1 >= RX_BUF_DATA_ROOM,
					     0)) {
				stopped = true;
				break;
			}
			struct pkt_buf* packet = *slot;
			struct pkt_buf* give = *out;
			packet->size = length;
			rx_bytes += length;
			*slot = give;
			*out = packet;
			done->addr = rx_buffer_addr(give);
			store_release(&done->len_id_flags, expected ^ make_available); // after the address
		}
		uint32_t taken = (uint32_t)(done - &ring[pos]);
		received += taken;
		consumed += taken;
		pos += taken;
		more = !stopped;
		if (stopped && ((word >> 48 ^ used_flags) & VRING_PACKED_DESC_F_USED) == 0) {
			// The device wrote the descriptor that stopped the take.
			uint16_t id = (uint16_t)(word >> 32);
			if ((word & ID_AND_USED_FLAGS) != expected) {
				rx_out_of_order(dev, q, id); // rx_take_any_order takes it
			} else {                             // a bad length: its buffer again, unread
				rx_bad_desc(dev, q, "a bad length", id, (uint32_t)word);
				done->addr = rx_buffer_addr(*slot);
				store_release(&done->len_id_flags, expected ^ make_available); // after the address
				consumed++;
				pos++;
				more = true;
			}
		}
		if (pos == size) { // passing the end flips both wrap counters (2.8.1)
			pos = 0;
			used_flags ^= USED_FLAGS;
		}
	}
	if (__builtin_expect(fresh > received, 0)) {
		pkt_buf_free_batch(&bufs[received], fresh - received);
	}
	q->next_used = (struct packed_cursor){(uint16_t)pos, (uint16_t)used_flags};
	q->next_avail = (struct packed_cursor){(uint16_t)pos, (uint16_t)(used_flags ^ VRING_PACKED_DESC_F_AVAIL)};
	count(&q->pkts, received);
	count(&q->bytes, rx_bytes);
	*offered = consumed;
	return received;
}

// Any order: each used descriptor's id is bounded, and its buffer (or a fresh one) is made available at the
// driver's own position. Returns the packets, in bufs[]; *offered: the descriptors made available again.
static ALWAYS_INLINE uint32_t rx_take_any_order(struct virtio_device* dev, struct virtqueue* q, struct pkt_buf* bufs[],
						uint32_t fresh, uint32_t batch, uint32_t* offered_out) {
	// fresh: the used descriptors to take, with at least as many fresh buffers in bufs[]; batch: its number
	// (rx_any_order_batch).
	volatile struct vring_packed_desc* ring = q->ring;
	struct pkt_buf** ring_bufs = q->bufs;
	uint32_t* taken_in = q->taken_in;
	const uint32_t size = q->size;
	// The cursors as 32 bit locals; each run below ends where either position reaches the ring's end, so that
	// the positions need no test per packet (ixgbe and split stop a run at the ring's end too).
	uint32_t used_pos = q->next_used.pos, used_flags = q->next_used.flags;
	uint32_t avail_pos = q->next_avail.pos, avail_flags = q->next_avail.flags | VRING_DESC_F_WRITE;
	uint32_t taken = 0, received = 0, lost = 0; // lost: descriptors not made available again
	uint64_t rx_bytes = 0;
	while (taken < fresh) {
		uint32_t run = fresh - taken;
		run = run < size - used_pos ? run : size - used_pos;
		run = run < size - avail_pos ? run : size - avail_pos;
		for (uint32_t end = used_pos + run; used_pos < end; used_pos++) {
			volatile struct vring_packed_desc* done = &ring[used_pos];
			uint16_t flags = load_acquire(&done->flags); // before the id and length
			uint32_t id = done->id;
			uint32_t length = done->len - VIRTIO_NET_HDR_LEN_V1; // header plus frame (5.1.6.4)
			// __builtin_expect: bad descriptors are rare, the straight path is the packet.
			if (__builtin_expect((flags & USED_FLAGS) != used_flags, 0)) {
				rx_bad_desc(dev, q, "a used descriptor with flags against its wrap counter", id, flags);
				lost++;
				continue;
			}
			// An id the batch took already: its buffer was just made available again.
			if (__builtin_expect(id >= size || taken_twice(taken_in, id, batch), 0)) {
				rx_bad_desc(dev, q, "a chain it does not hold", id, length + VIRTIO_NET_HDR_LEN_V1);
				lost++;
				continue;
			}
			// A length of 0 (length - 1 wraps around) or beyond the buffer: the buffer stays, unread, and
			// is made available again. Otherwise the packet is swapped for a fresh buffer.
			struct pkt_buf* give = ring_bufs[id];
			if (__builtin_expect(length - 1 >= RX_BUF_DATA_ROOM, 0)) {
				rx_bad_desc(dev, q, "a bad length", id, length + VIRTIO_NET_HDR_LEN_V1);
			} else {
				give->size = length;
				rx_bytes += length;
				struct pkt_buf* packet = give;
				give = bufs[received]; // the fresh buffer goes into the ring
				ring_bufs[id] = give;
				bufs[received++] = packet;
			}
			volatile struct vring_packed_desc* slot = &ring[avail_pos++];
			slot->addr = rx_buffer_addr(give);
			slot->len = RX_DESC_LEN;
			slot->id = (uint16_t)id;
			store_release(&slot->flags, (uint16_t)avail_flags); // after address, length and id
		}
		taken += run;
		if (used_pos == size) { // passing the end flips the wrap counter (2.8.1)
			used_pos = 0;
			used_flags ^= USED_FLAGS;
		}
		if (avail_pos == size) {
			avail_pos = 0;
			avail_flags ^= USED_FLAGS;
		}
	}
	q->next_used = (struct packed_cursor){(uint16_t)used_pos, (uint16_t)used_flags};
	q->next_avail = (struct packed_cursor){(uint16_t)avail_pos, (uint16_t)(avail_flags & USED_FLAGS)};
	count(&q->pkts, received);
	count(&q->bytes, rx_bytes);
	*offered_out = fresh - lost;
	return received;
}

// Receives up to num_bufs packets (5.1.6.4). Each used descriptor returns the buffer with its id; its packet is
// swapped for a fresh buffer, which is made available again under the same id. The queue's cursors are read into
// locals once per batch and written back at its end (as split's packet path does: stores into the volatile ring
// would otherwise make the compiler load them again for every packet).
static uint32_t packed_rx_batch(struct ixy_device* ixy, uint16_t queue_id, struct pkt_buf* bufs[], uint32_t num_bufs) {
	struct virtio_device* dev = IXY_TO_DRIVER(struct virtio_device, ixy);
	if (queue_id >= ixy->num_rx_queues) {
		ixy_panic("%s: RX queue %u does not exist", ixy->pci_addr, queue_id);
	}
	struct virtqueue* q = &dev->rx[queue_id];
	uint32_t offered = 0, first = q->next_used.pos;
	uint32_t received = q->in_order ? rx_take_in_order(dev, q, bufs, num_bufs, &offered) : 0;
	if (!q->in_order) { // from the start, or from the descriptor that was out of order
		// The used descriptors say up front how many buffers come back: the fresh buffers first, in one batch.
		uint32_t entries = used_descriptors(q, q->next_used, num_bufs - received);
		uint32_t fresh = pkt_buf_alloc_batch(q->pool, &bufs[received], entries);
		uint32_t offered_any;
		uint32_t batch = rx_any_order_batch(q, first, offered); // the ids taken in order count
		uint32_t got = rx_take_any_order(dev, q, &bufs[received], fresh, batch, &offered_any);
		q->in_flight = (uint16_t)(q->in_flight - fresh + offered_any);
		// Fresh buffers that bad descriptors left over go back in one batch.
		pkt_buf_free_batch(&bufs[received + got], fresh - got);
		received += got;
		offered += offered_any;
	}
	if (offered > 0) {
		notify_if_wanted(dev, q, (uint16_t)offered);
	}
	return received;
}

// ---- Transmit

// TX goes one of two ways (virtqueue.in_order), as split's does (virtio.c, "Receive and transmit"):
// - In order, from the start: each buffer's id is its position in the ring, and while the device returns them in
//   that order (as QEMU's does), the used descriptor at position p must name id p: a single compare, and the buffers
//   sent are one run of the table, freed with one call, with no stack of free ids.
// - In any order, from the first used descriptor that names another id (or has bad flags) on, for good: each id is
//   bounded and looked up, and the free ids are on a stack.

// TX goes out of order for good (cold: once per device at most; also at stop): the positions outside the window
// the device holds (next_used and the in_flight after it) have no buffer, and their ids go onto the free stack.
static __attribute__((cold)) void packed_tx_leave_in_order(struct virtqueue* q) {
	q->num_free_chains = 0;
	for (uint32_t k = q->in_flight; k < q->size; k++) {
		uint16_t id = (uint16_t)((q->next_used.pos + k) % q->size);
		q->bufs[id] = NULL;
		q->free_chains[q->num_free_chains++] = id;
	}
	q->in_order = false;
}

static __attribute__((cold)) void tx_out_of_order(const struct virtio_device* dev, struct virtqueue* q, uint32_t id) {
	ixy_info("%s: TX buffer id %u came back out of order: taking buffers in any order from now on",
		 dev->ixy.pci_addr, id);
	packed_tx_leave_in_order(q);
}

// In order: the used descriptors from next_used on must name their own positions; their buffers are freed run by
// run. Stops at the first descriptor the device has not written, or one that names another id or has flags against
// the wrap counter: then the queue goes out of order, and tx_clean_any_order takes that one.
static ALWAYS_INLINE void tx_clean_in_order(struct virtio_device* dev, struct virtqueue* q) {
	volatile struct vring_packed_desc* ring = q->ring;
	struct pkt_buf** ring_bufs = q->bufs;
	const uint32_t size = q->size;
	uint32_t used_pos = q->next_used.pos, used_flags = q->next_used.flags; // as in packed_rx_batch
	uint32_t held = q->in_flight, taken = 0;
	uint64_t tx_bytes = 0;
	bool stopped = false, out_of_order = false;
	while (!stopped && taken < held) { // runs up to the ring's end, as in packed_rx_batch
		uint32_t run = held - taken < size - used_pos ? held - taken : size - used_pos, first = used_pos;
		// As in rx_take_in_order: id and flags in one load (len_id_flags), one compare against `expected`. The
		// flags and the id come from one aligned 8 byte acquire load, so the id is never older than the flags,
		// and the buffer is freed (and reused) only after the flags said the device is done with it.
		uint64_t expected = (uint64_t)used_flags << 48 | (uint64_t)used_pos << 32;
		volatile struct vring_packed_desc* done = &ring[used_pos];
		volatile struct vring_packed_desc* const end = done + run;
		struct pkt_buf** slot = &ring_bufs[used_pos];
		for (; done < end; done++, slot++, expected += 1ull << 32) {
			uint64_t word = load_acquire(&done->len_id_flags);
			// __builtin_expect: the straight path is the buffer expected; another is allowed, or a bad one.
			if (__builtin_expect((word & ID_AND_USED_FLAGS) != expected, 0)) {
				stopped = true;
				// Not written by the device yet (its USED flag is not the device's wrap counter), or
				// out of order.
				out_of_order = ((word >> 48 ^ used_flags) & VRING_PACKED_DESC_F_USED) == 0;
				break;
			}
			tx_bytes += (*slot)->size;
		}
		used_pos += (uint32_t)(done - &ring[first]);
		pkt_buf_free_batch(&ring_bufs[first], used_pos - first);
		taken += used_pos - first;
		if (used_pos == size) { // passing the end flips the wrap counter (2.8.1)
			used_pos = 0;
			used_flags ^= USED_FLAGS;
		}
	}
	q->next_used = (struct packed_cursor){(uint16_t)used_pos, (uint16_t)used_flags};
	q->in_flight = (uint16_t)(held - taken);
	count(&q->pkts, taken);
	count(&q->bytes, tx_bytes);
	if (out_of_order) { // after the free: going out of order takes the freed buffers out of the table
		tx_out_of_order(dev, q, ring[used_pos].id);
	}
}

// Out of order: each used descriptor names a buffer by its id, which must be one the device holds; its buffer is
// freed, the id goes back onto the free stack. (Locals as in packed_rx_batch.)
static ALWAYS_INLINE void tx_clean_any_order(struct virtio_device* dev, struct virtqueue* q) {
	struct pkt_buf* sent[PACKED_TX_FREE_BATCH];
	uint32_t num_sent = 0, freed = 0;
	uint64_t tx_bytes = 0;
	volatile struct vring_packed_desc* ring = q->ring;
	struct pkt_buf** ring_bufs = q->bufs;
	uint16_t* free_ids = q->free_chains;
	const uint32_t size = q->size;
	uint32_t used_pos = q->next_used.pos, used_flags = q->next_used.flags; // as in packed_rx_batch
	uint32_t num_free = q->num_free_chains, entries = 0, held = q->in_flight;
	bool more = true;
	while (more && entries < held) { // runs up to the ring's end, as in packed_rx_batch
		uint32_t run = held - entries < size - used_pos ? held - entries : size - used_pos, start = used_pos;
		for (uint32_t end = used_pos + run; used_pos < end; used_pos++) {
			volatile struct vring_packed_desc* done = &ring[used_pos];
			uint16_t flags = load_acquire(&done->flags); // before the id and the buffer's reuse
			if ((flags & VRING_PACKED_DESC_F_USED) != (used_flags & VRING_PACKED_DESC_F_USED)) {
				more = false; // not written by the device yet
				break;
			}
			uint32_t id = done->id;
			// A buffer the device holds has a pointer in the table; an id beyond it, or one returned
			// already, has not.
			struct pkt_buf* buf = id < size ? ring_bufs[id] : NULL;
			if (__builtin_expect((flags & USED_FLAGS) != used_flags, 0)) {
				virtio_bad_used_entry(dev, q, "a used descriptor with flags against its wrap counter",
						      id, flags);
				continue;
			}
			if (__builtin_expect(!buf, 0)) {
				virtio_bad_used_entry(dev, q, "a chain it does not hold", id, done->len);
				continue;
			}
			tx_bytes += buf->size;
			ring_bufs[id] = NULL;
			free_ids[num_free++] = (uint16_t)id;
			sent[num_sent++] = buf;
			if (num_sent == PACKED_TX_FREE_BATCH) {
				pkt_buf_free_batch(sent, num_sent);
				freed += num_sent;
				num_sent = 0;
			}
		}
		entries += used_pos - start;
		if (used_pos == size) { // passing the end flips the wrap counter (2.8.1)
			used_pos = 0;
			used_flags ^= USED_FLAGS;
		}
	}
	freed += num_sent;
	pkt_buf_free_batch(sent, num_sent);
	q->next_used = (struct packed_cursor){(uint16_t)used_pos, (uint16_t)used_flags};
	q->in_flight = (uint16_t)(q->in_flight - entries);
	q->num_free_chains = (uint16_t)num_free;
	count(&q->pkts, freed);
	count(&q->bytes, tx_bytes);
}

// Makes the TX descriptor `slot`, its id written, available with buf: the header, address and length, then the
// flags, which hand it over (2.8.1).
static ALWAYS_INLINE void tx_offer(volatile struct vring_packed_desc* slot, struct pkt_buf* buf, uint16_t flags) {
	// An all-zero header (no offloads, 5.1.6.2.1) in the head room in front of the frame.
	memset(buf->head_room + PKT_BUF_HEAD_ROOM - VIRTIO_NET_HDR_LEN_V1, 0, VIRTIO_NET_HDR_LEN_V1);
	slot->addr = buf->buf_addr_phy + offsetof(struct pkt_buf, data) - VIRTIO_NET_HDR_LEN_V1;
	slot->len = buf->size + VIRTIO_NET_HDR_LEN_V1;
	store_release(&slot->flags, flags); // after address, length and id: hands the descriptor over
}

// Queues up to num_bufs packets for sending (5.1.6.2), one descriptor each, under ids from the free stack, as long
// as the ring has room. Returns how many it took; the rest stay with the caller.
static uint32_t packed_tx_batch(struct ixy_device* ixy, uint16_t queue_id, struct pkt_buf* bufs[], uint32_t num_bufs) {
	struct virtio_device* dev = IXY_TO_DRIVER(struct virtio_device, ixy);
	if (queue_id >= ixy->num_tx_queues) {
		ixy_panic("%s: TX queue %u does not exist", ixy->pci_addr, queue_id);
	}
	struct virtqueue* q = &dev->tx[queue_id];
	// Frees the buffers the device has sent (5.1.6.2).
	if (q->in_order) {
		tx_clean_in_order(dev, q);
	}
	if (!q->in_order) { // from the start, or from the descriptor that was out of order
		tx_clean_any_order(dev, q);
	}
	volatile struct vring_packed_desc* ring = q->ring;
	struct pkt_buf** ring_bufs = q->bufs;
	const uint16_t* free_ids = q->free_chains;
	const uint32_t size = q->size;
	const bool in_order = q->in_order;
	uint32_t avail_pos = q->next_avail.pos, avail_flags = q->next_avail.flags; // as in packed_rx_batch
	uint32_t room = size - q->in_flight, num_free = q->num_free_chains;
	room = in_order || room < num_free ? room : num_free;
	uint32_t queued = num_bufs < room ? num_bufs : room, i = 0;
	while (i < queued) { // runs up to the ring's end, as in packed_rx_batch
		uint32_t run = queued - i < size - avail_pos ? queued - i : size - avail_pos;
		volatile struct vring_packed_desc* slot = &ring[avail_pos];
		volatile struct vring_packed_desc* const end = slot + run;
		struct pkt_buf* const* next = &bufs[i];
		i += run;
		if (in_order) { // the id is the position, in the descriptor already (packed_setup_queue)
			for (struct pkt_buf** held = &ring_bufs[avail_pos]; slot < end; slot++, held++) {
				*held = *next;
				tx_offer(slot, *next++, (uint16_t)avail_flags);
			}
		} else { // an id from the free stack
			for (; slot < end; slot++) {
				uint16_t id = free_ids[--num_free];
				slot->id = id;
				ring_bufs[id] = *next;
				tx_offer(slot, *next++, (uint16_t)avail_flags);
			}
		}
		avail_pos += run;
		if (avail_pos == size) { // passing the end flips the wrap counter (2.8.1)
			avail_pos = 0;
			avail_flags ^= USED_FLAGS;
		}
	}
	q->next_avail = (struct packed_cursor){(uint16_t)avail_pos, (uint16_t)avail_flags};
	q->num_free_chains = (uint16_t)num_free;
	q->in_flight = (uint16_t)(q->in_flight + queued);
	if (queued > 0) {
		notify_if_wanted(dev, q, (uint16_t)queued);
	}
	return queued;
}

// ---- Control queue and interrupts

// The command's chain of three descriptors (class and command, data, ack), linked by VRING_DESC_F_NEXT in ring
// order (2.8.6: chains are consecutive descriptors; the buffer id in each, the device returns one used
// descriptor for the chain, then skips the rest). The first descriptor's flags go last: they hand the whole chain
// over.
static void packed_ctrl_offer(struct virtio_device* dev, struct virtqueue* q, uint32_t len) {
	volatile struct vring_packed_desc* first = &q->ring[q->next_avail.pos];
	uint16_t first_flags = (uint16_t)(VRING_DESC_F_NEXT | q->next_avail.flags);
	first->addr = q->extra_phy + offsetof(struct ctrl_command, class_and_command);
	first->len = 2;
	first->id = 0;
	advance(&q->next_avail, q->size);
	make_available(q->ring, &q->next_avail, q->size, q->extra_phy + offsetof(struct ctrl_command, data), len, 0,
		       VRING_DESC_F_NEXT);
	make_available(q->ring, &q->next_avail, q->size, q->extra_phy + offsetof(struct ctrl_command, ack), 1, 0,
		       VRING_DESC_F_WRITE);
	store_release(&first->flags, first_flags); // after the rest of the chain: hands it over
	q->in_flight = (uint16_t)(q->in_flight + 3);
	notify_if_wanted(dev, q, 3);
}

// The one chain is back when the device has written the descriptor at its head; whatever it wrote, the device then
// holds none of the chain's three.
static bool packed_ctrl_returned(struct virtqueue* q) {
	if (!device_wrote(load_acquire(&q->ring[q->next_used.pos].flags), q->next_used)) {
		return false;
	}
	for (int i = 0; i < 3; i++) {
		advance(&q->next_used, q->size);
	}
	q->in_flight = (uint16_t)(q->in_flight - 3);
	return true;
}

// The RX queue's interrupt (ixy_waiter): the driver's event suppression structure asks for one whenever the device
// marks a descriptor used (ENABLE), or for none (DISABLE) (2.8.10).
static void packed_set_rx_interrupt(struct virtqueue* q, bool armed) {
	q->driver_event->flags = armed ? VRING_PACKED_EVENT_FLAG_ENABLE : VRING_PACKED_EVENT_FLAG_DISABLE;
}

const struct virtio_ring_ops virtio_packed_ops = {
    .name = "packed",
    .setup_queue = packed_setup_queue,
    .fill_rx = packed_fill_rx,
    .rx_batch = packed_rx_batch,
    .tx_batch = packed_tx_batch,
    .ctrl_offer = packed_ctrl_offer,
    .ctrl_returned = packed_ctrl_returned,
    .set_rx_interrupt = packed_set_rx_interrupt,
    .tx_leave_in_order = packed_tx_leave_in_order,
};
