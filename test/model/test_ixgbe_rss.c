// Receive side scaling on the 82599: the model's hash against the published verification suite, the registers the
// ixgbe driver writes for it (RSSRK, RETA, MRQC), and frames of many flows arriving on the queues the software hash
// predicts, each flow on one queue and in order.
#include <stdlib.h>
#include <string.h>

#include <ixy/ixy.h>
#include <ixy/rss.h>

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
	struct pci_device* pci = pci_sysfs_access.open(NIC_ADDR);
	CHECK(pci != NULL);
	uint8_t* bar = pci && pci_map_bar0(pci) == 0 ? pci->bar0 : NULL;
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

static struct ixy_device* open_rss(uint16_t rx_queues, const struct ixy_rss* rss) {
	struct ixy_config config = {.pci_addr = NIC_ADDR, .rx_queues = rx_queues, .tx_queues = 1, .rss = rss};
	struct ixy_device* dev = ixy_init_config(&config);
	model_advance_us(1000000);
	return dev;
}

// Checks the RSS registers against a key, a table and an MRQC value computed here.
static void check_rss_registers(const struct model_ixgbe* nic, const uint8_t key[40], const uint8_t table[128],
				uint32_t mrqc) {
	for (uint32_t n = 0; n < 10; n++) {
		CHECK_EQ(model_ixgbe_peek(nic, R_RSSRK(n)), pack4(&key[4 * n]));
	}
	for (uint32_t n = 0; n < 32; n++) {
		CHECK_EQ(model_ixgbe_peek(nic, R_RETA(n)), pack4(&table[4 * n]));
	}
	CHECK_EQ(model_ixgbe_peek(nic, R_MRQC), mrqc);
}

// (c) What the driver writes: with 4 queues the default key, table entry i = i % 4, and MRQC with RSS and all three
// IPv4 hash types, before the receiver is enabled; an app's own configuration; none of it with one queue; and a
// table naming a queue the device does not have is refused.
static void test_driver_registers(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_device* dev = open_rss(4, NULL);
	CHECK(dev != NULL);
	uint8_t table[128];
	for (uint32_t i = 0; i < 128; i++) {
		table[i] = (uint8_t)(i % 4);
	}
	CHECK_EQ(model_ixgbe_peek(nic, R_RSSRK(0)), 0xda565a6d); // 6d 5a 56 da: the first byte in bits 7:0
	CHECK_EQ(model_ixgbe_peek(nic, R_RETA(0)), 0x03020100);  // entries 0, 1, 2, 3
	check_rss_registers(nic, rss_test_key, table, MRQC_RSS | MRQC_IPV4 | MRQC_TCPIPV4 | MRQC_UDPIPV4);
	int64_t mrqc = model_ixgbe_log_find(nic, 0, MODEL_WRITE, R_MRQC, MRQC_RSS);
	int64_t rssrk = model_ixgbe_log_find(nic, 0, MODEL_WRITE, R_RSSRK(9), 0);
	int64_t reta = model_ixgbe_log_find(nic, 0, MODEL_WRITE, R_RETA(31), 0);
	int64_t rxen = model_ixgbe_log_find(nic, 0, MODEL_WRITE, R_RXCTRL, 1);
	CHECK(rssrk >= 0 && reta >= 0 && mrqc >= 0 && rxen >= 0);
	CHECK(rssrk < mrqc && reta < mrqc && mrqc < rxen); // 4.6.7: key and table, then MRQC; the receiver last
	CHECK_NO_NEW_VIOLATIONS();
	ixy_close(dev);
	model_pci_remove_all();

	// An app's key, table and hash types.
	nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_rss rss;
	for (uint32_t i = 0; i < 40; i++) {
		rss.key[i] = (uint8_t)(i * 37 + 1);
	}
	for (uint32_t i = 0; i < 128; i++) {
		rss.table[i] = (uint8_t)(i < 64 ? 2 : i % 3);
	}
	rss.hash_types = IXY_RSS_IPV4 | IXY_RSS_IPV4_UDP;
	dev = open_rss(3, &rss);
	CHECK(dev != NULL);
	check_rss_registers(nic, rss.key, rss.table, MRQC_RSS | MRQC_IPV4 | MRQC_UDPIPV4);
	CHECK_NO_NEW_VIOLATIONS();
	ixy_close(dev);
	model_pci_remove_all();

	// One queue: RSS stays off, no RSS register is written.
	nic = model_ixgbe_add(NIC_ADDR);
	dev = open_rss(1, NULL);
	CHECK(dev != NULL);
	CHECK_EQ(model_ixgbe_peek(nic, R_MRQC), 0);
	CHECK(model_ixgbe_log_find(nic, 0, MODEL_WRITE, R_MRQC, 0) < 0);
	CHECK(model_ixgbe_log_find(nic, 0, MODEL_WRITE, R_RSSRK(0), 0) < 0);
	CHECK(model_ixgbe_log_find(nic, 0, MODEL_WRITE, R_RETA(0), 0) < 0);
	ixy_close(dev);
	model_pci_remove_all();

	// Entry 100 names queue 3 of a 3-queue device; unknown hash types: both refused, with a message.
	const struct {
		uint8_t bad_entry;
		uint32_t hash_types;
		const char* message;
	} refused[] = {{3, IXY_RSS_ALL, "RSS table entry 100 is queue 3"}, {0, 1u << 7, "unknown bits"}};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		model_ixgbe_add(NIC_ADDR);
		ixy_rss_default(&rss, 3);
		rss.table[100] = refused[i].bad_entry;
		rss.hash_types = refused[i].hash_types;
		model_test_capture_start();
		dev = open_rss(3, &rss);
		char* text = model_test_capture_end();
		CHECK(dev == NULL);
		CHECK(strstr(text, refused[i].message) != NULL);
		free(text);
		ixy_close(dev);
		CHECK_NO_NEW_VIOLATIONS();
		model_pci_remove_all();
	}
}

