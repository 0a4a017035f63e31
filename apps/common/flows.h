// The addresses, VLAN tag and IP family of ixy-pktgen's generated frames and how its flows walk them (issue 37):
//   --src-mac, --dst-mac <aa:bb:cc:dd:ee:ff>        (default: the NIC's own, and 02:00:00:00:00:02)
//   --src-ip, --dst-ip <first>[-<last>]              IPv4 or IPv6, not mixed (default 10.0.0.1 -> 10.0.0.2; with
//                                                    one side IPv6 the other defaults to fd00::1 or fd00::2)
//   --src-port, --dst-port <first>[-<last>]          (default: flow f's port packet_flow_port(f), and 1337)
//   --vlan <id>[:<priority>]                         an 802.1Q tag, id 0 to 4094, priority 0 to 7 (default none)
//   --mark-end                                       end markers (below) when ixy-pktgen stops (default none)
// Flow f (0 <= f < flows) takes the (f mod n)-th value of each range of n values: the flows walk all ranges at once,
// as --flows walked the source ports before. Without --flows the number of flows is the longest range's length (at
// most ARG_MAX_FLOWS).
//
// The frame of a flow (its form: VLAN tag or not, IPv4 or IPv6) is common/packet.h's template with the headers moved
// by the tag (4 bytes) and the IPv6 header (40 bytes instead of 20). The payload, at `payload`, is:
//   0   3   "ixy"
//   3   1   0, and whatever a forwarder makes of it (ixy-fwd adds 1 to byte 45, apps/fwd.h): nobody reads it
//   4   2   16-bit little-endian: the flow's number f (bits 0-14; the receiver's key: ports and addresses may repeat,
//           or be rewritten by a NAT on the way), and in bit 15 FLOWS_END: an end marker (below)
// and ends, as before, in the send time and the sequence number (packet.h). The default frame (one flow, no option)
// is byte for byte the template of packet.h. IPv4: header checksum, UDP checksum 0 (none). IPv6: the UDP checksum
// is mandatory (RFC 8200 8.1): it covers the payload, so it is written for every frame (generator.c).
//
// End markers (--mark-end): when ixy-pktgen stops, each flow sends FLOWS_END_REPEAT frames with FLOWS_END set whose
// send time field holds the number of frames the flow sent (64 bits) and whose sequence numbers continue the flow's
// (count, count + 1, ...: no number repeats). ixy-pcap --report takes the count of the first one that arrives and so
// also counts the frames lost after the last one received. A marker is repeated because it can be lost itself. Not by
// default: the markers are frames beyond sent= that tools which count ixy-pktgen's frames (its CI checker, the
// tests' capture checks, RSS counts per queue) would count as frames of the run.
#ifndef IXY_APPS_FLOWS_H
#define IXY_APPS_FLOWS_H

#include <stdbool.h>
#include <stdint.h>

#define FLOWS_NUMBER 4   // payload offset of the flow's number
#define FLOWS_END 0x8000 // in the number: an end marker
#define FLOWS_END_REPEAT 3
#define FLOWS_VLAN_MAX_ID 4094

struct ip_range {
	uint8_t first[16], last[16]; // big-endian; IPv4: the first 4 bytes
};

struct port_range {
	uint16_t first, last;
};

struct packet_spec {
	uint8_t src_mac[6], dst_mac[6];
	bool src_mac_given;             // else the NIC's MAC address
	uint8_t src_family, dst_family; // 4 or 6; 0: not given (the default of the other side's family)
	struct ip_range src_ip, dst_ip;
	bool src_port_given; // else packet_flow_port(f)
	struct port_range src_port, dst_port;
	bool vlan;
	uint16_t vlan_tci; // priority << 13 | id
	bool mark_end;     // --mark-end: end markers when the generator stops
};

