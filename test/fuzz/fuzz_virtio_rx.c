// Fuzz target: the receive path of the VirtIO driver (src/driver/virtio.c, virtio_rx_batch) fed arbitrary used ring
// contents by the VirtIO device model (test/model/virtio_model.h).
//
// Every input opens a fresh modelled VirtIO NIC (modern, or legacy only, with or without VIRTIO_F_ANY_LAYOUT: the
// first byte chooses, so both descriptor layouts of virtio.c are fuzzed) with ixy_init_config(), and runs a little
// program read from the input. Operations:
//   DELIVER       the device receives frames from the wire as a correct device does (header + frame, used entry)
//   DELIVER_LONG  the same with lengths around the buffer size (too long ones stay in the wire's queue)
//   TAKE          the device takes an available chain and keeps it
//   PUT_USED      the device puts a used entry: the id of a chain it took, of any chain, or any 32 bit value; a
//                 length that is small, around header + buffer, or any 32 bit value
//   WRITE_SLOT    the device writes a used ring entry ahead of its index (the index does not move)
//   JUMP          the device's used index jumps by an arbitrary amount
//   RESTORE       the used index goes back to where it was before the last jump
//   RX_BATCH      ixy_rx_batch() with 0 .. 64 or 0 .. 2 * ring size buffers asked for
//   FREE          the app frees some of the packets it holds
//
// The driver's behaviour is predicted from the used ring (as the device wrote it) before every batch, and checked:
//   - if the device's index is more than the chains it holds (the chains: ring size, or ring size / 2 in
//     the two-descriptor layout) ahead of the driver's, nothing is
//     consumed; otherwise the driver takes one fresh buffer per entry it will consume, so it consumes in order as
//     many entries as the fewest of `want`, the entries and the pool's free buffers: an entry whose id is a chain's
//     head (a multiple of the descriptors per chain) below the ring size and whose length is header + 1 .. header +
//     data room is a packet, any other is dropped, and so is one whose chain an earlier entry of the batch named
//     (its chain was offered again: the device holds it);
//   - the batch returns exactly the predicted packets with the predicted sizes, and rx_dropped grows by exactly the
//     predicted drops; rx_pkts by the packets;
//   - every packet is a buffer of the driver's RX pool that the app does not hold already;
//   - free buffers + held by the app + one per RX chain == the pool size;
//   - while the device behaves (model_virtio_misbehaved() false), every packet from a correct delivery holds
//     exactly the frame's bytes;
// and at the end: after ixy_stop() the pool's free stack holds every buffer exactly once; after ixy_close() the
// device is reset, no DMA memory is left, and the model recorded no violation (it stops checking what follows from
// a misbehaving device on its own).
//
// IXY_FUZZ_TRACE=1 in the environment prints what an input does.
#include <stdbool.h>
#include <string.h>

#include <ixy/ixy.h>

#include "fuzz_input.h"
#include "seam.h"
#include "virtio_model.h"

#define NIC_ADDR "0000:08:00.0"
#define MAX_RING_SIZE 512
#define MAX_POOL 4096 // the driver's RX pool: 4096 buffers for rings up to 1024
#define MAX_FRAMES_PER_DELIVER 64
#define MIN_FRAME 60u
#define MAX_FRAME 1514u
#define MAX_LONG_FRAME 2200

enum rx_op {
	OP_DELIVER,
	OP_DELIVER_LONG,
	OP_TAKE,
	OP_PUT_USED,
	OP_WRITE_SLOT,
	OP_JUMP,
	OP_RESTORE,
	OP_RX_BATCH,
	OP_RX_BATCH_LARGE,
	OP_FREE,
	NUM_OPS
};

// What a correct delivery put in a used ring slot: the frame the packet must hold.
struct slot_frame {
	bool valid;
	uint32_t seq, len;
};

struct fuzz_state {
	struct model_virtio* nic;
	struct ixy_device* dev;
	uint16_t ring_size;
	uint16_t stride;     // descriptors per chain: 1 (header in the head room) or 2 (header descriptor)
	uint16_t num_chains; // ring_size / stride
	uint32_t hdr_len;
	uint32_t data_room;
	struct mempool* pool;
	struct pkt_buf* held[MAX_POOL];
	uint32_t num_held;
	bool is_held[MAX_POOL];
	uint16_t driver_used;      // the driver's used index, as predicted
	uint16_t used_before_jump; // the device's index before the last jump
	uint16_t taken[MAX_RING_SIZE];
	uint32_t num_taken;
	struct slot_frame slots[MAX_RING_SIZE];
	uint32_t next_seq;
};

