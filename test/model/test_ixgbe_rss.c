// Receive side scaling on the 82599: the model's hash against the published verification suite.
#include <stdlib.h>
#include <string.h>

#include <ixy/ixy.h>

#include "../check.h"
#include "../rss_vectors.h"
#include "driver/driver.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "pci.h"
#include "seam.h"
#include "test_regs.h"

#define NIC_ADDR "0000:03:00.0"

// The RSS registers, written down from the datasheet here (7.1.2.8, 8.2.3.7.12 MRQC and the RETA and RSSRK
// registers of 8.2.3.7), apart from the driver's and the model's definitions.
#define R_MRQC 0x05818
#define R_RETA(n) (0x05C00 + 4 * (n))
#define R_RSSRK(n) (0x05C80 + 4 * (n))
#define MRQC_RSS 0x1u
#define MRQC_TCPIPV4 (1u << 16)
#define MRQC_IPV4 (1u << 17)
#define MRQC_UDPIPV4 (1u << 22)

// RSSRK(n): key bytes 4n..4n+3, the first in the lowest byte; RETA(n) the same for table entries.
static uint32_t pack4(const uint8_t* bytes) {
	return (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
}

// (b) The model's own hash, programmed by hand through the registers, against both columns of the suite, and its
// choice of queue from RETA.
static void test_model_hash(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct pci_device* pci = pci_open_sysfs(NIC_ADDR);
	CHECK(pci != NULL);
	size_t bar_size;
	uint8_t* bar = pci ? pci_map_bar(pci, 0, &bar_size) : NULL;
	CHECK(bar != NULL);
	if (!bar) {
		model_pci_remove_all();
		return;
	}
	ixy_seam_write32(bar, R_CTRL, CTRL_RST);
	model_advance_us(10000);
	for (uint32_t n = 0; n < 10; n++) {
		ixy_seam_write32(bar, R_RSSRK(n), pack4(&rss_test_key[4 * n]));
	}
	uint8_t table[128];
	for (uint32_t i = 0; i < 128; i++) {
		table[i] = (uint8_t)((i * 7 + 3) % 16); // every entry different from its neighbours
	}
	for (uint32_t n = 0; n < 32; n++) {
		ixy_seam_write32(bar, R_RETA(n), pack4(&table[4 * n]));
	}
	uint32_t hash;
	uint16_t queue;
	uint8_t frame[64];
	for (size_t i = 0; i < NUM_RSS_VECTORS; i++) {
		const struct rss_vector* v = &rss_vectors[i];
		rss_test_frame(frame, sizeof(frame), v->src, v->dst, v->src_port, v->dst_port, RSS_TEST_TCP, 0, 0, 0);
		ixy_seam_write32(bar, R_MRQC, MRQC_RSS | MRQC_IPV4);
		CHECK(model_ixgbe_rss(nic, frame, sizeof(frame), &hash, &queue));
		printf("model row %zu: IPv4 0x%08x (expected 0x%08x)", i + 1, hash, v->hash_ipv4);
		CHECK_EQ(hash, v->hash_ipv4);
		CHECK_EQ(queue, table[v->hash_ipv4 & 127]);
		ixy_seam_write32(bar, R_MRQC, MRQC_RSS | MRQC_IPV4 | MRQC_TCPIPV4);
		CHECK(model_ixgbe_rss(nic, frame, sizeof(frame), &hash, &queue));
		printf(", IPv4/TCP 0x%08x (expected 0x%08x)\n", hash, v->hash_ipv4_tcp);
		CHECK_EQ(hash, v->hash_ipv4_tcp);
		CHECK_EQ(queue, table[v->hash_ipv4_tcp & 127]);
		// The same addresses and ports over UDP: hashed with the ports only when UDP/IPv4 is enabled.
		rss_test_frame(frame, sizeof(frame), v->src, v->dst, v->src_port, v->dst_port, RSS_TEST_UDP, 0, 0, 0);
		CHECK(model_ixgbe_rss(nic, frame, sizeof(frame), &hash, &queue));
		CHECK_EQ(hash, v->hash_ipv4);
		ixy_seam_write32(bar, R_MRQC, MRQC_RSS | MRQC_UDPIPV4);
		CHECK(model_ixgbe_rss(nic, frame, sizeof(frame), &hash, &queue));
		CHECK_EQ(hash, v->hash_ipv4_tcp);
		// A fragment, with IPv4 not enabled: not hashed, queue 0.
		rss_test_frame(frame, sizeof(frame), v->src, v->dst, v->src_port, v->dst_port, RSS_TEST_UDP, 0, 0x2000,
			       0);
		CHECK(!model_ixgbe_rss(nic, frame, sizeof(frame), &hash, &queue));
		CHECK_EQ(hash, 0);
		CHECK_EQ(queue, 0);
	}
	// MRQE 0000b: RSS off, whatever the rest says.
	ixy_seam_write32(bar, R_MRQC, MRQC_IPV4 | MRQC_TCPIPV4);
	CHECK(!model_ixgbe_rss(nic, frame, sizeof(frame), &hash, &queue));
	CHECK_NO_NEW_VIOLATIONS();
	pci_close(pci);
	model_pci_remove_all();
}

int main(void) {
	test_model_hash();
	return model_test_summary();
}
