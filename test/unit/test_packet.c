// The packet template of ixy-pktgen (apps/common/packet.h) and the IPv4 checksum.
#include <string.h>

#include "../check.h"
#include "common/packet.h"

static uint16_t be16(const uint8_t* p) {
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void test_checksum_known_vectors(void) {
	// A header from a real capture (often used as the worked example): checksum field zeroed -> 0xb861.
	uint8_t header[20] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
			      0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
	CHECK_EQ(ipv4_checksum(header, sizeof(header)), 0xb861);
	// With the checksum filled in, the checksum over the header is 0.
	header[10] = 0xb8;
	header[11] = 0x61;
	CHECK_EQ(ipv4_checksum(header, sizeof(header)), 0);
	// RFC 1071 section 3 example: the ones' complement sum of these bytes is 0xddf2, the checksum its complement.
	const uint8_t rfc1071[8] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
	CHECK_EQ(ipv4_checksum(rfc1071, sizeof(rfc1071)), 0x220d);
	// Odd length: the last byte counts as the high byte of a word padded with zero.
	const uint8_t odd[3] = {0x12, 0x34, 0x56};
	CHECK_EQ(ipv4_checksum(odd, sizeof(odd)), (uint16_t) ~(0x1234 + 0x5600));
	// Carries are folded back in: 0xffff + 0x0001 = 0x10000 -> 0x0001, complement 0xfffe.
	const uint8_t carry[4] = {0xff, 0xff, 0x00, 0x01};
	CHECK_EQ(ipv4_checksum(carry, sizeof(carry)), 0xfffe);
	CHECK_EQ(ipv4_checksum(carry, 0), 0xffff);
}

static void test_template_fields(void) {
	const uint8_t mac[6] = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
	uint8_t pkt[PACKET_SIZE + 8];
	memset(pkt, 0xee, sizeof(pkt));
	packet_build_template(pkt, mac);
	CHECK_EQ(PACKET_SIZE, 60);
	CHECK_EQ(pkt[PACKET_SIZE], 0xee); // nothing written past 60 bytes
	// Ethernet
	const uint8_t dst[6] = {0x02, 0, 0, 0, 0, 0x02};
	CHECK(memcmp(pkt, dst, 6) == 0);
	CHECK(memcmp(pkt + 6, mac, 6) == 0);
	CHECK_EQ(be16(pkt + 12), 0x0800);
	// IPv4
	const uint8_t* ip = pkt + 14;
	CHECK_EQ(ip[0], 0x45);
	CHECK_EQ(be16(ip + 2), 46);
	CHECK_EQ(ip[8], 64);
	CHECK_EQ(ip[9], 17);
	CHECK_EQ(ipv4_checksum(ip, 20), 0);
	CHECK(be16(ip + 10) != 0);
	const uint8_t src_ip[4] = {10, 0, 0, 1}, dst_ip[4] = {10, 0, 0, 2};
	CHECK(memcmp(ip + 12, src_ip, 4) == 0);
	CHECK(memcmp(ip + 16, dst_ip, 4) == 0);
	// UDP
	const uint8_t* udp = pkt + 34;
	CHECK_EQ(be16(udp + 0), 42);
	CHECK_EQ(be16(udp + 2), 1337);
	CHECK_EQ(be16(udp + 4), 26);
	CHECK_EQ(be16(udp + 6), 0);
	CHECK_EQ(34 + be16(udp + 4), PACKET_SIZE); // UDP ends exactly at the end of the packet
	CHECK_EQ(14 + be16(ip + 2), PACKET_SIZE);  // and so does IPv4
	// Payload: "ixy", zeros, sequence number 0
	CHECK(memcmp(pkt + 42, "ixy", 3) == 0);
	int zeros = 1;
	for (int i = 45; i < 60; i++) {
		zeros &= pkt[i] == 0;
	}
	CHECK(zeros);
	CHECK_EQ(packet_read_seq(pkt), 0);
}

static void test_sequence_numbers(void) {
	const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x01};
	uint8_t pkt[PACKET_SIZE], reference[PACKET_SIZE];
	packet_build_template(pkt, mac);
	memcpy(reference, pkt, PACKET_SIZE);
	const uint32_t seqs[] = {0, 1, 255, 256, 0x12345678, 0xfffffffe, 0xffffffff};
	for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		packet_stamp_seq(pkt, seqs[i]);
		CHECK_EQ(packet_read_seq(pkt), seqs[i]);
		// Little-endian in the last 4 bytes, nothing else touched.
		CHECK_EQ(pkt[56], seqs[i] & 0xff);
		CHECK_EQ(pkt[57], (seqs[i] >> 8) & 0xff);
		CHECK_EQ(pkt[58], (seqs[i] >> 16) & 0xff);
		CHECK_EQ(pkt[59], seqs[i] >> 24);
		CHECK(memcmp(pkt, reference, 56) == 0);
		CHECK_EQ(ipv4_checksum(pkt + 14, 20), 0);
	}
	const uint8_t expected[4] = {0x78, 0x56, 0x34, 0x12};
	packet_stamp_seq(pkt, 0x12345678);
	CHECK(memcmp(pkt + 56, expected, 4) == 0);
	// Wrap at 2^32: the number after 0xffffffff is 0.
	uint32_t seq = 0xffffffff;
	packet_stamp_seq(pkt, ++seq);
	CHECK_EQ(packet_read_seq(pkt), 0);
	CHECK(memcmp(pkt + 56, "\0\0\0\0", 4) == 0);
}

int main(void) {
	test_checksum_known_vectors();
	test_template_fields();
	test_sequence_numbers();
	return check_summary();
}
