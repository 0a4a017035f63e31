// Fuzz target: AF_XDP's rings, ixy's side (src/driver/xdp_ring.c), against a kernel side that writes anything into
// them. No socket: the rings are plain memory here, the UMEM ordinary memory, as xdp.c makes it, and the sockets'
// slice of it a pool over its second half (the first half another slice's, which the kernel's addresses may name).
//
// SOCKETS sockets (queues) share the one slice, as the queues of one index of a process's devices do in the driver
// (XDP_SHARED_UMEM): socket i has slot i + 1 and its own four rings; the app holds the buffers of all of them (it may
// send on one what it received on another). Each input picks the ring size (1 .. 64, a power of two, the same for every
// ring) and runs a little program read from the input. An operation's byte is op + 9 * socket: op is its value % 9, the
// socket (value / 9) % SOCKETS, so that 0 .. 8 are operations on socket 0.
//   FILL_TAKE   the kernel reads up to n of the socket's fill ring entries (it now holds those frames) and publishes
//               its consumer
//   RX_PUT      the kernel writes an RX descriptor and moves the producer by one: an address (below), a length from
//               0 .. 1792 or any 32 bit value
//   TX_TAKE     the kernel reads up to n TX descriptors (it now holds those frames) and publishes its consumer
//   COMPLETE    the kernel writes a completion entry (an address, below) and moves the producer
//   JUMP        the kernel sets one of its indices (RX and completion producer, fill and TX consumer) to any value;
//               a fill or TX consumer moved forward over entries ixy produced reads them, as FILL_TAKE does
//   FLAGS       the kernel sets the socket's rings' flags to anything
//   RX          xsk_rx() with 0 .. 64 buffers asked for
//   TX          xsk_tx() with up to 16 buffers the app holds (received on any socket), or from a pool that is not
//               the UMEM (copied), sizes up to the buffer's room (larger than a frame holds: dropped)
//   FREE        the app frees some buffers it holds
// An address the kernel writes (an offset in the UMEM): a frame it read from this socket's fill ring (RX_PUT) or TX
// ring (COMPLETE), any frame of the UMEM (of the other slice too) or a little beyond, any 64 bit value, or a frame it
// read from any socket's fill or TX ring (another socket's frame: this socket must not take it, though it is in the
// UMEM and given to the kernel through the same kind of ring); a frame's address at the packet offset, or at any
// offset.
//
// The kernel side keeps its own account of where every frame is, from the ring entries only (never from slice.held):
// ixy's (the pool or the app), or given by socket i through its fill ring (in it, read by the kernel, or in its RX
// ring) or through its TX ring (in it, being sent, or in its completion ring). Checked after every operation, for
// every socket:
//   - ixy never produces into the fill or TX ring more entries than the kernel has read, and leaves the entries the
//     kernel has not read as they were: an entry written over before the kernel read it loses its frame;
//   - each entry ixy produces is a frame that was ixy's: the fill ring gets frame addresses, the TX ring the
//     packet's address and length (the app's buffer itself when it is a frame, a frame from the pool when copied);
//   - ixy consumes exactly the RX and completion entries the kernel produced (none when the producer is more than
//     a ring ahead), and no more RX entries than asked for;
//   - xsk_rx returns, in order, exactly the RX descriptors that name a frame this socket gave through its fill ring,
//     at the packet offset, with a length a frame holds: each buffer's data lies at the descriptor's address, its
//     size is the descriptor's length;
//   - a completion entry gives the frame it names (at any offset, as xdp_ring.c takes it) back to ixy when this
//     socket gave that frame through its TX ring, and nothing else;
//   - slice.held says for every frame exactly what the kernel side's account says (which socket, which ring);
//   - every frame is in exactly one place: the pool's free stack, the app's hands, or given to the kernel
//     (slice.held != 0), and the counts add up to the slice's frames;
//   - the other sockets' rings are untouched by a call on one socket;
// and at the end, after xsk_take_back of each socket (it closed; the frames of the sockets still open stay given)
// and the app freed everything: the pool holds every frame exactly once.
#include <stdbool.h>
#include <string.h>

#include <linux/if_xdp.h>

#include <ixy/memory.h>

