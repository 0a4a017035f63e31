// AF_XDP's rings, ixy's side (xdp_ring.h): every index and descriptor the kernel writes is checked before use.
#include <linux/if_xdp.h> // struct xdp_desc, XDP_RING_NEED_WAKEUP
#include <string.h>

#include "xdp_ring.h"

// The kernel's side publishes its index with a store-release after writing the entries (and reads ours with a
// load-acquire): acquire here orders our reads of the entries after it, release orders our writes of the entries
// before the index the kernel reads.
static uint32_t load_index(const uint32_t* index) {
	return __atomic_load_n(index, __ATOMIC_ACQUIRE);
}

static void store_index(uint32_t* index, uint32_t value) {
	__atomic_store_n(index, value, __ATOMIC_RELEASE);
}

// Adds n to one of the queue's counters: a relaxed atomic store (a plain move on x86), as read_stats may load it from
// another thread meanwhile. Only the queue's thread writes it.
static void count(uint64_t* counter, uint64_t n) {
	__atomic_store_n(counter, *counter + n, __ATOMIC_RELAXED);
}

// Entries the kernel produced that ixy has not consumed yet. More than the ring holds cannot be: bad, none.
static uint32_t ready(struct xsk_queue* q, const struct xsk_ring* ring) {
	uint32_t n = load_index(ring->producer) - ring->head;
	if (n > ring->size) {
		count(&q->counters.bad, 1);
		return 0;
	}
	return n;
}

// Entries ixy may produce: those the kernel has consumed. An index claiming more than ixy produced is bad: none.
static uint32_t room(struct xsk_queue* q, const struct xsk_ring* ring) {
	uint32_t queued = ring->head - load_index(ring->consumer);
	if (queued > ring->size) {
		count(&q->counters.bad, 1);
		return 0;
	}
	return ring->size - queued;
}

// The frame of the slice an address the kernel wrote lies in, if the socket gave it the kernel as `held`; else
// num_frames. An address below the slice wraps around to one far above it.
static uint32_t frame_of(const struct xsk_slice* slice, uint64_t addr, uint16_t held) {
	uint64_t frame = (addr - slice->offset) / XSK_FRAME_SIZE;
	return frame < slice->num_frames && slice->held[frame] == held ? (uint32_t)frame : slice->num_frames;
}

static struct pkt_buf* frame_buf(const struct xsk_slice* slice, uint32_t frame) {
	return (struct pkt_buf*)((uint8_t*)slice->pool->dma.virt + (size_t)frame * XSK_FRAME_SIZE + XSK_BUF_OFFSET);
}

// The frame a buffer of the slice's pool lies in, by its place in the slice: its buf_addr_phy is the address a PCI NIC
// uses for it (the UMEM is DMA memory when the process has PCI devices too), not its offset in the UMEM.
static uint32_t buf_frame(const struct xsk_slice* slice, const struct pkt_buf* buf) {
	return (uint32_t)((uint64_t)((const uint8_t*)buf - (const uint8_t*)slice->pool->dma.virt) / XSK_FRAME_SIZE);
}

// Where the kernel finds a frame of the slice: its offset in the UMEM.
static uint64_t frame_addr(const struct xsk_slice* slice, uint32_t frame) {
	return slice->offset + (uint64_t)frame * XSK_FRAME_SIZE;
}

bool xsk_needs_wakeup(const struct xsk_ring* ring) {
	return __atomic_load_n(ring->flags, __ATOMIC_RELAXED) & XDP_RING_NEED_WAKEUP;
}

// The loops below work on copies of the slice, of ixy's index (`head`), of the ring's index mask and of the socket's
// held value: stores into the rings, the frames and the app's array cannot change a copy, so that the compiler keeps
// them in registers instead of loading them again for each packet.

void xsk_refill(struct xsk_queue* q) {
	struct pkt_buf* bufs[64];
	uint32_t want = room(q, &q->fill);
	uint64_t* addrs = q->fill.descs;
	const struct xsk_slice slice = *q->slice;
	uint32_t head = q->fill.head, mask = q->fill.size - 1;
	const uint16_t given = XSK_HELD(q->slot, 0);
	while (want > 0) {
		uint32_t n = pkt_buf_alloc_batch(slice.pool, bufs, want < 64 ? want : 64);
		if (n == 0) {
			break;
		}
		for (uint32_t i = 0; i < n; i++) {
			uint32_t frame = buf_frame(&slice, bufs[i]);
			slice.held[frame] = given;
			addrs[head++ & mask] = frame_addr(&slice, frame);
		}
		want -= n;
	}
	q->fill.head = head;
	store_index(q->fill.producer, head);
}

