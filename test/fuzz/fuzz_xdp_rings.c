// Fuzz target: AF_XDP's rings, ixy's side (src/driver/xdp_ring.c), against a kernel side that writes anything into
// them. No socket: the four rings are plain memory here, the UMEM a pool over ordinary memory, as xdp.c makes it.
//
// Each input picks the ring size (1 .. 64, a power of two) and runs a little program read from the input:
//   FILL_TAKE   the kernel consumes up to n fill ring entries (it now holds those frames)
//   RX_PUT      the kernel writes an RX descriptor and moves the producer by one: the address of a frame it holds
//               (as the kernel does), any frame's packet address, or any 64 bit value; a length from 0 .. 1792 or
//               any 32 bit value
//   TX_TAKE     the kernel consumes up to n TX descriptors (it now holds those frames)
//   COMPLETE    the kernel writes a completion entry and moves the producer: a frame it took from TX, any frame's
//               address, or any 64 bit value
//   JUMP        the kernel sets one of its indices (RX and completion producer, fill and TX consumer) to any value
//   FLAGS       the kernel sets the rings' flags to anything
//   RX          xsk_rx() with 0 .. 64 buffers asked for
//   TX          xsk_tx() with up to 16 buffers the app holds, or from a pool that is not the UMEM (copied), sizes
//               up to the buffer's room (larger than a frame holds: dropped)
//   FREE        the app frees some buffers it holds
// Checked after every operation:
//   - every buffer xsk_rx returns is a UMEM frame the app did not hold and the pool did not have, with a size a
//     frame holds;
//   - every frame is in exactly one place: the pool's free stack, the app's hands, or given to the kernel
//     (umem.held != 0), and the counts add up to the UMEM's frames;
// and at the end, after xsk_take_back (the socket closed) and the app freed everything: the pool holds every frame
// exactly once.
#include <stdbool.h>
#include <string.h>

#include <linux/if_xdp.h>

#include <ixy/memory.h>

#include "access.h"
#include "driver/xdp.h"
#include "driver/xdp_ring.h"
#include "fuzz_input.h"

#define FRAMES 256 // the UMEM: 512 KiB
#define MAX_RING 64
#define MAX_HELD (FRAMES + 64)

enum op { FILL_TAKE, RX_PUT, TX_TAKE, COMPLETE, JUMP, FLAGS, RX, TX, FREE, NUM_OPS };

struct ring_memory {
	uint32_t producer, consumer, flags;
	uint64_t descs[MAX_RING * 2]; // room for MAX_RING struct xdp_desc (16 bytes each)
};

static struct xsk_umem umem;
static struct mempool* other_pool; // the app's own pool, not the UMEM: its buffers are copied to be sent
static uint16_t held_by_kernel[FRAMES];

// Once per process: the UMEM in ordinary memory, as for a process with AF_XDP devices only.
static void setup(void) {
	if (umem.pool) {
		return;
	}
	FUZZ_CHECK(access_choose("fuzz", &xdp_memory_access) == 0);
	struct dma_memory mem;
	FUZZ_CHECK(memory_allocate_dma((size_t)FRAMES * XSK_FRAME_SIZE, false, &mem) == 0);
	umem.pool = memory_mempool_in(&mem, FRAMES, XSK_FRAME_SIZE - XSK_BUF_OFFSET, XSK_BUF_OFFSET, XSK_FRAME_SIZE);
	FUZZ_CHECK(umem.pool != NULL);
	umem.num_frames = FRAMES;
	umem.held = held_by_kernel;
	other_pool = memory_allocate_mempool(64, 0);
	FUZZ_CHECK(other_pool != NULL);
}

static void init_ring(struct xsk_ring* ring, struct ring_memory* mem, uint32_t size) {
	memset(mem, 0, sizeof(*mem));
	*ring = (struct xsk_ring){.producer = &mem->producer,
				  .consumer = &mem->consumer,
				  .flags = &mem->flags,
				  .descs = mem->descs,
				  .size = size};
}

static bool in_umem(const struct pkt_buf* buf) {
	return buf->mempool == umem.pool;
}

static uint32_t frame_of(const struct pkt_buf* buf) {
	return (uint32_t)(((const uint8_t*)buf - (const uint8_t*)umem.pool->dma.virt) / XSK_FRAME_SIZE);
}

// Each frame in exactly one place: pool, app, kernel.
static void check_frames(struct pkt_buf* const app[], uint32_t num_app) {
	uint8_t where[FRAMES] = {0};
	for (uint32_t i = 0; i < umem.pool->free_stack_top; i++) {
		uint32_t frame = frame_of(umem.pool->free_stack[i]);
		FUZZ_CHECK(frame < FRAMES && where[frame] == 0 && umem.held[frame] == 0);
		where[frame] = 1;
	}
	for (uint32_t i = 0; i < num_app; i++) {
		if (in_umem(app[i])) {
			uint32_t frame = frame_of(app[i]);
			FUZZ_CHECK(frame < FRAMES && where[frame] == 0 && umem.held[frame] == 0);
			where[frame] = 2;
		}
	}
	for (uint32_t frame = 0; frame < FRAMES; frame++) {
		FUZZ_CHECK((where[frame] != 0) != (umem.held[frame] != 0));
	}
}

