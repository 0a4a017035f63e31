// Fuzz target: the transmit path of the VirtIO driver (src/driver/virtio.c, virtio_tx_batch: cleaning the used
// ring, then offering packets) fed arbitrary used ring contents by the VirtIO device model
// (test/model/virtio_model.h).
//
// Every input opens a fresh modelled VirtIO NIC (modern, or legacy only, with or without VIRTIO_F_ANY_LAYOUT:
// one or two descriptors per packet), an app pool of 1024 buffers, and runs a
// little program read from the input. The device does not send on its own (model_virtio_tx_on_notify false).
// Operations:
//   SEND        the app fills 0 .. 80 packets and calls ixy_tx_batch(); it frees what the driver did not take
//   PROCESS     the device sends up to n available chains correctly (recorded frame, used entry with length 0)
//   TAKE        the device takes an available chain and keeps it
//   PUT_USED    the device puts a used entry: a chain it took, any descriptor index, or any 32 bit id
//   WRITE_SLOT  the device writes a used ring entry ahead of its index
//   JUMP        the device's used index jumps by an arbitrary amount
//   RESTORE     the used index goes back to where it was before the last jump
//
// Invariants, checked after every operation:
//   - ixy_tx_batch() takes at most the packets offered, and, if the device's index is at most the chains the
//     driver gave it ahead, exactly as many as it has free chains after cleaning (ring size in all, ring size / 2 with
//     two descriptors per packet);
//   - every buffer is accounted for: the app's pool has free buffers + those in the driver's TX chains == its size,
//     and the driver never holds more than that; no buffer is freed twice (the pool would abort);
//   - the driver's next batch cleans every entry the device added if the device's index is at most the chains in
//     flight ahead, else none; an entry gives a buffer back exactly if its id is the head of a chain the driver
//     offered (read from the available ring) and has not got back yet: the pool grows by exactly that many;
//   - every chain the driver offers is one it does not have in flight already;
//   - tx_pkts grows by exactly the number of buffers the driver gave back;
//   - while the device behaves (model_virtio_misbehaved() false), the frames on the model's wire are the packets
//     the driver took, in order, byte for byte (the device may drop chains it took and returned unsent);
// and at the end: after ixy_stop() every buffer is back in the pool exactly once, after ixy_close() the device is
// reset and no DMA memory is left, and the model recorded no violation.
//
// IXY_FUZZ_TRACE=1 in the environment prints what an input does.
#include <stdbool.h>
#include <string.h>

#include <ixy/ixy.h>

#include "fuzz_input.h"
#include "seam.h"
#include "virtio_model.h"

#define NIC_ADDR "0000:09:00.0"
#define MAX_RING_SIZE 512
#define POOL_SIZE 1024
#define MAX_SEND 80
#define MIN_FRAME 60u
#define MAX_FRAME 1514u
#define MAX_ACCEPTED 65536

enum tx_op { OP_SEND, OP_PROCESS, OP_TAKE, OP_PUT_USED, OP_WRITE_SLOT, OP_JUMP, OP_RESTORE, NUM_OPS };

struct fuzz_state {
	struct model_virtio* nic;
	struct ixy_device* dev;
	struct mempool* pool;
	uint16_t ring_size;
	uint16_t stride;               // descriptors per chain: 1 (header in the head room) or 2 (header descriptor)
	uint16_t num_chains;           // ring_size / stride
	uint16_t driver_used;          // the driver's used index, as predicted
	uint16_t used_before_jump;     // the device's index before the last jump
	uint32_t driver_holds;         // buffers in the driver's TX chains
	bool in_flight[MAX_RING_SIZE]; // chains (by head) the driver offered and has not got back
	uint16_t avail_seen;           // the driver's available index after its last batch
	uint16_t taken[MAX_RING_SIZE];
	uint32_t num_taken;
	uint32_t next_seq;
	// sequence numbers of the packets the driver took, in order, and how far the wire has been checked
	uint32_t accepted[MAX_ACCEPTED];
	uint32_t num_accepted, next_on_wire, wire_checked;
	bool wire_unchecked;
};

