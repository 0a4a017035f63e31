// Tests of the 82599 model itself, without the driver: a tiny hand-written "driver" pokes registers through the seam
// and builds descriptor rings, and the test checks that the model behaves as the datasheet says and that every
// check fires when it should. If these pass, a failure in the driver tests points at the driver.
#include <stdlib.h>
#include <string.h>

#include <ixy/memory.h>

#include "../check.h"
#include "access.h"
#include "driver/driver.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "pci.h"
#include "seam.h"
#include "test_regs.h"

static struct pci_device* pci;
static uint8_t* bar;
static size_t bar_size;

static void w(uint32_t reg, uint32_t value) {
	ixy_seam_write32(bar, reg, value);
}

static uint32_t r(uint32_t reg) {
	return ixy_seam_read32(bar, reg);
}

// The model's sysfs open, which cannot fail for a device the test added.
static struct pci_device* open_pci(const char* addr) {
	struct pci_device* opened = pci_sysfs_access.open(addr);
	if (!opened) {
		model_usage_error("the model cannot open %s", addr);
	}
	return opened;
}

static struct model_ixgbe* open_nic(const char* addr) {
	struct model_ixgbe* nic = model_ixgbe_add(addr);
	pci = open_pci(addr);
	CHECK_EQ(pci_set_bus_master(pci, true), 0);
	CHECK_EQ(pci_map_bar0(pci), 0);
	bar = pci->bar0;
	bar_size = pci->bar0_size;
	CHECK(bar != NULL);
	CHECK_EQ(bar_size, MODEL_BAR0_SIZE);
	return nic;
}

static void reset_and_wait(void) {
	w(R_CTRL, CTRL_RST);
	model_advance_us(10000);
}

static void finish_nic(void) {
	pci_close(pci);
	model_pci_remove_all();
}

// A minimal receive and transmit setup on queue 0, following 4.6.7 and 4.6.8.
struct mini {
	struct dma_memory rx_ring, tx_ring, buffers;
	uint32_t size;
};

static uint8_t* buffer(struct mini* m, uint32_t i) {
	return (uint8_t*)m->buffers.virt + (size_t)i * 2048;
}

// The address the device uses for p (test/seam: the virtual address, or a "physical" one).
static uintptr_t device_addr(const void* p) {
	return memory_device_address(p);
}

static void write_rx_desc(struct mini* m, uint32_t i, uintptr_t pkt, uint64_t hdr) {
	uint64_t* desc = (uint64_t*)((uint8_t*)m->rx_ring.virt + (size_t)i * 16);
	desc[0] = pkt;
	desc[1] = hdr;
}

static void write_tx_desc(struct mini* m, uint32_t i, uintptr_t addr, uint32_t cmd, uint32_t olinfo) {
	uint32_t* desc = (uint32_t*)((uint8_t*)m->tx_ring.virt + (size_t)i * 16);
	desc[0] = (uint32_t)addr;
	desc[1] = (uint32_t)((uint64_t)addr >> 32);
	desc[2] = cmd;
	desc[3] = olinfo;
}

static void mini_init(struct mini* m, uint32_t size, uint32_t srrctl_extra) {
	m->size = size;
	CHECK_EQ(memory_allocate_dma(size * 16, true, &m->rx_ring), 0);
	CHECK_EQ(memory_allocate_dma(size * 16, true, &m->tx_ring), 0);
	CHECK_EQ(memory_allocate_dma((size_t)size * 2 * 2048, false, &m->buffers), 0);
	reset_and_wait();
	CHECK(r(R_EEC) & EEC_ARD);
	CHECK(r(R_RDRXCTL) & RDRXCTL_DMAIDONE);
	w(R_AUTOC, AUTOC_LMS_10G_SERIAL | AUTOC_RESTART_AN);
	// receive
	w(R_RDRXCTL, RDRXCTL_CRCSTRIP | RDRXCTL_RSCACKC | RDRXCTL_FCOE_WRFIX);
	w(R_SRRCTL(0), SRRCTL_ADV_ONEBUF | 2 | srrctl_extra);
	w(R_RDBAL(0), (uint32_t)m->rx_ring.phy);
	w(R_RDBAH(0), (uint32_t)((uint64_t)m->rx_ring.phy >> 32));
	w(R_RDLEN(0), size * 16);
	for (uint32_t i = 0; i < size; i++) {
		write_rx_desc(m, i, device_addr(buffer(m, i)), 0);
	}
	w(R_FCTRL, FCTRL_BAM);
	w(R_CTRL_EXT, 1u << 16);
	w(R_DCA_RXCTRL(0), 0);
	w(R_SECRXCTRL, 2);
	CHECK(r(R_SECRXSTAT) & 1);
	w(R_RXCTRL, 1);
	w(R_SECRXCTRL, 0);
	w(R_RXDCTL(0), ENABLE);
	CHECK(r(R_RXDCTL(0)) & ENABLE);
	w(R_RDT(0), size - 1);
	// transmit
	w(R_DMATXCTL, 1);
	w(R_TDBAL(0), (uint32_t)m->tx_ring.phy);
	w(R_TDBAH(0), (uint32_t)((uint64_t)m->tx_ring.phy >> 32));
	w(R_TDLEN(0), size * 16);
	w(R_TXDCTL(0), ENABLE);
	CHECK(r(R_TXDCTL(0)) & ENABLE);
	model_advance_us(1000000);
	CHECK(r(R_LINKS) & LINKS_UP);
}

