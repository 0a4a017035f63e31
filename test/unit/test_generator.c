// The packet generator step of ixy-pktgen (apps/common/generator.h) against a fake TX queue: template in every
// buffer, gapless and unique sequence numbers even when the TX queue refuses packets, wrap at 2^32, no leaks.
#include <stdlib.h>
#include <string.h>

#include <ixy/ixy.h>

#include "../check.h"
#include "../checksum.h"
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
// sequence numbers gapless from 0, in its UDP source port (packet_flow_port) and its number in the payload
// (flows.h) and nowhere else, also when the TX
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
			want[PACKET_PAYLOAD_OFFSET + FLOWS_NUMBER] = (uint8_t)flow; // the flow's number (flows.h)
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

// ---- issue 37: addresses, VLAN, IPv6, queues, end markers

// A fake TX queue that keeps whole frames (up to 256 bytes) and takes up to `room` per call.
struct frames_dev {
	struct ixy_device ixy;
	uint32_t room, n;
	uint8_t frame[512][256];
	uint32_t len[512];
};

static uint32_t frames_tx(struct ixy_device* dev, uint16_t queue, struct pkt_buf* bufs[], uint32_t num_bufs) {
	struct frames_dev* fake = (struct frames_dev*)dev;
	(void)queue;
	uint32_t n = num_bufs < fake->room ? num_bufs : fake->room;
	for (uint32_t i = 0; i < n; i++) {
		if (fake->n < 512 && bufs[i]->size <= 256) {
			memcpy(fake->frame[fake->n], bufs[i]->data, bufs[i]->size);
			fake->len[fake->n++] = bufs[i]->size;
		}
		pkt_buf_free(bufs[i]);
	}
	return n;
}

// A generator (on the heap: it is large) and a fake device of one TX queue that keeps the frames; false (checked, both
// freed) if there is no memory for them.
static bool frames_setup(struct generator** gen, struct frames_dev** fake) {
	*gen = malloc(sizeof(**gen));
	*fake = calloc(1, sizeof(**fake));
	CHECK(*gen && *fake);
	if (!*gen || !*fake) {
		free(*gen);
		free(*fake);
		return false;
	}
	(*fake)->ixy.tx_batch = frames_tx;
	(*fake)->ixy.num_tx_queues = 1;
	return true;
}

static uint32_t be16(const uint8_t* p) {
	return (uint32_t)p[0] << 8 | p[1];
}

// Flows with IPv4 addresses that differ (--src-ip and --dst-ip ranges, --vlan) and sizes that change from frame to
// frame: each frame has its flow's addresses, ports and number, lengths that follow its size and a correct header
// checksum (written per frame), and its flow's next sequence number; a full queue changes nothing of that.
static void test_ipv4_ranges_sizes(struct mempool* pool) {
	struct packet_spec spec;
	spec_default(&spec);
	CHECK(parse_ip_range("192.168.0.1-192.168.0.5", &spec.src_ip, &spec.src_family) == NULL);
	CHECK(parse_ip_range("172.16.0.1-172.16.0.2", &spec.dst_ip, &spec.dst_family) == NULL);
	CHECK(parse_port_range("4000-4003", &spec.src_port) == NULL);
	spec.src_port_given = true;
	CHECK(parse_vlan("42", &spec.vlan_tci) == NULL);
	spec.vlan = true;
	struct generator* gen;
	struct frames_dev* fake;
	if (!frames_setup(&gen, &fake)) {
		return;
	}
	CHECK_EQ(generator_init_spec(gen, pool, &spec, mac, 0, 1), 0);
	CHECK(gen->vary_ips);
	gen->flows = 10;
	generator_set_sizes(gen, &(struct frame_sizes){.mode = SIZE_UNIFORM, .min = 64, .max = 256, .state = 9});
	const uint32_t room[] = {64, 7, 0, 64, 64};
	for (size_t r = 0; r < sizeof(room) / sizeof(room[0]); r++) {
		fake->room = room[r];
		generator_send(gen, &fake->ixy, 0, 1000 + r, GENERATOR_BATCH_SIZE, NULL);
	}
	uint32_t next[10] = {0}, bad = 0;
	for (uint32_t k = 0; k < fake->n; k++) {
		const uint8_t* p = fake->frame[k];
		uint32_t size = fake->len[k], f = k % 10;
		bad += be16(p + 12) != 0x8100 || be16(p + 14) != 42 || be16(p + 16) != 0x0800;
		bad += be16(p + 20) != size - 18 || ones_sum(p + 18, 20, 0) != 0xffff;
		bad += p[33] != 1 + f % 5 || p[37] != 1 + f % 2 || p[30] != 192 || p[34] != 172;
		bad += be16(p + 38) != 4000 + f % 4 || be16(p + 40) != 1337 || be16(p + 42) != size - 38;
		bad += p[50] != f || p[49] != 0 || packet_read_seq_at(p, size) != next[f]++;
	}
	CHECK_EQ(fake->n, 64 + 7 + 64 + 64);
	CHECK_EQ(bad, 0);
	CHECK_EQ(pool->free_stack_top, pool->num_entries);
	free(gen);
	free(fake);
}

