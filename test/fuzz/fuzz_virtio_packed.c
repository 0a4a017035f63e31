// Fuzz target: the receive and transmit paths of the VirtIO driver on packed virtqueues (VirtIO 1.2, 2.8) fed
// arbitrary used descriptors by the VirtIO device model (test/model/virtio_model.h): their buffer ids, lengths,
// flags and wrap bits, where the device writes them, come from the fuzzer's bytes.
//
// Every input opens a fresh modelled VirtIO NIC (modern, VIRTIO_F_RING_PACKED offered, with or without
// VIRTIO_RING_F_EVENT_IDX: the first byte chooses, and the ring size), an app pool for TX, and runs a little program
// read from the input. The device does not send on its own (model_virtio_tx_on_notify false). Operations:
//   DELIVER    the device receives 1 .. 64 frames as a correct device does (header + frame, used descriptor)
//   TAKE       the device takes the next available buffer of RX or TX and keeps it
//   PUT_USED   the device puts a used descriptor at its used position on RX or TX (AVAIL = USED = its wrap counter):
//              the id of a buffer it took, an id around the ring, or any 16 bit id; a length that is small, around
//              header + buffer, or any 32 bit value
//   PUT_RAW    the device writes a descriptor anywhere from its used position on: an id and length as above, flags
//              that look used in this lap, in the other one, or any 16 bits
//   RX_BATCH   ixy_rx_batch() with 0 .. 2 * ring size buffers asked for
//   FREE       the app frees some of the RX packets it holds
//   SEND       the app fills 0 .. 80 packets and calls ixy_tx_batch(); it frees what the driver did not take
//   PROCESS    the device sends up to n available TX buffers correctly (recorded frame, used descriptor)
//
// Invariants, checked after every operation:
//   - the device's RX of a frame delivers it or finds no buffer; once a raw descriptor was written on RX, it may
//     also find one too short (the raw one, which may look available);
//   - ixy_rx_batch() returns at most the buffers asked for, each a buffer of the driver's RX pool that the app does
//     not hold already, its size within the buffer's data room; rx_pkts counts exactly what it returned;
//   - while the device behaves (model_virtio_misbehaved() false) and only model_virtio_rx returned RX buffers, the
//     packets are the frames delivered, in order, byte for byte, and every frame delivered comes out;
//   - the RX pool's free buffers + those the app holds + those in the ring (at most ring size) == its size;
//   - ixy_tx_batch() takes at most the packets offered; the app's pool has free buffers + those in the driver's TX
//     ring (at most ring size) == its size; no buffer is freed twice (the pool would abort);
//   - while the device behaves and only model_virtio_tx_process returned TX buffers, the frames on the model's wire
//     are the packets the driver took, in order;
// and at the end: after ixy_stop() both pools hold every buffer exactly once, after ixy_close() the device is reset
// and no DMA memory is left, and the model recorded no violation (it stops checking what follows from a misbehaving
// device on its own).
//
// IXY_FUZZ_TRACE=1 in the environment prints what an input does.
#include <stdbool.h>
#include <string.h>

#include <ixy/ixy.h>

#include "fuzz_input.h"
#include "seam.h"
#include "virtio_model.h"

#define NIC_ADDR "0000:0a:00.0"
#define MAX_RING_SIZE 512
#define MAX_RX_POOL 4096
#define TX_POOL 1024
#define MAX_DELIVER 64
#define MAX_SEND 80
#define MIN_FRAME 60u
#define MAX_FRAME 1514u
#define MAX_FRAMES 65536 // frames remembered for the checks in order; a longer input stops checking them

enum packed_op { OP_DELIVER, OP_TAKE, OP_PUT_USED, OP_PUT_RAW, OP_RX_BATCH, OP_FREE, OP_SEND, OP_PROCESS, NUM_OPS };