static void mini_free(struct mini* m) {
	memory_free_dma(&m->rx_ring);
	memory_free_dma(&m->tx_ring);
	memory_free_dma(&m->buffers);
}

static void test_pci(void) {
	struct model_ixgbe* nic = model_ixgbe_add("0000:01:00.0");
	model_pci_add("0000:02:00.0", 0x8086, 0x2922, 0x010601, NULL, NULL); // a SATA controller
	struct pci_ids ids;
	CHECK_EQ(pci_read_ids("0000:01:00.0", &ids), 0);
	CHECK_EQ(ids.vendor_id, 0x8086);
	CHECK_EQ(ids.device_id, 0x10FB);
	CHECK_EQ(ids.class_code, 0x020000);
	CHECK_EQ(pci_read_ids("0000:02:00.0", &ids), 0);
	CHECK_EQ(ids.class_code, 0x010601);
	CHECK_EQ(pci_read_ids("0000:09:00.0", &ids), -1);
	size_t size;
	struct pci_device* sata = open_pci("0000:02:00.0");
	CHECK(sata->access->map_bar(sata, 0, &size) == NULL);
	CHECK_VIOLATION("no ixy driver handles");
	CHECK_EQ(model_violation_count(), 0);
	pci_close(sata);
	pci = open_pci("0000:01:00.0");
	CHECK_EQ(pci_map_bar0(pci), 0);
	CHECK(pci->bar0 != NULL);
	bar = pci->bar0;
	bar_size = pci->bar0_size;
	CHECK_EQ(r(R_STATUS) & (3u << 2), 0); // LAN ID 0 for function 0
	r(0x00002);
	CHECK_VIOLATION("not an aligned offset");
	r(MODEL_BAR0_SIZE);
	CHECK_VIOLATION("not an aligned offset");
	// the EEPROM's MAC address, also visible at the 82598 alias
	CHECK_EQ(r(R_RAL(0)), 0x01000002);
	CHECK_EQ(r(R_RAH(0)), 0x80000000);
	CHECK_EQ(r(R_RAL0_ALIAS), 0x01000002);
	pci_close(pci);
	CHECK_EQ(model_ixgbe_peek(nic, R_CTRL), 0);
	r(R_CTRL);
	CHECK_VIOLATION("not mapped");
	model_pci_remove_all();
	CHECK_EQ(model_violation_count(), 0);
}

static void test_reset_and_timing(void) {
	open_nic("0000:01:00.1");
	CHECK_EQ(r(R_STATUS) & (3u << 2), 1u << 2); // LAN ID 1
	w(R_EIMC, 0x7FFFFFFF);
	w(R_CTRL, CTRL_RST);
	CHECK(r(R_CTRL) & CTRL_RST);
	w(R_EIMC, 0x7FFFFFFF);
	CHECK_VIOLATION("still in reset");
	model_advance_us(1000);
	CHECK_EQ(r(R_CTRL) & CTRL_RST, 0);
	CHECK_EQ(r(R_EEC) & EEC_ARD, 0);
	CHECK_EQ(r(R_RDRXCTL) & RDRXCTL_DMAIDONE, 0);
	w(R_AUTOC, AUTOC_LMS_10G_SERIAL | AUTOC_RESTART_AN);
	CHECK_VIOLATION("before EEC.ARD");
	w(R_RDLEN(0), 1024);
	CHECK_VIOLATION("before RDRXCTL.DMAIDONE");
	model_advance_us(2000);
	CHECK(r(R_EEC) & EEC_ARD);
	CHECK(r(R_RDRXCTL) & RDRXCTL_DMAIDONE);
	CHECK_EQ(r(R_RDRXCTL) & (0x1Fu << 17), 0x8u << 17); // RSCFRSTSIZE reads non-zero after reset
	CHECK_EQ(r(R_SRRCTL_ALIAS(3)), 0x402);              // SRRCTL default, through the 82598 alias
	CHECK_EQ(r(R_RDLEN(0)), 1024);                      // the write above was taken despite the violation
	finish_nic();
}