// IPv6 and VLAN, sizes changing (odd and even UDP lengths): the UDP checksum of every frame is right; then queue 1 of
// 3 (flows 1, 4, 7 of the spec: --queues 3 --flows 9) with its flows' numbers and ports; then the end markers.
static void test_ipv6_queue_end(struct mempool* pool) {
	struct packet_spec spec;
	spec_default(&spec);
	CHECK(parse_ip_range("fd00::a:1-fd00::a:9", &spec.src_ip, &spec.src_family) == NULL);
	CHECK(parse_vlan("7:1", &spec.vlan_tci) == NULL);
	spec.vlan = true;
	struct generator* gen;
	struct frames_dev* fake;
	if (!frames_setup(&gen, &fake)) {
		return;
	}
	CHECK_EQ(generator_init_spec(gen, pool, &spec, mac, 1, 3), 0);
	CHECK_EQ(gen->form.min_size, 84);
	gen->flows = 3;
	generator_set_sizes(gen, &(struct frame_sizes){.mode = SIZE_UNIFORM, .min = 84, .max = 101, .state = 3});
	fake->room = 64;
	for (int r = 0; r < 3; r++) {
		generator_send(gen, &fake->ixy, 0, 0x1122334455667788ull + (uint64_t)r * 0x10001, GENERATOR_BATCH_SIZE,
			       NULL);
	}
	CHECK_EQ(fake->n, 192);
	CHECK_EQ(generator_send_end(gen, &fake->ixy, 0), 0);
	CHECK_EQ(gen->end_frames, 3 * FLOWS_END_REPEAT);
	uint32_t bad = 0, odd = 0, next[3] = {0};
	for (uint32_t k = 0; k < fake->n; k++) {
		const uint8_t* p = fake->frame[k];
		uint32_t size = fake->len[k], j = k < 192 ? k % 3 : (k - 192) % 3, flow = 1 + 3 * j;
		odd += (size - 58) % 2;
		bad += be16(p + 12) != 0x8100 || be16(p + 14) != (1 << 13 | 7) || be16(p + 16) != 0x86dd;
		bad += be16(p + 22) != size - 58 || !udp6_ok(p, 18, size);
		bad += p[41] != 1 + flow % 9 || be16(p + 58) != packet_flow_port(flow) || p[70] != flow;
		if (k < 192) {
			bad += p[69] != 0 || packet_read_seq_at(p, size) != next[j]++;
		} else { // marker r of flow j: kind 1, the count in the time field, the numbers after the flow's
			uint32_t repeat = (k - 192) / 3;
			bad += size != 84 || p[71] != (FLOWS_END >> 8) || packet_read_time(p, size) != 64;
			bad += packet_read_seq_at(p, size) != 64 + repeat;
		}
	}
	CHECK(odd > 10 && odd < 182); // both parities were sent
	CHECK_EQ(fake->n, 192 + 9);
	CHECK_EQ(bad, 0);
	CHECK_EQ(pool->free_stack_top, pool->num_entries);
	free(gen);
	free(fake);
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
	test_ipv4_ranges_sizes(pool);
	test_ipv6_queue_end(pool);
	memory_free_mempool(pool);
	CHECK_EQ(seam_dma_live_allocations(), 0);
	return check_summary();
}