struct fuzz_state {
	struct model_virtio* nic;
	struct ixy_device* dev;
	uint16_t ring_size;
	uint32_t hdr_len, data_room;
	struct mempool* rx_pool;
	struct mempool* tx_pool;
	struct pkt_buf* held[MAX_RX_POOL];
	uint32_t num_held;
	bool is_held[MAX_RX_POOL];
	uint16_t taken[2][MAX_RING_SIZE]; // buffer ids the device took and keeps, RX and TX
	uint32_t num_taken[2];
	// RX frames delivered and TX frames accepted, by sequence number, and how many of each were checked
	uint32_t delivered[MAX_FRAMES], num_delivered, rx_checked;
	uint32_t accepted[MAX_FRAMES], num_accepted, wire_checked;
	uint32_t next_seq;
	bool unchecked[2]; // the device put used descriptors of its own on RX, TX: the frames are not checked any more
	bool raw_on_rx;    // put_raw wrote a descriptor on RX
};

static struct fuzz_state state;
static bool trace;

#define TRACE(...)                                                                                                     \
	do {                                                                                                           \
		if (trace) {                                                                                           \
			fprintf(stderr, "fuzz_virtio_packed: " __VA_ARGS__);                                           \
		}                                                                                                      \
	} while (0)

static uint8_t frame[MAX_FRAME];

static uint32_t frame_len(uint32_t seq) {
	return MIN_FRAME + (seq * 37u) % (MAX_FRAME - MIN_FRAME + 1);
}

// A pattern in which neighbouring bytes differ, with the sequence number in the first 4 bytes.
static void make_frame(uint8_t* dst, uint32_t seq, uint32_t len) {
	for (uint32_t i = 0; i < len; i++) {
		dst[i] = (uint8_t)(i * 7 + (i >> 8) + 1 + seq);
	}
	memcpy(dst, &seq, sizeof(seq));
}

// The device behaves and only its engines (model_virtio_rx, model_virtio_tx_process) returned buffers on side.
static bool behaves(unsigned side) {
	return !model_virtio_misbehaved(state.nic) && !state.unchecked[side];
}

static void check_accounting(void) {
	uint32_t rx_out = state.rx_pool->free_stack_top + state.num_held;
	FUZZ_CHECK(rx_out <= state.rx_pool->num_entries && rx_out + state.ring_size >= state.rx_pool->num_entries);
	uint32_t tx_free = state.tx_pool->free_stack_top;
	FUZZ_CHECK(tx_free <= TX_POOL && tx_free + state.ring_size >= TX_POOL);
}

static void deliver(struct fuzz_input* in) {
	uint32_t count = 1 + fuzz_u8(in) % MAX_DELIVER;
	uint32_t done = 0;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t seq = state.next_seq;
		make_frame(frame, seq, frame_len(seq));
		enum model_virtio_rx_result result = model_virtio_rx(state.nic, frame, frame_len(seq));
		// A buffer too short for the frame is the driver's fault only while the descriptors the device finds
		// are the driver's: a raw descriptor the test wrote on RX (put_raw: any flags, any length) may look
		// available to the device, and the model then answers TOO_LONG for a buffer no driver offered.
		FUZZ_CHECK(result == MODEL_VIRTIO_RX_DELIVERED || result == MODEL_VIRTIO_RX_NO_BUFFER ||
			   (result == MODEL_VIRTIO_RX_TOO_LONG && state.raw_on_rx));
		if (result == MODEL_VIRTIO_RX_DELIVERED) {
			state.next_seq++;
			done++;
			if (state.num_delivered < MAX_FRAMES) {
				state.delivered[state.num_delivered++] = seq;
			}
		}
	}
	TRACE("deliver %u frames: %u delivered\n", count, done);
}

static void take(struct fuzz_input* in) {
	unsigned side = fuzz_u8(in) % 2;
	uint16_t id;
	if (state.num_taken[side] < state.ring_size && model_virtio_take(state.nic, (uint16_t)side, &id)) {
		state.taken[side][state.num_taken[side]++] = id;
		state.unchecked[1] |= side == 1; // a TX frame the device keeps is missing on the wire
		TRACE("take %s buffer %u\n", side ? "TX" : "RX", id);
	}
}

