// The packet generator step of ixy-pktgen (apps/common/generator.h) against a fake TX queue: template in every
// buffer, gapless and unique sequence numbers even when the TX queue refuses packets, wrap at 2^32, no leaks.
#include <string.h>

#include <ixy/ixy.h>

#include "../check.h"
#include "common/generator.h"
#include "common/packet.h"
#include "seam.h"

#define POOL_SIZE 256

// A fake TX queue: takes up to tx_room packets per call, records their sequence numbers and returns the buffers
// to the pool at once (as if sent instantly).
struct fake_dev {
	struct ixy_device ixy; // first member: a struct ixy_device* is a struct fake_dev*
	uint32_t tx_room;
	uint32_t tx_calls;
	uint32_t seqs[4096];
	uint32_t num_seqs;
	uint8_t packets[64][PACKET_SIZE]; // the first 64 packets of the last calls (since num_seqs was 0)
	int bad_packets;                  // packets that were not the template with a sequence number
	const uint8_t* expected;          // the template
};

static uint32_t fake_tx(struct ixy_device* dev, uint16_t queue, struct pkt_buf* bufs[], uint32_t num_bufs) {
	struct fake_dev* fake = (struct fake_dev*)dev;
	CHECK_EQ(queue, 0);
	fake->tx_calls++;
	uint32_t n = num_bufs < fake->tx_room ? num_bufs : fake->tx_room;
	for (uint32_t i = 0; i < n; i++) {
		fake->bad_packets += bufs[i]->size != PACKET_SIZE;
		fake->bad_packets += fake->expected && memcmp(bufs[i]->data, fake->expected, PACKET_SEQ_OFFSET) != 0;
		if (fake->num_seqs < 64) {
			memcpy(fake->packets[fake->num_seqs], bufs[i]->data, PACKET_SIZE);
		}
		if (fake->num_seqs < 4096) {
			fake->seqs[fake->num_seqs++] = packet_read_seq(bufs[i]->data);
		}
		pkt_buf_free(bufs[i]);
	}
	return n;
}

static const uint8_t mac[6] = {0x52, 0x54, 0x00, 0xab, 0xcd, 0xef};

static void test_template_in_every_buffer(struct mempool* pool) {
	struct generator gen;
	CHECK_EQ(generator_init(&gen, pool, mac), 0);
	CHECK_EQ(pool->free_stack_top, POOL_SIZE);
	uint8_t expected[PACKET_SIZE];
	packet_build_template(expected, mac);
	struct pkt_buf* bufs[POOL_SIZE];
	CHECK_EQ(pkt_buf_alloc_batch(pool, bufs, POOL_SIZE), POOL_SIZE);
	int good = 0;
	for (int i = 0; i < POOL_SIZE; i++) {
		good += bufs[i]->size == PACKET_SIZE && memcmp(bufs[i]->data, expected, PACKET_SIZE) == 0;
	}
	CHECK_EQ(good, POOL_SIZE);
	// A pool with buffers in use is refused.
	fprintf(stderr, "(the following error line is expected)\n");
	CHECK_EQ(generator_init(&gen, pool, mac), -1);
	for (int i = 0; i < POOL_SIZE; i++) {
		pkt_buf_free(bufs[i]);
	}
}

static void test_gapless_sequence(struct mempool* pool) {
	uint8_t expected[PACKET_SIZE];
	packet_build_template(expected, mac);
	struct fake_dev fake = {.ixy = {.num_tx_queues = 1, .tx_batch = fake_tx}, .expected = expected};
	struct generator gen;
	CHECK_EQ(generator_init(&gen, pool, mac), 0);
	// TX room per call: full batches, partial ones, none.
	const uint32_t room[] = {64, 64, 10, 0, 63, 1, 0, 0, 100, 7};
	uint32_t expected_sent = 0, expected_refused = 0;
	for (size_t i = 0; i < sizeof(room) / sizeof(room[0]); i++) {
		fake.tx_room = room[i];
		uint32_t taken = room[i] < GENERATOR_BATCH_SIZE ? room[i] : GENERATOR_BATCH_SIZE;
		CHECK_EQ(generator_send(&gen, &fake.ixy, 0, 0, GENERATOR_BATCH_SIZE, NULL), taken);
		expected_sent += taken;
		expected_refused += GENERATOR_BATCH_SIZE - taken;
	}
	CHECK_EQ(gen.sent, expected_sent);
	CHECK_EQ(gen.not_taken, expected_refused);
	CHECK_EQ(gen.next_seq, expected_sent);
	CHECK_EQ(fake.num_seqs, expected_sent);
	CHECK_EQ(fake.bad_packets, 0);
	int in_order = 1;
	for (uint32_t i = 0; i < fake.num_seqs; i++) {
		in_order &= fake.seqs[i] == i; // 0, 1, 2, ...: no gap, no duplicate
	}
	CHECK(in_order);
	CHECK_EQ(pool->free_stack_top, POOL_SIZE);
}

