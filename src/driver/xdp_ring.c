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

// What the loops need of the queue's slice, copied once per call: stores into the rings, the frames and the app's
// array cannot change a copy, so that the compiler keeps it in registers instead of loading it again for each packet.
// Frame i's pkt_buf lies i * XSK_FRAME_SIZE after first_buf; the kernel finds frame i at offset + i * XSK_FRAME_SIZE
// in the UMEM. A frame's "place" below is i * XSK_FRAME_SIZE, the same distance in both.
struct frames {
	uint8_t* first_buf;
	uint64_t offset;
	uint16_t* held;
	uint32_t num_frames;
	struct mempool* pool;
};

#define XSK_FRAME_SHIFT 11u
_Static_assert(XSK_FRAME_SIZE == 1u << XSK_FRAME_SHIFT, "a frame is 2^XSK_FRAME_SHIFT bytes");

static struct frames frames_of(const struct xsk_slice* slice) {
	return (struct frames){.first_buf = (uint8_t*)slice->pool->dma.virt + XSK_BUF_OFFSET,
			       .offset = slice->offset,
			       .held = slice->held,
			       .num_frames = slice->num_frames,
			       .pool = slice->pool};
}

// The place of a buffer of the slice's pool, from where it lies: its buf_addr_phy is the address a PCI NIC uses for it
// (the UMEM is DMA memory when the process has PCI devices too), not its offset in the UMEM.
static uint64_t buf_place(const struct frames* f, const struct pkt_buf* buf) {
	return (uint64_t)((const uint8_t*)buf - f->first_buf);
}

static struct pkt_buf* place_buf(const struct frames* f, uint64_t place) {
	return (struct pkt_buf*)(f->first_buf + place);
}

// The frame whose packet an RX descriptor's address names; num_frames or more for any other address. Its distance
// from frame 0's packet is a frame's place exactly when the address is a packet's of the slice; rotated right by
// XSK_FRAME_SHIFT bits, that distance is the frame, while any other has bits left over in the low XSK_FRAME_SHIFT,
// which the rotation moves to the top: an address not at the packet offset, or outside the slice (one below wraps
// around to far above), fails the same one comparison with num_frames.
static uint64_t packet_frame(const struct frames* f, uint64_t addr) {
	uint64_t distance = addr - (f->offset + XSK_PACKET_OFFSET);
	return distance >> XSK_FRAME_SHIFT | distance << (64 - XSK_FRAME_SHIFT);
}

// The frame a completion entry's address lies in, at any offset (it is the TX descriptor's address, which the kernel
// need not keep as it was); num_frames or more outside the slice (an address below wraps around to far above).
static uint64_t addr_frame(const struct frames* f, uint64_t addr) {
	return (addr - f->offset) >> XSK_FRAME_SHIFT;
}

bool xsk_needs_wakeup(const struct xsk_ring* ring) {
	return __atomic_load_n(ring->flags, __ATOMIC_RELAXED) & XDP_RING_NEED_WAKEUP;
}

// How many of n entries from index `from` on lie one after another in the ring's array, up to its end: the loops below
// walk such a run with a pointer (no index arithmetic per packet), then go on from the array's start.
static uint32_t run_of(const struct xsk_ring* ring, uint32_t from, uint32_t n) {
	uint32_t to_end = ring->size - (from & (ring->size - 1));
	return n < to_end ? n : to_end;
}

// The loops below also keep ixy's index (`head`) and the socket's held value in locals, for the same reason as struct
// frames.

