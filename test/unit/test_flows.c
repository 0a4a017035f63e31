// ixy-pktgen's addresses, VLAN tag, IP family and flows (apps/common/flows.h, issue 37): the parsers of the options'
// values (good values, and each kind of wrong one), the default frame byte for byte the template of packet.h, the
// frames of the other forms field by field with their lengths and checksums (computed here from the RFCs, not with the
// code under test), and how the flows walk the ranges.
#include <string.h>

#include "../check.h"
#include "../checksum.h"
#include "common/flows.h"
#include "common/packet.h"

static const uint8_t nic_mac[6] = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};

static uint32_t be16(const uint8_t* p) {
	return (uint32_t)p[0] << 8 | p[1];
}

static void test_parsers(void) {
	uint8_t mac[6] = {0};
	CHECK(parse_mac("0a:1B:2c:3D:4e:5F", mac, true) == NULL);
	CHECK(mac[0] == 0x0a && mac[1] == 0x1b && mac[5] == 0x5f);
	CHECK(parse_mac("ff:ff:ff:ff:ff:ff", mac, false) == NULL); // a destination may be broadcast
	CHECK(parse_mac("ff:ff:ff:ff:ff:ff", mac, true) != NULL);  // a source may not be a group address
	CHECK(parse_mac("0a:1b:2c:3d:4e", mac, false) != NULL);
	CHECK(parse_mac("0a:1b:2c:3d:4e:5f:", mac, false) != NULL);
	CHECK(parse_mac("0a-1b-2c-3d-4e-5f", mac, false) != NULL);
	CHECK(parse_mac("0x:1b:2c:3d:4e:5f", mac, false) != NULL);
	CHECK(mac[0] == 0xff); // untouched by the refusals

	struct ip_range r;
	uint8_t family = 0;
	CHECK(parse_ip_range("192.168.1.10-192.168.2.1", &r, &family) == NULL);
	CHECK(family == 4 && r.first[2] == 1 && r.first[3] == 10 && r.last[2] == 2 && r.last[3] == 1);
	CHECK(parse_ip_range("fd00::1", &r, &family) == NULL);
	CHECK(family == 6 && r.first[0] == 0xfd && r.first[15] == 1 && memcmp(r.first, r.last, 16) == 0);
	CHECK(parse_ip_range("10.0.0.2-10.0.0.1", &r, &family) != NULL);
	CHECK(parse_ip_range("10.0.0.1-fd00::1", &r, &family) != NULL);
	CHECK(parse_ip_range("10.0.0", &r, &family) != NULL);
	CHECK(parse_ip_range("10.0.0.1-", &r, &family) != NULL);
	CHECK(family == 6 && r.first[0] == 0xfd); // untouched by the refusals

	struct port_range p = {0, 0};
	CHECK(parse_port_range("0-65535", &p) == NULL && p.first == 0 && p.last == 65535);
	CHECK(parse_port_range("80", &p) == NULL && p.first == 80 && p.last == 80);
	CHECK(parse_port_range("65536", &p) != NULL);
	CHECK(parse_port_range("9-8", &p) != NULL);
	CHECK(parse_port_range("-1", &p) != NULL);
	CHECK(parse_port_range("1-x", &p) != NULL);
	CHECK(p.first == 80);

	uint16_t tci = 0;
	CHECK(parse_vlan("4094:7", &tci) == NULL && tci == (7 << 13 | 4094));
	CHECK(parse_vlan("0", &tci) == NULL && tci == 0);
	CHECK(parse_vlan("4095", &tci) != NULL);
	CHECK(parse_vlan("1:8", &tci) != NULL);
	CHECK(parse_vlan("1:", &tci) != NULL);
	CHECK(parse_vlan("", &tci) != NULL);

	struct packet_spec spec;
	spec_default(&spec);
	CHECK(spec_problem(&spec) == NULL);
	spec.src_family = 4;
	spec.dst_family = 6;
	CHECK(spec_problem(&spec) != NULL);
}

// No option: byte for byte packet.h's template, 60 bytes.
static void test_default_is_the_template(void) {
	struct packet_spec spec;
	spec_default(&spec);
	struct packet_form form;
	spec_form(&spec, &form);
	CHECK_EQ(form.min_size, PACKET_SIZE);
	CHECK_EQ(form.payload, PACKET_PAYLOAD_OFFSET);
	uint8_t built[PACKET_MAX_SIZE], template[PACKET_SIZE];
	spec_build(built, &spec, &form, nic_mac, 0);
	packet_build_template(template, nic_mac);
	CHECK(memcmp(built, template, PACKET_SIZE) == 0);
	CHECK_EQ(spec_flows(&spec, 1024), 1);
}

