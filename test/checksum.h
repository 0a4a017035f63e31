// Independent checksum arithmetic for the tests that check generated frames (test_flows, test_generator,
// test_ixgbe_pktgen_app): written from the RFCs, not from apps/common, so that a test compares the generator's
// checksums with a second computation.
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

// RFC 1071 over len bytes: the folded ones' complement sum (0xffff for data that carries its correct checksum).
static inline uint32_t ones_sum(const uint8_t* p, uint32_t len, uint32_t sum) {
	for (uint32_t i = 0; i < len; i++) {
		sum += i % 2 ? p[i] : (uint32_t)p[i] << 8;
	}
	while (sum >> 16) {
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return sum;
}

// The UDP checksum over IPv6 (RFC 8200 8.1): the pseudo header (addresses, upper-layer length, next header 17) and
// the datagram sum to 0xffff, and the field is not 0. l3: the IPv6 header's offset in the frame.
static inline bool udp6_ok(const uint8_t* frame, uint32_t l3, uint32_t size) {
	uint32_t l4 = l3 + 40, length = size - l4;
	uint8_t pseudo[40] = {0};
	memcpy(pseudo, frame + l3 + 8, 32);
	pseudo[34] = (uint8_t)(length >> 8);
	pseudo[35] = (uint8_t)length;
	pseudo[39] = 17;
	return ones_sum(frame + l4, length, ones_sum(pseudo, 40, 0)) == 0xffff && (frame[l4 + 6] | frame[l4 + 7]) != 0;
}
