// The forwarding step of ixy-fwd (apps/fwd.c) between two fake devices: which byte changes, what is dropped,
// that every buffer goes back to its pool. (The test against the 82599 model lives in test/model.)
#include <string.h>

#include <ixy/ixy.h>

#include "../check.h"
#include "common/packet.h"
#include "fwd.h"
#include "seam.h"

// A fake device: "receives" packets from a pool, "sends" by keeping the buffers until the test frees them.
struct fake_dev {
	struct ixy_device ixy; // first member: a struct ixy_device* is a struct fake_dev*
	struct mempool* pool;
	uint32_t rx_pending;      // packets waiting to be received
	uint32_t rx_size;         // their size
	uint8_t rx_modified_byte; // what received packets have at FWD_MODIFIED_BYTE (the template has 0)
	uint32_t tx_room;         // descriptors free in the TX ring
	uint32_t tx_calls;
	struct pkt_buf* sent[256];
	uint32_t num_sent;
};

static uint32_t fake_rx(struct ixy_device* dev, uint16_t queue, struct pkt_buf* bufs[], uint32_t num_bufs) {
	struct fake_dev* fake = (struct fake_dev*)dev;
	CHECK_EQ(queue, 0);
	uint32_t n = num_bufs < fake->rx_pending ? num_bufs : fake->rx_pending;
	n = pkt_buf_alloc_batch(fake->pool, bufs, n);
	const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x01};
	for (uint32_t i = 0; i < n; i++) {
		packet_build_template(bufs[i]->data, mac);
		packet_stamp_seq(bufs[i]->data, i);
		bufs[i]->data[FWD_MODIFIED_BYTE] = fake->rx_modified_byte;
		bufs[i]->size = fake->rx_size;
	}
	fake->rx_pending -= n;
	return n;
}

static uint32_t fake_tx(struct ixy_device* dev, uint16_t queue, struct pkt_buf* bufs[], uint32_t num_bufs) {
	struct fake_dev* fake = (struct fake_dev*)dev;
	CHECK_EQ(queue, 0);
	fake->tx_calls++;
	uint32_t n = num_bufs < fake->tx_room ? num_bufs : fake->tx_room;
	for (uint32_t i = 0; i < n; i++) {
		fake->sent[fake->num_sent++] = bufs[i];
	}
	fake->tx_room -= n;
	return n;
}

static void fake_complete_tx(struct fake_dev* fake) {
	for (uint32_t i = 0; i < fake->num_sent; i++) {
		pkt_buf_free(fake->sent[i]);
	}
	fake->num_sent = 0;
}

static void fake_init(struct fake_dev* fake, struct mempool* pool) {
	memset(fake, 0, sizeof(*fake));
	fake->ixy.rx_batch = fake_rx;
	fake->ixy.tx_batch = fake_tx;
	fake->ixy.num_rx_queues = fake->ixy.num_tx_queues = 1; // queue 0 each (ixy.h refuses a queue a device lacks)
	fake->pool = pool;
	fake->rx_size = PACKET_SIZE;
}

static void test_modifies_one_byte(struct fake_dev* in, struct fake_dev* out) {
	struct fwd_counters counters = {0};
	in->rx_pending = 10;
	out->tx_room = 100;
	CHECK_EQ(forward(&in->ixy, 0, &out->ixy, 0, &counters), 10);
	CHECK_EQ(counters.forwarded, 10);
	CHECK_EQ(counters.dropped_tx_full, 0);
	CHECK_EQ(out->num_sent, 10);
	CHECK_EQ(FWD_MODIFIED_BYTE, 45);
	const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x01};
	for (uint32_t i = 0; i < out->num_sent; i++) {
		uint8_t expected[PACKET_SIZE];
		packet_build_template(expected, mac);
		packet_stamp_seq(expected, i); // in order
		expected[FWD_MODIFIED_BYTE]++;
		CHECK(memcmp(out->sent[i]->data, expected, PACKET_SIZE) == 0);
		CHECK_EQ(out->sent[i]->size, PACKET_SIZE);
		// What the forwarder must not break: IPv4 checksum, "ixy", sequence number.
		CHECK_EQ(ipv4_checksum(out->sent[i]->data + 14, 20), 0);
		CHECK(memcmp(out->sent[i]->data + 42, "ixy", 3) == 0);
		CHECK_EQ(packet_read_seq(out->sent[i]->data), i);
	}
	fake_complete_tx(out);
}