// An id: a buffer the device took (and gives back), an id around the ring, or any 16 bit value.
static uint32_t fuzz_id(struct fuzz_input* in, unsigned side) {
	uint8_t selector = fuzz_u8(in) % 3;
	uint16_t value = fuzz_u16(in);
	if (selector == 0 && state.num_taken[side] > 0) {
		uint32_t pick = value % state.num_taken[side];
		uint16_t id = state.taken[side][pick];
		state.taken[side][pick] = state.taken[side][--state.num_taken[side]];
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
	unsigned side = fuzz_u8(in) % 2;
	uint32_t id = fuzz_id(in, side);
	uint32_t len = fuzz_length(in);
	TRACE("put used %s {id %u, len %u}\n", side ? "TX" : "RX", id, len);
	state.unchecked[side] = true;
	model_virtio_put_used(state.nic, (uint16_t)side, id, len);
}

static void put_raw(struct fuzz_input* in) {
	unsigned side = fuzz_u8(in) % 2;
	uint16_t slot;
	bool wrap;
	model_virtio_used_position(state.nic, (uint16_t)side, &slot, &wrap);
	uint16_t ahead = fuzz_u16(in) % state.ring_size;
	uint32_t id = fuzz_id(in, side);
	uint32_t len = fuzz_length(in);
	uint8_t selector = fuzz_u8(in) % 3;
	uint16_t any = fuzz_u16(in);
	uint16_t used_now = wrap ? MODEL_VIRTIO_DESC_F_AVAIL | MODEL_VIRTIO_DESC_F_USED : 0;
	uint16_t used_other = wrap ? 0 : MODEL_VIRTIO_DESC_F_AVAIL | MODEL_VIRTIO_DESC_F_USED;
	uint16_t flags = selector == 0 ? used_now : selector == 1 ? used_other : any;
	slot = (uint16_t)((slot + ahead) % state.ring_size);
	TRACE("raw %s descriptor at %u: {id %u, len %u, flags 0x%x}\n", side ? "TX" : "RX", slot, id, len, flags);
	state.unchecked[side] = true;
	state.raw_on_rx |= side == 0;
	model_virtio_put_used_raw(state.nic, (uint16_t)side, slot, (uint16_t)id, len, flags);
}

// The packets from a well-behaved device are the frames delivered, in order.
static void check_rx_packet(const struct pkt_buf* buf) {
	if (!behaves(0) || state.rx_checked >= state.num_delivered) {
		FUZZ_CHECK(!behaves(0) || state.num_delivered == MAX_FRAMES);
		return;
	}
	uint32_t seq = state.delivered[state.rx_checked++];
	FUZZ_CHECK(buf->size == frame_len(seq));
	make_frame(frame, seq, frame_len(seq));
	FUZZ_CHECK(memcmp(buf->data, frame, buf->size) == 0);
}

static uint32_t rx_batch(uint32_t want) {
	static struct pkt_buf* bufs[2 * MAX_RING_SIZE + 1];
	memset(bufs, 0, sizeof(bufs));
	uint32_t got = ixy_rx_batch(state.dev, 0, bufs, want);
	TRACE("rx_batch(%u) = %u\n", want, got);
	FUZZ_CHECK(got <= want);
	for (uint32_t i = want; i < sizeof(bufs) / sizeof(bufs[0]); i++) {
		FUZZ_CHECK(bufs[i] == NULL);
	}
	for (uint32_t i = 0; i < got; i++) {
		struct pkt_buf* buf = bufs[i];
		FUZZ_CHECK(buf != NULL && buf->mempool == state.rx_pool &&
			   buf->mempool_idx < state.rx_pool->num_entries);
		FUZZ_CHECK(!state.is_held[buf->mempool_idx]);
		FUZZ_CHECK(buf->size <= state.data_room);
		check_rx_packet(buf);
		state.is_held[buf->mempool_idx] = true;
		state.held[state.num_held++] = buf;
	}
	struct device_stats stats; // what the driver counted since the last read
	memset(&stats, 0, sizeof(stats));
	ixy_read_stats(state.dev, &stats);
	FUZZ_CHECK(stats.rx_pkts == got);
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
	for (uint32_t i = 0; i < count && state.num_held > 0; i++) {
		free_held((i * 2) % state.num_held);
	}
}

// The frames on the wire from a well-behaved device are the packets the driver took, in order.
static void check_wire(void) {
	uint32_t count = model_virtio_tx_count(state.nic);
	for (; behaves(1) && state.wire_checked < count && state.wire_checked < state.num_accepted;
	     state.wire_checked++) {
		uint32_t len;
		const uint8_t* sent = model_virtio_tx_frame(state.nic, state.wire_checked, &len);
		uint32_t seq = state.accepted[state.wire_checked];
		make_frame(frame, seq, frame_len(seq));
		if (len != frame_len(seq) || memcmp(sent, frame, len) != 0) {
			uint32_t got_seq = 0;
			memcpy(&got_seq, sent, len >= 4 ? 4 : 0);
			TRACE("wire frame %u: %u bytes, sequence number %u; expected %u bytes, %u\n",
			      state.wire_checked, len, got_seq, frame_len(seq), seq);
		}
		FUZZ_CHECK(len == frame_len(seq) && memcmp(sent, frame, len) == 0);
	}
	FUZZ_CHECK(!behaves(1) || count <= state.num_accepted || state.num_accepted == MAX_FRAMES);
}

static void send(struct fuzz_input* in) {
	static struct pkt_buf* bufs[MAX_SEND];
	uint32_t n = fuzz_u8(in) % (MAX_SEND + 1);
	FUZZ_CHECK(pkt_buf_alloc_batch(state.tx_pool, bufs, n) == n); // the pool is larger than a ring and a batch
	for (uint32_t i = 0; i < n; i++) {
		bufs[i]->size = frame_len(state.next_seq + i);
		make_frame(bufs[i]->data, state.next_seq + i, bufs[i]->size);
	}
	uint32_t sent = ixy_tx_batch(state.dev, 0, bufs, n);
	TRACE("tx_batch(%u) = %u\n", n, sent);
	FUZZ_CHECK(sent <= n);
	for (uint32_t i = 0; i < sent && state.num_accepted < MAX_FRAMES; i++) {
		state.accepted[state.num_accepted++] = state.next_seq + i;
	}
	state.next_seq += n;
	for (uint32_t i = sent; i < n; i++) {
		pkt_buf_free(bufs[i]);
	}
	if (model_virtio_tx_count(state.nic) > 4096) {
		check_wire();
		model_virtio_clear_tx(state.nic);
		state.num_accepted -= state.wire_checked;
		memmove(state.accepted, state.accepted + state.wire_checked, state.num_accepted * sizeof(uint32_t));
		state.wire_checked = 0;
	}
}

static void process(struct fuzz_input* in) {
	uint32_t max = fuzz_u8(in);
	uint32_t sent = model_virtio_tx_process_up_to(state.nic, max);
	TRACE("device sends %u of at most %u\n", sent, max);
}

static void check_pool_complete(struct mempool* pool) {
	static bool seen[MAX_RX_POOL];
	FUZZ_CHECK(pool->free_stack_top == pool->num_entries);
	memset(seen, 0, sizeof(seen));
	for (uint32_t i = 0; i < pool->free_stack_top; i++) {
		uint32_t idx = pool->free_stack[i]->mempool_idx;
		FUZZ_CHECK(idx < pool->num_entries && !seen[idx]);
		seen[idx] = true;
	}
}

// Opens the device and finds the driver's RX pool and its data room through a first packet.
static void open_device(uint8_t setup) {
	state.ring_size = (uint16_t)(64u << (setup % 4));
	bool event_idx = (setup >> 2) & 1;
	state.nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_MODERN_ONLY);
	model_virtio_offer(state.nic, MODEL_VIRTIO_DEFAULT_FEATURES | MODEL_VIRTIO_F_RING_PACKED |
					  (event_idx ? MODEL_VIRTIO_F_EVENT_IDX : 0));
	model_virtio_set_queue_max(state.nic, 1024);
	model_virtio_tx_on_notify(state.nic, false);
	struct ixy_config config = {.pci_addr = NIC_ADDR, .rx_queues = 1, .tx_queues = 1, .ring_size = state.ring_size};
	state.dev = ixy_init_config(&config);
	FUZZ_CHECK(state.dev != NULL);
	FUZZ_CHECK(model_virtio_packed(state.nic, MODEL_VIRTIO_RX) && model_virtio_packed(state.nic, MODEL_VIRTIO_TX));
	FUZZ_CHECK(model_virtio_queue_size(state.nic, MODEL_VIRTIO_RX) == state.ring_size);
	state.hdr_len = model_virtio_net_hdr_len(state.nic);
	make_frame(frame, 0, MIN_FRAME);
	FUZZ_CHECK(model_virtio_rx(state.nic, frame, MIN_FRAME) == MODEL_VIRTIO_RX_DELIVERED);
	struct pkt_buf* buf;
	FUZZ_CHECK(ixy_rx_batch(state.dev, 0, &buf, 1) == 1);
	struct device_stats stats;
	memset(&stats, 0, sizeof(stats));
	ixy_read_stats(state.dev, &stats);
	state.rx_pool = buf->mempool;
	FUZZ_CHECK(state.rx_pool->num_entries <= MAX_RX_POOL);
	state.data_room = state.rx_pool->buf_size - (uint32_t)offsetof(struct pkt_buf, data);
	pkt_buf_free(buf);
	state.next_seq = 1;
	state.tx_pool = memory_allocate_mempool(TX_POOL, 0);
	FUZZ_CHECK(state.tx_pool != NULL);
	TRACE("opened with %u descriptors, EVENT_IDX %s\n", state.ring_size, event_idx ? "on" : "off");
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
	struct fuzz_input in = fuzz_input(data, size);
	memset(&state, 0, sizeof(state));
	const char* trace_env = getenv("IXY_FUZZ_TRACE");
	trace = trace_env && strcmp(trace_env, "1") == 0;
	size_t dma_before = seam_dma_live_allocations();
	open_device(fuzz_u8(&in));
	while (fuzz_remaining(&in) > 0) {
		switch (fuzz_u8(&in) % NUM_OPS) {
			case OP_DELIVER:
				deliver(&in);
				break;
			case OP_TAKE:
				take(&in);
				break;
			case OP_PUT_USED:
				put_used(&in);
				break;
			case OP_PUT_RAW:
				put_raw(&in);
				break;
			case OP_RX_BATCH:
				rx_batch(fuzz_u16(&in) % (2u * state.ring_size + 1));
				break;
			case OP_FREE:
				op_free(&in);
				break;
			case OP_SEND:
				send(&in);
				break;
			case OP_PROCESS:
				process(&in);
				break;
		}
		check_accounting();
		check_wire();
	}
	// The app frees everything and receives until nothing more comes; the device sends what is left.
	do {
		while (state.num_held > 0) {
			free_held(state.num_held - 1);
		}
	} while (rx_batch(64) > 0);
	FUZZ_CHECK(!behaves(0) || state.rx_checked == state.num_delivered);
	model_virtio_tx_process(state.nic);
	check_wire();
	static struct fuzz_input nothing;
	send(&nothing);
	ixy_stop(state.dev);
	check_pool_complete(state.rx_pool);
	check_pool_complete(state.tx_pool);
	ixy_close(state.dev);
	memory_free_mempool(state.tx_pool);
	FUZZ_CHECK(model_virtio_status(state.nic) == 0);
	FUZZ_CHECK(seam_dma_live_allocations() == dma_before);
	model_pci_remove_all();
	if (model_violation_count() > 0) {
		model_print_violations(stderr);
		FUZZ_CHECK(model_violation_count() == 0);
	}
	return 0;
}