#include "access.h"
#include "driver/xdp.h"
#include "driver/xdp_ring.h"
#include "fuzz_input.h"

#define FRAMES 256                                       // the slice: 512 KiB
#define SLICE_OFFSET ((uint64_t)FRAMES * XSK_FRAME_SIZE) // where it begins in the UMEM: after the other slice
#define MAX_RING 64
#define MAX_HELD (FRAMES + 64)
#define HOLDING (MAX_RING * 4) // the addresses the kernel read last, per ring
#define SOCKETS 3              // sharing the UMEM: slots 1 .. SOCKETS

enum op { FILL_TAKE, RX_PUT, TX_TAKE, COMPLETE, JUMP, FLAGS, RX, TX, FREE, NUM_OPS };

struct ring_memory {
	uint32_t producer, consumer, flags;
	uint64_t descs[MAX_RING * 2]; // room for MAX_RING struct xdp_desc (16 bytes each)
};

// Where a frame is, as the kernel side knows it.
enum place { IXY, GIVEN_FILL, GIVEN_TX };

// One socket: ixy's queue, its rings' memory, and what the kernel side read of them. The kernel's published
// consumers of the fill and TX rings may be anything (JUMP); `*_taken` is how far it really read.
struct side {
	struct xsk_queue q;
	struct ring_memory fill, completion, rx, tx;
	uint32_t fill_taken, tx_taken;
	uint64_t fill_holding[HOLDING], tx_holding[HOLDING];
	uint32_t num_fill_holding, num_tx_holding;
	uint64_t fill_seen[MAX_RING * 2], tx_seen[MAX_RING * 2]; // the fill and TX rings' entries after ixy's last call
};

// The kernel side: where it knows each frame to be, and which socket gave it.
struct kernel {
	uint32_t ring_size;
	uint8_t place[FRAMES];
	uint8_t giver[FRAMES]; // the socket's index (0 .. SOCKETS - 1), when not IXY
};

static struct xsk_slice slice;
static struct mempool* other_pool; // the app's own pool, not the UMEM: its buffers are copied to be sent
static uint16_t held_by_kernel[FRAMES];
static struct side sides[SOCKETS];

// Once per process: the UMEM in ordinary memory, as for a process with AF_XDP devices only, and the slice.
static void setup(void) {
	if (slice.pool) {
		return;
	}
	FUZZ_CHECK(access_choose("fuzz", &xdp_memory_access) == 0);
	struct dma_memory mem;
	FUZZ_CHECK(memory_allocate_dma(SLICE_OFFSET + (size_t)FRAMES * XSK_FRAME_SIZE, false, &mem) == 0);
	struct dma_memory part = {.virt = (uint8_t*)mem.virt + SLICE_OFFSET,
				  .phy = mem.phy + SLICE_OFFSET,
				  .size = (size_t)FRAMES * XSK_FRAME_SIZE};
	slice.pool = memory_mempool_in(&part, FRAMES, XSK_FRAME_SIZE - XSK_BUF_OFFSET, XSK_BUF_OFFSET, XSK_FRAME_SIZE);
	FUZZ_CHECK(slice.pool != NULL);
	slice.offset = SLICE_OFFSET;
	slice.num_frames = FRAMES;
	slice.held = held_by_kernel;
	other_pool = memory_allocate_mempool(64, 0);
	FUZZ_CHECK(other_pool != NULL);
}

static void init_ring(struct xsk_ring* ring, struct ring_memory* mem, uint32_t size) {
	*ring = (struct xsk_ring){.producer = &mem->producer,
				  .consumer = &mem->consumer,
				  .flags = &mem->flags,
				  .descs = mem->descs,
				  .size = size};
}

// A pointer's offset in the slice, compared as a number (it may lie anywhere).
static uint64_t slice_offset(const void* p) {
	return (uint64_t)((uintptr_t)p - (uintptr_t)slice.pool->dma.virt);
}

static bool in_slice(const struct pkt_buf* buf) {
	return buf->mempool == slice.pool;
}

static uint32_t frame_of(const struct pkt_buf* buf) {
	return (uint32_t)(slice_offset(buf) / XSK_FRAME_SIZE);
}