static struct fuzz_state state;
static bool trace;

#define TRACE(...)                                                                                                     \
	do {                                                                                                           \
		if (trace) {                                                                                           \
			fprintf(stderr, "fuzz_virtio_rx: " __VA_ARGS__);                                               \
		}                                                                                                      \
	} while (0)

static uint8_t frame[MAX_LONG_FRAME];

// A pattern in which neighbouring bytes differ, with the sequence number in the first and last 4 bytes.
static void make_frame(uint8_t* dst, uint32_t seq, uint32_t len) {
	for (uint32_t i = 0; i < len; i++) {
		dst[i] = (uint8_t)(i * 7 + (i >> 8) + 1 + seq);
	}
	memcpy(dst, &seq, sizeof(seq));
	memcpy(dst + len - sizeof(seq), &seq, sizeof(seq));
}

static void check_accounting(void) {
	FUZZ_CHECK(state.pool->free_stack_top + state.num_held + state.num_chains == state.pool->num_entries);
}

static void deliver(struct fuzz_input* in, bool long_frames) {
	uint32_t count = 1 + fuzz_u8(in) % MAX_FRAMES_PER_DELIVER;
	uint32_t len = long_frames ? state.data_room - 64 + fuzz_u8(in) % 128
				   : MIN_FRAME + fuzz_u16(in) % (MAX_FRAME - MIN_FRAME + 1);
	uint32_t delivered = 0;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t seq = state.next_seq++;
		uint16_t slot = model_virtio_used_idx(state.nic, MODEL_VIRTIO_RX);
		make_frame(frame, seq, len);
		enum model_virtio_rx_result result = model_virtio_rx(state.nic, frame, len);
		FUZZ_CHECK(result != MODEL_VIRTIO_RX_OFF);
		FUZZ_CHECK(result != MODEL_VIRTIO_RX_TOO_LONG || len > state.data_room);
		if (result == MODEL_VIRTIO_RX_DELIVERED) {
			state.slots[slot % state.ring_size] = (struct slot_frame){true, seq, len};
			delivered++;
		}
	}
	TRACE("deliver %u frames of %u bytes: %u delivered\n", count, len, delivered);
}

static void take(void) {
	uint16_t head;
	if (state.num_taken < state.ring_size && model_virtio_take(state.nic, MODEL_VIRTIO_RX, &head)) {
		state.taken[state.num_taken++] = head;
		TRACE("take chain %u\n", head);
	}
}

// An id: a chain the device took (and gives back), any descriptor index around the ring, or any value.
static uint32_t fuzz_id(struct fuzz_input* in) {
	uint8_t selector = fuzz_u8(in) % 3;
	uint32_t value = fuzz_u32(in);
	if (selector == 0 && state.num_taken > 0) {
		uint32_t pick = value % state.num_taken;
		uint32_t id = state.taken[pick];
		state.taken[pick] = state.taken[--state.num_taken];
		return id;
	}
	return selector == 1 ? value % (2u * state.ring_size) : value;
}

// A length: small, around header + data room, or any value.
static uint32_t fuzz_length(struct fuzz_input* in) {
	uint8_t selector = fuzz_u8(in) % 3;
	uint32_t value = fuzz_u32(in);
	if (selector == 0) {
		return value % 64;
	}
	return selector == 1 ? state.hdr_len + state.data_room - 32 + value % 64 : value;
}

static void put_used(struct fuzz_input* in) {
	uint32_t id = fuzz_id(in);
	uint32_t len = fuzz_length(in);
	uint16_t slot = model_virtio_used_idx(state.nic, MODEL_VIRTIO_RX);
	TRACE("put used {id %u, len %u} at %u\n", id, len, slot);
	model_virtio_put_used(state.nic, MODEL_VIRTIO_RX, id, len);
	state.slots[slot % state.ring_size].valid = false;
}

static void write_slot(struct fuzz_input* in) {
	uint16_t ahead = fuzz_u16(in) % state.ring_size;
	uint32_t id = fuzz_id(in);
	uint32_t len = fuzz_length(in);
	uint16_t slot = (uint16_t)(model_virtio_used_idx(state.nic, MODEL_VIRTIO_RX) + ahead);
	TRACE("write used slot %u: {id %u, len %u}\n", slot, id, len);
	model_virtio_write_used_entry(state.nic, MODEL_VIRTIO_RX, slot, id, len);
	state.slots[slot % state.ring_size].valid = false;
}