static struct fuzz_state state;
static bool trace;

#define TRACE(...)                                                                                                     \
	do {                                                                                                           \
		if (trace) {                                                                                           \
			fprintf(stderr, "fuzz_virtio_tx: " __VA_ARGS__);                                               \
		}                                                                                                      \
	} while (0)

static uint32_t frame_len(uint32_t seq) {
	return MIN_FRAME + (seq * 151) % (MAX_FRAME - MIN_FRAME + 1);
}

static void make_frame(uint8_t* dst, uint32_t seq, uint32_t len) {
	for (uint32_t i = 0; i < len; i++) {
		dst[i] = (uint8_t)(i * 7 + (i >> 8) + 1 + seq);
	}
	memcpy(dst, &seq, sizeof(seq));
	memcpy(dst + len - sizeof(seq), &seq, sizeof(seq));
}

static void check_accounting(void) {
	FUZZ_CHECK(state.driver_holds <= state.num_chains);
	FUZZ_CHECK(state.pool->free_stack_top + state.driver_holds == state.pool->num_entries);
}

// The frames sent since the last check are packets the driver took, in order (some may be missing: chains the
// device returned without sending them), byte for byte.
static void check_wire(void) {
	uint32_t count = model_virtio_tx_count(state.nic);
	for (; state.wire_checked < count; state.wire_checked++) {
		uint32_t len;
		const uint8_t* sent = model_virtio_tx_frame(state.nic, state.wire_checked, &len);
		if (model_virtio_misbehaved(state.nic) || state.wire_unchecked) {
			continue;
		}
		FUZZ_CHECK(len >= MIN_FRAME);
		uint32_t seq;
		memcpy(&seq, sent, sizeof(seq));
		while (state.next_on_wire < state.num_accepted && state.accepted[state.next_on_wire] != seq) {
			state.next_on_wire++;
		}
		FUZZ_CHECK(state.next_on_wire < state.num_accepted);
		state.next_on_wire++;
		static uint8_t frame[MAX_FRAME];
		FUZZ_CHECK(len == frame_len(seq));
		make_frame(frame, seq, len);
		FUZZ_CHECK(memcmp(sent, frame, len) == 0);
	}
}

// What the driver's next tx_batch must clean: all entries the device added, if its index is at most the chains the
// driver gave it ahead, else none (the index cannot be trusted). *buffers_back: the entries that return a chain the
// driver has in flight (each gives its buffer back; any other entry is ignored).
static uint32_t predict_cleaning(uint32_t* buffers_back) {
	uint16_t entries = (uint16_t)(model_virtio_used_idx(state.nic, MODEL_VIRTIO_TX) - state.driver_used);
	*buffers_back = 0;
	if (entries > state.driver_holds) {
		return 0;
	}
	for (uint16_t k = 0; k < entries; k++) {
		uint32_t id, len;
		model_virtio_used_entry(state.nic, MODEL_VIRTIO_TX, (uint16_t)(state.driver_used + k), &id, &len);
		if (id < state.ring_size && id % state.stride == 0 && state.in_flight[id]) {
			state.in_flight[id] = false;
			(*buffers_back)++;
		}
	}
	return entries;
}

// The chains the driver offered in its last batch: one per packet it took, each a chain not in flight already.
static void record_offered(uint32_t sent) {
	uint16_t avail_idx = model_virtio_avail_idx(state.nic, MODEL_VIRTIO_TX);
	FUZZ_CHECK((uint16_t)(avail_idx - state.avail_seen) == sent);
	for (; state.avail_seen != avail_idx; state.avail_seen++) {
		uint16_t head = model_virtio_avail_entry(state.nic, MODEL_VIRTIO_TX, state.avail_seen);
		FUZZ_CHECK(head < state.ring_size && head % state.stride == 0 && !state.in_flight[head]);
		state.in_flight[head] = true;
	}
}