static uint64_t kernel_addr(struct fuzz_input* in, const uint64_t* holding, uint32_t num_holding, uint64_t offset) {
	switch (fuzz_u8(in) % 3) {
		case 0:
			return num_holding
				   ? holding[fuzz_u16(in) % num_holding] / XSK_FRAME_SIZE * XSK_FRAME_SIZE + offset
				   : 0;
		case 1:
			return (uint64_t)(fuzz_u16(in) % (FRAMES + 4)) * XSK_FRAME_SIZE + offset;
		default:
			return fuzz_u64(in);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
	setup();
	struct fuzz_input in = fuzz_input(data, size);
	uint32_t ring_size = 1u << (fuzz_u8(&in) % 7);
	static struct ring_memory fill_mem, completion_mem, rx_mem, tx_mem;
	struct xsk_queue q = {.umem = &umem, .slot = 1};
	init_ring(&q.fill, &fill_mem, ring_size);
	init_ring(&q.completion, &completion_mem, ring_size);
	init_ring(&q.rx, &rx_mem, ring_size);
	init_ring(&q.tx, &tx_mem, ring_size);
	xsk_refill(&q);
	struct pkt_buf* app[MAX_HELD];
	uint32_t num_app = 0;
	uint64_t fill_holding[MAX_RING * 4], tx_holding[MAX_RING * 4]; // addresses the kernel took, a window
	uint32_t num_fill_holding = 0, num_tx_holding = 0;
	const uint64_t* fill_descs = (const uint64_t*)fill_mem.descs;
	const struct xdp_desc* tx_descs = (const struct xdp_desc*)tx_mem.descs;
	while (fuzz_remaining(&in) > 0) {
		switch (fuzz_u8(&in) % NUM_OPS) {
			case FILL_TAKE:
				for (uint32_t n = fuzz_u8(&in) % (ring_size + 1);
				     n > 0 && fill_mem.consumer != fill_mem.producer; n--) {
					fill_holding[num_fill_holding++ % (MAX_RING * 4)] =
					    fill_descs[fill_mem.consumer++ & (ring_size - 1)];
				}
				break;
			case RX_PUT: {
				uint64_t addr =
				    kernel_addr(&in, fill_holding,
						num_fill_holding < MAX_RING * 4 ? num_fill_holding : MAX_RING * 4,
						XSK_PACKET_OFFSET);
				uint32_t len = fuzz_u8(&in) & 1 ? fuzz_u32(&in) : fuzz_u16(&in) % (XSK_MAX_PACKET + 1);
				struct xdp_desc* descs = (struct xdp_desc*)rx_mem.descs;
				descs[rx_mem.producer++ & (ring_size - 1)] =
				    (struct xdp_desc){.addr = addr, .len = len};
				break;
			}
			case TX_TAKE:
				for (uint32_t n = fuzz_u8(&in) % (ring_size + 1);
				     n > 0 && tx_mem.consumer != tx_mem.producer; n--) {
					tx_holding[num_tx_holding++ % (MAX_RING * 4)] =
					    tx_descs[tx_mem.consumer++ & (ring_size - 1)].addr;
				}
				break;
			case COMPLETE: {
				uint64_t addr = kernel_addr(
				    &in, tx_holding, num_tx_holding < MAX_RING * 4 ? num_tx_holding : MAX_RING * 4,
				    XSK_PACKET_OFFSET);
				((uint64_t*)completion_mem.descs)[completion_mem.producer++ & (ring_size - 1)] = addr;
				break;
			}
			case JUMP: {
				uint32_t* indices[] = {&rx_mem.producer, &completion_mem.producer, &fill_mem.consumer,
						       &tx_mem.consumer};
				uint32_t* index = indices[fuzz_u8(&in) % 4];
				*index = fuzz_u8(&in) & 1 ? fuzz_u32(&in) : *index + (fuzz_u8(&in) % 8) - 4;
				break;
			}
			case FLAGS:
				fill_mem.flags = rx_mem.flags = tx_mem.flags = completion_mem.flags = fuzz_u32(&in);
				FUZZ_CHECK(xsk_needs_wakeup(&q.tx) == (bool)(tx_mem.flags & XDP_RING_NEED_WAKEUP));
				break;
			case RX: {
				struct pkt_buf* bufs[64];
				uint32_t want = fuzz_u8(&in) % 65;
				uint32_t got = xsk_rx(&q, bufs, want);
				FUZZ_CHECK(got <= want);
				for (uint32_t i = 0; i < got; i++) {
					FUZZ_CHECK(in_umem(bufs[i]) && frame_of(bufs[i]) < FRAMES &&
						   bufs[i]->size <= XSK_MAX_PACKET);
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
				}
				uint32_t sent = xsk_tx(&q, bufs, n);
				FUZZ_CHECK(sent <= n);
				for (uint32_t i = sent; i < n; i++) { // not taken: still the app's
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
		check_frames(app, num_app);
		uint32_t others = 0; // buffers of the app's own pool in its hands: a copied one went back at once
		for (uint32_t i = 0; i < num_app; i++) {
			others += app[i]->mempool == other_pool;
		}
		FUZZ_CHECK(other_pool->free_stack_top + others == other_pool->num_entries);
	}
	// The socket closes: the kernel gives everything back; the app frees what it holds.
	xsk_take_back(&q);
	pkt_buf_free_batch(app, num_app);
	FUZZ_CHECK(umem.pool->free_stack_top == FRAMES && other_pool->free_stack_top == other_pool->num_entries);
	check_frames(app, 0);
	return 0;
}