// Where the headers lie in a frame of a spec, and its smallest size (without FCS): the payload's 18 bytes ("ixy",
// kind, number, send time, sequence number) after the headers; 60 for the default (the minimum Ethernet frame).
struct packet_form {
	bool ipv6, vlan;
	uint16_t l3, l4, payload, min_size;
};

// The fields of flow f.
struct flow_fields {
	uint8_t src_ip[16], dst_ip[16];
	uint16_t src_port, dst_port;
};

// The defaults (as ixy-pktgen always sent).
void spec_default(struct packet_spec* spec);

// Parsers of the options' values: NULL, or what is wrong with text (then the output is untouched).
const char* parse_mac(const char* text, uint8_t mac[6], bool source);
const char* parse_ip_range(const char* text, struct ip_range* range, uint8_t* family);
const char* parse_port_range(const char* text, struct port_range* range);
const char* parse_vlan(const char* text, uint16_t* tci);

// The option of pktgen_options.h's ARG_ADDRESSES (its letter: A --src-mac, B --dst-mac, I --src-ip, J --dst-ip, O
// --src-port, D --dst-port, V --vlan, E --mark-end) with value text into spec; false after one line on stderr.
bool arg_address(const char* prog, char option, const char* text, struct packet_spec* spec);

// What is wrong with a whole spec (IPv4 and IPv6 mixed), or NULL.
const char* spec_problem(const struct packet_spec* spec);

// The longest range's length, at most max (1 without ranges).
uint32_t spec_flows(const struct packet_spec* spec, uint32_t max);

void spec_form(const struct packet_spec* spec, struct packet_form* form);
void spec_flow(const struct packet_spec* spec, uint32_t flow, struct flow_fields* fields);

// Writes the frame of flow `flow` of form.min_size bytes (sequence number and send time 0) into pkt, with src_mac
// unless the spec gives one.
void spec_build(uint8_t* pkt, const struct packet_spec* spec, const struct packet_form* form, const uint8_t src_mac[6],
		uint32_t flow);

// The ones' complement sum (not folded, not inverted) of len bytes as big-endian 16-bit words (len even).
uint32_t sum_be16(const uint8_t* p, uint32_t len);

static inline uint16_t fold_sum(uint64_t sum) {
	while (sum >> 16) {
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return (uint16_t)sum;
}

// IPv6: the UDP checksum's sum of the frame's fixed part, the pseudo header without its length and the UDP header
// without length and checksum and the payload's first 6 bytes: what does not change from frame to frame of a flow.
uint32_t spec_udp6_sum(const uint8_t* pkt, const struct packet_form* form);

// IPv6: writes the UDP checksum of a frame of `size` bytes whose bytes after the payload's first 6 are zero but the
// send time `ns` and sequence number `seq` at its end; fixed_sum is spec_udp6_sum's. A few additions: the stamps are
// little-endian, so their values' 16-bit pieces are the byte-swapped words, summed and swapped once (RFC 1071: the
// sum commutes with byte swapping); a frame of odd UDP length has them at odd offsets, i.e. not swapped.
static inline void spec_udp6_checksum(uint8_t* pkt, const struct packet_form* form, uint32_t size, uint32_t fixed_sum,
				      uint64_t ns, uint32_t seq) {
	uint32_t udp_length = size - form->l4;
	uint64_t stamps =
	    (ns & 0xffff) + (ns >> 16 & 0xffff) + (ns >> 32 & 0xffff) + (ns >> 48) + (seq & 0xffff) + (seq >> 16);
	uint16_t host = fold_sum(stamps);
	uint16_t be = udp_length & 1 ? host : (uint16_t)(host << 8 | host >> 8);
	uint16_t checksum = (uint16_t)~fold_sum((uint64_t)fixed_sum + 2 * udp_length + be);
	checksum = checksum ? checksum : 0xffff; // 0 means "none", which IPv6 forbids (RFC 768, RFC 8200)
	pkt[form->l4 + 6] = (uint8_t)(checksum >> 8);
	pkt[form->l4 + 7] = (uint8_t)checksum;
}

#endif