static void test_link(void) {
	struct model_ixgbe* nic = open_nic("0000:01:00.0");
	reset_and_wait();
	CHECK_EQ(r(R_LINKS) & LINKS_UP, 0);
	model_advance_us(5000000);
	CHECK_EQ(r(R_LINKS) & LINKS_UP, 0); // the link waits for Restart_AN
	w(R_AUTOC, AUTOC_LMS_10G_SERIAL | AUTOC_RESTART_AN);
	CHECK_EQ(r(R_AUTOC) & AUTOC_RESTART_AN, 0); // self-clearing
	model_advance_us(499000);
	CHECK_EQ(r(R_LINKS) & LINKS_UP, 0);
	model_advance_us(1000);
	uint32_t links = r(R_LINKS);
	CHECK(links & LINKS_UP);
	CHECK_EQ(links & LINKS_SPEED_MASK, LINKS_SPEED_10G);
	CHECK(r(R_EICR) & (1u << 20));       // link status change
	CHECK_EQ(r(R_EICR) & (1u << 20), 0); // cleared by the read
	w(R_AUTOC, AUTOC_LMS_1G_AN | AUTOC_RESTART_AN);
	CHECK_EQ(r(R_LINKS) & LINKS_UP, 0);
	model_advance_us(1000000);
	CHECK_EQ(r(R_LINKS) & LINKS_SPEED_MASK, LINKS_SPEED_1G);
	// no cable
	model_ixgbe_set_link_mode(nic, MODEL_LINK_NEVER, 0);
	reset_and_wait();
	w(R_AUTOC, AUTOC_LMS_10G_SERIAL | AUTOC_RESTART_AN);
	model_advance_us(60000000);
	CHECK_EQ(r(R_LINKS) & LINKS_UP, 0);
	CHECK(!model_ixgbe_link_up(nic));
	finish_nic();
}

static void test_reserved_bits_and_interrupts(void) {
	open_nic("0000:01:00.0");
	reset_and_wait();
	w(R_EIMC, 0xFFFFFFFF);
	CHECK_VIOLATION("EIMC written with reserved bit 31");
	w(R_EIMC, 0x7FFFFFFF);
	w(R_DTXMXSZRQ, 0xFFFF);
	CHECK_VIOLATION("DTXMXSZRQ written with reserved bits");
	w(R_DTXMXSZRQ, 0xFFF);
	w(0x00880, 0x5); // EIMS sets
	w(0x00880, 0x2);
	CHECK_EQ(r(R_EIMS), 0x7);
	w(R_EIMC, 0x4);
	CHECK_EQ(r(R_EIMS), 0x3);
	CHECK_EQ(model_violation_count(), 0);
	finish_nic();
}