// The frame of the slice an address the kernel writes (an offset in the UMEM) lies in; FRAMES or more if outside.
static uint64_t addr_frame(uint64_t addr) {
	return (addr - SLICE_OFFSET) / XSK_FRAME_SIZE;
}

// Every input starts from the same pool: its free stack in frame order as memory_mempool_in left it (frame 0 on top),
// whatever the inputs before left there. Which frames ixy hands out decides what an input does, so that it must do
// the same alone (a crash libFuzzer found, replayed) as after others (ctest replays a directory in one process).
static void reset_pool(void) {
	struct pkt_buf* bufs[FRAMES];
	struct pkt_buf* by_frame[FRAMES] = {0};
	FUZZ_CHECK(pkt_buf_alloc_batch(slice.pool, bufs, FRAMES) == FRAMES);
	for (uint32_t i = 0; i < FRAMES; i++) {
		by_frame[frame_of(bufs[i])] = bufs[i];
	}
	for (uint32_t frame = FRAMES; frame-- > 0;) {
		pkt_buf_free(by_frame[frame]);
	}
}

// What slice.held must say of a frame: the slot of the socket that gave it and through which ring.
static uint16_t held_for(const struct kernel* k, uint32_t frame) {
	return k->place[frame] == IXY ? 0 : XSK_HELD(k->giver[frame] + 1, k->place[frame] == GIVEN_TX);
}

// Whether socket `s` gave the frame to the kernel through the ring `place`.
static bool given_by(const struct kernel* k, uint64_t frame, uint32_t s, enum place place) {
	return frame < FRAMES && k->place[frame] == place && k->giver[frame] == s;
}

// Each frame in exactly one place: pool, app, kernel; and slice.held as the kernel side knows it.
static void check_frames(const struct kernel* k, struct pkt_buf* const app[], uint32_t num_app) {
	for (uint32_t frame = 0; frame < FRAMES; frame++) {
		FUZZ_CHECK(slice.held[frame] == held_for(k, frame));
	}
	uint8_t where[FRAMES] = {0};
	for (uint32_t i = 0; i < slice.pool->free_stack_top; i++) {
		uint32_t frame = frame_of(slice.pool->free_stack[i]);
		FUZZ_CHECK(frame < FRAMES && where[frame] == 0 && slice.held[frame] == 0);
		where[frame] = 1;
	}
	for (uint32_t i = 0; i < num_app; i++) {
		if (in_slice(app[i])) {
			uint32_t frame = frame_of(app[i]);
			FUZZ_CHECK(frame < FRAMES && where[frame] == 0 && slice.held[frame] == 0);
			where[frame] = 2;
		}
	}
	for (uint32_t frame = 0; frame < FRAMES; frame++) {
		FUZZ_CHECK((where[frame] != 0) != (slice.held[frame] != 0));
	}
}

// A frame's address among the last `num_holding` (at most HOLDING) the kernel read from a ring; 0 if none.
static uint64_t held_frame(struct fuzz_input* in, const uint64_t* holding, uint32_t num_holding) {
	num_holding = num_holding < HOLDING ? num_holding : HOLDING;
	return num_holding ? holding[fuzz_u16(in) % num_holding] / XSK_FRAME_SIZE * XSK_FRAME_SIZE : 0;
}

// An address the kernel writes into socket `s`'s RX (tx false) or completion ring (tx true).
static uint64_t kernel_addr(struct fuzz_input* in, const struct side* s, bool tx) {
	uint8_t kind = fuzz_u8(in) % 8;
	uint64_t frame_addr;
	if (kind >= 6) { // a frame read from any socket's fill or TX ring: another socket's, or this one's other ring
		const struct side* from = &sides[fuzz_u8(in) % SOCKETS];
		frame_addr = fuzz_u8(in) & 1 ? held_frame(in, from->tx_holding, from->num_tx_holding)
					     : held_frame(in, from->fill_holding, from->num_fill_holding);
		return frame_addr + (kind == 6 ? XSK_PACKET_OFFSET : fuzz_u16(in) % XSK_FRAME_SIZE);
	}
	switch (kind % 3) {
		case 0:
			frame_addr = tx ? held_frame(in, s->tx_holding, s->num_tx_holding)
					: held_frame(in, s->fill_holding, s->num_fill_holding);
			break;
		case 1:
			frame_addr = (uint64_t)(fuzz_u16(in) % (2 * FRAMES + 4)) * XSK_FRAME_SIZE; // either slice
			break;
		default:
			return fuzz_u64(in);
	}
	return frame_addr + (kind < 3 ? XSK_PACKET_OFFSET : fuzz_u16(in) % XSK_FRAME_SIZE);
}

