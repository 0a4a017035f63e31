// Fuzz target: the transmit path of the ixgbe driver (src/driver/ixgbe.c: ixgbe_tx_batch, tx_clean) fed packets of
// arbitrary sizes from pools of two buffer sizes, with the wire stalling and resuming.
//
// Every input opens a fresh modelled 82599 (test/model) with one RX and one TX queue and runs a little program read
// from the input. Operations:
//   TX_BATCH   the app takes 0 .. 64 buffers (each from the large or the small pool, with a size that is 0, small,
//              around its pool's data room, or any 16 bit value), fills them and calls ixy_tx_batch(); it frees what
//              the driver did not take
//   TX_LARGE   the same with up to 2 * ring size buffers
//   CLEAN      ixy_tx_batch() with no packets: the driver only frees what was sent
//   PAUSE      the wire stalls (pause frames): descriptors stay pending, the ring fills up
//   RESUME     the wire sends again: the model sends everything pending at once
//
// Invariants, checked after every step:
//   - tx_batch takes at most as many packets as offered, and only a prefix of them: each one it took has 1 ..
//     (its pool's buf_size - 64) bytes; the first one it refused is empty or too long for its buffer, or the ring
//     was full (the driver holds ring size - 1 buffers);
//   - the driver holds at most ring size - 1 buffers and at least the descriptors the model has not sent yet:
//     nothing lost, nothing freed twice (pkt_buf_free panics on a full pool);
//   - the model sends exactly the packets taken, in order, with their bytes;
// and at the end: after ixy_stop() both pools' free stacks hold every buffer exactly once; after ixy_close() no DMA
// memory is left; the model recorded no violation of the datasheet.
//
// To see what an input does, replay it with IXY_FUZZ_TRACE=1 in the environment: every operation is printed.
#include <stdbool.h>
#include <string.h>

#include <ixy/ixy.h>

#include "fuzz_input.h"
#include "ixgbe_model.h"
#include "seam.h"

#define NIC_ADDR "0000:07:00.0"
#define MAX_RING_SIZE 512
#define POOL_SIZE (2 * MAX_RING_SIZE + 64) // per pool: more than a ring's worth, and a batch on top
#define SMALL_BUF_SIZE 128                 // the smallest pool ixy allows: 64 bytes of data room
#define MAX_BATCH (2 * MAX_RING_SIZE)
#define MAX_EXPECTED (2 * MAX_RING_SIZE) // packets taken and not yet seen on the wire (at most a ring's worth)

enum tx_op { OP_TX_BATCH, OP_TX_LARGE, OP_CLEAN, OP_PAUSE, OP_RESUME, NUM_OPS };

struct expected_frame {
	uint32_t seq;
	uint32_t len;
};

struct fuzz_state {
	struct model_ixgbe* nic;
	struct ixy_device* dev;
	uint32_t ring_size;
	struct mempool* pools[2]; // large (default buffer size) and small
	struct expected_frame expected[MAX_EXPECTED];
	uint32_t expected_head, expected_count;
	uint32_t frames_checked; // frames the model recorded that were compared already
	uint32_t next_seq;
};

static struct fuzz_state state;
static bool trace; // IXY_FUZZ_TRACE=1: print every operation

#define TRACE(...)                                                                                                     \
	do {                                                                                                           \
		if (trace) {                                                                                           \
			fprintf(stderr, "fuzz_ixgbe_tx: " __VA_ARGS__);                                                \
		}                                                                                                      \
	} while (0)

static uint32_t data_room(const struct mempool* pool) {
	return pool->buf_size - (uint32_t)offsetof(struct pkt_buf, data);
}

// Packet contents: every byte depends on the sequence number and its position, so a shifted or stale copy shows.
static uint8_t pattern_byte(uint32_t seq, uint32_t i) {
	return (uint8_t)(seq * 31 + i * 7 + (i >> 8) + 1);
}

// Buffers the driver holds: all that are not free (the app holds none between operations).
static uint32_t held_by_driver(void) {
	uint32_t held = 0;
	for (int p = 0; p < 2; p++) {
		held += state.pools[p]->num_entries - state.pools[p]->free_stack_top;
	}
	return held;
}

// Compares what the model sent since the last check with the packets the driver took, in order.
static void check_wire(void) {
	uint32_t count = model_ixgbe_tx_frame_count(state.nic);
	for (; state.frames_checked < count; state.frames_checked++) {
		uint32_t len;
		uint16_t queue;
		const uint8_t* frame = model_ixgbe_tx_frame(state.nic, state.frames_checked, &len, &queue);
		FUZZ_CHECK(state.expected_count > 0 && queue == 0);
		struct expected_frame want = state.expected[state.expected_head];
		state.expected_head = (state.expected_head + 1) % MAX_EXPECTED;
		state.expected_count--;
		FUZZ_CHECK(len == want.len);
		for (uint32_t i = 0; i < len; i++) {
			FUZZ_CHECK(frame[i] == pattern_byte(want.seq, i));
		}
	}
	model_ixgbe_clear_tx_frames(state.nic);
	state.frames_checked = 0;
}

static void check_accounting(void) {
	uint32_t held = held_by_driver();
	FUZZ_CHECK(held <= state.ring_size - 1);
	FUZZ_CHECK(held >= model_ixgbe_tx_pending(state.nic, 0));
	check_wire();
	// Everything taken and not yet on the wire is still pending in the model.
	FUZZ_CHECK(state.expected_count == model_ixgbe_tx_pending(state.nic, 0));
}