static void test_queue_enable_rules(void) {
	open_nic("0000:01:00.0");
	reset_and_wait();
	w(R_RXDCTL(1), ENABLE);
	CHECK_VIOLATION("RX queue 1 enabled without a descriptor ring");
	CHECK_EQ(r(R_RXDCTL(1)) & ENABLE, 0);
	w(R_TXDCTL(2), ENABLE);
	CHECK_VIOLATION("TX queue 2 enabled without a descriptor ring");
	CHECK_EQ(r(R_TXDCTL(2)) & ENABLE, 0);
	struct dma_memory ring;
	CHECK_EQ(memory_allocate_dma(4096, true, &ring), 0);
	// a ring length that is not a multiple of 128 bytes
	w(R_TDBAL(0), (uint32_t)ring.phy);
	w(R_TDBAH(0), (uint32_t)((uint64_t)ring.phy >> 32));
	w(R_TDLEN(0), 1000);
	w(R_DMATXCTL, 1);
	w(R_TXDCTL(0), ENABLE);
	CHECK_VIOLATION("illegal");
	CHECK_EQ(r(R_TXDCTL(0)) & ENABLE, 0);
	// a ring outside DMA memory
	static uint8_t not_dma[4096] __attribute__((aligned(128)));
	w(R_TDBAL(1), (uint32_t)(uintptr_t)not_dma);
	w(R_TDBAH(1), (uint32_t)((uint64_t)(uintptr_t)not_dma >> 32));
	w(R_TDLEN(1), 1024);
	w(R_TXDCTL(1), ENABLE);
	CHECK_VIOLATION("not in live DMA memory");
	// tail bumped before the queue is enabled
	w(R_RDBAL(0), (uint32_t)ring.phy);
	w(R_RDBAH(0), (uint32_t)((uint64_t)ring.phy >> 32));
	w(R_RDLEN(0), 4096);
	w(R_RDT(0), 5);
	CHECK_VIOLATION("RDT(0) bumped to 5 before the queue is enabled");
	w(R_RDT(0), 0);
	// legacy descriptors are not modelled
	w(R_RXDCTL(0), ENABLE);
	CHECK_VIOLATION("DESCTYPE");
	CHECK_EQ(r(R_RXDCTL(0)) & ENABLE, 0);
	w(R_SRRCTL(0), SRRCTL_ADV_ONEBUF | 2);
	w(R_RXDCTL(0), ENABLE);
	CHECK(r(R_RXDCTL(0)) & ENABLE);
	w(R_RDLEN(0), 2048);
	CHECK_VIOLATION("changed while RX queue 0 is enabled");
	// TX queue before DMATXCTL.TE
	w(R_DMATXCTL, 0);
	w(R_TDLEN(0), 1024);
	w(R_TXDCTL(0), ENABLE);
	CHECK_VIOLATION("before DMATXCTL.TE");
	w(R_TXDCTL(0), 0);
	w(R_RXDCTL(0), 0);
	memory_free_dma(&ring);
	CHECK_EQ(model_violation_count(), 0);
	finish_nic();
}

static void test_rx_enable_rules(void) {
	open_nic("0000:01:00.0");
	reset_and_wait();
	w(R_RXCTRL, 1); // straight after reset: none of the required preparation
	CHECK_VIOLATION("RSCFRSTSIZE");
	CHECK_VIOLATION("RSCACKC");
	CHECK_VIOLATION("RXCRCSTRP");
	CHECK_VIOLATION("halting the receive data path");
	CHECK_EQ(model_violation_count(), 0);
	w(R_FCTRL, FCTRL_UPE);
	CHECK_VIOLATION("FCTRL changed");
	w(R_FCTRL, FCTRL_UPE); // writing the same value changes nothing
	w(R_RXCTRL, 0);
	w(R_FCTRL, 0);
	CHECK_EQ(model_violation_count(), 0);
	finish_nic();
}