void xsk_refill(struct xsk_queue* q) {
	struct pkt_buf* bufs[64];
	uint32_t want = room(q, &q->fill);
	uint64_t* addrs = q->fill.descs;
	const struct frames f = frames_of(q->slice);
	uint32_t head = q->fill.head;
	const uint16_t given = XSK_HELD(q->slot, 0);
	while (want > 0) {
		uint32_t n = pkt_buf_alloc_batch(f.pool, bufs, run_of(&q->fill, head, want < 64 ? want : 64));
		if (n == 0) {
			break;
		}
		uint64_t* addr = &addrs[head & (q->fill.size - 1)];
		for (uint32_t i = 0; i < n; i++) {
			uint64_t place = buf_place(&f, bufs[i]);
			f.held[place >> XSK_FRAME_SHIFT] = given;
			addr[i] = f.offset + place; // the frame's address
		}
		head += n;
		want -= n;
	}
	q->fill.head = head;
	store_index(q->fill.producer, head);
}

uint32_t xsk_rx(struct xsk_queue* q, struct pkt_buf* bufs[], uint32_t num_bufs) {
	uint32_t n = ready(q, &q->rx);
	n = n < num_bufs ? n : num_bufs;
	const struct xdp_desc* descs = q->rx.descs;
	const struct frames f = frames_of(q->slice);
	uint32_t head = q->rx.head, end = head + n;
	struct pkt_buf** next = bufs; // where the next packet goes
	const uint16_t given = XSK_HELD(q->slot, 0);
	uint64_t bytes = 0;
	while (head != end) {
		const struct xdp_desc* desc = &descs[head & (q->rx.size - 1)];
		uint32_t run = run_of(&q->rx, head, end - head);
		for (const struct xdp_desc* run_end = desc + run; desc != run_end; desc++) {
			struct xdp_desc d = *desc; // one read of what the kernel wrote
			// The packet must start where the kernel puts it (aligned mode, no headroom: 256 bytes into the
			// frame, where the pkt_buf's data is; slices begin at a frame), in a frame this socket gave
			// through its fill ring, and fit the frame.
			uint64_t frame = packet_frame(&f, d.addr);
			if (frame >= f.num_frames || f.held[frame] != given || d.len > XSK_MAX_PACKET) {
				continue; // bad: counted below
			}
			f.held[frame] = 0;
			struct pkt_buf* buf = place_buf(&f, frame << XSK_FRAME_SHIFT);
			buf->size = d.len;
			*next++ = buf;
			bytes += d.len;
		}
		head += run;
	}
	uint32_t got = (uint32_t)(next - bufs);
	count(&q->counters.bad, n - got); // the descriptors taken that gave no packet
	count(&q->counters.rx_packets, got);
	count(&q->counters.rx_bytes, bytes);
	q->rx.head = head;
	store_index(q->rx.consumer, head);
	xsk_refill(q);
	return got;
}

// Frees the frames the kernel sent: up to 64 at a time collected, then freed in one batch (pkt_buf_free_batch, as the
// NIC drivers free theirs), so that no call inside the loop makes the compiler keep its copies on the stack.
static void complete(struct xsk_queue* q) {
	struct pkt_buf* done[64];
	uint32_t n = ready(q, &q->completion);
	const uint64_t* addrs = q->completion.descs;
	const struct frames f = frames_of(q->slice);
	uint32_t head = q->completion.head, sent = 0;
	const uint16_t given = XSK_HELD(q->slot, 1);
	uint64_t bytes = 0;
	while (n > 0) {
		const uint64_t* addr = &addrs[head & (q->completion.size - 1)];
		uint32_t run = run_of(&q->completion, head, n < 64 ? n : 64);
		struct pkt_buf** next = done; // where the next frame goes
		for (uint32_t i = 0; i < run; i++) {
			uint64_t frame = addr_frame(&f, addr[i]);
			if (frame >= f.num_frames || f.held[frame] != given) { // not a frame this socket sent
				continue;                                      // bad: counted below
			}
			f.held[frame] = 0;
			struct pkt_buf* buf = place_buf(&f, frame << XSK_FRAME_SHIFT);
			bytes += buf->size;
			*next++ = buf;
		}
		uint32_t num_done = (uint32_t)(next - done);
		pkt_buf_free_batch(done, num_done);
		sent += num_done; // sent: counted when the kernel is done with it, as a NIC counts
		head += run;
		n -= run;
	}
	count(&q->counters.bad, head - q->completion.head - sent); // the entries taken that gave back no frame
	count(&q->counters.tx_packets, sent);
	count(&q->counters.tx_bytes, bytes);
	q->completion.head = head;
	store_index(q->completion.consumer, head);
}