static void jump(struct fuzz_input* in) {
	uint16_t by = fuzz_u16(in);
	uint16_t now = model_virtio_used_idx(state.nic, MODEL_VIRTIO_RX);
	state.used_before_jump = now;
	TRACE("used index jumps from %u by %u\n", now, by);
	model_virtio_set_used_idx(state.nic, MODEL_VIRTIO_RX, (uint16_t)(now + by));
}

static void restore(void) {
	TRACE("used index back to %u\n", state.used_before_jump);
	model_virtio_set_used_idx(state.nic, MODEL_VIRTIO_RX, state.used_before_jump);
}

// A used entry the driver must hand out as a packet (see the top of this file).
static bool is_packet(uint32_t id, uint32_t len) {
	return id < state.ring_size && id % state.stride == 0 && len > state.hdr_len &&
	       len - state.hdr_len <= state.data_room;
}

// ixy_rx_batch() for up to want packets, checked against the prediction. Returns how many packets came.
static uint32_t rx_batch(uint32_t want) {
	static struct pkt_buf* bufs[2 * MAX_RING_SIZE + 1];
	static uint32_t expected_size[2 * MAX_RING_SIZE + 1];
	static struct slot_frame expected_frame[2 * MAX_RING_SIZE + 1];
	// The prediction.
	uint16_t device_used = model_virtio_used_idx(state.nic, MODEL_VIRTIO_RX);
	uint16_t entries = (uint16_t)(device_used - state.driver_used);
	uint32_t packets = 0, drops = 0, consumed = 0;
	if (entries <= state.num_chains) {
		uint32_t take = want < entries ? want : entries;
		take = take < state.pool->free_stack_top ? take : state.pool->free_stack_top;
		static uint32_t taken_in[MAX_RING_SIZE], batch; // the batch that took each chain
		batch++;
		for (; consumed < take; consumed++) {
			uint16_t slot = (uint16_t)(state.driver_used + consumed);
			uint32_t id, len;
			model_virtio_used_entry(state.nic, MODEL_VIRTIO_RX, slot, &id, &len);
			bool head = id < state.ring_size && id % state.stride == 0;
			bool twice = head && taken_in[id] == batch;
			if (head) {
				taken_in[id] = batch;
			}
			if (twice || !is_packet(id, len)) {
				drops++;
				continue;
			}
			expected_size[packets] = len - state.hdr_len;
			expected_frame[packets++] = state.slots[slot % state.ring_size];
		}
	}
	// The batch.
	memset(bufs, 0, sizeof(bufs));
	uint32_t got = ixy_rx_batch(state.dev, 0, bufs, want);
	struct device_stats stats;
	memset(&stats, 0, sizeof(stats));
	ixy_read_stats(state.dev, &stats);
	TRACE("rx_batch(%u) = %u, %llu dropped (predicted %u, %u; device index %u, driver's %u)\n", want, got,
	      (unsigned long long)stats.rx_dropped, packets, drops, device_used, state.driver_used);
	FUZZ_CHECK(got == packets);
	FUZZ_CHECK(stats.rx_pkts == packets);
	FUZZ_CHECK(stats.rx_dropped == drops);
	state.driver_used = (uint16_t)(state.driver_used + consumed);
	for (uint32_t i = want; i < sizeof(bufs) / sizeof(bufs[0]); i++) {
		FUZZ_CHECK(bufs[i] == NULL);
	}
	for (uint32_t i = 0; i < got; i++) {
		struct pkt_buf* buf = bufs[i];
		FUZZ_CHECK(buf != NULL && buf->mempool == state.pool && buf->mempool_idx < state.pool->num_entries);
		FUZZ_CHECK(!state.is_held[buf->mempool_idx]);
		FUZZ_CHECK(buf->size == expected_size[i]);
		if (expected_frame[i].valid && !model_virtio_misbehaved(state.nic)) {
			FUZZ_CHECK(buf->size == expected_frame[i].len);
			make_frame(frame, expected_frame[i].seq, expected_frame[i].len);
			FUZZ_CHECK(memcmp(buf->data, frame, buf->size) == 0);
		}
		state.is_held[buf->mempool_idx] = true;
		state.held[state.num_held++] = buf;
	}
	check_accounting();
	return got;
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

static void open_device(uint8_t setup) {
	state.ring_size = (uint16_t)(64u << (setup % 4));
	bool legacy = (setup >> 2) & 1;
	bool any_layout = (setup >> 3) & 1; // legacy: the device offers VIRTIO_F_ANY_LAYOUT (one descriptor)
	state.nic = model_virtio_add(NIC_ADDR, legacy ? MODEL_VIRTIO_LEGACY_ONLY : MODEL_VIRTIO_MODERN_ONLY);
	if (any_layout) {
		model_virtio_offer(state.nic, MODEL_VIRTIO_DEFAULT_FEATURES | MODEL_VIRTIO_F_ANY_LAYOUT);
	}
	state.stride = legacy && !any_layout ? 2 : 1;
	state.num_chains = (uint16_t)(state.ring_size / state.stride);
	model_virtio_set_queue_max(state.nic, legacy ? state.ring_size : 1024);
	struct ixy_config config = {.pci_addr = NIC_ADDR, .rx_queues = 1, .tx_queues = 1, .ring_size = state.ring_size};
	state.dev = ixy_init_config(&config);
	FUZZ_CHECK(state.dev != NULL);
	FUZZ_CHECK(model_virtio_queue_size(state.nic, MODEL_VIRTIO_RX) == state.ring_size);
	state.hdr_len = model_virtio_net_hdr_len(state.nic);
	TRACE("opened %s with %u RX descriptors, %u per chain\n", legacy ? "legacy" : "modern", state.ring_size,
	      state.stride);
}

// The driver's pool and its buffers' data room, found through a first packet (sequence number 0).
static void find_pool(void) {
	make_frame(frame, 0, MIN_FRAME);
	uint16_t slot = model_virtio_used_idx(state.nic, MODEL_VIRTIO_RX);
	FUZZ_CHECK(model_virtio_rx(state.nic, frame, MIN_FRAME) == MODEL_VIRTIO_RX_DELIVERED);
	state.slots[slot % state.ring_size] = (struct slot_frame){true, 0, MIN_FRAME};
	state.next_seq = 1;
	struct pkt_buf* buf;
	FUZZ_CHECK(ixy_rx_batch(state.dev, 0, &buf, 1) == 1);
	state.driver_used++;
	state.pool = buf->mempool;
	FUZZ_CHECK(state.pool->num_entries <= MAX_POOL);
	state.data_room = state.pool->buf_size - (uint32_t)offsetof(struct pkt_buf, data);
	struct device_stats stats;
	memset(&stats, 0, sizeof(stats));
	ixy_read_stats(state.dev, &stats);
	pkt_buf_free(buf);
	check_accounting();
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
	struct fuzz_input in = fuzz_input(data, size);
	memset(&state, 0, sizeof(state));
	const char* trace_env = getenv("IXY_FUZZ_TRACE");
	trace = trace_env && strcmp(trace_env, "1") == 0;
	size_t dma_before = seam_dma_live_allocations();
	open_device(fuzz_u8(&in));
	find_pool();
	while (fuzz_remaining(&in) > 0) {
		switch (fuzz_u8(&in) % NUM_OPS) {
			case OP_DELIVER:
				deliver(&in, false);
				break;
			case OP_DELIVER_LONG:
				deliver(&in, true);
				break;
			case OP_TAKE:
				take();
				break;
			case OP_PUT_USED:
				put_used(&in);
				break;
			case OP_WRITE_SLOT:
				write_slot(&in);
				break;
			case OP_JUMP:
				jump(&in);
				break;
			case OP_RESTORE:
				restore();
				break;
			case OP_RX_BATCH:
				rx_batch(fuzz_u8(&in) % 65);
				break;
			case OP_RX_BATCH_LARGE:
				rx_batch(fuzz_u16(&in) % (2u * state.ring_size + 1));
				break;
			case OP_FREE:
				op_free(&in);
				break;
		}
	}
	// The app frees everything and receives until nothing more comes.
	do {
		while (state.num_held > 0) {
			free_held(state.num_held - 1);
		}
	} while (rx_batch(64) > 0);
	check_accounting();
	ixy_stop(state.dev);
	check_pool_complete();
	ixy_close(state.dev);
	FUZZ_CHECK(model_virtio_status(state.nic) == 0);
	FUZZ_CHECK(seam_dma_live_allocations() == dma_before);
	model_pci_remove_all();
	if (model_violation_count() > 0) {
		model_print_violations(stderr);
		FUZZ_CHECK(model_violation_count() == 0);
	}
	return 0;
}