static void test_tx(void) {
	struct model_ixgbe* nic = open_nic("0000:01:00.0");
	struct mini m;
	mini_init(&m, 64, 0);
	CHECK_EQ(model_violation_count(), 0);
	r(R_GPTC);
	r(R_GOTCL);
	r(R_GOTCH);
	// one frame in one descriptor
	const uint8_t dst[6] = {2, 0, 0, 0, 0, 9};
	model_test_frame(buffer(&m, 100), 60, dst, 1);
	write_tx_desc(&m, 0, device_addr(buffer(&m, 100)), TXD_DATA | TXD_EOP | TXD_IFCS | TXD_RS | 60, 60u << 14);
	w(R_TDT(0), 1);
	CHECK_EQ(r(R_TDH(0)), 1);
	CHECK_EQ(model_ixgbe_tx_frame_count(nic), 1);
	uint32_t len;
	uint16_t queue;
	const uint8_t* sent = model_ixgbe_tx_frame(nic, 0, &len, &queue);
	CHECK_EQ(len, 60);
	CHECK_EQ(queue, 0);
	CHECK(memcmp(sent, buffer(&m, 100), 60) == 0);
	uint32_t* desc0 = (uint32_t*)m.tx_ring.virt;
	CHECK_EQ(desc0[3] & 1, 1); // DD written back
	// one frame in two descriptors, RS only on the last
	model_test_frame(buffer(&m, 101), 1000, dst, 2);
	memcpy(buffer(&m, 102), buffer(&m, 101) + 600, 400);
	write_tx_desc(&m, 1, device_addr(buffer(&m, 101)), TXD_DATA | TXD_IFCS | 600, 1000u << 14);
	write_tx_desc(&m, 2, device_addr(buffer(&m, 102)), TXD_DATA | TXD_EOP | TXD_RS | 400, 0);
	w(R_TDT(0), 3);
	CHECK_EQ(model_ixgbe_tx_frame_count(nic), 2);
	sent = model_ixgbe_tx_frame(nic, 1, &len, NULL);
	CHECK_EQ(len, 1000);
	CHECK(memcmp(sent, buffer(&m, 101), 1000) == 0);
	uint32_t* desc1 = (uint32_t*)((uint8_t*)m.tx_ring.virt + 16);
	CHECK_EQ(desc1[3] & 1, 0); // no RS, no write-back
	// statistics: GPTC and GOTC (frame + CRC), cleared by reading
	CHECK_EQ(r(R_GPTC), 2);
	CHECK_EQ(r(R_GPTC), 0);
	CHECK_EQ(r(R_GOTCL), 64 + 1004);
	CHECK_EQ(r(R_GOTCH), 0);
	CHECK_EQ(r(R_GOTCL), 0);
	// broken descriptors
	write_tx_desc(&m, 3, device_addr(buffer(&m, 100)), (3u << 20) | TXD_EOP | TXD_IFCS | TXD_RS | 60, 60u << 14);
	w(R_TDT(0), 4);
	CHECK_VIOLATION("DEXT clear");
	write_tx_desc(&m, 4, device_addr(buffer(&m, 100)), TXD_DATA | TXD_EOP | TXD_IFCS | TXD_RS | 0, 0);
	w(R_TDT(0), 5);
	CHECK_VIOLATION("data length 0");
	write_tx_desc(&m, 5, device_addr(buffer(&m, 100)), TXD_DATA | TXD_EOP | TXD_RS | 60, 60u << 14);
	w(R_TDT(0), 6);
	CHECK_VIOLATION("IFCS clear");
	write_tx_desc(&m, 6, device_addr(buffer(&m, 100)), TXD_DATA | TXD_EOP | TXD_IFCS | TXD_RS | 60, 61u << 14);
	w(R_TDT(0), 7);
	CHECK_VIOLATION("PAYLEN 61");
	// Not a device address: a static array, or in physical mode (test/seam) a DMA buffer's virtual address, which a
	// driver must never give a device.
	static uint8_t not_dma[64];
	uintptr_t virt = (uintptr_t)buffer(&m, 100);
	uintptr_t bad = device_addr(buffer(&m, 100)) != virt ? virt : (uintptr_t)not_dma;
	write_tx_desc(&m, 7, bad, TXD_DATA | TXD_EOP | TXD_IFCS | TXD_RS | 60, 60u << 14);
	w(R_TDT(0), 8);
	CHECK_VIOLATION("is not in live DMA memory");
	write_tx_desc(&m, 8, device_addr(buffer(&m, 100)), TXD_DATA | TXD_IFCS | 30, 60u << 14);
	w(R_TDT(0), 9);
	CHECK_VIOLATION("middle of a packet");
	write_tx_desc(&m, 9, device_addr(buffer(&m, 100)) + 30, TXD_DATA | TXD_EOP | TXD_RS | 30, 0);
	w(R_TDT(0), 10); // completes the packet
	CHECK_EQ(r(R_TDH(0)), 10);
	w(R_TDT(0), 64);
	CHECK_VIOLATION("beyond the ring");
	CHECK_EQ(model_violation_count(), 0);
	// paused transmission: descriptors stay pending
	model_ixgbe_clear_tx_frames(nic);
	model_ixgbe_pause_tx(nic, true);
	for (uint32_t i = 10; i < 20; i++) {
		write_tx_desc(&m, i, device_addr(buffer(&m, 100)), TXD_DATA | TXD_EOP | TXD_IFCS | TXD_RS | 60,
			      60u << 14);
	}
	w(R_TDT(0), 20);
	CHECK_EQ(model_ixgbe_tx_pending(nic, 0), 10);
	CHECK_EQ(model_ixgbe_tx_frame_count(nic), 0);
	model_ixgbe_pause_tx(nic, false);
	CHECK_EQ(model_ixgbe_tx_pending(nic, 0), 0);
	CHECK_EQ(model_ixgbe_tx_frame_count(nic), 10);
	// the ring wraps: fill it to one below full from index 20
	for (uint32_t i = 0; i < 63; i++) {
		write_tx_desc(&m, (20 + i) % 64, device_addr(buffer(&m, 100)),
			      TXD_DATA | TXD_EOP | TXD_IFCS | TXD_RS | 60, 60u << 14);
	}
	model_ixgbe_pause_tx(nic, true);
	w(R_TDT(0), (20 + 63) % 64);
	CHECK_EQ(model_ixgbe_tx_pending(nic, 0), 63);
	w(R_TDT(0), 20); // one more would make TDT == TDH: overfilled
	CHECK_VIOLATION("overfilled");
	model_ixgbe_pause_tx(nic, false);
	CHECK_EQ(model_ixgbe_tx_frame_count(nic), 73);
	w(R_TXDCTL(0), 0);
	w(R_RXDCTL(0), 0);
	mini_free(&m);
	CHECK_EQ(model_violation_count(), 0);
	finish_nic();
}

