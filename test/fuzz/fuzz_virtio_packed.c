// Fuzz target: the packed virtqueues of the VirtIO driver (src/driver/virtio_packed.c) fed arbitrary used
// descriptors by the VirtIO device model (test/model/virtio_model.h), on RX and TX.
//
// Every input opens a fresh modelled modern VirtIO NIC that offers VIRTIO_F_RING_PACKED (the first byte chooses the
// ring size, 8 to 256) and runs a little program read from the input. Operations:
//   DELIVER     the device receives frames from the wire as a correct device does
//   TAKE        the device takes the next available RX or TX buffer and keeps it
//   PUT_USED    the device puts a used descriptor at its used position: the id of a buffer it took, or any 16 bit
//               value; a length that is small, around header + buffer, or any 32 bit value
//   PUT_RAW     the device writes a used descriptor with any flags (wrap bits included) at its used position, or
//               one with AVAIL equal to USED anywhere in the ring, and moves no position
//   RX_BATCH    ixy_rx_batch() with 0 .. 64 buffers asked for
//   TX_BATCH    ixy_tx_batch() with 0 .. 64 packets from the app's own pool (and the TX queue's clean-up)
//   TX_PROCESS  the device sends what is available on TX, as a correct device does
//   FREE        the app frees some of the packets it received
//
// The driver's behaviour is checked against what must hold whatever the device wrote:
//   - every received packet is a buffer of the driver's RX pool that the app does not hold already, with a size of
//     1 .. the buffer's data room;
//   - rx_pkts grows by the packets received;
//   - TX never queues more than it was given; a buffer it took is not handed back to the app;
// and at the end: after ixy_stop() both pools' free stacks hold every buffer exactly once (none lost, none freed
// twice); after ixy_close() the device is reset, no DMA memory is left, and the model recorded no violation.
//
// IXY_FUZZ_TRACE=1 in the environment prints what an input does.
#include <stdbool.h>
#include <string.h>

#include <ixy/ixy.h>

#include "fuzz_input.h"
#include "seam.h"
#include "virtio_model.h"

#define NIC_ADDR "0000:09:00.0"
#define MAX_POOL 4096
#define TX_POOL 512
#define MAX_BATCH 64

enum packed_op {
	OP_DELIVER,
	OP_TAKE,
	OP_PUT_USED,
	OP_PUT_RAW,
	OP_RX_BATCH,
	OP_TX_BATCH,
	OP_TX_PROCESS,
	OP_FREE,
	NUM_OPS
};

static struct {
	struct model_virtio* nic;
	struct ixy_device* dev;
	uint16_t ring_size;
	struct mempool* rx_pool; // the driver's, found through the first packet
	struct mempool* tx_pool; // the app's
	struct pkt_buf* held[MAX_POOL];
	uint32_t num_held;
	uint16_t taken[2][256]; // ids the device took and holds, RX and TX
	uint32_t num_taken[2];
	uint32_t next_seq;
	uint64_t rx_pkts;
} state;
static bool trace;

#define TRACE(...)                                                                                                     \
	do {                                                                                                           \
		if (trace) {                                                                                           \
			fprintf(stderr, "fuzz_virtio_packed: " __VA_ARGS__);                                           \
		}                                                                                                      \
	} while (0)

static uint8_t frame[1514];

static void deliver(struct fuzz_input* in) {
	uint32_t count = 1 + fuzz_u8(in) % 16;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t len = 60 + (state.next_seq * 37) % 1455;
		memset(frame, (int)state.next_seq, len);
		state.next_seq++;
		enum model_virtio_rx_result result = model_virtio_rx(state.nic, frame, len);
		TRACE("deliver %u bytes: %d\n", len, result);
	}
}

static void take(struct fuzz_input* in) {
	uint32_t tx = fuzz_u8(in) & 1;
	uint16_t id;
	if (state.num_taken[tx] < 256 && model_virtio_take(state.nic, tx ? MODEL_VIRTIO_TX : MODEL_VIRTIO_RX, &id)) {
		state.taken[tx][state.num_taken[tx]++] = id;
		TRACE("take %s id %u\n", tx ? "TX" : "RX", id);
	}
}

static uint32_t any_length(struct fuzz_input* in) {
	switch (fuzz_u8(in) % 3) {
		case 0:
			return fuzz_u8(in);
		case 1:
			return 2048 + 12 - 8 + fuzz_u8(in) % 16;
		default:
			return fuzz_u32(in);
	}
}

static void put_used(struct fuzz_input* in) {
	uint32_t tx = fuzz_u8(in) & 1;
	uint8_t choice = fuzz_u8(in);
	uint32_t id;
	if (choice % 2 == 0 && state.num_taken[tx] > 0) {
		uint32_t i = fuzz_u8(in) % state.num_taken[tx];
		id = state.taken[tx][i];
		state.taken[tx][i] = state.taken[tx][--state.num_taken[tx]];
	} else {
		id = fuzz_u16(in);
	}
	uint32_t len = any_length(in);
	TRACE("put used %s id %u len %u\n", tx ? "TX" : "RX", id, len);
	model_virtio_put_used(state.nic, tx ? MODEL_VIRTIO_TX : MODEL_VIRTIO_RX, id, len);
}