static uint64_t entry_addr(const struct ring_memory* mem, bool tx, uint32_t index, uint32_t ring_size) {
	uint32_t entry = index & (ring_size - 1);
	return tx ? ((const struct xdp_desc*)mem->descs)[entry].addr : mem->descs[entry];
}

// The kernel reads the entries of the socket's fill or TX ring up to index `to` (at most ixy's producer).
static void kernel_take(const struct kernel* k, struct side* s, bool tx, uint32_t to) {
	const struct ring_memory* mem = tx ? &s->tx : &s->fill;
	uint32_t* taken = tx ? &s->tx_taken : &s->fill_taken;
	uint64_t* holding = tx ? s->tx_holding : s->fill_holding;
	uint32_t* num_holding = tx ? &s->num_tx_holding : &s->num_fill_holding;
	for (; *taken != to; ++*taken) {
		holding[(*num_holding)++ % HOLDING] = entry_addr(mem, tx, *taken, k->ring_size);
	}
}

// What ixy produced into the fill or TX ring since `before`: no more than the kernel has read room for, and the
// entries it produced earlier that the kernel has not read are as they were.
static uint32_t produced(const struct kernel* k, struct side* s, bool tx, uint32_t before) {
	const struct ring_memory* mem = tx ? &s->tx : &s->fill;
	uint64_t* seen = tx ? s->tx_seen : s->fill_seen;
	uint32_t n = mem->producer - before, taken = tx ? s->tx_taken : s->fill_taken;
	FUZZ_CHECK(n <= k->ring_size - (before - taken)); // ixy never writes over an entry the kernel has not read
	size_t entry = tx ? sizeof(struct xdp_desc) : sizeof(uint64_t);
	for (uint32_t i = taken; i != before; i++) { // before - taken <= ring_size: checked after ixy's last call
		size_t at = (i & (k->ring_size - 1)) * entry;
		FUZZ_CHECK(memcmp((const uint8_t*)mem->descs + at, (const uint8_t*)seen + at, entry) == 0);
	}
	memcpy(seen, mem->descs, sizeof(mem->descs));
	return n;
}

// The frames socket `s` put into its fill ring since `before`: ixy's own, each now the kernel's to receive into.
static void fill_given(struct kernel* k, uint32_t s, uint32_t before) {
	uint32_t n = produced(k, &sides[s], false, before);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t addr = entry_addr(&sides[s].fill, false, before + i, k->ring_size), frame = addr_frame(addr);
		FUZZ_CHECK(addr % XSK_FRAME_SIZE == 0 && frame < FRAMES && k->place[frame] == IXY);
		k->place[frame] = GIVEN_FILL;
		k->giver[frame] = (uint8_t)s;
	}
}

// An RX descriptor socket `s` must take: a frame it gave through its fill ring, at the packet offset, a length that
// fits.
static bool rx_valid(const struct kernel* k, uint32_t s, struct xdp_desc desc) {
	return given_by(k, addr_frame(desc.addr), s, GIVEN_FILL) && desc.addr % XSK_FRAME_SIZE == XSK_PACKET_OFFSET &&
	       desc.len <= XSK_MAX_PACKET;
}

// Entries ixy must consume of a ring the kernel produces, from `before` (ixy's consumer) on: all there are, at most
// `limit`; none when the producer is more than a ring ahead.
static uint32_t expected_consumed(const struct kernel* k, const struct ring_memory* mem, uint32_t before,
				  uint32_t limit) {
	uint32_t ready = mem->producer - before;
	return ready > k->ring_size ? 0 : ready < limit ? ready : limit;
}