static void test_rx(void) {
	struct model_ixgbe* nic = open_nic("0000:01:00.0");
	struct mini m;
	mini_init(&m, 64, 0);
	r(R_GPRC);
	r(R_GORCL);
	r(R_GORCH);
	const uint8_t own_mac[6] = {0x02, 0, 0, 0x01, 0, 0};
	const uint8_t other_mac[6] = {0x02, 0, 0, 0x77, 0, 0};
	const uint8_t broadcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	uint8_t frame[1514];
	model_test_frame(frame, 1514, own_mac, 42);
	CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frame, 1514), MODEL_RX_DELIVERED);
	CHECK(memcmp(buffer(&m, 0), frame, 1514) == 0);
	uint32_t* desc = (uint32_t*)m.rx_ring.virt;
	CHECK_EQ(desc[2] & 3, 3); // DD and EOP
	CHECK_EQ(desc[3] & 0xFFFF, 1514);
	CHECK_EQ(desc[0] & 0x3F0, 0x210); // packet type IPv4 + UDP
	CHECK_EQ(r(R_RDH(0)), 1);
	// filters
	model_test_frame(frame, 60, other_mac, 43);
	CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frame, 60), MODEL_RX_FILTERED);
	model_test_frame(frame, 60, broadcast, 44);
	CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frame, 60), MODEL_RX_DELIVERED); // FCTRL.BAM
	// fill the ring: 63 descriptors were given (RDT = 63), 2 are used
	model_test_frame(frame, 60, own_mac, 45);
	CHECK_EQ(model_ixgbe_inject_rx_burst(nic, 0, frame, 60, 100), 61);
	CHECK_EQ(r(R_RDH(0)), 63);
	CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frame, 60), MODEL_RX_NO_DESCRIPTOR);
	CHECK_EQ(r(R_MPC0), 40); // 39 in the burst and one more, DROP_EN is clear
	CHECK_EQ(r(R_MPC0), 0);
	CHECK_EQ(r(R_GPRC), 63);
	CHECK_EQ(r(R_GPRC), 0);
	CHECK_EQ(r(R_GORCL), 1518 + 62 * 64);
	CHECK_EQ(r(R_GORCH), 0);
	struct model_ixgbe_counters c = model_ixgbe_counters(nic);
	CHECK_EQ(c.rx_delivered, 63);
	CHECK_EQ(c.rx_missed, 40);
	CHECK_EQ(c.rx_filtered, 1);
	// give descriptors 63, 0, 1 back; descriptor 0 still carries the write-back with DD
	write_rx_desc(&m, 63, device_addr(buffer(&m, 63)), 0);
	write_rx_desc(&m, 0, device_addr(buffer(&m, 64)), *(uint64_t*)((uint8_t*)m.rx_ring.virt + 8));
	write_rx_desc(&m, 1, device_addr(buffer(&m, 64)), 0); // the same buffer twice
	w(R_RDT(0), 2);
	CHECK_VIOLATION("handed to the device with DD set");
	CHECK_VIOLATION("given to the device twice");
	CHECK_EQ(model_ixgbe_rx_descriptors_available(nic, 0), 3);
	// the driver must not touch descriptors the device owns
	write_rx_desc(&m, 63, device_addr(buffer(&m, 65)), 0);
	CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frame, 60), MODEL_RX_DELIVERED);
	CHECK_VIOLATION("was changed");
	CHECK(memcmp(buffer(&m, 63), frame, 60) == 0); // written where the fetched descriptor pointed
	// promiscuous mode, changed the datasheet's way: RXEN off, FCTRL, RXEN on
	w(R_RXCTRL, 0);
	w(R_FCTRL, FCTRL_BAM | FCTRL_UPE);
	w(R_SECRXCTRL, 2);
	w(R_RXCTRL, 1);
	w(R_SECRXCTRL, 0);
	model_test_frame(frame, 60, other_mac, 46);
	CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frame, 60), MODEL_RX_DELIVERED);
	CHECK_EQ(model_violation_count(), 0);
	// RX off: nothing is written
	uint64_t writes = model_ixgbe_counters(nic).dma_writes;
	w(R_RXCTRL, 0);
	CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frame, 60), MODEL_RX_OFF);
	CHECK_EQ(model_ixgbe_counters(nic).dma_writes, writes);
	// oversized frame
	w(R_SECRXCTRL, 2);
	w(R_RXCTRL, 1);
	w(R_SECRXCTRL, 0);
	uint8_t big[2000];
	model_test_frame(big, 1600, own_mac, 47);
	CHECK_EQ(model_ixgbe_inject_rx(nic, 0, big, 1600), MODEL_RX_BAD_FRAME);
	w(R_RXDCTL(0), 0);
	w(R_TXDCTL(0), 0);
	mini_free(&m);
	CHECK_EQ(model_violation_count(), 0);
	finish_nic();
}