static void send(struct fuzz_input* in) {
	static struct pkt_buf* bufs[MAX_SEND];
	uint32_t n = fuzz_u8(in) % (MAX_SEND + 1);
	uint32_t predicted_back;
	uint32_t consumed = predict_cleaning(&predicted_back);
	FUZZ_CHECK(pkt_buf_alloc_batch(state.pool, bufs, n) == n); // the pool is larger than a ring and a batch
	for (uint32_t i = 0; i < n; i++) {
		bufs[i]->size = frame_len(state.next_seq + i);
		make_frame(bufs[i]->data, state.next_seq + i, bufs[i]->size);
	}
	uint32_t free_before = state.pool->free_stack_top;
	uint32_t sent = ixy_tx_batch(state.dev, 0, bufs, n);
	uint32_t given_back = state.pool->free_stack_top - free_before;
	TRACE("tx_batch(%u) = %u; cleaned %u entries, %u buffers back (device index %u, driver's %u)\n", n, sent,
	      consumed, given_back, model_virtio_used_idx(state.nic, MODEL_VIRTIO_TX), state.driver_used);
	FUZZ_CHECK(sent <= n);
	FUZZ_CHECK(given_back == predicted_back);
	// A correct device returns each chain it took once: every entry gives a buffer back.
	FUZZ_CHECK(given_back == consumed || model_virtio_misbehaved(state.nic));
	state.driver_used = (uint16_t)(state.driver_used + consumed);
	state.driver_holds -= given_back;
	uint32_t free_chains = state.num_chains - state.driver_holds;
	FUZZ_CHECK(sent == (n < free_chains ? n : free_chains));
	state.driver_holds += sent;
	record_offered(sent);
	// An empty batch only cleans (what the device used since, e.g. on the notification); reading the statistics
	// touches no queue (its queues may be other threads'), and counts the buffers both calls gave back.
	uint32_t stats_back;
	uint32_t stats_consumed = predict_cleaning(&stats_back);
	free_before = state.pool->free_stack_top;
	FUZZ_CHECK(ixy_tx_batch(state.dev, 0, NULL, 0) == 0);
	FUZZ_CHECK(state.pool->free_stack_top - free_before == stats_back);
	free_before = state.pool->free_stack_top;
	struct device_stats stats;
	memset(&stats, 0, sizeof(stats));
	ixy_read_stats(state.dev, &stats);
	FUZZ_CHECK(state.pool->free_stack_top == free_before);
	FUZZ_CHECK(stats.tx_pkts == given_back + stats_back);
	FUZZ_CHECK(stats.rx_dropped == 0 && stats.rx_pkts == 0);
	state.driver_used = (uint16_t)(state.driver_used + stats_consumed);
	state.driver_holds -= stats_back;
	for (uint32_t i = 0; i < sent; i++) {
		if (state.num_accepted == MAX_ACCEPTED) {
			state.wire_unchecked = true; // a very long input: no room to remember more
			break;
		}
		state.accepted[state.num_accepted++] = state.next_seq + i;
	}
	state.next_seq += n;
	for (uint32_t i = sent; i < n; i++) {
		pkt_buf_free(bufs[i]);
	}
	if (model_virtio_tx_count(state.nic) > 4096) {
		check_wire();
		model_virtio_clear_tx(state.nic);
		state.wire_checked = 0;
	}
}

static void process(struct fuzz_input* in) {
	uint32_t max = fuzz_u8(in);
	uint32_t sent = model_virtio_tx_process_up_to(state.nic, max);
	TRACE("device sends %u of at most %u chains\n", sent, max);
	check_wire();
}

static void take(void) {
	uint16_t head;
	if (state.num_taken < state.ring_size && model_virtio_take(state.nic, MODEL_VIRTIO_TX, &head)) {
		state.taken[state.num_taken++] = head;
		TRACE("take chain %u\n", head);
	}
}

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