static struct xdp_desc rx_desc(const struct kernel* k, const struct side* s, uint32_t index) {
	return ((const struct xdp_desc*)s->rx.descs)[index & (k->ring_size - 1)];
}

// The packet the kernel wrote: the buffer's data at the descriptor's address, its size the descriptor's length.
static bool is_packet_of(const struct pkt_buf* buf, struct xdp_desc desc) {
	return slice_offset(buf->data) + SLICE_OFFSET == desc.addr && buf->size == desc.len;
}

// Whether the buffer holds the packet of one of the RX descriptors `consumed` from `before` on.
static bool packet_of_a_descriptor(const struct kernel* k, const struct side* s, const struct pkt_buf* buf,
				   uint32_t before, uint32_t consumed) {
	for (uint32_t i = 0; i < consumed; i++) {
		if (is_packet_of(buf, rx_desc(k, s, before + i))) {
			return true;
		}
	}
	return false;
}

// xsk_rx on socket `s` returned bufs[0 .. got): exactly the valid descriptors among those it consumed, in order.
static void check_rx(struct kernel* k, uint32_t s, uint32_t before, uint32_t want, struct pkt_buf* const bufs[],
		     uint32_t got) {
	const struct side* side = &sides[s];
	uint32_t consumed = side->rx.consumer - before;
	FUZZ_CHECK(consumed == expected_consumed(k, &side->rx, before, want));
	FUZZ_CHECK(got <= consumed);
	for (uint32_t i = 0; i < got; i++) {
		// A frame's buffer (checked before anything is read from it), holding a packet the kernel wrote.
		FUZZ_CHECK(slice_offset(bufs[i]) < (uint64_t)FRAMES * XSK_FRAME_SIZE && in_slice(bufs[i]));
		FUZZ_CHECK(packet_of_a_descriptor(k, side, bufs[i], before, consumed));
	}
	uint32_t returned = 0;
	for (uint32_t i = 0; i < consumed; i++) {
		struct xdp_desc desc = rx_desc(k, side, before + i);
		if (rx_valid(k, s, desc)) {
			FUZZ_CHECK(returned < got && is_packet_of(bufs[returned], desc)); // not dropped, in order
			returned++;
			k->place[addr_frame(desc.addr)] = IXY;
		}
	}
	FUZZ_CHECK(returned == got); // and nothing else: no buffer for a descriptor that is not valid
}

// The completion entries xsk_tx on socket `s` consumed from `before` on: each gives back its frame if this socket
// sent it.
static void completed(struct kernel* k, uint32_t s, uint32_t before) {
	const struct ring_memory* mem = &sides[s].completion;
	uint32_t consumed = mem->consumer - before;
	FUZZ_CHECK(consumed == expected_consumed(k, mem, before, UINT32_MAX));
	for (uint32_t i = 0; i < consumed; i++) {
		uint64_t frame = addr_frame(entry_addr(mem, false, before + i, k->ring_size));
		if (given_by(k, frame, s, GIVEN_TX)) {
			k->place[frame] = IXY;
		}
	}
}

// A buffer handed to xsk_tx, as it was then.
struct sent {
	bool frame; // a frame of the slice: sent as it is
	uint32_t index, size;
};

// The descriptors socket `s` put into its TX ring since `before` for sent[0 .. taken): one per packet a frame holds,
// in order, each the packet's address and length, the frame ixy's until then.
static void tx_given(struct kernel* k, uint32_t s, uint32_t before, const struct sent sent[], uint32_t taken) {
	uint32_t n = produced(k, &sides[s], true, before), expected = 0;
	for (uint32_t i = 0; i < taken; i++) {
		expected += sent[i].size <= XSK_MAX_PACKET;
	}
	FUZZ_CHECK(n == expected);
	const struct xdp_desc* descs = (const struct xdp_desc*)sides[s].tx.descs;
	uint32_t d = 0;
	for (uint32_t i = 0; i < taken; i++) {
		if (sent[i].size > XSK_MAX_PACKET) {
			continue;
		}
		struct xdp_desc desc = descs[(before + d++) & (k->ring_size - 1)];
		uint64_t frame = addr_frame(desc.addr);
		FUZZ_CHECK(desc.addr % XSK_FRAME_SIZE == XSK_PACKET_OFFSET && frame < FRAMES && k->place[frame] == IXY);
		FUZZ_CHECK(desc.len == sent[i].size && (!sent[i].frame || frame == sent[i].index));
		k->place[frame] = GIVEN_TX;
		k->giver[frame] = (uint8_t)s;
	}
}

