// intel_setup_rss with intel_rss_82576 (src/driver/intel_rss.c), as igb.c calls it, against a hand-built igb: igb
// has no device model, so this test sees the RSS registers the driver writes, in order, on a BAR0 from the PCI model
// that is a plain register file. It checks them against values written out here from the 82576 datasheet's layout
// (7.1 and the registers of 8.10): RSSRK(n) holds key bytes 4n..4n+3 with the first in bits 7:0, RETA(n) entries
// 4n..4n+3 the same way, each a queue number in its low bits; RXCSUM.PCSD (bit 13) set; MRQC's Multiple Receive
// Queues Enable (bits 2:0) 010b, RSS only, with the hash types TcpIPv4 (bit 16), IPv4 (bit 17) and UdpIPv4 (bit 22);
// key, table and RXCSUM before MRQC. And nothing with one queue, and refused tables. (QEMU's igb shows the same
// registers at work: the vm_igb_rss VM test.)
#include <string.h>

#include <ixy/rss.h>

#include "../check.h"
#include "driver/intel_rss.h"
#include "model.h"

#define NIC_ADDR "0000:07:00.0"
// Registers of the 82576 (datasheet 8.10), written out here rather than taken from the driver's igb_regs.h.
#define REG_RXCSUM 0x05000
#define REG_MRQC 0x05818
#define REG_RETA(n) (0x05C00 + 4 * (n))
#define REG_RSSRK(n) (0x05C80 + 4 * (n))
#define RXCSUM_PCSD (1u << 13)
#define MRQC_RSS_ALL_TYPES (0x2u | 1u << 16 | 1u << 17 | 1u << 22)

// The register file, and the order of the writes: the index of each register's last write.
static uint32_t regs[MODEL_BAR0_SIZE / 4];
static unsigned writes, last_write[MODEL_BAR0_SIZE / 4];

static uint32_t bar_read32(void* model, uint32_t reg) {
	(void)model;
	return regs[reg / 4];
}

static void bar_write32(void* model, uint32_t reg, uint32_t value) {
	(void)model;
	regs[reg / 4] = value;
	last_write[reg / 4] = ++writes;
}

static const struct model_pci_ops bar_ops = {.read32 = bar_read32, .write32 = bar_write32};

static struct pci_device* pci; // the device open_bar opened last

static uint8_t* open_bar(void) {
	if (pci) {
		pci_close(pci);
	}
	model_pci_remove_all();
	memset(regs, 0, sizeof(regs));
	memset(last_write, 0, sizeof(last_write));
	writes = 0;
	regs[REG_RXCSUM / 4] = 0x300; // IPOFLD and TUOFLD, as after reset: the driver must keep them
	model_pci_add(NIC_ADDR, 0x8086, 0x10c9, 0x020000, &bar_ops, NULL);
	pci = pci_sysfs_access.open(NIC_ADDR);
	uint8_t* bar = pci && pci_map_bar0(pci) == 0 ? pci->bar0 : NULL;
	CHECK(bar != NULL);
	return bar;
}

// The default key of Microsoft's RSS specification, as RSSRK(0..9) must hold it.
static const uint32_t default_rssrk[10] = {0xda565a6d, 0xc20e5b25, 0x3d256741, 0xb08fa343, 0xcb2bcad0,
					   0xb4307bae, 0xa32dcb77, 0x0cf23080, 0x3bb7426a, 0xfa01acbe};

int main(void) {
	// Four queues, the default: the key, table entry i = i % 4, all three hash types, MRQC last.
	uint8_t* bar = open_bar();
	struct ixy_config config = {.pci_addr = NIC_ADDR, .rx_queues = 4, .tx_queues = 1};
	CHECK(intel_setup_rss(bar, &config, &intel_rss_82576));
	unsigned key_mismatches = 0, reta_mismatches = 0, latest = 0;
	for (unsigned n = 0; n < 10; n++) {
		key_mismatches += regs[REG_RSSRK(n) / 4] != default_rssrk[n];
		latest = last_write[REG_RSSRK(n) / 4] > latest ? last_write[REG_RSSRK(n) / 4] : latest;
	}
	for (unsigned n = 0; n < 32; n++) {
		reta_mismatches += regs[REG_RETA(n) / 4] != 0x03020100;
		latest = last_write[REG_RETA(n) / 4] > latest ? last_write[REG_RETA(n) / 4] : latest;
	}
	CHECK_EQ(regs[REG_RSSRK(0) / 4], 0xda565a6du);
	CHECK_EQ(key_mismatches, 0u);
	CHECK_EQ(regs[REG_RETA(0) / 4], 0x03020100u);
	CHECK_EQ(reta_mismatches, 0u);
	CHECK_EQ(regs[REG_RXCSUM / 4], 0x300u | RXCSUM_PCSD);
	CHECK_EQ(regs[REG_MRQC / 4], MRQC_RSS_ALL_TYPES);
	CHECK(last_write[REG_MRQC / 4] > latest && last_write[REG_MRQC / 4] > last_write[REG_RXCSUM / 4]);
	CHECK_EQ(writes, 10u + 32u + 1u + 1u);

	// One queue: RSS stays off, no register written.
	bar = open_bar();
	config.rx_queues = 1;
	CHECK(intel_setup_rss(bar, &config, &intel_rss_82576));
	CHECK_EQ(writes, 0u);

	// An app's table and hash types: entry i = 1 - i % 2 over two queues, IPv4 only.
	bar = open_bar();
	struct ixy_rss rss;
	ixy_rss_default(&rss, 2);
	for (unsigned i = 0; i < IXY_RSS_TABLE_SIZE; i++) {
		rss.table[i] = (uint8_t)(1 - i % 2);
	}
	rss.hash_types = IXY_RSS_IPV4;
	config = (struct ixy_config){.pci_addr = NIC_ADDR, .rx_queues = 2, .tx_queues = 1, .rss = &rss};
	CHECK(intel_setup_rss(bar, &config, &intel_rss_82576));
	CHECK_EQ(regs[REG_RETA(0) / 4], 0x00010001u);
	CHECK_EQ(regs[REG_RETA(31) / 4], 0x00010001u);
	CHECK_EQ(regs[REG_MRQC / 4], 0x2u | 1u << 17);

	// Refused: a table naming a queue the device lacks, a queue beyond what RSS reaches (8), unknown hash types.
	bar = open_bar();
	rss.table[5] = 2;
	CHECK(!intel_setup_rss(bar, &config, &intel_rss_82576));
	CHECK_EQ(writes, 0u);
	config.rx_queues = 16;
	rss.table[5] = 8;
	CHECK(!intel_setup_rss(bar, &config, &intel_rss_82576));
	rss.table[5] = 7;
	rss.hash_types = 1u << 5;
	CHECK(!intel_setup_rss(bar, &config, &intel_rss_82576));
	CHECK_EQ(writes, 0u);

	// Sixteen queues, the default: the table reaches queues 0..7 only.
	bar = open_bar();
	config = (struct ixy_config){.pci_addr = NIC_ADDR, .rx_queues = 16, .tx_queues = 1};
	CHECK(intel_setup_rss(bar, &config, &intel_rss_82576));
	CHECK_EQ(regs[REG_RETA(0) / 4], 0x03020100u);
	CHECK_EQ(regs[REG_RETA(1) / 4], 0x07060504u);
	CHECK_EQ(regs[REG_RETA(2) / 4], 0x03020100u);
	pci_close(pci);
	model_pci_remove_all();
	if (model_violation_count() > 0) {
		model_print_violations(stderr);
	}
	CHECK_EQ(model_violation_count(), 0);
	return check_summary();
}
