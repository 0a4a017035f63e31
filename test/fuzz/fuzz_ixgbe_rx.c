// Fuzz target: the receive path of the ixgbe driver (src/driver/ixgbe.c) fed arbitrary descriptor write-backs.
//
// Every input opens a fresh modelled 82599 (test/model) with ixy_init_config(), one RX and one TX queue, and runs a
// little program read from the input. Operations:
//   INJECT        the model receives frames from the wire and writes them back as the datasheet says (7.1.6.2)
//   MUTATE_WB     overwrite status and length of a descriptor the device has written back and the driver has not
//                 looked at yet: DD or EOP missing, error bits, length 0 or beyond the buffer (a broken device)
//   WRITE_AHEAD   the same for any descriptor of the ring, also ones the device still owns and the one the driver
//                 keeps: done bits in places no device may write (only bytes 8..15, the status half, are written)
//   RX_BATCH      ixy_rx_batch() with 0 .. 2 * ring size buffers asked for
//   FREE          the app frees some of the packets it holds (oldest, newest or every other one first)
// The descriptor ring is found as the device finds it: RDBAL/RDBAH, device address == virtual address in tests.
//
// Invariants, checked after every step:
//   - rx_batch returns at most as many packets as asked;
//   - every packet handed out is a buffer of the queue's pool (right address, index and pool pointer), holds
//     1 .. buf_size - 64 bytes, and is not handed out again while the app holds it;
//   - free buffers + held by the app + one per RX descriptor == the pool size (nothing lost, nothing twice);
//   - while the device behaves (no MUTATE_WB or WRITE_AHEAD yet), packets arrive in order with their bytes;
// and at the end: once the app has freed everything, rx_batch() drains every frame the (behaving) device delivered
// and gives all descriptors but one back to the device; after ixy_stop(), the pool's free stack holds every buffer
// exactly once; after ixy_close() no DMA memory is left; and unless WRITE_AHEAD broke the device's ownership rules
// on purpose, the model recorded no violation of the datasheet.
//
// To see what an input does, replay it with IXY_FUZZ_TRACE=1 in the environment: every operation is printed.
#include <stdbool.h>
#include <string.h>

#include <ixy/ixy.h>

#include "driver/ixgbe_regs.h"
#include "fuzz_input.h"
#include "ixgbe_model.h"
#include "seam.h"

#define NIC_ADDR "0000:07:00.0"
#define MAX_RING_SIZE 512
#define MAX_POOL (2 * MAX_RING_SIZE + 1024) // the driver's pool: 2 * ring size + 1024 buffers
#define MAX_FRAMES_PER_INJECT 64
#define MIN_FRAME 60
#define MAX_STANDARD_FRAME 1514 // without CRC: the largest frame the MAC accepts with jumbo frames off
#define MAX_MODEL_FRAME 16380   // the largest frame model_ixgbe_inject_rx takes
#define MAX_EXPECTED 4096       // frames delivered by the model and not yet received (at most a ring's worth)

enum rx_op {
	OP_INJECT,
	OP_INJECT_ANY_LENGTH,
	OP_MUTATE_WB,
	OP_WRITE_AHEAD,
	OP_RX_BATCH,
	OP_RX_BATCH_LARGE,
	OP_FREE,
	NUM_OPS
};

struct expected_frame {
	uint32_t seq;
	uint32_t len;
};

struct fuzz_state {
	struct model_ixgbe* nic;
	struct ixy_device* dev;
	volatile union intel_adv_rx_desc* ring;
	uint32_t ring_size;
	struct mempool* pool;
	// packets the app holds, in the order received
	struct pkt_buf* held[MAX_POOL];
	uint32_t num_held;
	bool is_held[MAX_POOL];
	// frames the model delivered, in order, while the device still behaves
	struct expected_frame expected[MAX_EXPECTED];
	uint32_t expected_head, expected_count;
	bool device_trusted;   // no write-back changed by the target: packets must match the frames
	bool ownership_broken; // WRITE_AHEAD touched a descriptor the device owned: model violations are expected
	uint32_t next_seq;
};

static struct fuzz_state state;
static bool trace; // IXY_FUZZ_TRACE=1: print every operation

#define TRACE(...)                                                                                                     \
	do {                                                                                                           \
		if (trace) {                                                                                           \
			fprintf(stderr, "fuzz_ixgbe_rx: " __VA_ARGS__);                                                \
		}                                                                                                      \
	} while (0)