// A call on socket `s` left the other sockets as they were (`copy`, taken before the call): their rings, queues and
// what the kernel side read.
static void others_untouched(uint32_t s, const struct side copy[]) {
	for (uint32_t o = 0; o < SOCKETS; o++) {
		FUZZ_CHECK(o == s || memcmp(&sides[o], &copy[o], sizeof(copy[o])) == 0);
	}
}

// The kernel reads up to n more entries of socket `s`'s fill or TX ring and publishes its consumer there.
static void take_some(struct kernel* k, struct side* s, bool tx, uint32_t n) {
	struct ring_memory* mem = tx ? &s->tx : &s->fill;
	uint32_t to = tx ? s->tx_taken : s->fill_taken;
	for (; n > 0 && to != mem->producer; n--) {
		to++;
	}
	kernel_take(k, s, tx, to);
	mem->consumer = tx ? s->tx_taken : s->fill_taken;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
	static struct side before[SOCKETS]; // the sides before ixy's call (static: large)
	setup();
	reset_pool();
	struct fuzz_input in = fuzz_input(data, size);
	struct kernel k = {.ring_size = 1u << (fuzz_u8(&in) % 7)};
	uint32_t ring_size = k.ring_size;
	memset(sides, 0, sizeof(sides));
	for (uint32_t s = 0; s < SOCKETS; s++) { // socket 0 first: it gets frames 0 .. ring_size - 1
		struct side* side = &sides[s];
		side->q = (struct xsk_queue){.slice = &slice, .slot = (uint16_t)(s + 1)};
		init_ring(&side->q.fill, &side->fill, ring_size);
		init_ring(&side->q.completion, &side->completion, ring_size);
		init_ring(&side->q.rx, &side->rx, ring_size);
		init_ring(&side->q.tx, &side->tx, ring_size);
		xsk_refill(&side->q);
		fill_given(&k, s, 0);
	}
	struct pkt_buf* app[MAX_HELD];
	uint32_t num_app = 0;
	check_frames(&k, app, num_app);
	while (fuzz_remaining(&in) > 0) {
		uint8_t code = fuzz_u8(&in);
		uint32_t s = (uint32_t)(code / NUM_OPS) % SOCKETS;
		struct side* side = &sides[s];
		switch (code % NUM_OPS) {
			case FILL_TAKE:
				take_some(&k, side, false, fuzz_u8(&in) % (ring_size + 1));
				break;
			case RX_PUT: {
				uint64_t addr = kernel_addr(&in, side, false);
				uint32_t len = fuzz_u8(&in) & 1 ? fuzz_u32(&in) : fuzz_u16(&in) % (XSK_MAX_PACKET + 1);
				struct xdp_desc* descs = (struct xdp_desc*)side->rx.descs;
				descs[side->rx.producer++ & (ring_size - 1)] =
				    (struct xdp_desc){.addr = addr, .len = len};
				break;
			}
			case TX_TAKE:
				take_some(&k, side, true, fuzz_u8(&in) % (ring_size + 1));
				break;
			case COMPLETE: {
				uint64_t addr = kernel_addr(&in, side, true);
				side->completion.descs[side->completion.producer++ & (ring_size - 1)] = addr;
				break;
			}
			case JUMP: {
				uint32_t which = fuzz_u8(&in) % 4;
				uint32_t* indices[] = {&side->rx.producer, &side->completion.producer,
						       &side->fill.consumer, &side->tx.consumer};
				uint32_t* index = indices[which];
				*index = fuzz_u8(&in) & 1 ? fuzz_u32(&in) : *index + (fuzz_u8(&in) % 8) - 4;
				if (which >= 2) { // a consumer: forward over entries ixy produced, the kernel read them
					bool tx = which == 3;
					uint32_t taken = tx ? side->tx_taken : side->fill_taken;
					uint32_t producer = tx ? side->tx.producer : side->fill.producer;
					if (*index - taken <= producer - taken) {
						kernel_take(&k, side, tx, *index);
					}
				}
				break;
			}
			case FLAGS:
				side->fill.flags = side->rx.flags = side->tx.flags = side->completion.flags =
				    fuzz_u32(&in);
				FUZZ_CHECK(xsk_needs_wakeup(&side->q.tx) ==
					   (bool)(side->tx.flags & XDP_RING_NEED_WAKEUP));
				break;
			case RX: {
				struct pkt_buf* bufs[64];
				uint32_t want = fuzz_u8(&in) % 65, rx_before = side->rx.consumer,
					 fill_before = side->fill.producer;
				memcpy(before, sides, sizeof(sides));
				uint32_t got = xsk_rx(&side->q, bufs, want);
				others_untouched(s, before);
				check_rx(&k, s, rx_before, want, bufs, got);
				fill_given(&k, s, fill_before);
				for (uint32_t i = 0; i < got; i++) {
					for (uint32_t j = 0; j < num_app; j++) {
						FUZZ_CHECK(app[j] != bufs[i]);
					}
					FUZZ_CHECK(num_app < MAX_HELD);
					app[num_app++] = bufs[i];
				}
				break;
			}
			case TX: {
				struct pkt_buf* bufs[16];
				struct sent sent[16];
				uint32_t n = 0;
				for (uint32_t want = fuzz_u8(&in) % 17; n < want; n++) {
					struct pkt_buf* buf = NULL;
					if (fuzz_u8(&in) & 1 &&
					    num_app > 0) { // one the app holds (taken out of its hands)
						uint32_t i = fuzz_u16(&in) % num_app;
						buf = app[i];
						app[i] = app[--num_app];
					} else if (!(buf = pkt_buf_alloc(other_pool))) {
						break;
					}
					buf->size = fuzz_u16(&in) % (buf->mempool->buf_size - 64 + 1);
					bufs[n] = buf;
					sent[n] = (struct sent){.frame = in_slice(buf),
								.index = in_slice(buf) ? frame_of(buf) : 0,
								.size = buf->size};
				}
				uint32_t completion_before = side->completion.consumer, tx_before = side->tx.producer;
				memcpy(before, sides, sizeof(sides));
				uint32_t taken =
				    xsk_tx(&side->q, n > 0 ? bufs : NULL, n); // NULL: as ixy_tx_batch(dev, 0, NULL, 0)
				others_untouched(s, before);
				FUZZ_CHECK(taken <= n);
				completed(&k, s, completion_before);
				tx_given(&k, s, tx_before, sent, taken);
				for (uint32_t i = taken; i < n; i++) { // not taken: still the app's
					FUZZ_CHECK(num_app < MAX_HELD);
					app[num_app++] = bufs[i];
				}
				break;
			}
			case FREE:
				for (uint32_t n = fuzz_u8(&in) % 8; n > 0 && num_app > 0; n--) {
					uint32_t i = fuzz_u16(&in) % num_app;
					pkt_buf_free(app[i]);
					app[i] = app[--num_app];
				}
				break;
		}
		check_frames(&k, app, num_app);
		uint32_t others = 0; // buffers of the app's own pool in its hands: a copied one went back at once
		for (uint32_t i = 0; i < num_app; i++) {
			others += app[i]->mempool == other_pool;
		}
		FUZZ_CHECK(other_pool->free_stack_top + others == other_pool->num_entries);
	}
	// The sockets close one by one: the kernel gives back what each was given, and only that; the app frees what it
	// holds.
	for (uint32_t s = 0; s < SOCKETS; s++) {
		xsk_take_back(&sides[s].q);
		for (uint32_t frame = 0; frame < FRAMES; frame++) {
			if (k.place[frame] != IXY && k.giver[frame] == s) {
				k.place[frame] = IXY;
			}
		}
		check_frames(&k, app, num_app);
	}
	pkt_buf_free_batch(app, num_app);
	FUZZ_CHECK(slice.pool->free_stack_top == FRAMES && other_pool->free_stack_top == other_pool->num_entries);
	check_frames(&k, app, 0);
	return 0;
}
