// Builds the test packet of ixy-pktgen (layout in packet.h) and computes the IPv4 header checksum.
#include <string.h>

#include "packet.h"

static void put_be16(uint8_t* p, uint16_t value) {
	p[0] = (uint8_t)(value >> 8);
	p[1] = (uint8_t)value;
}

uint16_t ipv4_checksum(const void* data, size_t len) {
	const uint8_t* bytes = data;
	uint32_t sum = 0;
	for (size_t i = 0; i + 1 < len; i += 2) {
		sum += (uint32_t)bytes[i] << 8 | bytes[i + 1];
	}
	if (len % 2) {
		sum += (uint32_t)bytes[len - 1] << 8;
	}
	// Fold the carries back in (end-around carry) until the sum fits 16 bits.
	while (sum >> 16) {
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return (uint16_t)~sum;
}

void packet_build_template(uint8_t pkt[PACKET_SIZE], const uint8_t src_mac[6]) {
	static const uint8_t dst_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
	memset(pkt, 0, PACKET_SIZE);

	uint8_t* eth = pkt + PACKET_ETH_HEADER_OFFSET;
	memcpy(eth, dst_mac, 6);
	memcpy(eth + 6, src_mac, 6);
	put_be16(eth + 12, 0x0800);

	uint8_t* ip = pkt + PACKET_IPV4_HEADER_OFFSET;
	ip[0] = 0x45;                                              // version 4, header length 5 * 4 bytes
	ip[1] = 0;                                                 // DSCP/ECN
	put_be16(ip + 2, PACKET_SIZE - PACKET_IPV4_HEADER_OFFSET); // total length 46
	put_be16(ip + 4, 0);                                       // identification
	put_be16(ip + 6, 0);                                       // flags, fragment offset
	ip[8] = 64;                                                // TTL
	ip[9] = 17;                                                // protocol UDP
	static const uint8_t src_ip[4] = {10, 0, 0, 1};
	static const uint8_t dst_ip[4] = {10, 0, 0, 2};
	memcpy(ip + 12, src_ip, 4);
	memcpy(ip + 16, dst_ip, 4);
	// Computed with the checksum field (bytes 10-11) still zero.
	put_be16(ip + 10, ipv4_checksum(ip, PACKET_IPV4_HEADER_SIZE));

	uint8_t* udp = pkt + PACKET_UDP_HEADER_OFFSET;
	put_be16(udp + 0, PACKET_SRC_PORT); // source port
	put_be16(udp + 2, 1337);            // destination port
	put_be16(udp + 4, PACKET_UDP_LENGTH);
	put_be16(udp + 6, 0); // checksum 0: none (allowed over IPv4), so stamping sequence numbers is cheap

	memcpy(pkt + PACKET_PAYLOAD_OFFSET, "ixy", 3);
	packet_stamp_seq(pkt, 0);
}

uint32_t packet_header_sum(const uint8_t pkt[PACKET_SIZE]) {
	uint8_t header[PACKET_IPV4_HEADER_SIZE];
	memcpy(header, pkt + PACKET_IPV4_HEADER_OFFSET, sizeof(header));
	memset(header + 2, 0, 2);  // total length
	memset(header + 10, 0, 2); // checksum
	return (uint16_t)~ipv4_checksum(header, sizeof(header));
}
