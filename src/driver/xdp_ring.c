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

// Entries the kernel produced that ixy has not consumed yet. More than the ring holds cannot be: bad, none.
static uint32_t ready(struct xsk_queue* q, const struct xsk_ring* ring) {
	uint32_t n = load_index(ring->producer) - ring->head;
	if (n > ring->size) {
		q->counters.bad++;
		return 0;
	}
	return n;
}

// Entries ixy may produce: those the kernel has consumed. An index claiming more than ixy produced is bad: none.
static uint32_t room(struct xsk_queue* q, const struct xsk_ring* ring) {
	uint32_t queued = ring->head - load_index(ring->consumer);
	if (queued > ring->size) {
		q->counters.bad++;
		return 0;
	}
	return ring->size - queued;
}

// The frame an address the kernel wrote lies in, if this socket gave it the kernel as `held`; else num_frames.
static uint32_t frame_of(const struct xsk_queue* q, uint64_t addr, uint16_t held) {
	uint64_t frame = addr / XSK_FRAME_SIZE;
	return frame < q->umem->num_frames && q->umem->held[frame] == held ? (uint32_t)frame : q->umem->num_frames;
}

static struct pkt_buf* frame_buf(const struct xsk_umem* umem, uint32_t frame) {
	return (struct pkt_buf*)((uint8_t*)umem->pool->dma.virt + (size_t)frame * XSK_FRAME_SIZE + XSK_BUF_OFFSET);
}

// The frame a buffer of the UMEM's pool lies in, by its place in the UMEM: its buf_addr_phy is the address a PCI NIC
// uses for it (the UMEM is DMA memory when the process has PCI devices too), not its offset in the UMEM.
static uint64_t buf_frame(const struct xsk_umem* umem, const struct pkt_buf* buf) {
	return (uint64_t)((const uint8_t*)buf - (const uint8_t*)umem->pool->dma.virt) / XSK_FRAME_SIZE;
}

bool xsk_needs_wakeup(const struct xsk_ring* ring) {
	return __atomic_load_n(ring->flags, __ATOMIC_RELAXED) & XDP_RING_NEED_WAKEUP;
}

void xsk_refill(struct xsk_queue* q) {
	struct pkt_buf* bufs[64];
	uint32_t want = room(q, &q->fill);
	uint64_t* addrs = q->fill.descs;
	while (want > 0) {
		uint32_t n = pkt_buf_alloc_batch(q->umem->pool, bufs, want < 64 ? want : 64);
		if (n == 0) {
			break;
		}
		for (uint32_t i = 0; i < n; i++) {
			uint64_t frame = buf_frame(q->umem, bufs[i]);
			q->umem->held[frame] = XSK_HELD(q->slot, 0);
			addrs[q->fill.head++ & (q->fill.size - 1)] = frame * XSK_FRAME_SIZE;
		}
		want -= n;
	}
	store_index(q->fill.producer, q->fill.head);
}

uint32_t xsk_rx(struct xsk_queue* q, struct pkt_buf* bufs[], uint32_t num_bufs) {
	uint32_t n = ready(q, &q->rx);
	n = n < num_bufs ? n : num_bufs;
	const struct xdp_desc* descs = q->rx.descs;
	uint32_t got = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct xdp_desc desc = descs[q->rx.head++ & (q->rx.size - 1)]; // one read of what the kernel wrote
		uint32_t frame = frame_of(q, desc.addr, XSK_HELD(q->slot, 0));
		// The packet must start where the kernel puts it (aligned mode, no headroom: 256 bytes into the frame,
		// where the pkt_buf's data is) and fit the frame.
		if (frame == q->umem->num_frames || desc.addr % XSK_FRAME_SIZE != XSK_PACKET_OFFSET ||
		    desc.len > XSK_MAX_PACKET) {
			q->counters.bad++;
			continue;
		}
		q->umem->held[frame] = 0;
		struct pkt_buf* buf = frame_buf(q->umem, frame);
		buf->size = desc.len;
		bufs[got++] = buf;
		q->counters.rx_packets++;
		q->counters.rx_bytes += desc.len;
	}
	store_index(q->rx.consumer, q->rx.head);
	xsk_refill(q);
	return got;
}

// Frees the frames the kernel sent.
static void complete(struct xsk_queue* q) {
	uint32_t n = ready(q, &q->completion);
	const uint64_t* addrs = q->completion.descs;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t frame =
		    frame_of(q, addrs[q->completion.head++ & (q->completion.size - 1)], XSK_HELD(q->slot, 1));
		if (frame == q->umem->num_frames) {
			q->counters.bad++;
			continue;
		}
		q->umem->held[frame] = 0;
		struct pkt_buf* buf = frame_buf(q->umem, frame);
		q->counters.tx_packets++; // sent: counted when the kernel is done with it, as a NIC counts
		q->counters.tx_bytes += buf->size;
		pkt_buf_free(buf);
	}
	store_index(q->completion.consumer, q->completion.head);
}

uint32_t xsk_tx(struct xsk_queue* q, struct pkt_buf* bufs[], uint32_t num_bufs) {
	complete(q);
	uint32_t n = room(q, &q->tx);
	n = n < num_bufs ? n : num_bufs;
	struct xdp_desc* descs = q->tx.descs;
	uint32_t taken = 0;
	for (; taken < n; taken++) {
		struct pkt_buf* buf = bufs[taken];
		if (buf->size > XSK_MAX_PACKET) {
			q->counters.tx_dropped++;
			pkt_buf_free(buf);
			continue;
		}
		if (buf->mempool != q->umem->pool) { // not a frame (e.g. a PCI NIC's pool): copy it into one
			struct pkt_buf* frame_copy = pkt_buf_alloc(q->umem->pool);
			if (!frame_copy) {
				break; // the caller keeps bufs[taken ..]
			}
			memcpy(frame_copy->data, buf->data, buf->size);
			frame_copy->size = buf->size;
			pkt_buf_free(buf);
			buf = frame_copy;
			q->counters.tx_copied++;
		}
		uint64_t frame = buf_frame(q->umem, buf), addr = frame * XSK_FRAME_SIZE + XSK_PACKET_OFFSET; // its data
		q->umem->held[frame] = XSK_HELD(q->slot, 1);
		descs[q->tx.head++ & (q->tx.size - 1)] = (struct xdp_desc){.addr = addr, .len = buf->size};
	}
	store_index(q->tx.producer, q->tx.head);
	return taken;
}

void xsk_take_back(struct xsk_queue* q) {
	for (uint32_t frame = 0; frame < q->umem->num_frames; frame++) {
		if (q->umem->held[frame] >> 1 == q->slot) {
			q->umem->held[frame] = 0;
			pkt_buf_free(frame_buf(q->umem, frame));
		}
	}
}
