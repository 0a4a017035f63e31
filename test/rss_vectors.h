// The RSS verification suite: the published inputs and Toeplitz hashes under the default key, for the tests of the
// software hash (test/unit/test_rss.c) and of the 82599 model's (test/model/test_ixgbe_rss.c). From Microsoft's
// "Verifying the RSS Hash Calculation" (learn.microsoft.com/windows-hardware/drivers/network/
// verifying-the-rss-hash-calculation), the same table as 82599 datasheet 7.1.2.8.3 (RSS Verification Suite); DPDK's
// app/test/test_thash.c holds the same values. Also a builder of Ethernet + IPv4 + TCP/UDP test frames.
#ifndef IXY_TEST_RSS_VECTORS_H
#define IXY_TEST_RSS_VECTORS_H

#include <stdint.h>
#include <string.h>

struct rss_vector {
	uint8_t dst[4];
	uint16_t dst_port;
	uint8_t src[4];
	uint16_t src_port;
	uint32_t hash_ipv4;     // "IPv4 only": input source address, destination address
	uint32_t hash_ipv4_tcp; // "IPv4 with TCP": plus source port, destination port
};

// The table's IPv4 rows, in its column order: destination, source, then the two hashes.
static const struct rss_vector rss_vectors[] = {
    {{161, 142, 100, 80}, 1766, {66, 9, 149, 187}, 2794, 0x323e8fc2, 0x51ccc178},
    {{65, 69, 140, 83}, 4739, {199, 92, 111, 2}, 14230, 0xd718262a, 0xc626b0ea},
    {{12, 22, 207, 184}, 38024, {24, 19, 198, 95}, 12898, 0xd2d0a5de, 0x5c2b394a},
    {{209, 142, 163, 6}, 2217, {38, 27, 205, 30}, 48228, 0x82989176, 0xafc7327f},
    {{202, 188, 127, 2}, 1303, {153, 39, 163, 191}, 44251, 0x5d1809c5, 0x10e828a2},
};
#define NUM_RSS_VECTORS (sizeof(rss_vectors) / sizeof(rss_vectors[0]))

// The published key, written down here independently of the library's ixy_rss_default_key.
static const uint8_t rss_test_key[40] = {
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
    0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
    0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

#define RSS_TEST_TCP 6
#define RSS_TEST_UDP 17

// Writes a 60..1514 byte (len) frame to a unicast MAC 02:00:00:00:03:00 (the model's default for 0000:03:00.0):
// Ethernet, IPv4 with options_words 32 bit words of options (NOPs), protocol proto, flags_frag as bytes 6-7 of the
// IP header, then the ports. seq goes into the last 4 bytes (little endian), as in model_test_frame.
static inline void rss_test_frame(uint8_t* frame, uint32_t len, const uint8_t src[4], const uint8_t dst[4],
				  uint16_t src_port, uint16_t dst_port, uint8_t proto, uint8_t options_words,
				  uint16_t flags_frag, uint32_t seq) {
	static const uint8_t mac[12] = {0x02, 0, 0, 0, 0x03, 0, 0x02, 0, 0, 0xee, 0xee, 0xee};
	memset(frame, 0, len);
	memcpy(frame, mac, 12);
	frame[12] = 0x08;
	uint8_t* ip = frame + 14;
	uint32_t ip_len = len - 14;
	ip[0] = (uint8_t)(0x40 | (5 + options_words));
	ip[2] = (uint8_t)(ip_len >> 8);
	ip[3] = (uint8_t)ip_len;
	ip[6] = (uint8_t)(flags_frag >> 8);
	ip[7] = (uint8_t)flags_frag;
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, src, 4);
	memcpy(ip + 16, dst, 4);
	memset(ip + 20, 1, 4u * options_words); // NOP options
	uint8_t* l4 = ip + 20 + 4u * options_words;
	l4[0] = (uint8_t)(src_port >> 8);
	l4[1] = (uint8_t)src_port;
	l4[2] = (uint8_t)(dst_port >> 8);
	l4[3] = (uint8_t)dst_port;
	frame[len - 4] = (uint8_t)seq;
	frame[len - 3] = (uint8_t)(seq >> 8);
	frame[len - 2] = (uint8_t)(seq >> 16);
	frame[len - 1] = (uint8_t)(seq >> 24);
}

#endif