static void put_used(struct fuzz_input* in) {
	uint32_t id = fuzz_id(in);
	uint32_t len = fuzz_u8(in) % 2 ? fuzz_u32(in) : 0;
	TRACE("put used {id %u, len %u} at %u\n", id, len, model_virtio_used_idx(state.nic, MODEL_VIRTIO_TX));
	model_virtio_put_used(state.nic, MODEL_VIRTIO_TX, id, len);
}

static void write_slot(struct fuzz_input* in) {
	uint16_t ahead = fuzz_u16(in) % state.ring_size;
	uint32_t id = fuzz_id(in);
	uint16_t slot = (uint16_t)(model_virtio_used_idx(state.nic, MODEL_VIRTIO_TX) + ahead);
	TRACE("write used slot %u: id %u\n", slot, id);
	model_virtio_write_used_entry(state.nic, MODEL_VIRTIO_TX, slot, id, 0);
}

static void jump(struct fuzz_input* in) {
	uint16_t by = fuzz_u16(in);
	uint16_t now = model_virtio_used_idx(state.nic, MODEL_VIRTIO_TX);
	state.used_before_jump = now;
	TRACE("used index jumps from %u by %u\n", now, by);
	model_virtio_set_used_idx(state.nic, MODEL_VIRTIO_TX, (uint16_t)(now + by));
}

static void restore(void) {
	TRACE("used index back to %u\n", state.used_before_jump);
	model_virtio_set_used_idx(state.nic, MODEL_VIRTIO_TX, state.used_before_jump);
}

static void check_pool_complete(void) {
	static bool seen[POOL_SIZE];
	struct mempool* pool = state.pool;
	FUZZ_CHECK(pool->free_stack_top == pool->num_entries);
	memset(seen, 0, sizeof(seen));
	for (uint32_t i = 0; i < pool->free_stack_top; i++) {
		uint32_t idx = pool->free_stack[i]->mempool_idx;
		FUZZ_CHECK(idx < pool->num_entries && !seen[idx]);
		seen[idx] = true;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
	struct fuzz_input in = fuzz_input(data, size);
	memset(&state, 0, sizeof(state));
	const char* trace_env = getenv("IXY_FUZZ_TRACE");
	trace = trace_env && strcmp(trace_env, "1") == 0;
	size_t dma_before = seam_dma_live_allocations();
	uint8_t setup = fuzz_u8(&in);
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
	model_virtio_tx_on_notify(state.nic, false);
	struct ixy_config config = {.pci_addr = NIC_ADDR, .rx_queues = 1, .tx_queues = 1, .ring_size = state.ring_size};
	state.dev = ixy_init_config(&config);
	FUZZ_CHECK(state.dev != NULL);
	FUZZ_CHECK(model_virtio_queue_size(state.nic, MODEL_VIRTIO_TX) == state.ring_size);
	state.pool = memory_allocate_mempool(POOL_SIZE, 0);
	FUZZ_CHECK(state.pool != NULL);
	TRACE("opened %s with %u TX descriptors, %u per chain\n", legacy ? "legacy" : "modern", state.ring_size,
	      state.stride);
	while (fuzz_remaining(&in) > 0) {
		switch (fuzz_u8(&in) % NUM_OPS) {
			case OP_SEND:
				send(&in);
				break;
			case OP_PROCESS:
				process(&in);
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
		}
		check_accounting();
	}
	check_wire();
	// The device sends what is left, the driver cleans: while the device behaves, every entry gives a buffer back.
	model_virtio_tx_process(state.nic);
	check_wire();
	static struct fuzz_input nothing;
	send(&nothing);
	ixy_stop(state.dev);
	check_pool_complete();
	ixy_close(state.dev);
	memory_free_mempool(state.pool);
	FUZZ_CHECK(model_virtio_status(state.nic) == 0);
	FUZZ_CHECK(seam_dma_live_allocations() == dma_before);
	model_pci_remove_all();
	if (model_violation_count() > 0) {
		model_print_violations(stderr);
		FUZZ_CHECK(model_violation_count() == 0);
	}
	return 0;
}