static uint8_t frame[MAX_MODEL_FRAME];

// Frame contents: a fixed pattern (every byte differs from its neighbours, so a shifted copy shows), with the
// sequence number in the first and the last 4 bytes, so frames of the same length differ too.
static void make_frame(uint8_t* dst, uint32_t seq, uint32_t len) {
	static uint8_t pattern[MAX_MODEL_FRAME];
	if (pattern[1] == 0) {
		for (uint32_t i = 0; i < MAX_MODEL_FRAME; i++) {
			pattern[i] = (uint8_t)(i * 7 + (i >> 8) + 1);
		}
	}
	memcpy(dst, pattern, len);
	memcpy(dst, &seq, sizeof(seq));
	memcpy(dst + len - sizeof(seq), &seq, sizeof(seq));
}

static uint32_t driver_rx_index(void) {
	// The driver gives back every descriptor before its next one: RDT + 1 is where it looks next.
	return (model_ixgbe_peek(state.nic, IXGBE_RDT(0)) + 1) & (state.ring_size - 1);
}

// Descriptors the device has written back and the driver has not consumed: from the driver's index to RDH.
static uint32_t released_descriptors(void) {
	uint32_t head = model_ixgbe_peek(state.nic, IXGBE_RDH(0));
	return (head - driver_rx_index()) & (state.ring_size - 1);
}

static void check_accounting(void) {
	FUZZ_CHECK(state.pool->free_stack_top + state.num_held + state.ring_size == state.pool->num_entries);
}

static void check_received(struct pkt_buf* buf) {
	struct mempool* pool = state.pool;
	// Buffers are laid out page by page (src/mempool.c): buffer i is in huge page i / per_page at slot i %
	// per_page.
	uintptr_t offset = (uintptr_t)buf - (uintptr_t)pool->dma.virt;
	uint32_t per_page = IXY_HUGE_PAGE_SIZE / pool->buf_size;
	FUZZ_CHECK((uintptr_t)buf >= (uintptr_t)pool->dma.virt);
	FUZZ_CHECK(buf->mempool == pool && buf->mempool_idx < pool->num_entries);
	FUZZ_CHECK(offset == (uintptr_t)(buf->mempool_idx / per_page) * IXY_HUGE_PAGE_SIZE +
				 (uintptr_t)(buf->mempool_idx % per_page) * pool->buf_size);
	FUZZ_CHECK(buf->buf_addr_phy == (uintptr_t)buf); // test builds: device address == virtual address
	FUZZ_CHECK(buf->size >= 1 && buf->size <= pool->buf_size - offsetof(struct pkt_buf, data));
	FUZZ_CHECK(!state.is_held[buf->mempool_idx]);
	state.is_held[buf->mempool_idx] = true;
	state.held[state.num_held++] = buf;
	if (state.device_trusted) {
		FUZZ_CHECK(state.expected_count > 0);
		struct expected_frame want = state.expected[state.expected_head];
		state.expected_head = (state.expected_head + 1) % MAX_EXPECTED;
		state.expected_count--;
		FUZZ_CHECK(buf->size == want.len);
		make_frame(frame, want.seq, want.len);
		FUZZ_CHECK(memcmp(buf->data, frame, want.len) == 0);
	}
}

static void op_inject(struct fuzz_input* in, bool any_length) {
	uint32_t count = 1 + fuzz_u8(in) % MAX_FRAMES_PER_INJECT;
	uint32_t max_len = any_length ? MAX_MODEL_FRAME : MAX_STANDARD_FRAME;
	uint32_t len = MIN_FRAME + fuzz_u16(in) % (max_len - MIN_FRAME + 1);
	uint32_t delivered = 0;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t seq = state.next_seq++;
		make_frame(frame, seq, len);
		enum model_rx_result result = model_ixgbe_inject_rx(state.nic, 0, frame, len);
		delivered += result == MODEL_RX_DELIVERED;
		if (result == MODEL_RX_DELIVERED && state.device_trusted) {
			FUZZ_CHECK(state.expected_count < MAX_EXPECTED);
			state.expected[(state.expected_head + state.expected_count) % MAX_EXPECTED] =
			    (struct expected_frame){.seq = seq, .len = len};
			state.expected_count++;
		}
	}
	TRACE("inject %u frames of %u bytes: %u delivered\n", count, len, delivered);
}