// Size of a packet in a buffer of `pool`: 0, small, around the data room (room - 2 .. room + 2), or any 16 bits.
static uint32_t fuzz_size(struct fuzz_input* in, const struct mempool* pool) {
	uint8_t selector = fuzz_u8(in) % 4;
	uint16_t value = fuzz_u16(in);
	if (selector == 0) {
		return 0;
	}
	if (selector == 1) {
		return 1 + value % 128;
	}
	if (selector == 2) {
		return data_room(pool) - 2 + value % 5;
	}
	return value;
}

static void op_tx_batch(struct fuzz_input* in, bool large) {
	static struct pkt_buf* bufs[MAX_BATCH];
	uint32_t want = large ? fuzz_u16(in) % (2 * state.ring_size + 1) : fuzz_u8(in) % 65;
	uint32_t n = 0;
	for (; n < want; n++) {
		struct mempool* pool = state.pools[fuzz_u8(in) & 1];
		uint32_t size = fuzz_size(in, pool);
		if (pkt_buf_alloc_batch(pool, &bufs[n], 1) == 0) {
			break;
		}
		bufs[n]->size = size;
		// Bytes beyond the data room would be the next buffer's: only the room is filled.
		uint32_t fill = size < data_room(pool) ? size : data_room(pool);
		for (uint32_t i = 0; i < fill; i++) {
			bufs[n]->data[i] = pattern_byte(state.next_seq + n, i);
		}
	}
	uint32_t sent = ixy_tx_batch(state.dev, 0, bufs, n);
	TRACE("tx_batch(%u) = %u\n", n, sent);
	FUZZ_CHECK(sent <= n);
	for (uint32_t i = 0; i < sent; i++) {
		FUZZ_CHECK(bufs[i]->size >= 1 && bufs[i]->size <= data_room(bufs[i]->mempool));
		FUZZ_CHECK(state.expected_count < MAX_EXPECTED);
		state.expected[(state.expected_head + state.expected_count) % MAX_EXPECTED] =
		    (struct expected_frame){.seq = state.next_seq + i, .len = bufs[i]->size};
		state.expected_count++;
	}
	if (sent < n) {
		// Refused: a packet the NIC cannot send, or no free descriptor (after cleaning, which frees buffers the
		// model sent before this call: the ring holds ring size - 1 then).
		struct pkt_buf* first_refused = bufs[sent];
		bool sendable = first_refused->size >= 1 && first_refused->size <= data_room(first_refused->mempool);
		FUZZ_CHECK(!sendable || held_by_driver() - (n - sent) == state.ring_size - 1);
	}
	pkt_buf_free_batch(bufs + sent, n - sent); // the caller still owns what the driver did not take
	state.next_seq += n;
	check_accounting();
}

static void open_device(uint32_t ring_size) {
	state.nic = model_ixgbe_add(NIC_ADDR);
	model_ixgbe_log_registers(state.nic, false);
	model_ixgbe_set_link_mode(state.nic, MODEL_LINK_UP_AFTER_AN, 1000);
	struct ixy_config config = {.pci_addr = NIC_ADDR, .rx_queues = 1, .tx_queues = 1, .ring_size = ring_size};
	state.dev = ixy_init_config(&config);
	FUZZ_CHECK(state.dev != NULL);
	state.ring_size = ring_size;
	state.pools[0] = memory_allocate_mempool(POOL_SIZE, 0);
	state.pools[1] = memory_allocate_mempool(POOL_SIZE, SMALL_BUF_SIZE);
	FUZZ_CHECK(state.pools[0] != NULL && state.pools[1] != NULL);
	TRACE("opened with %u TX descriptors\n", ring_size);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
	struct fuzz_input in = fuzz_input(data, size);
	memset(&state, 0, sizeof(state));
	const char* trace_env = getenv("IXY_FUZZ_TRACE");
	trace = trace_env && strcmp(trace_env, "1") == 0;
	size_t dma_before = seam_dma_live_allocations();
	open_device(64u << (fuzz_u8(&in) % 4));
	while (fuzz_remaining(&in) > 0) {
		switch (fuzz_u8(&in) % NUM_OPS) {
			case OP_TX_BATCH:
				op_tx_batch(&in, false);
				break;
			case OP_TX_LARGE:
				op_tx_batch(&in, true);
				break;
			case OP_CLEAN:
				TRACE("clean: tx_batch(0) = %u\n", ixy_tx_batch(state.dev, 0, NULL, 0));
				check_accounting();
				break;
			case OP_PAUSE:
				TRACE("pause\n");
				model_ixgbe_pause_tx(state.nic, true);
				check_accounting();
				break;
			case OP_RESUME:
				TRACE("resume\n");
				model_ixgbe_pause_tx(state.nic, false);
				check_accounting();
				break;
		}
	}
	// The wire sends again: the model sends everything pending at once, and all of it must be what was taken.
	model_ixgbe_pause_tx(state.nic, false);
	check_accounting();
	FUZZ_CHECK(state.expected_count == 0);
	ixy_stop(state.dev);
	for (int p = 0; p < 2; p++) {
		static bool seen[POOL_SIZE];
		struct mempool* pool = state.pools[p];
		FUZZ_CHECK(pool->free_stack_top == pool->num_entries);
		memset(seen, 0, sizeof(seen));
		for (uint32_t i = 0; i < pool->free_stack_top; i++) {
			uint32_t idx = pool->free_stack[i]->mempool_idx;
			FUZZ_CHECK(idx < pool->num_entries && !seen[idx]);
			seen[idx] = true;
		}
		memory_free_mempool(pool);
	}
	ixy_close(state.dev);
	FUZZ_CHECK(seam_dma_live_allocations() == dma_before);
	model_pci_remove_all();
	if (model_violation_count() > 0) {
		model_print_violations(stderr);
		FUZZ_CHECK(model_violation_count() == 0);
	}
	model_forget_violations();
	return 0;
}