static void test_drops_what_tx_refuses(struct fake_dev* in, struct fake_dev* out) {
	struct fwd_counters counters = {0};
	uint32_t pool_size = in->pool->free_stack_top;
	in->rx_pending = 40;
	out->tx_room = 20;
	CHECK_EQ(forward(&in->ixy, 0, &out->ixy, 0, &counters), FWD_BATCH_SIZE); // one batch: 32 of 40
	CHECK_EQ(counters.forwarded, 20);
	CHECK_EQ(counters.dropped_tx_full, FWD_BATCH_SIZE - 20);
	CHECK_EQ(in->pool->free_stack_top, pool_size - 20); // the 12 refused ones were freed
	// The next call gets the other 8, the TX ring is full: all dropped, counters add up.
	CHECK_EQ(forward(&in->ixy, 0, &out->ixy, 0, &counters), 8);
	CHECK_EQ(counters.forwarded, 20);
	CHECK_EQ(counters.dropped_tx_full, 20);
	CHECK_EQ(in->pool->free_stack_top, pool_size - 20);
	fake_complete_tx(out);
	CHECK_EQ(in->pool->free_stack_top, pool_size);
}

static void test_nothing_received(struct fake_dev* in, struct fake_dev* out) {
	struct fwd_counters counters = {0};
	in->rx_pending = 0;
	out->tx_calls = 0;
	CHECK_EQ(forward(&in->ixy, 0, &out->ixy, 0, &counters), 0);
	CHECK_EQ(counters.forwarded + counters.dropped_tx_full, 0);
	// The TX side is still called, with no packets: that is when a driver frees what it has sent meanwhile.
	CHECK_EQ(out->tx_calls, 1);
}

static void test_short_packets_and_wrap(struct fake_dev* in, struct fake_dev* out) {
	struct fwd_counters counters = {0};
	out->tx_room = 100;
	// 45 bytes: there is no byte 45, nothing changes.
	in->rx_pending = 1;
	in->rx_size = FWD_MODIFIED_BYTE;
	forward(&in->ixy, 0, &out->ixy, 0, &counters);
	CHECK_EQ(out->sent[0]->data[FWD_MODIFIED_BYTE], 0);
	CHECK_EQ(out->sent[0]->size, FWD_MODIFIED_BYTE);
	fake_complete_tx(out);
	// 46 bytes: byte 45 is the last one and changes.
	in->rx_pending = 1;
	in->rx_size = FWD_MODIFIED_BYTE + 1;
	forward(&in->ixy, 0, &out->ixy, 0, &counters);
	CHECK_EQ(out->sent[0]->data[FWD_MODIFIED_BYTE], 1);
	fake_complete_tx(out);
	// 255 + 1 wraps to 0.
	in->rx_pending = 1;
	in->rx_size = PACKET_SIZE;
	in->rx_modified_byte = 255;
	forward(&in->ixy, 0, &out->ixy, 0, &counters);
	CHECK_EQ(out->sent[0]->data[FWD_MODIFIED_BYTE], 0);
	CHECK_EQ(packet_read_seq(out->sent[0]->data), 0);
	fake_complete_tx(out);
	in->rx_modified_byte = 0;
	CHECK_EQ(counters.forwarded, 3);
}

int main(void) {
	struct mempool* in_pool = memory_allocate_mempool(64, 2048);
	CHECK(in_pool != NULL);
	if (!in_pool) {
		return check_summary();
	}
	struct fake_dev in, out;
	fake_init(&in, in_pool);
	fake_init(&out, in_pool);
	test_modifies_one_byte(&in, &out);
	test_drops_what_tx_refuses(&in, &out);
	test_nothing_received(&in, &out);
	test_short_packets_and_wrap(&in, &out);
	CHECK_EQ(in_pool->free_stack_top, 64);
	memory_free_mempool(in_pool);
	CHECK_EQ(seam_dma_live_allocations(), 0);
	return check_summary();
}