// Writes the status half of descriptor `index` in write-back format; the buffer address half stays as it is.
static void write_back(uint32_t index, uint32_t status_error, uint16_t length) {
	TRACE("descriptor %u (driver at %u, RDH %u): status 0x%08x, length %u\n", index, driver_rx_index(),
	      model_ixgbe_peek(state.nic, IXGBE_RDH(0)), status_error, length);
	volatile union intel_adv_rx_desc* desc = &state.ring[index];
	desc->wb.status_error = status_error;
	desc->wb.length = length;
	state.device_trusted = false;
}

// Status bits: half of the values are just a combination of DD and EOP (bits 0 and 1), the others arbitrary
// (error bits 31:20, reserved bits).
static uint32_t fuzz_status(struct fuzz_input* in) {
	uint8_t kind = fuzz_u8(in);
	uint32_t bits = fuzz_u32(in);
	return kind & 1 ? bits : (kind >> 1) & (ADV_RXD_STAT_DD | ADV_RXD_STAT_EOP);
}

// Length: a selector byte, then 16 bits: small (0..255), around the data room of the pool's buffers (buf_size - 64,
// from data room - 128 to data room + 127), or any 16 bit value.
static uint16_t fuzz_length(struct fuzz_input* in) {
	uint8_t selector = fuzz_u8(in) % 3;
	uint16_t value = fuzz_u16(in);
	if (selector == 0) {
		return value & 0xff;
	}
	if (selector == 1) {
		uint32_t data_room = state.pool->buf_size - (uint32_t)offsetof(struct pkt_buf, data);
		return (uint16_t)(data_room - 128 + value % 256);
	}
	return value;
}

static void op_mutate_wb(struct fuzz_input* in) {
	uint16_t pick = fuzz_u16(in);
	uint32_t status = fuzz_status(in);
	uint16_t length = fuzz_length(in);
	uint32_t released = released_descriptors();
	if (released > 0) {
		write_back((driver_rx_index() + pick % released) & (state.ring_size - 1), status, length);
	}
}

static void op_write_ahead(struct fuzz_input* in) {
	uint32_t ahead = fuzz_u16(in) % state.ring_size;
	uint32_t status = fuzz_status(in);
	uint16_t length = fuzz_length(in);
	if (ahead >= released_descriptors()) {
		state.ownership_broken = true; // the device owns it, or the driver does: the model will object
	}
	write_back((driver_rx_index() + ahead) & (state.ring_size - 1), status, length);
}

// ixy_rx_batch() for up to `want` packets, each checked and then held by the app. Returns how many.
static uint32_t rx_batch(uint32_t want) {
	static struct pkt_buf* bufs[2 * MAX_RING_SIZE + 1];
	// The driver may write bufs[0 .. want - 1] only: the rest must stay as it was.
	memset(bufs, 0, sizeof(bufs));
	uint32_t got = ixy_rx_batch(state.dev, 0, bufs, want);
	FUZZ_CHECK(got <= want);
	for (uint32_t i = want; i < sizeof(bufs) / sizeof(bufs[0]); i++) {
		FUZZ_CHECK(bufs[i] == NULL);
	}
	for (uint32_t i = 0; i < got; i++) {
		FUZZ_CHECK(bufs[i] != NULL);
		check_received(bufs[i]);
	}
	check_accounting();
	return got;
}

static void op_rx_batch(struct fuzz_input* in, bool large) {
	uint32_t want = large ? fuzz_u16(in) % (2 * state.ring_size + 1) : fuzz_u8(in) % 65;
	uint32_t got = rx_batch(want);
	TRACE("rx_batch(%u) = %u\n", want, got);
}

static void free_held(uint32_t position) {
	struct pkt_buf* buf = state.held[position];
	state.is_held[buf->mempool_idx] = false;
	memmove(&state.held[position], &state.held[position + 1], (state.num_held - position - 1) * sizeof(buf));
	state.num_held--;
	pkt_buf_free(buf);
}

static void op_free(struct fuzz_input* in) {
	uint32_t count = fuzz_u8(in);
	uint8_t order = fuzz_u8(in) % 3;
	TRACE("free up to %u of %u held packets (order %u)\n", count, state.num_held, order);
	for (uint32_t i = 0; i < count && state.num_held > 0; i++) {
		uint32_t position = order == 0 ? 0 : order == 1 ? state.num_held - 1 : (i * 2) % state.num_held;
		free_held(position);
	}
	check_accounting();
}