// --vlan 100:5 --src-ip 10.1.0.1-10.1.0.3 --dst-port 5000-5001 --dst-mac --src-mac: every field where 802.1Q and RFC
// 791 put it, the flows walking both ranges at once.
static void test_vlan_ipv4_ranges(void) {
	struct packet_spec spec;
	spec_default(&spec);
	CHECK(parse_mac("00:1b:21:aa:bb:cc", spec.dst_mac, false) == NULL);
	CHECK(parse_mac("02:00:00:00:00:77", spec.src_mac, true) == NULL);
	spec.src_mac_given = true;
	CHECK(parse_ip_range("10.1.0.1-10.1.0.3", &spec.src_ip, &spec.src_family) == NULL);
	CHECK(parse_port_range("5000-5001", &spec.dst_port) == NULL);
	CHECK(parse_vlan("100:5", &spec.vlan_tci) == NULL);
	spec.vlan = true;
	struct packet_form form;
	spec_form(&spec, &form);
	CHECK(form.vlan && !form.ipv6 && form.l3 == 18 && form.l4 == 38 && form.payload == 46 && form.min_size == 64);
	CHECK_EQ(spec_flows(&spec, 1024), 3);
	for (uint32_t f = 0; f < 6; f++) {
		uint8_t p[PACKET_MAX_SIZE];
		spec_build(p, &spec, &form, nic_mac, f);
		static const uint8_t dst[6] = {0x00, 0x1b, 0x21, 0xaa, 0xbb, 0xcc}, src[6] = {2, 0, 0, 0, 0, 0x77};
		CHECK(memcmp(p, dst, 6) == 0 && memcmp(p + 6, src, 6) == 0);
		CHECK_EQ(be16(p + 12), 0x8100);
		CHECK_EQ(be16(p + 14), 5 << 13 | 100); // PCP 5, DEI 0, VID 100
		CHECK_EQ(be16(p + 16), 0x0800);
		CHECK_EQ(p[18], 0x45);
		CHECK_EQ(be16(p + 20), 64 - 18); // total length: the frame after the tag and Ethernet header
		CHECK_EQ(p[26], 64);
		CHECK_EQ(p[27], 17);
		CHECK_EQ(ones_sum(p + 18, 20, 0), 0xffff);
		CHECK(p[30] == 10 && p[31] == 1 && p[32] == 0 && p[33] == 1 + f % 3);
		CHECK(p[34] == 10 && p[35] == 0 && p[36] == 0 && p[37] == 2);
		CHECK_EQ(be16(p + 38), packet_flow_port(f)); // source port not given: as --flows
		CHECK_EQ(be16(p + 40), 5000 + f % 2);
		CHECK_EQ(be16(p + 42), 64 - 38);
		CHECK_EQ(be16(p + 44), 0); // no UDP checksum over IPv4
		CHECK(memcmp(p + 46, "ixy", 3) == 0 && p[49] == 0 && p[50] == f && p[51] == 0);
	}
}

