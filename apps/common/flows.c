// Addresses, VLAN tag and IP family of ixy-pktgen's frames, and its flows (see flows.h).
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flows.h"
#include "packet.h"
#include "parse.h"

// A decimal number of at most 5 digits in [0, max] (parse_u64, with a bound on digits).
static bool parse_small(const char* text, uint64_t max, uint64_t* value) {
	return strlen(text) <= 5 && parse_u64(text, 0, max, value) == NULL;
}

void spec_default(struct packet_spec* spec) {
	*spec = (struct packet_spec){.dst_mac = {0x02, 0, 0, 0, 0, 0x02},
				     .src_ip = {.first = {10, 0, 0, 1}, .last = {10, 0, 0, 1}},
				     .dst_ip = {.first = {10, 0, 0, 2}, .last = {10, 0, 0, 2}},
				     .dst_port = {1337, 1337}};
}

static int hex_digit(char c) {
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

const char* parse_mac(const char* text, uint8_t mac[6], bool source) {
	uint8_t bytes[6];
	if (strlen(text) != 17) {
		return "is not a MAC address like 02:00:00:00:00:02";
	}
	for (int i = 0; i < 6; i++) {
		int high = hex_digit(text[3 * i]), low = hex_digit(text[3 * i + 1]);
		if (high < 0 || low < 0 || (i < 5 && text[3 * i + 2] != ':')) {
			return "is not a MAC address like 02:00:00:00:00:02";
		}
		bytes[i] = (uint8_t)(high << 4 | low);
	}
	if (source && (bytes[0] & 1)) {
		return "is a group (multicast) address: no frame comes from one";
	}
	memcpy(mac, bytes, 6);
	return NULL;
}

// One address, IPv4 or IPv6, into out (16 bytes); returns its family or 0.
static uint8_t parse_ip(const char* text, uint8_t out[16]) {
	memset(out, 0, 16);
	if (inet_pton(AF_INET, text, out) == 1) {
		return 4;
	}
	return inet_pton(AF_INET6, text, out) == 1 ? 6 : 0;
}

const char* parse_ip_range(const char* text, struct ip_range* range, uint8_t* family) {
	char first[64];
	const char* last; // after the dash, NULL without one
	if (!parse_split(text, '-', first, sizeof(first), &last)) {
		return "is not an address or <first>-<last>";
	}
	struct ip_range r;
	uint8_t f = parse_ip(first, r.first), l = last ? parse_ip(last, r.last) : f;
	if (!last) {
		memcpy(r.last, r.first, 16);
	}
	if (f == 0 || l == 0) {
		return "is not an IPv4 or IPv6 address or <first>-<last>";
	}
	if (f != l) {
		return "mixes IPv4 and IPv6";
	}
	if (memcmp(r.last, r.first, 16) < 0) {
		return "ends below its start";
	}
	*range = r;
	*family = f;
	return NULL;
}

const char* parse_port_range(const char* text, struct port_range* range) {
	char first[8];
	const char* last; // after the dash, NULL without one
	uint64_t a, b;
	if (!parse_split(text, '-', first, sizeof(first), &last) || !parse_small(first, 65535, &a) ||
	    (last && !parse_small(last, 65535, &b))) {
		return "is not a port (0 to 65535) or <first>-<last>";
	}
	if (!last) {
		b = a;
	} else if (b < a) {
		return "ends below its start";
	}
	*range = (struct port_range){(uint16_t)a, (uint16_t)b};
	return NULL;
}

const char* parse_vlan(const char* text, uint16_t* tci) {
	char id[8];
	const char* priority_text; // after the colon, NULL without one
	uint64_t vid, priority = 0;
	if (!parse_split(text, ':', id, sizeof(id), &priority_text) || !parse_small(id, FLOWS_VLAN_MAX_ID, &vid) ||
	    (priority_text && !parse_small(priority_text, 7, &priority))) {
		return "is not <id>[:<priority>], id 0 to 4094, priority 0 to 7";
	}
	*tci = (uint16_t)(priority << 13 | vid);
	return NULL;
}

const char* spec_problem(const struct packet_spec* spec) {
	if (spec->src_family && spec->dst_family && spec->src_family != spec->dst_family) {
		return "--src-ip and --dst-ip mix IPv4 and IPv6";
	}
	return NULL;
}

static bool spec_ipv6(const struct packet_spec* spec) {
	return spec->src_family == 6 || spec->dst_family == 6;
}

// The number of values in a range, at most max: last - first + 1, subtracted byte by byte with borrow over the
// whole address (an IPv6 range may cross any byte, e.g. fd00::ffff:ffff:ffff:ffff-fd00:0:0:1::1 has 3 values).
static uint32_t ip_range_length(const struct ip_range* r, bool ipv4, uint32_t max) {
	int len = ipv4 ? 4 : 16;
	uint8_t diff[16] = {0};
	int borrow = 0;
	for (int i = len - 1; i >= 0; i--) {
		int d = r->last[i] - r->first[i] - borrow;
		borrow = d < 0;
		diff[i] = (uint8_t)(d + (borrow ? 256 : 0));
	}
	uint64_t low = 0;
	for (int i = 0; i < len; i++) {
		if (i < len - 4 && diff[i] != 0) {
			return max; // 2^32 apart or more
		}
		low = low << 8 | diff[i];
	}
	return low >= max ? max : (uint32_t)(low + 1);
}

static uint32_t max_u32(uint32_t a, uint32_t b) {
	return a > b ? a : b;
}

uint32_t spec_flows(const struct packet_spec* spec, uint32_t max) {
	bool v4 = !spec_ipv6(spec);
	uint32_t n = max_u32(ip_range_length(&spec->src_ip, v4, max), ip_range_length(&spec->dst_ip, v4, max));
	n = max_u32(n, max_u32((uint32_t)spec->src_port.last - spec->src_port.first + 1,
			       (uint32_t)spec->dst_port.last - spec->dst_port.first + 1));
	return n < max ? n : max;
}

void spec_form(const struct packet_spec* spec, struct packet_form* form) {
	form->ipv6 = spec_ipv6(spec);
	form->vlan = spec->vlan;
	form->l3 = spec->vlan ? 18 : 14;
	form->l4 = (uint16_t)(form->l3 + (form->ipv6 ? 40 : 20));
	form->payload = (uint16_t)(form->l4 + 8);
	form->min_size = (uint16_t)(form->payload + (PACKET_SIZE - PACKET_PAYLOAD_OFFSET));
}

// The address `index` values after range->first, in 16 bytes; IPv4: the first 4 bytes. Adds to the last bytes with
// carry (index < 2^32 of a range that long).
static void ip_at(const struct ip_range* r, bool ipv4, uint32_t index, uint8_t out[16]) {
	memcpy(out, r->first, 16);
	uint64_t carry = index;
	for (int i = ipv4 ? 3 : 15; i >= 0 && carry; i--) {
		carry += out[i];
		out[i] = (uint8_t)carry;
		carry >>= 8;
	}
}

void spec_flow(const struct packet_spec* spec, uint32_t flow, struct flow_fields* fields) {
	static const struct ip_range v6_src = {.first = {0xfd, [15] = 1}, .last = {0xfd, [15] = 1}};
	static const struct ip_range v6_dst = {.first = {0xfd, [15] = 2}, .last = {0xfd, [15] = 2}};
	bool v6 = spec_ipv6(spec);
	// A side not given takes its family's default.
	const struct ip_range* src = v6 && spec->src_family != 6 ? &v6_src : &spec->src_ip;
	const struct ip_range* dst = v6 && spec->dst_family != 6 ? &v6_dst : &spec->dst_ip;
	ip_at(src, !v6, flow % ip_range_length(src, !v6, UINT32_MAX), fields->src_ip);
	ip_at(dst, !v6, flow % ip_range_length(dst, !v6, UINT32_MAX), fields->dst_ip);
	const struct port_range* s = &spec->src_port;
	fields->src_port = spec->src_port_given ? (uint16_t)(s->first + flow % ((uint32_t)s->last - s->first + 1))
						: packet_flow_port(flow);
	const struct port_range* d = &spec->dst_port;
	fields->dst_port = (uint16_t)(d->first + flow % ((uint32_t)d->last - d->first + 1));
}

static void put_be16(uint8_t* p, uint32_t value) {
	p[0] = (uint8_t)(value >> 8);
	p[1] = (uint8_t)value;
}

uint32_t sum_be16(const uint8_t* p, uint32_t len) {
	uint32_t sum = 0;
	for (uint32_t i = 0; i + 1 < len; i += 2) {
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	}
	return sum;
}

uint32_t spec_udp6_sum(const uint8_t* pkt, const struct packet_form* form) {
	return sum_be16(pkt + form->l3 + 8, 32) + 17 + sum_be16(pkt + form->l4, 4) + sum_be16(pkt + form->payload, 6);
}

void spec_build(uint8_t* pkt, const struct packet_spec* spec, const struct packet_form* form, const uint8_t src_mac[6],
		uint32_t flow) {
	struct flow_fields f;
	spec_flow(spec, flow, &f);
	uint32_t size = form->min_size;
	memset(pkt, 0, size);
	memcpy(pkt, spec->dst_mac, 6);
	memcpy(pkt + 6, spec->src_mac_given ? spec->src_mac : src_mac, 6);
	if (spec->vlan) {
		put_be16(pkt + 12, 0x8100);
		put_be16(pkt + 14, spec->vlan_tci);
	}
	uint8_t* ip = pkt + form->l3;
	put_be16(ip - 2, form->ipv6 ? 0x86dd : 0x0800);
	if (form->ipv6) {
		ip[0] = 0x60;                      // version 6, traffic class and flow label 0
		put_be16(ip + 4, size - form->l4); // payload length: the UDP datagram
		ip[6] = 17;                        // next header UDP
		ip[7] = 64;                        // hop limit
		memcpy(ip + 8, f.src_ip, 16);
		memcpy(ip + 24, f.dst_ip, 16);
	} else {
		ip[0] = 0x45;
		put_be16(ip + 2, size - form->l3);
		ip[8] = 64;
		ip[9] = 17;
		memcpy(ip + 12, f.src_ip, 4);
		memcpy(ip + 16, f.dst_ip, 4);
		put_be16(ip + 10, ipv4_checksum(ip, PACKET_IPV4_HEADER_SIZE));
	}
	uint8_t* udp = pkt + form->l4;
	put_be16(udp, f.src_port);
	put_be16(udp + 2, f.dst_port);
	put_be16(udp + 4, size - form->l4);
	memcpy(pkt + form->payload, "ixy", 3);
	pkt[form->payload + FLOWS_NUMBER] = (uint8_t)flow;
	pkt[form->payload + FLOWS_NUMBER + 1] = (uint8_t)(flow >> 8);
	if (form->ipv6) {
		spec_udp6_checksum(pkt, form, size, spec_udp6_sum(pkt, form), 0, 0);
	}
}

// One line on stderr for a value a parser refused (problem not NULL).
static bool refused(const char* prog, const char* option, const char* text, const char* problem) {
	if (problem) {
		fprintf(stderr, "%s: %s '%s' %s\n", prog, option, text, problem);
	}
	return !problem;
}

bool arg_address(const char* prog, char option, const char* text, struct packet_spec* spec) {
	switch (option) {
		case 'A':
			spec->src_mac_given = true;
			return refused(prog, "--src-mac", text, parse_mac(text, spec->src_mac, true));
		case 'B':
			return refused(prog, "--dst-mac", text, parse_mac(text, spec->dst_mac, false));
		case 'I':
			return refused(prog, "--src-ip", text, parse_ip_range(text, &spec->src_ip, &spec->src_family));
		case 'J':
			return refused(prog, "--dst-ip", text, parse_ip_range(text, &spec->dst_ip, &spec->dst_family));
		case 'O':
			spec->src_port_given = true;
			return refused(prog, "--src-port", text, parse_port_range(text, &spec->src_port));
		case 'D':
			return refused(prog, "--dst-port", text, parse_port_range(text, &spec->dst_port));
		case 'E':
			spec->mark_end = true;
			return true;
		default: // 'V'
			spec->vlan = true;
			return refused(prog, "--vlan", text, parse_vlan(text, &spec->vlan_tci));
	}
}