#define FLOWS 64
#define PER_FLOW 6

// (d) Frames of many flows (TCP and UDP, and some not IPv4) into the 82599 with 4 RX queues: each arrives on the queue
// ixy_rss_queue predicts with the default configuration, the queue the model picked, and each flow in order.
static void test_flows(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_device* dev = open_rss(4, NULL);
	CHECK(dev != NULL);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	struct ixy_rss rss;
	ixy_rss_default(&rss, 4);
	uint16_t expected[FLOWS + 1];
	uint32_t per_queue[4] = {0};
	uint8_t frame[64];
	for (uint32_t round = 0; round < PER_FLOW; round++) {
		for (uint32_t flow = 0; flow <= FLOWS; flow++) {
			const uint8_t src[4] = {10, 1, (uint8_t)(flow / 8), (uint8_t)(flow * 29)};
			const uint8_t dst[4] = {192, 168, 7, (uint8_t)(flow % 5)};
			uint8_t proto = flow % 2 ? RSS_TEST_TCP : RSS_TEST_UDP;
			uint32_t seq = flow << 16 | round;
			rss_test_frame(frame, sizeof(frame), src, dst, (uint16_t)(1024 + flow * 97), 80, proto, 0, 0,
				       seq);
			if (flow == FLOWS) {
				frame[12] = 0x08; // ARP: not hashed, queue 0
				frame[13] = 0x06;
			}
			expected[flow] = ixy_rss_queue(&rss, frame, sizeof(frame));
			uint16_t queue = 0xFFFF;
			CHECK_EQ(model_ixgbe_receive(nic, frame, sizeof(frame), &queue), MODEL_RX_DELIVERED);
			CHECK_EQ(queue, expected[flow]);
			per_queue[expected[flow] % 4] += round == 0;
		}
	}
	CHECK_EQ(expected[FLOWS], 0);
	printf("flows per queue: %u %u %u %u (the last queue 0 one is not IPv4)\n", per_queue[0], per_queue[1],
	       per_queue[2], per_queue[3]);
	for (uint16_t q = 0; q < 4; q++) {
		CHECK(per_queue[q] > 0); // all four queues get flows
	}
	uint32_t next_round[FLOWS + 1] = {0}, received = 0;
	struct pkt_buf* bufs[64];
	for (uint16_t q = 0; q < 4; q++) {
		uint32_t n;
		while ((n = ixy_rx_batch(dev, q, bufs, 64)) > 0) {
			for (uint32_t i = 0; i < n; i++) {
				uint32_t seq = model_test_frame_seq(bufs[i]->data, bufs[i]->size);
				uint32_t flow = seq >> 16;
				CHECK(flow <= FLOWS);
				if (flow <= FLOWS) {
					CHECK_EQ(q, expected[flow]);
					CHECK_EQ(seq & 0xFFFF, next_round[flow]); // in order
					next_round[flow]++;
				}
				received++;
				pkt_buf_free(bufs[i]);
			}
		}
	}
	CHECK_EQ(received, (FLOWS + 1) * PER_FLOW);
	CHECK_NO_NEW_VIOLATIONS();
	ixy_close(dev);
	model_pci_remove_all();
}

int main(void) {
	test_model_hash();
	test_driver_registers();
	test_flows();
	return model_test_summary();
}