uint32_t xsk_rx(struct xsk_queue* q, struct pkt_buf* bufs[], uint32_t num_bufs) {
	uint32_t n = ready(q, &q->rx);
	n = n < num_bufs ? n : num_bufs;
	const struct xdp_desc* descs = q->rx.descs;
	const struct xsk_slice slice = *q->slice;
	uint32_t head = q->rx.head, mask = q->rx.size - 1, got = 0;
	const uint16_t given = XSK_HELD(q->slot, 0);
	uint64_t bytes = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct xdp_desc desc = descs[head++ & mask]; // one read of what the kernel wrote
		uint32_t frame = frame_of(&slice, desc.addr, given);
		// The packet must start where the kernel puts it (aligned mode, no headroom: 256 bytes into the frame,
		// where the pkt_buf's data is; slices begin at a frame) and fit the frame.
		if (frame == slice.num_frames || desc.addr % XSK_FRAME_SIZE != XSK_PACKET_OFFSET ||
		    desc.len > XSK_MAX_PACKET) {
			count(&q->counters.bad, 1);
			continue;
		}
		slice.held[frame] = 0;
		struct pkt_buf* buf = frame_buf(&slice, frame);
		buf->size = desc.len;
		bufs[got++] = buf;
		bytes += desc.len;
	}
	count(&q->counters.rx_packets, got);
	count(&q->counters.rx_bytes, bytes);
	q->rx.head = head;
	store_index(q->rx.consumer, head);
	xsk_refill(q);
	return got;
}

// Frees the frames the kernel sent.
static void complete(struct xsk_queue* q) {
	uint32_t n = ready(q, &q->completion);
	const uint64_t* addrs = q->completion.descs;
	const struct xsk_slice slice = *q->slice;
	uint32_t head = q->completion.head, mask = q->completion.size - 1, sent = 0;
	const uint16_t given = XSK_HELD(q->slot, 1);
	uint64_t bytes = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t frame = frame_of(&slice, addrs[head++ & mask], given);
		if (frame == slice.num_frames) {
			count(&q->counters.bad, 1);
			continue;
		}
		slice.held[frame] = 0;
		struct pkt_buf* buf = frame_buf(&slice, frame);
		sent++; // sent: counted when the kernel is done with it, as a NIC counts
		bytes += buf->size;
		pkt_buf_free(buf);
	}
	count(&q->counters.tx_packets, sent);
	count(&q->counters.tx_bytes, bytes);
	q->completion.head = head;
	store_index(q->completion.consumer, head);
}

uint32_t xsk_tx(struct xsk_queue* q, struct pkt_buf* bufs[], uint32_t num_bufs) {
	complete(q);
	uint32_t n = room(q, &q->tx);
	n = n < num_bufs ? n : num_bufs;
	struct xdp_desc* descs = q->tx.descs;
	const struct xsk_slice slice = *q->slice;
	uint32_t head = q->tx.head, mask = q->tx.size - 1, taken = 0;
	const uint16_t given = XSK_HELD(q->slot, 1);
	for (; taken < n; taken++) {
		struct pkt_buf* buf = bufs[taken];
		if (buf->size > XSK_MAX_PACKET) {
			count(&q->counters.tx_dropped, 1);
			pkt_buf_free(buf);
			continue;
		}
		// Not a frame of this slice (a PCI NIC's pool, or another slice, another queue's): copy it into one.
		if (buf->mempool != slice.pool) {
			struct pkt_buf* frame_copy = pkt_buf_alloc(slice.pool);
			if (!frame_copy) {
				break; // the caller keeps bufs[taken ..]
			}
			memcpy(frame_copy->data, buf->data, buf->size);
			frame_copy->size = buf->size;
			pkt_buf_free(buf);
			buf = frame_copy;
			count(&q->counters.tx_copied, 1);
		}
		uint32_t frame = buf_frame(&slice, buf);
		slice.held[frame] = given;
		descs[head++ & mask] = (struct xdp_desc){.addr = frame_addr(&slice, frame) + XSK_PACKET_OFFSET,
							 .len = buf->size}; // its data
	}
	q->tx.head = head;
	store_index(q->tx.producer, head);
	return taken;
}

void xsk_take_back(struct xsk_queue* q) {
	struct xsk_slice* slice = q->slice;
	for (uint32_t frame = 0; frame < slice->num_frames; frame++) {
		if (slice->held[frame] >> 1 == q->slot) {
			slice->held[frame] = 0;
			pkt_buf_free(frame_buf(slice, frame));
		}
	}
}