static void test_rx_drop_en_and_crc(void) {
	struct model_ixgbe* nic = open_nic("0000:01:00.0");
	struct mini m;
	mini_init(&m, 64, SRRCTL_DROP_EN);
	const uint8_t own_mac[6] = {0x02, 0, 0, 0x01, 0, 0};
	uint8_t frame[60];
	model_test_frame(frame, 60, own_mac, 1);
	CHECK_EQ(model_ixgbe_inject_rx_burst(nic, 0, frame, 60, 70), 63);
	CHECK_EQ(r(R_QPRDC(0)), 7);
	CHECK_EQ(r(R_MPC0), 0);
	CHECK_EQ(r(R_GPRC), 70); // GPRC counts what passed the MAC, also frames later dropped for lack of descriptors
	CHECK_EQ(model_ixgbe_rx_dropped(nic), 7);
	// without CRC stripping the CRC lands in memory and counts in the length
	w(R_RXCTRL, 0);
	w(R_RXDCTL(0), 0);
	w(R_HLREG0, r(R_HLREG0) & ~2u);
	w(R_RDRXCTL, r(R_RDRXCTL) & ~RDRXCTL_CRCSTRIP);
	w(R_RDH(0), 0);
	w(R_RDT(0), 0);
	for (uint32_t i = 0; i < 64; i++) {
		write_rx_desc(&m, i, device_addr(buffer(&m, i)), 0);
	}
	w(R_RXDCTL(0), ENABLE);
	w(R_RDT(0), 10);
	w(R_SECRXCTRL, 2);
	w(R_RXCTRL, 1);
	w(R_SECRXCTRL, 0);
	CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frame, 60), MODEL_RX_DELIVERED);
	uint32_t* desc = (uint32_t*)m.rx_ring.virt;
	CHECK_EQ(desc[3] & 0xFFFF, 64);
	// the CRC of a correct frame makes the residue 0x2144DF1C when run over frame + CRC
	uint32_t crc = 0xFFFFFFFFu;
	for (uint32_t i = 0; i < 64; i++) {
		crc ^= buffer(&m, 0)[i];
		for (int b = 0; b < 8; b++) {
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
		}
	}
	CHECK_EQ(~crc, 0x2144DF1C);
	w(R_RXCTRL, 0);
	w(R_RXDCTL(0), 0);
	w(R_TXDCTL(0), 0);
	mini_free(&m);
	CHECK_EQ(model_violation_count(), 0);
	finish_nic();
}

// 4.6.7 ends with setting CTRL_EXT.NS_DIS and clearing bit 12 of DCA_RXCTRL[n] (which reads 1 after reset).
static void test_first_delivery_rules(void) {
	struct model_ixgbe* nic = open_nic("0000:01:00.0");
	struct mini m;
	mini_init(&m, 64, 0);
	w(R_CTRL_EXT, 0);
	w(R_DCA_RXCTRL(0), 1u << 12);
	const uint8_t own_mac[6] = {0x02, 0, 0, 0x01, 0, 0};
	uint8_t frame[60];
	model_test_frame(frame, 60, own_mac, 1);
	CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frame, 60), MODEL_RX_DELIVERED);
	CHECK_VIOLATION("NS_DIS");
	CHECK_VIOLATION("DCA_RXCTRL(0) bit 12");
	CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frame, 60), MODEL_RX_DELIVERED); // checked once per queue enable
	CHECK_EQ(model_violation_count(), 0);
	reset_and_wait();
	CHECK_EQ(r(R_DCA_RXCTRL(5)), 1u << 12);
	mini_free(&m);
	finish_nic();
}