// After ixy_stop: every buffer of the pool is on the free stack, each exactly once.
static void check_pool_complete(void) {
	static bool seen[MAX_POOL];
	struct mempool* pool = state.pool;
	FUZZ_CHECK(pool->free_stack_top == pool->num_entries);
	memset(seen, 0, sizeof(seen));
	for (uint32_t i = 0; i < pool->free_stack_top; i++) {
		uint32_t idx = pool->free_stack[i]->mempool_idx;
		FUZZ_CHECK(idx < pool->num_entries && !seen[idx]);
		seen[idx] = true;
	}
}

static void open_device(uint32_t ring_size) {
	state.nic = model_ixgbe_add(NIC_ADDR);
	model_ixgbe_log_registers(state.nic, false);
	model_ixgbe_record_tx(state.nic, false);
	model_ixgbe_set_link_mode(state.nic, MODEL_LINK_UP_AFTER_AN, 1000);
	struct ixy_config config = {.pci_addr = NIC_ADDR, .rx_queues = 1, .tx_queues = 1, .ring_size = ring_size};
	state.dev = ixy_init_config(&config);
	FUZZ_CHECK(state.dev != NULL);
	state.ring_size = ring_size;
	TRACE("opened with %u RX descriptors\n", ring_size);
	uint64_t base =
	    (uint64_t)model_ixgbe_peek(state.nic, IXGBE_RDBAH(0)) << 32 | model_ixgbe_peek(state.nic, IXGBE_RDBAL(0));
	FUZZ_CHECK(base != 0 && seam_dma_contains((uintptr_t)base, ring_size * sizeof(union intel_adv_rx_desc)));
	state.ring = (volatile union intel_adv_rx_desc*)(uintptr_t)base;
	// The pool: the buffer behind descriptor 0 (read format, packet data at offset 64 of the buffer).
	struct pkt_buf* first =
	    (struct pkt_buf*)(uintptr_t)(state.ring[0].read.pkt_addr - offsetof(struct pkt_buf, data));
	state.pool = first->mempool;
	FUZZ_CHECK(state.pool->num_entries <= MAX_POOL);
	check_accounting();
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
	struct fuzz_input in = fuzz_input(data, size);
	memset(&state, 0, sizeof(state));
	const char* trace_env = getenv("IXY_FUZZ_TRACE");
	trace = trace_env && strcmp(trace_env, "1") == 0;
	state.device_trusted = true;
	size_t dma_before = seam_dma_live_allocations();
	open_device(64u << (fuzz_u8(&in) % 4));
	while (fuzz_remaining(&in) > 0) {
		switch (fuzz_u8(&in) % NUM_OPS) {
			case OP_INJECT:
				op_inject(&in, false);
				break;
			case OP_INJECT_ANY_LENGTH:
				op_inject(&in, true);
				break;
			case OP_MUTATE_WB:
				op_mutate_wb(&in);
				break;
			case OP_WRITE_AHEAD:
				op_write_ahead(&in);
				break;
			case OP_RX_BATCH:
				op_rx_batch(&in, false);
				break;
			case OP_RX_BATCH_LARGE:
				op_rx_batch(&in, true);
				break;
			case OP_FREE:
				op_free(&in);
				break;
		}
	}
	// The app frees everything and receives until the ring is empty: while the device behaved, every frame it
	// delivered must come out (nothing skipped or lost), in order.
	do {
		while (state.num_held > 0) {
			free_held(state.num_held - 1);
		}
	} while (rx_batch(64) > 0);
	if (state.device_trusted) {
		FUZZ_CHECK(state.expected_count == 0);
		// ... and every descriptor but the one the driver keeps is back with the device (RDT kept up).
		FUZZ_CHECK(model_ixgbe_rx_descriptors_available(state.nic, 0) == state.ring_size - 1);
	}
	while (state.num_held > 0) {
		free_held(state.num_held - 1);
	}
	check_accounting();
	ixy_stop(state.dev);
	check_pool_complete();
	ixy_close(state.dev);
	FUZZ_CHECK(seam_dma_live_allocations() == dma_before);
	model_pci_remove_all();
	if (!state.ownership_broken && model_violation_count() > 0) {
		model_print_violations(stderr);
		FUZZ_CHECK(model_violation_count() == 0);
	}
	model_forget_violations();
	return 0;
}