// Puts bufs[0 ..] into the TX ring, in order, as long as each is a frame of the slice that holds its packet (the common
// case: a loop without calls, whose copies stay in registers); returns how many it put, at most n.
static uint32_t send_frames(struct xsk_queue* q, const struct frames* slice, struct pkt_buf* const bufs[], uint32_t n) {
	const struct frames f = *slice;
	struct xdp_desc* descs = q->tx.descs;
	uint32_t head = q->tx.head;
	const uint16_t given = XSK_HELD(q->slot, 1);
	if (n == 0) {
		return 0; // bufs may be NULL (ixy_tx_batch(dev, 0, NULL, 0) only cleans): NULL + 0 is undefined in C
	}
	struct pkt_buf* const* next = bufs; // the next buffer to put
	struct pkt_buf* const* const last = bufs + n;
	while (next != last) {
		struct xdp_desc* desc = &descs[head & (q->tx.size - 1)];
		struct pkt_buf* const* const run_start = next;
		struct pkt_buf* const* const run_end = next + run_of(&q->tx, head, (uint32_t)(last - next));
		for (; next != run_end; next++, desc++) {
			const struct pkt_buf* buf = *next;
			if (buf->mempool != f.pool || buf->size > XSK_MAX_PACKET) {
				break;
			}
			uint64_t place = buf_place(&f, buf);
			f.held[place >> XSK_FRAME_SHIFT] = given;
			desc->addr = f.offset + place + XSK_PACKET_OFFSET; // its data
			desc->len = buf->size;
			desc->options = 0;
		}
		head += (uint32_t)(next - run_start);
		if (next != run_end) {
			break; // not a frame of the slice, or too large
		}
	}
	q->tx.head = head;
	return (uint32_t)(next - bufs);
}

uint32_t xsk_tx(struct xsk_queue* q, struct pkt_buf* bufs[], uint32_t num_bufs) {
	complete(q);
	uint32_t n = room(q, &q->tx);
	n = n < num_bufs ? n : num_bufs;
	const struct frames f = frames_of(q->slice);
	uint32_t taken = send_frames(q, &f, bufs, n);
	while (taken < n) { // bufs[taken] is not a frame of the slice, or larger than a frame holds
		struct pkt_buf* buf = bufs[taken];
		if (buf->size > XSK_MAX_PACKET) {
			count(&q->counters.tx_dropped, 1);
			pkt_buf_free(buf);
		} else {
			// Not a frame of this slice (a PCI NIC's pool, or another slice, another queue's): copy it into
			// one.
			struct pkt_buf* frame_copy = pkt_buf_alloc(f.pool);
			if (!frame_copy) {
				break; // the caller keeps bufs[taken ..]
			}
			memcpy(frame_copy->data, buf->data, buf->size);
			frame_copy->size = buf->size;
			pkt_buf_free(buf);
			count(&q->counters.tx_copied, 1);
			send_frames(q, &f, &frame_copy, 1);
		}
		taken++;
		taken += send_frames(q, &f, bufs + taken, n - taken);
	}
	store_index(q->tx.producer, q->tx.head);
	return taken;
}

void xsk_take_back(struct xsk_queue* q) {
	struct xsk_slice* slice = q->slice;
	const struct frames f = frames_of(slice);
	for (uint32_t frame = 0; frame < slice->num_frames; frame++) {
		if (slice->held[frame] >> 1 == q->slot) {
			slice->held[frame] = 0;
			pkt_buf_free(place_buf(&f, (uint64_t)frame << XSK_FRAME_SHIFT));
		}
	}
}
