// The test packet of ixy-pktgen and the IPv4 header checksum.
//
// Layout of the 60 byte packet (the NIC appends the 4 byte CRC, making a minimum-sized 64 byte frame):
//   offset  size  field
//    0       6    Ethernet destination  02:00:00:00:00:02 (locally administered unicast: receivers run promiscuous)
//    6       6    Ethernet source       the sending NIC's MAC address
//   12       2    EtherType             0x0800 (IPv4)
//   14      20    IPv4 header           version 4, IHL 5, total length 46, TTL 64, protocol 17 (UDP),
//                                       header checksum (RFC 791), 10.0.0.1 -> 10.0.0.2
//   34       8    UDP header            port 42 -> 1337, length 26, checksum 0 ("not computed", RFC 768);
//                                       ixy-pktgen --flows: flow f has source port packet_flow_port(f)
//   42      18    payload               "ixy", then zeros, and in the LAST 4 bytes (56..59) a 32-bit
//                                       little-endian sequence number; bytes 46-47: the flow's number
//                                       (0 for one flow; common/flows.h, which also moves the headers for a
//                                       VLAN tag and IPv6 and sets other addresses, issue 37)
// Multi-byte header fields are big-endian (network byte order); only the sequence number is little-endian, as the
// tools that check ixy's output expect.
#ifndef IXY_APPS_PACKET_H
#define IXY_APPS_PACKET_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PACKET_SIZE 60
#define PACKET_ETH_HEADER_OFFSET 0
#define PACKET_IPV4_HEADER_OFFSET 14
#define PACKET_IPV4_HEADER_SIZE 20
#define PACKET_UDP_HEADER_OFFSET 34
#define PACKET_UDP_LENGTH (PACKET_SIZE - PACKET_UDP_HEADER_OFFSET) // 26: UDP header and payload
#define PACKET_PAYLOAD_OFFSET 42
#define PACKET_SEQ_OFFSET (PACKET_SIZE - 4) // 56
#define PACKET_SRC_PORT 42                  // the template's UDP source port, and flow 0's (packet_flow_port)
#define PACKET_FLOW_PORT_STEP 45
#define PACKET_FLOW_PORT_MOD 1031 // a prime: flows 0 to 1030 get distinct ports (ixy-pktgen allows up to 1024)

// Writes the template above into pkt with sequence number 0.
void packet_build_template(uint8_t pkt[PACKET_SIZE], const uint8_t src_mac[6]);

// Writes seq as 32-bit little-endian into the last 4 bytes of the packet. Changes no checksum: the IPv4 checksum
// covers only the IPv4 header, and the UDP checksum is not used.
static inline void packet_stamp_seq(uint8_t pkt[PACKET_SIZE], uint32_t seq) {
	pkt[PACKET_SEQ_OFFSET + 0] = (uint8_t)seq;
	pkt[PACKET_SEQ_OFFSET + 1] = (uint8_t)(seq >> 8);
	pkt[PACKET_SEQ_OFFSET + 2] = (uint8_t)(seq >> 16);
	pkt[PACKET_SEQ_OFFSET + 3] = (uint8_t)(seq >> 24);
}

// Writes the UDP source port (big-endian). Changes no checksum: the UDP checksum is not used.
static inline void packet_set_src_port(uint8_t pkt[PACKET_SIZE], uint16_t port) {
	pkt[PACKET_UDP_HEADER_OFFSET] = (uint8_t)(port >> 8);
	pkt[PACKET_UDP_HEADER_OFFSET + 1] = (uint8_t)port;
}

// The UDP source port of flow `flow` (ixy-pktgen --flows): 42 + (45 * flow mod 1031), so 42, 87, 132, ...
// Not 42 + flow: the Toeplitz hash of RSS is linear over GF(2), and a block of consecutive ports spreads over the
// queues of a NIC in counts that stay the same when the queues are swapped in pairs (64 flows: 32/32 on 2 queues,
// 13/13/19/19 on 4), so a checker that compares per-queue counts could not see a driver that swaps them. With these
// ports 64 flows of the template land 40/24 on 2 queues and 19/14/21/10 on 4 (ixy's default table). The checkers
// read the three numbers from test/vm/vm_constants.
static inline uint16_t packet_flow_port(uint32_t flow) {
	return (uint16_t)(PACKET_SRC_PORT + PACKET_FLOW_PORT_STEP * flow % PACKET_FLOW_PORT_MOD);
}

static inline uint32_t packet_read_seq(const uint8_t pkt[PACKET_SIZE]) {
	return (uint32_t)pkt[PACKET_SEQ_OFFSET] | (uint32_t)pkt[PACKET_SEQ_OFFSET + 1] << 8 |
	       (uint32_t)pkt[PACKET_SEQ_OFFSET + 2] << 16 | (uint32_t)pkt[PACKET_SEQ_OFFSET + 3] << 24;
}