static void test_wrap(struct mempool* pool) {
	uint8_t expected[PACKET_SIZE];
	packet_build_template(expected, mac);
	struct fake_dev fake = {.ixy = {.num_tx_queues = 1, .tx_batch = fake_tx}, .expected = expected, .tx_room = 4};
	struct generator gen;
	CHECK_EQ(generator_init(&gen, pool, mac), 0);
	gen.next_seq = 0xfffffffe;
	CHECK_EQ(generator_send(&gen, &fake.ixy, 0, 0, GENERATOR_BATCH_SIZE, NULL), 4);
	CHECK_EQ(fake.num_seqs, 4);
	CHECK_EQ(fake.seqs[0], 0xfffffffe);
	CHECK_EQ(fake.seqs[1], 0xffffffff);
	CHECK_EQ(fake.seqs[2], 0);
	CHECK_EQ(fake.seqs[3], 1);
	CHECK_EQ(gen.next_seq, 2);
}

// The flows' UDP source ports (packet_flow_port): 42 + (45 * flow mod 1031), pinned here by value, so that a change
// of the function shows; distinct for all 1024 flows ixy-pktgen allows, and not a block of consecutive ports.
static void test_flow_ports(void) {
	CHECK_EQ(packet_flow_port(0), 42);
	CHECK_EQ(packet_flow_port(1), 87);
	CHECK_EQ(packet_flow_port(2), 132);
	CHECK_EQ(packet_flow_port(23), 46); // 45 * 23 = 1035 = 1031 + 4
	CHECK_EQ(packet_flow_port(1023), 42 + 45 * 1023 % 1031);
	static uint8_t used[65536];
	uint32_t repeated = 0, out_of_range = 0;
	for (uint32_t f = 0; f < 1024; f++) {
		uint16_t port = packet_flow_port(f);
		repeated += used[port]++ != 0;
		out_of_range += port < 42 || port >= 42 + 1031;
	}
	CHECK_EQ(repeated, 0);
	CHECK_EQ(out_of_range, 0);
}

// --flows 3: packets take turns over the flows (packet k of all the TX queue took is flow k mod 3), each flow's own
// sequence numbers gapless from 0, in its UDP source port (packet_flow_port) and nowhere else, also when the TX
// queue refuses some (their numbers go to the next batch).
static void test_flows(struct mempool* pool) {
	uint8_t expected[PACKET_SIZE];
	packet_build_template(expected, mac);
	struct fake_dev fake = {.ixy = {.num_tx_queues = 1, .tx_batch = fake_tx}, .expected = NULL};
	struct generator gen;
	CHECK_EQ(generator_init(&gen, pool, mac), 0);
	gen.flows = 3;
	const uint32_t room[] = {64, 10, 0, 37};
	uint32_t next[3] = {0, 0, 0}, bad = 0, k = 0;
	for (size_t r = 0; r < sizeof(room) / sizeof(room[0]); r++) {
		fake.tx_room = room[r];
		fake.num_seqs = 0;
		generator_send(&gen, &fake.ixy, 0, 0, GENERATOR_BATCH_SIZE, NULL);
		for (uint32_t i = 0; i < fake.num_seqs; i++, k++) {
			uint32_t flow = k % 3;
			uint8_t want[PACKET_SIZE];
			memcpy(want, expected, PACKET_SIZE);
			packet_set_src_port(want, packet_flow_port(flow));
			packet_stamp_seq(want, next[flow]++);
			bad += memcmp(fake.packets[i], want, PACKET_SIZE) != 0;
		}
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(k, 64 + 10 + 37);
	CHECK_EQ(gen.sent, 64 + 10 + 37);
	CHECK_EQ(next[0], 37); // 111 packets: 37 per flow
	CHECK_EQ(next[1], 37);
	CHECK_EQ(next[2], 37);
	CHECK_EQ(pool->free_stack_top, POOL_SIZE);
}

// With every buffer in the TX ring the pool is empty; tx_batch must still be called (it is where the driver takes
// sent buffers back), or the generator would never get buffers again.
static void test_empty_pool_still_calls_tx(struct mempool* pool) {
	uint8_t expected[PACKET_SIZE];
	packet_build_template(expected, mac);
	struct fake_dev fake = {.ixy = {.num_tx_queues = 1, .tx_batch = fake_tx}, .expected = expected, .tx_room = 64};
	struct generator gen;
	CHECK_EQ(generator_init(&gen, pool, mac), 0);
	struct pkt_buf* bufs[POOL_SIZE];
	CHECK_EQ(pkt_buf_alloc_batch(pool, bufs, POOL_SIZE), POOL_SIZE);
	CHECK_EQ(generator_send(&gen, &fake.ixy, 0, 0, GENERATOR_BATCH_SIZE, NULL), 0);
	CHECK_EQ(fake.tx_calls, 1);
	CHECK_EQ(gen.next_seq, 0);
	for (int i = 0; i < POOL_SIZE; i++) {
		pkt_buf_free(bufs[i]);
	}
}

int main(void) {
	struct mempool* pool = memory_allocate_mempool(POOL_SIZE, 2048);
	CHECK(pool != NULL);
	if (!pool) {
		return check_summary();
	}
	test_template_in_every_buffer(pool);
	test_gapless_sequence(pool);
	test_wrap(pool);
	test_empty_pool_still_calls_tx(pool);
	test_flow_ports();
	test_flows(pool);
	memory_free_mempool(pool);
	CHECK_EQ(seam_dma_live_allocations(), 0);
	return check_summary();
}
