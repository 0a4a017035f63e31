// The RSS hash in software (include/ixy/rss.h): the Toeplitz hash, the inputs it takes from a frame, and the default
// configuration. Nothing here touches a device; the drivers program their NIC's own registers from a struct ixy_rss.
// The default key and ixy_rss_default come first: the forwarding path runs them, and scripts/count-lines.sh counts
// this file up to the end of ixy_rss_default.
#include <stdbool.h>
#include <string.h>

#include <ixy/rss.h>

// Microsoft's RSS specification and 82599 datasheet 7.1.2.8.3 (the verification suite's key).
const uint8_t ixy_rss_default_key[IXY_RSS_KEY_SIZE] = {
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
    0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
    0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

void ixy_rss_default(struct ixy_rss* rss, uint16_t num_queues) {
	memcpy(rss->key, ixy_rss_default_key, sizeof(rss->key));
	for (size_t i = 0; i < IXY_RSS_TABLE_SIZE; i++) {
		rss->table[i] = num_queues > 1 ? (uint8_t)(i % num_queues) : 0;
	}
	rss->hash_types = IXY_RSS_ALL;
}

// 7.1.2.8.1: `window` holds the 32 key bits that start at the current input bit; each input bit moves it on by one,
// taking in the next key bit on the right.
uint32_t ixy_rss_hash(const uint8_t key[IXY_RSS_KEY_SIZE], const uint8_t* input, size_t len) {
	uint32_t result = 0;
	uint32_t window = (uint32_t)key[0] << 24 | (uint32_t)key[1] << 16 | (uint32_t)key[2] << 8 | key[3];
	for (size_t i = 0; i < len; i++) {
		uint8_t next = i + 4 < IXY_RSS_KEY_SIZE ? key[i + 4] : 0; // the key byte that enters during this byte
		for (int bit = 7; bit >= 0; bit--) {
			if ((input[i] >> bit) & 1) {
				result ^= window;
			}
			window = window << 1 | ((next >> bit) & 1);
		}
	}
	return result;
}

#define ETHER_HEADER 14
#define ETHERTYPE_IPV4 0x0800
#define IP_PROTO_TCP 6
#define IP_PROTO_UDP 17

// The IPv4 header of an untagged Ethernet frame, or NULL; *header_len receives its length (IHL, with options).
static const uint8_t* ipv4_header(const uint8_t* frame, size_t len, size_t* header_len) {
	if (len < ETHER_HEADER + 20 || (frame[12] << 8 | frame[13]) != ETHERTYPE_IPV4 ||
	    frame[ETHER_HEADER] >> 4 != 4) {
		return NULL;
	}
	*header_len = (size_t)(frame[ETHER_HEADER] & 0xF) * 4;
	return *header_len >= 20 && len >= ETHER_HEADER + *header_len ? frame + ETHER_HEADER : NULL;
}

size_t ixy_rss_input_ipv4(const uint8_t* frame, size_t len, uint8_t input[8]) {
	size_t header_len;
	const uint8_t* ip = ipv4_header(frame, len, &header_len);
	if (!ip) {
		return 0;
	}
	memcpy(input, ip + 12, 8); // source address, destination address
	return 8;
}

size_t ixy_rss_input_ipv4_l4(const uint8_t* frame, size_t len, uint8_t input[12]) {
	size_t header_len;
	const uint8_t* ip = ipv4_header(frame, len, &header_len);
	// A fragment: More Fragments set, or a fragment offset (flags and offset in bytes 6-7).
	bool fragment = ip && ((ip[6] & 0x20) || ((ip[6] & 0x1F) | ip[7]));
	if (!ip || fragment || (ip[9] != IP_PROTO_TCP && ip[9] != IP_PROTO_UDP) ||
	    len < ETHER_HEADER + header_len + 4) {
		return 0;
	}
	memcpy(input, ip + 12, 8);
	memcpy(input + 8, ip + header_len, 4); // source port, destination port
	return 12;
}

size_t ixy_rss_input(const uint8_t* frame, size_t len, uint32_t hash_types, uint8_t input[12]) {
	if (ixy_rss_input_ipv4_l4(frame, len, input)) { // TCP or UDP: the frame holds the protocol byte
		uint32_t type = frame[ETHER_HEADER + 9] == IP_PROTO_TCP ? IXY_RSS_IPV4_TCP : IXY_RSS_IPV4_UDP;
		if (hash_types & type) {
			return 12;
		}
	}
	return (hash_types & IXY_RSS_IPV4) ? ixy_rss_input_ipv4(frame, len, input) : 0;
}

uint16_t ixy_rss_queue(const struct ixy_rss* rss, const uint8_t* frame, size_t len) {
	uint8_t input[12];
	size_t n = ixy_rss_input(frame, len, rss->hash_types, input);
	return n ? rss->table[ixy_rss_hash(rss->key, input, n) & (IXY_RSS_TABLE_SIZE - 1)] : 0;
}