// ixy-pktgen --size (issue 30): frames of PACKET_MIN_SIZE to PACKET_MAX_SIZE bytes (without the FCS) keep the
// template's headers (IPv4 total length and UDP length follow the size) and its payload, and end, whatever their
// size, in two fields the receiver reads from the frame's end:
//   size - 12   8    send time: CLOCK_MONOTONIC in nanoseconds (monotonic_time_ns), 64-bit little-endian, written
//                    when the batch is handed to the TX queue (one clock read per batch)
//   size -  4   4    sequence number, 32-bit little-endian (as in the 60 byte packet: its last 4 bytes)
// In the 60 byte packet the send time is bytes 48..55, between "ixy" and the sequence number.
#define PACKET_MIN_SIZE 60
#define PACKET_MAX_SIZE 1514
#define PACKET_TIME_FROM_END 12
#define PACKET_SEQ_FROM_END 4

static inline void packet_put_le(uint8_t* p, uint64_t value, int bytes) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	// The host's byte order is the field's: the low bytes of value as they are, one store once inlined (the byte
	// loop below cost 85 instructions per packet for time and sequence number, callgrind, -O2).
	memcpy(p, &value, (size_t)bytes);
#else
	for (int i = 0; i < bytes; i++) {
		p[i] = (uint8_t)(value >> (8 * i));
	}
#endif
}

// Reads a little-endian field of 1 to 8 bytes.
static inline uint64_t packet_get_le(const uint8_t* p, int bytes) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	// As packet_put_le: the field's bytes are the low bytes of value, one load once inlined with a constant size.
	// The byte loop below cost ixy-pcap --report 84 instructions more per frame for time and sequence number
	// (bench/pcap_report_bench.c; test bench_instructions_pcap_report).
	uint64_t value = 0;
	memcpy(&value, p, (size_t)bytes);
	return value;
#else
	uint64_t value = 0;
	for (int i = bytes - 1; i >= 0; i--) {
		value = value << 8 | p[i];
	}
	return value;
#endif
}

// The send time and sequence number of a frame of `size` bytes (PACKET_MIN_SIZE <= size).
static inline void packet_stamp_time(uint8_t* pkt, uint32_t size, uint64_t ns) {
	packet_put_le(pkt + size - PACKET_TIME_FROM_END, ns, 8);
}

static inline uint64_t packet_read_time(const uint8_t* pkt, uint32_t size) {
	return packet_get_le(pkt + size - PACKET_TIME_FROM_END, 8);
}

static inline uint32_t packet_read_seq_at(const uint8_t* pkt, uint32_t size) {
	return (uint32_t)packet_get_le(pkt + size - PACKET_SEQ_FROM_END, 4);
}

// ixy-pktgen --size: the fields that follow a frame's size (PACKET_MIN_SIZE to PACKET_MAX_SIZE): the IPv4 total
// length (size - 14), the UDP length (size - 34) and the IPv4 header checksum. header_sum is packet_header_sum() of
// the template: the checksum is then one addition and a fold (RFC 1071: the sum is order-independent, and the total
// length is the only header word that changes).
static inline void packet_set_size(uint8_t* pkt, uint32_t size, uint32_t header_sum) {
	uint32_t total_length = size - PACKET_IPV4_HEADER_OFFSET;
	uint32_t udp_length = size - PACKET_UDP_HEADER_OFFSET;
	uint32_t sum = header_sum + total_length;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	uint16_t checksum = (uint16_t)~sum;
	uint8_t* ip = pkt + PACKET_IPV4_HEADER_OFFSET;
	ip[2] = (uint8_t)(total_length >> 8);
	ip[3] = (uint8_t)total_length;
	ip[10] = (uint8_t)(checksum >> 8);
	ip[11] = (uint8_t)checksum;
	pkt[PACKET_UDP_HEADER_OFFSET + 4] = (uint8_t)(udp_length >> 8);
	pkt[PACKET_UDP_HEADER_OFFSET + 5] = (uint8_t)udp_length;
}

// The ones' complement sum (folded to 16 bits) of the template's IPv4 header without its total length and checksum.
uint32_t packet_header_sum(const uint8_t pkt[PACKET_SIZE]);

// The Internet checksum (RFC 1071) over len bytes: the ones' complement of the ones' complement sum of the data
// as big-endian 16-bit words (an odd last byte is padded with a zero byte). The result is in host order; store it
// big-endian. Over an IPv4 header that carries its correct checksum, the result is 0.
uint16_t ipv4_checksum(const void* data, size_t len);

#endif