// --dst-ip fd00::10-fd00::11 --src-port 7-9: IPv6 (the source's default becomes fd00::1), the UDP checksum right for
// every flow.
static void test_ipv6(void) {
	struct packet_spec spec;
	spec_default(&spec);
	CHECK(parse_ip_range("fd00::10-fd00::11", &spec.dst_ip, &spec.dst_family) == NULL);
	CHECK(parse_port_range("7-9", &spec.src_port) == NULL);
	spec.src_port_given = true;
	struct packet_form form;
	spec_form(&spec, &form);
	CHECK(form.ipv6 && !form.vlan && form.l3 == 14 && form.l4 == 54 && form.payload == 62 && form.min_size == 80);
	CHECK_EQ(spec_flows(&spec, 1024), 3);
	for (uint32_t f = 0; f < 6; f++) {
		uint8_t p[PACKET_MAX_SIZE];
		spec_build(p, &spec, &form, nic_mac, f);
		CHECK(memcmp(p + 6, nic_mac, 6) == 0);
		CHECK_EQ(be16(p + 12), 0x86dd);
		CHECK(p[14] == 0x60 && p[15] == 0 && p[16] == 0 && p[17] == 0); // version 6, class and label 0
		CHECK_EQ(be16(p + 18), 80 - 54);                                // payload length: the UDP datagram
		CHECK(p[20] == 17 && p[21] == 64);
		CHECK(p[22] == 0xfd && p[37] == 1);
		CHECK(p[38] == 0xfd && p[53] == 0x10 + f % 2);
		CHECK_EQ(be16(p + 54), 7 + f % 3);
		CHECK_EQ(be16(p + 56), 1337);
		CHECK_EQ(be16(p + 58), 80 - 54);
		CHECK(udp6_ok(p, 14, 80));
		CHECK(memcmp(p + 62, "ixy", 3) == 0 && p[66] == f);
	}
	// spec_udp6_checksum for other sizes, stamps and both parities of the UDP length.
	uint8_t p[PACKET_MAX_SIZE];
	spec_build(p, &spec, &form, nic_mac, 1);
	uint32_t fixed = spec_udp6_sum(p, &form);
	for (uint32_t size = 80; size < 90; size++) {
		memset(p + 80, 0, sizeof(p) - 80);
		memset(p + 68, 0, 12);
		p[18] = (uint8_t)((size - 54) >> 8);
		p[19] = (uint8_t)(size - 54);
		p[58] = (uint8_t)((size - 54) >> 8);
		p[59] = (uint8_t)(size - 54);
		uint64_t ns = 0x0123456789abcdefull * size;
		uint32_t seq = 0xfedcba98u + size;
		packet_stamp_time(p, size, ns);
		packet_put_le(p + size - 4, seq, 4);
		spec_udp6_checksum(p, &form, size, fixed, ns, seq);
		CHECK(udp6_ok(p, 14, size));
	}
}

// A range longer than the flows: the flows take its first values; an IPv6 range whose upper half differs counts as
// longer than any number of flows.
static void test_walk(void) {
	struct packet_spec spec;
	spec_default(&spec);
	CHECK(parse_ip_range("10.0.0.250-10.0.1.5", &spec.src_ip, &spec.src_family) == NULL);
	CHECK_EQ(spec_flows(&spec, 1024), 12);
	struct flow_fields f;
	spec_flow(&spec, 7, &f); // 10.0.0.250 + 7 = 10.0.1.1 (the carry)
	CHECK(f.src_ip[0] == 10 && f.src_ip[1] == 0 && f.src_ip[2] == 1 && f.src_ip[3] == 1);
	spec_flow(&spec, 12, &f); // wraps to the first
	CHECK(f.src_ip[2] == 0 && f.src_ip[3] == 250);
	spec_default(&spec);
	CHECK(parse_ip_range("fd00::1-fd01::1", &spec.src_ip, &spec.src_family) == NULL);
	CHECK_EQ(spec_flows(&spec, 1024), 1024);
	CHECK(parse_port_range("1000-1999", &spec.dst_port) == NULL);
	CHECK_EQ(spec_flows(&spec, 1024), 1024);
	spec_default(&spec);
	CHECK(parse_port_range("1000-1999", &spec.dst_port) == NULL);
	CHECK_EQ(spec_flows(&spec, 1024), 1000);
	// An IPv6 range across the 64-bit halves that is short: 3 values, and the flows walk only those (the review's
	// case: counted as 1024 long, flow 3 got fd00:0:0:1::2, beyond the end).
	spec_default(&spec);
	CHECK(parse_ip_range("fd00::ffff:ffff:ffff:ffff-fd00:0:0:1::1", &spec.src_ip, &spec.src_family) == NULL);
	CHECK_EQ(spec_flows(&spec, 1024), 3);
	for (uint32_t flow = 0; flow < 6; flow++) {
		spec_flow(&spec, flow, &f);
		static const uint8_t upper[8] = {0xfd, 0, 0, 0, 0, 0, 0, 0};
		bool low_half = flow % 3 == 0; // fd00::ffff:ffff:ffff:ffff, then fd00:0:0:1::, fd00:0:0:1::1
		CHECK(memcmp(f.src_ip, upper, 7) == 0 && f.src_ip[7] == (low_half ? 0 : 1));
		CHECK(f.src_ip[15] == (low_half ? 0xff : (uint8_t)(flow % 3 - 1)) &&
		      f.src_ip[8] == (low_half ? 0xff : 0));
	}
}

int main(void) {
	test_parsers();
	test_default_is_the_template();
	test_vlan_ipv4_ranges();
	test_ipv6();
	test_walk();
	return check_summary();
}
