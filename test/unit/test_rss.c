// The software RSS hash (src/rss.c, include/ixy/rss.h) against the published verification suite (test/rss_vectors.h),
// the inputs it takes from frames, and the default configuration.
#include <string.h>

#include <ixy/rss.h>

#include "../check.h"
#include "../rss_vectors.h"

static void put_be16(uint8_t* p, uint16_t v) {
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

// Both columns of every row: the hash of the raw input, and of the input formed from a frame.
static void test_verification_suite(void) {
	CHECK(memcmp(ixy_rss_default_key, rss_test_key, sizeof(rss_test_key)) == 0);
	for (size_t i = 0; i < NUM_RSS_VECTORS; i++) {
		const struct rss_vector* v = &rss_vectors[i];
		uint8_t input[12];
		memcpy(input, v->src, 4);
		memcpy(input + 4, v->dst, 4);
		put_be16(input + 8, v->src_port);
		put_be16(input + 10, v->dst_port);
		uint32_t ipv4 = ixy_rss_hash(rss_test_key, input, 8), tcp = ixy_rss_hash(rss_test_key, input, 12);
		printf("row %zu: IPv4 0x%08x (expected 0x%08x), IPv4/TCP 0x%08x (expected 0x%08x)\n", i + 1, ipv4,
		       v->hash_ipv4, tcp, v->hash_ipv4_tcp);
		CHECK_EQ(ipv4, v->hash_ipv4);
		CHECK_EQ(tcp, v->hash_ipv4_tcp);

		uint8_t frame[64], formed[12];
		rss_test_frame(frame, sizeof(frame), v->src, v->dst, v->src_port, v->dst_port, RSS_TEST_TCP, 0, 0, 0);
		CHECK_EQ(ixy_rss_input(frame, sizeof(frame), IXY_RSS_ALL, formed), 12);
		CHECK(memcmp(formed, input, 12) == 0);
		CHECK_EQ(ixy_rss_hash(ixy_rss_default_key, formed, 12), v->hash_ipv4_tcp);
		CHECK_EQ(ixy_rss_input(frame, sizeof(frame), IXY_RSS_IPV4, formed), 8);
		CHECK_EQ(ixy_rss_hash(ixy_rss_default_key, formed, 8), v->hash_ipv4);
		// TCP not enabled, UDP enabled: the TCP segment is hashed as plain IPv4
		CHECK_EQ(ixy_rss_input(frame, sizeof(frame), IXY_RSS_IPV4 | IXY_RSS_IPV4_UDP, formed), 8);
	}
}

// Which frames give which input: UDP, IP options, fragments, other protocols, short and non-IPv4 frames.
static void test_inputs(void) {
	const uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {10, 0, 0, 2};
	uint8_t frame[80], input[12];
	rss_test_frame(frame, sizeof(frame), src, dst, 1234, 5678, RSS_TEST_UDP, 0, 0, 0);
	CHECK_EQ(ixy_rss_input(frame, sizeof(frame), IXY_RSS_ALL, input), 12);
	CHECK(memcmp(input + 8, "\x04\xd2\x16\x2e", 4) == 0);
	CHECK_EQ(ixy_rss_input(frame, sizeof(frame), IXY_RSS_IPV4_TCP, input), 0); // UDP, only TCP enabled
	// Two words of options: the ports are found after them.
	rss_test_frame(frame, sizeof(frame), src, dst, 1234, 5678, RSS_TEST_TCP, 2, 0, 0);
	CHECK_EQ(ixy_rss_input_ipv4_l4(frame, sizeof(frame), input), 12);
	CHECK(memcmp(input + 8, "\x04\xd2\x16\x2e", 4) == 0);
	// Fragments (More Fragments, or an offset) carry no ports the NIC may rely on: IPv4 only.
	rss_test_frame(frame, sizeof(frame), src, dst, 1234, 5678, RSS_TEST_TCP, 0, 0x2000, 0);
	CHECK_EQ(ixy_rss_input(frame, sizeof(frame), IXY_RSS_ALL, input), 8);
	rss_test_frame(frame, sizeof(frame), src, dst, 1234, 5678, RSS_TEST_UDP, 0, 0x0001, 0);
	CHECK_EQ(ixy_rss_input(frame, sizeof(frame), IXY_RSS_ALL, input), 8);
	CHECK_EQ(ixy_rss_input(frame, sizeof(frame), IXY_RSS_IPV4_UDP, input), 0);
	// Don't Fragment alone is no fragment.
	rss_test_frame(frame, sizeof(frame), src, dst, 1234, 5678, RSS_TEST_UDP, 0, 0x4000, 0);
	CHECK_EQ(ixy_rss_input(frame, sizeof(frame), IXY_RSS_ALL, input), 12);
	// ICMP: addresses only.
	rss_test_frame(frame, sizeof(frame), src, dst, 0, 0, 1, 0, 0, 0);
	CHECK_EQ(ixy_rss_input(frame, sizeof(frame), IXY_RSS_ALL, input), 8);
	CHECK(memcmp(input, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8) == 0);
	// Too short for the header its IHL claims, or for the ports; not IPv4; IHL below 5.
	rss_test_frame(frame, sizeof(frame), src, dst, 1234, 5678, RSS_TEST_TCP, 0, 0, 0);
	CHECK_EQ(ixy_rss_input(frame, 14 + 19, IXY_RSS_ALL, input), 0);
	CHECK_EQ(ixy_rss_input(frame, 14 + 20 + 3, IXY_RSS_ALL, input), 8);
	frame[14] = 0x4f; // 60 byte header, longer than the 38 bytes given
	CHECK_EQ(ixy_rss_input(frame, 14 + 38, IXY_RSS_ALL, input), 0);
	frame[14] = 0x44;
	CHECK_EQ(ixy_rss_input(frame, sizeof(frame), IXY_RSS_ALL, input), 0);
	frame[14] = 0x65; // version 6 in an IPv4 ethertype
	CHECK_EQ(ixy_rss_input(frame, sizeof(frame), IXY_RSS_ALL, input), 0);
	frame[14] = 0x45;
	frame[12] = 0x86;
	frame[13] = 0xdd; // IPv6 is not hashed
	CHECK_EQ(ixy_rss_input(frame, sizeof(frame), IXY_RSS_ALL, input), 0);
	CHECK_EQ(ixy_rss_queue(&(struct ixy_rss){.table = {[0] = 0, [1 ... 127] = 3}, .hash_types = IXY_RSS_ALL}, frame,
			       sizeof(frame)),
		 0);
}

static void test_default(void) {
	struct ixy_rss rss;
	memset(&rss, 0xff, sizeof(rss));
	ixy_rss_default(&rss, 4);
	CHECK(memcmp(rss.key, rss_test_key, sizeof(rss.key)) == 0);
	CHECK_EQ(rss.hash_types, IXY_RSS_IPV4 | IXY_RSS_IPV4_TCP | IXY_RSS_IPV4_UDP);
	for (size_t i = 0; i < IXY_RSS_TABLE_SIZE; i++) {
		CHECK_EQ(rss.table[i], i % 4);
	}
	ixy_rss_default(&rss, 3);
	CHECK_EQ(rss.table[127], 127 % 3);
	ixy_rss_default(&rss, 1);
	CHECK_EQ(rss.table[127], 0);
	// The queue of a frame: the table entry its hash's low 7 bits pick.
	ixy_rss_default(&rss, 16);
	uint8_t frame[64];
	const struct rss_vector* v = &rss_vectors[0];
	rss_test_frame(frame, sizeof(frame), v->src, v->dst, v->src_port, v->dst_port, RSS_TEST_TCP, 0, 0, 0);
	CHECK_EQ(ixy_rss_queue(&rss, frame, sizeof(frame)), (v->hash_ipv4_tcp & 127) % 16);
}

int main(void) {
	test_verification_suite();
	test_inputs();
	test_default();
	return check_summary();
}