// Raw descriptors must never look available to the model's own device side (it would take them for the driver's):
// with any flags only at the device's used position while it holds a buffer taken there, elsewhere with AVAIL and
// USED equal (a used descriptor of this round or the other).
static void put_raw(struct fuzz_input* in) {
	uint32_t tx = fuzz_u8(in) & 1;
	uint16_t slot = fuzz_u16(in), id = fuzz_u16(in), flags = fuzz_u16(in);
	bool wrap;
	if (slot % 2 == 0 && state.num_taken[tx] > 0) {
		model_virtio_used_position(state.nic, tx ? MODEL_VIRTIO_TX : MODEL_VIRTIO_RX, &slot, &wrap);
	} else {
		flags = (uint16_t)((flags & ~MODEL_VIRTIO_DESC_F_AVAIL) | ((flags & MODEL_VIRTIO_DESC_F_USED) >> 8));
	}
	uint32_t len = any_length(in);
	TRACE("put raw %s slot %u id %u len %u flags 0x%x\n", tx ? "TX" : "RX", slot % state.ring_size, id, len, flags);
	model_virtio_put_used_raw(state.nic, tx ? MODEL_VIRTIO_TX : MODEL_VIRTIO_RX, (uint16_t)(slot % state.ring_size),
				  id, len, flags);
}

static bool app_holds(const struct pkt_buf* buf) {
	for (uint32_t i = 0; i < state.num_held; i++) {
		if (state.held[i] == buf) {
			return true;
		}
	}
	return false;
}

static uint32_t rx_batch(uint32_t want) {
	struct pkt_buf* bufs[MAX_BATCH];
	uint32_t n = ixy_rx_batch(state.dev, 0, bufs, want);
	TRACE("rx_batch %u: %u\n", want, n);
	FUZZ_CHECK(n <= want);
	for (uint32_t i = 0; i < n; i++) {
		if (!state.rx_pool) {
			state.rx_pool = bufs[i]->mempool;
			FUZZ_CHECK(state.rx_pool->num_entries <= MAX_POOL);
		}
		FUZZ_CHECK(bufs[i]->mempool == state.rx_pool);
		FUZZ_CHECK(bufs[i]->size >= 1 && bufs[i]->size <= state.rx_pool->buf_size - 64);
		FUZZ_CHECK(!app_holds(bufs[i]));
		FUZZ_CHECK(state.num_held < MAX_POOL);
		state.held[state.num_held++] = bufs[i];
	}
	state.rx_pkts += n;
	struct device_stats stats;
	memset(&stats, 0, sizeof(stats));
	ixy_read_stats(state.dev, &stats);
	return n;
}

static void tx_batch(uint32_t n) {
	struct pkt_buf* bufs[MAX_BATCH];
	n = pkt_buf_alloc_batch(state.tx_pool, bufs, n);
	for (uint32_t i = 0; i < n; i++) {
		bufs[i]->size = 60 + i;
		memset(bufs[i]->data, (int)i, bufs[i]->size);
	}
	uint32_t queued = ixy_tx_batch(state.dev, 0, bufs, n);
	TRACE("tx_batch %u: %u\n", n, queued);
	FUZZ_CHECK(queued <= n);
	pkt_buf_free_batch(&bufs[queued], n - queued);
}

static void free_some(struct fuzz_input* in) {
	uint32_t n = state.num_held == 0 ? 0 : fuzz_u8(in) % (state.num_held + 1);
	for (uint32_t i = 0; i < n; i++) {
		pkt_buf_free(state.held[--state.num_held]);
	}
}

// Every buffer of the pool on its free stack exactly once.
static void check_pool_complete(const struct mempool* pool) {
	static bool seen[MAX_POOL];
	FUZZ_CHECK(pool->free_stack_top == pool->num_entries);
	memset(seen, 0, sizeof(seen));
	for (uint32_t i = 0; i < pool->free_stack_top; i++) {
		uint32_t id = pool->free_stack[i]->mempool_idx;
		FUZZ_CHECK(id < pool->num_entries && !seen[id]);
		seen[id] = true;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
	struct fuzz_input in = fuzz_input(data, size);
	memset(&state, 0, sizeof(state));
	const char* trace_env = getenv("IXY_FUZZ_TRACE");
	trace = trace_env && strcmp(trace_env, "1") == 0;
	size_t dma_before = seam_dma_live_allocations();
	state.ring_size = (uint16_t)(8u << (fuzz_u8(&in) % 6)); // 8 .. 256
	state.nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_MODERN_ONLY);
	model_virtio_offer(state.nic, MODEL_VIRTIO_DEFAULT_FEATURES | MODEL_VIRTIO_F_RING_PACKED);
	model_virtio_set_queue_max(state.nic, state.ring_size);
	model_virtio_tx_on_notify(state.nic, false);
	struct ixy_config config = {.pci_addr = NIC_ADDR, .rx_queues = 1, .tx_queues = 1};
	state.dev = ixy_init_config(&config);
	FUZZ_CHECK(state.dev != NULL);
	FUZZ_CHECK(model_virtio_packed(state.nic, MODEL_VIRTIO_RX));
	state.tx_pool = memory_allocate_mempool(TX_POOL, 0);
	FUZZ_CHECK(state.tx_pool != NULL);
	TRACE("opened with %u descriptors\n", state.ring_size);
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
				rx_batch(fuzz_u8(&in) % (MAX_BATCH + 1));
				break;
			case OP_TX_BATCH:
				tx_batch(fuzz_u8(&in) % (MAX_BATCH + 1));
				break;
			case OP_TX_PROCESS:
				TRACE("tx_process: %u\n", model_virtio_tx_process(state.nic));
				break;
			case OP_FREE:
				free_some(&in);
				break;
		}
	}
	while (state.num_held > 0) {
		pkt_buf_free(state.held[--state.num_held]);
	}
	ixy_stop(state.dev);
	if (state.rx_pool) {
		check_pool_complete(state.rx_pool);
	}
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