static void test_freeing_and_unmapping(void) {
	open_nic("0000:01:00.0");
	struct mini m;
	mini_init(&m, 64, 0);
	// freeing the RX ring while the queue runs
	memory_free_dma(&m.rx_ring);
	CHECK_VIOLATION("freed while RX queue 0 (enabled) can still write into it");
	// unmapping while RX is on
	pci_close(pci);
	CHECK_VIOLATION("BAR0 unmapped while RX queue 0 is enabled");
	pci = open_pci("0000:01:00.0");
	CHECK_EQ(pci_map_bar0(pci), 0);
	bar = pci->bar0;
	reset_and_wait();
	memory_free_dma(&m.tx_ring);
	memory_free_dma(&m.buffers);
	CHECK_EQ(model_violation_count(), 0);
	finish_nic();
	// a device left mapped at the end is reported
	open_nic("0000:01:00.0");
	model_pci_remove_all();
	CHECK_VIOLATION("still mapped");
	pci_close(pci); // the device is gone: only the handle is freed
}

static void test_dump_and_log(void) {
	struct model_ixgbe* nic = open_nic("0000:01:00.0");
	reset_and_wait();
	w(R_RDT(5), 0);
	w(R_TDLEN(3), 0x400);
	char* text = NULL;
	size_t text_size = 0;
	FILE* out = open_memstream(&text, &text_size);
	if (!out) {
		model_usage_error("open_memstream failed");
	}
	model_ixgbe_dump(nic, out);
	CHECK_EQ(fclose(out), 0);
	CHECK(strstr(text, "TDLEN(3)[0x060c8]:0x00000400\n") != NULL);
	CHECK(strstr(text, "RAH(0)[0x0a204]:0x80000000\n") != NULL);
	CHECK(strstr(text, "SRRCTL(0)[0x01014]:0x00000402\n") != NULL);
	free(text);
	char name[24];
	CHECK(strcmp(model_ixgbe_reg_name(0x0D018, name), "RDT(64)") == 0);
	CHECK(strcmp(model_ixgbe_reg_name(0x02104, name), "SRRCTL(1)") == 0);
	CHECK(strcmp(model_ixgbe_reg_name(0x12345 * 4 % 0x80000, name), "0x48d14") == 0);
	int64_t reset_at = model_ixgbe_log_find(nic, 0, MODEL_WRITE, R_CTRL, CTRL_RST);
	int64_t tdlen_at = model_ixgbe_log_find(nic, 0, MODEL_WRITE, R_TDLEN(3), 0);
	CHECK(reset_at >= 0);
	CHECK(tdlen_at > reset_at);
	CHECK_EQ(model_ixgbe_log_entry(nic, (uint32_t)tdlen_at)->value, 0x400);
	finish_nic();
}

static void test_perfect_mode(void) {
	struct model_ixgbe* nic = open_nic("0000:01:00.0");
	model_ixgbe_set_perfect(nic, true);
	struct mini m;
	mini_init(&m, 512, SRRCTL_DROP_EN);
	CHECK_EQ(model_ixgbe_log_length(nic), 0);
	const uint8_t own_mac[6] = {0x02, 0, 0, 0x01, 0, 0};
	uint8_t frame[60];
	model_test_frame(frame, 60, own_mac, 1);
	CHECK_EQ(model_ixgbe_inject_rx_burst(nic, 0, frame, 60, 1000), 511);
	for (uint32_t i = 0; i < 100; i++) {
		write_tx_desc(&m, i, device_addr(buffer(&m, i)), TXD_DATA | TXD_EOP | TXD_IFCS | TXD_RS | 60,
			      60u << 14);
	}
	w(R_TDT(0), 100);
	CHECK_EQ(model_ixgbe_counters(nic).tx_frames, 100);
	CHECK_EQ(model_ixgbe_tx_frame_count(nic), 0); // not recorded
	w(R_RXDCTL(0), 0);
	w(R_TXDCTL(0), 0);
	mini_free(&m);
	CHECK_EQ(model_violation_count(), 0);
	finish_nic();
}

int main(void) {
	test_pci();
	test_reset_and_timing();
	test_link();
	test_reserved_bits_and_interrupts();
	test_queue_enable_rules();
	test_rx_enable_rules();
	test_tx();
	test_rx();
	test_rx_drop_en_and_crc();
	test_first_delivery_rules();
	test_freeing_and_unmapping();
	test_dump_and_log();
	test_perfect_mode();
	return model_test_summary();
}
