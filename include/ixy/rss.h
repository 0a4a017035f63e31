// Receive side scaling (RSS): the NIC spreads received packets over its RX queues by a hash of their addresses and
// ports, so that each flow stays on one queue (in order) and the queues can be served by different cores.
//
// The hash is the Toeplitz hash of Microsoft's RSS specification ("RSS hashing functions"), which the Intel NICs
// implement (82599 datasheet 7.1.2.8.1): a 40 byte secret key, and an input of the packet's source and destination
// IPv4 addresses (8 bytes), followed for TCP and UDP by the source and destination ports (12 bytes), all as they
// are on the wire (network byte order). The low 7 bits of the hash index a table of 128 entries, each a queue
// (7.1.2.8: the redirection table, RETA).
//
// An app passes a struct ixy_rss in ixy_config.rss; NULL means the default when it asks for more than one RX queue
// (ixy_rss_default), and RSS is off with one queue. The functions here are plain software, for apps that want to
// know in advance where a flow lands, for tests and for the device model.
#ifndef IXY_RSS_H
#define IXY_RSS_H

#include <stddef.h>
#include <stdint.h>

#define IXY_RSS_KEY_SIZE 40    // bytes: 320 bits (7.1.2.8.1)
#define IXY_RSS_TABLE_SIZE 128 // entries, indexed by the low 7 bits of the hash

// Hash types (ixy_rss.hash_types). A TCP or UDP packet that is an IPv4 fragment is hashed as plain IPv4.
#define IXY_RSS_IPV4 (1u << 0)     // source and destination address of every IPv4 packet
#define IXY_RSS_IPV4_TCP (1u << 1) // plus source and destination port of IPv4 TCP segments
#define IXY_RSS_IPV4_UDP (1u << 2) // plus source and destination port of IPv4 UDP datagrams
#define IXY_RSS_ALL (IXY_RSS_IPV4 | IXY_RSS_IPV4_TCP | IXY_RSS_IPV4_UDP)

struct ixy_rss {
	uint8_t key[IXY_RSS_KEY_SIZE];
	uint8_t table[IXY_RSS_TABLE_SIZE]; // table[hash & 127]: the RX queue of a packet with that hash
	uint32_t hash_types;               // IXY_RSS_*; a packet of no enabled type is not hashed and goes to queue 0
};

// The published default key of Microsoft's specification and of the Intel datasheets (82599: 7.1.2.8.3), which DPDK
// uses too: 6d 5a 56 da 25 5b 0e c2 ...
extern const uint8_t ixy_rss_default_key[IXY_RSS_KEY_SIZE];

// The default for num_queues queues (1 or more): the default key, table entry i = i % num_queues, all hash types.
void ixy_rss_default(struct ixy_rss* rss, uint16_t num_queues);

// The Toeplitz hash of len input bytes under key: for each input bit from the most significant bit of input[0] on,
// if it is set, XOR the 32 key bits that start at that bit's position into the result. Key bits beyond the 320
// count as 0 (inputs of more than 36 bytes reach past the key; IPv4 needs at most 12).
uint32_t ixy_rss_hash(const uint8_t key[IXY_RSS_KEY_SIZE], const uint8_t* input, size_t len);

// The hash inputs of an Ethernet frame (no VLAN tag) of len bytes. Each returns the input's length, or 0 if the frame
// is not of that kind or too short for its headers: ixy_rss_input_ipv4 for any IPv4 packet (source address,
// destination address: 8 bytes), ixy_rss_input_ipv4_l4 for an IPv4 TCP or UDP packet that is not a fragment (the
// addresses, source port, destination port: 12 bytes).
size_t ixy_rss_input_ipv4(const uint8_t* frame, size_t len, uint8_t input[8]);
size_t ixy_rss_input_ipv4_l4(const uint8_t* frame, size_t len, uint8_t input[12]);

// The input the NIC hashes a frame with under hash_types (IXY_RSS_*): the 12 byte input for TCP or UDP if that type
// is enabled, else the 8 byte input if IXY_RSS_IPV4 is; 0 if the frame is hashed by none.
size_t ixy_rss_input(const uint8_t* frame, size_t len, uint32_t hash_types, uint8_t input[12]);

// The RX queue the NIC puts a frame on under rss: table[hash & 127], or 0 if the frame is not hashed.
uint16_t ixy_rss_queue(const struct ixy_rss* rss, const uint8_t* frame, size_t len);

#endif
