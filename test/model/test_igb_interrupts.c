// igb_setup_interrupts (src/driver/igb_interrupts.c) against a hand-built igb: igb has no device model, and the VM
// tests cannot read its registers, so this test is what sees the driver's interrupt registers at all. The device is
// a BAR0 from the PCI model that is a plain register file (every write is kept, a read returns what was written)
// and MSI-X as VFIO gives it (model_pci_offer_msix: one eventfd per vector). The test checks what the 82576
// datasheet asks for each RX queue's vector: GPIE's MSI-X mode, the queue's IVAR entry, EIAC and EIAM, and EITR
// holding the documented moderation; then that arming a queue clears its latched cause (its bit written to EICR)
// before it writes its bit to EIMS, that disarming writes it to EIMC, and that each queue's eventfd is its vector's.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ixy/interrupts.h>

#include "../check.h"
#include "driver/igb_interrupts.h"
#include "model.h"

#define NIC_ADDR "0000:06:00.0"
// Registers of the 82576 (datasheet 8.8), written out here rather than taken from the driver's igb_regs.h.
#define REG_GPIE 0x01514
#define REG_EICR 0x01580
#define REG_EIMS 0x01524
#define REG_EIMC 0x01528
#define REG_EIAC 0x0152C
#define REG_EIAM 0x01530
#define REG_EITR(n) (0x01680 + 4 * (n))
#define REG_IVAR(n) (0x01700 + 4 * (n))
// GPIE (8.8, 7.3): NSICR (bit 0), Multiple_MSIX (bit 4), EIAME (bit 30), PBA_support (bit 31).
#define DOCUMENTED_GPIE (1u << 0 | 1u << 4 | 1u << 30 | 1u << 31)
// What the driver must write to EITR: the documented 50 us (include/ixy/interrupts.h) in 1 us units in Interval
// (bits 14:2; the unit of Linux's igb, IGB_20K_ITR = 49 << 2, and of the I210 datasheet, 8.8.14), and CNT_IGNR
// (bit 31).
#define DOCUMENTED_EITR (50u << 2 | 1u << 31)
// IVAR (8.8): a TX entry the driver must leave alone; the test puts it in every IVAR before the driver runs.
#define IVAR_TX_ENTRIES 0x83008100u // TX queue n+8 -> vector 3 (bits 31:24), TX queue n -> vector 1 (bits 15:8)

// The register file, and what the driver wrote to the write-only EIMS and EIMC and to EICR, in order; and when it
// last wrote EICR and EIMS (the count of writes then).
static uint32_t regs[MODEL_BAR0_SIZE / 4];
static unsigned writes;
static uint32_t eims_writes[4], eimc_writes[4], eicr_writes[4];
static unsigned num_eims, num_eimc, num_eicr;
static unsigned last_eicr_write, last_eims_write;

static uint32_t bar_read32(void* model, uint32_t reg) {
	(void)model;
	return regs[reg / 4];
}

static void bar_write32(void* model, uint32_t reg, uint32_t value) {
	(void)model;
	writes++;
	if (reg == REG_EIMS && num_eims < 4) {
		eims_writes[num_eims++] = value;
		last_eims_write = writes;
	} else if (reg == REG_EIMC && num_eimc < 4) {
		eimc_writes[num_eimc++] = value;
	} else if (reg == REG_EICR && num_eicr < 4) {
		eicr_writes[num_eicr++] = value;
		last_eicr_write = writes;
	}
	regs[reg / 4] = value;
}

static const struct model_pci_ops bar_ops = {.read32 = bar_read32, .write32 = bar_write32};

struct nic {
	struct model_pci_device* model;
	struct pci_device* pci;
	uint8_t* bar;
};

static struct nic open_nic(bool offer_msix) {
	memset(regs, 0, sizeof(regs));
	for (unsigned n = 0; n < 8; n++) {
		regs[REG_IVAR(n) / 4] = IVAR_TX_ENTRIES;
	}
	writes = num_eims = num_eimc = num_eicr = 0;
	struct nic nic = {model_pci_add(NIC_ADDR, 0x8086, 0x10c9, 0x020000, &bar_ops, NULL), NULL, NULL};
	model_pci_offer_msix(nic.model, offer_msix);
	nic.pci = pci_sysfs_access.open(NIC_ADDR);
	nic.bar = nic.pci && pci_map_bar0(nic.pci) == 0 ? nic.pci->bar0 : NULL;
	CHECK(nic.bar != NULL);
	return nic;
}

static void close_nic(struct nic* nic) {
	if (nic->pci) {
		pci_close(nic->pci); // closes the vectors' eventfds, as VFIO does
	}
	model_pci_remove_all();
}

// The RX entry of queue q in IVAR(q % 8): bits 7:0 for queues 0-7, bits 23:16 for 8-15 (8.8).
static uint32_t ivar_rx_entry(uint16_t q) {
	return regs[REG_IVAR(q % 8) / 4] >> (q < 8 ? 0 : 16) & 0xFF;
}

// Reads and resets an eventfd: the number of messages since the last read (0 if none).
static uint64_t drain(int fd) {
	uint64_t count = 0;
	if (read(fd, &count, sizeof(count)) != sizeof(count)) {
		CHECK_EQ(errno, EAGAIN);
		return 0;
	}
	return count;
}

static void test_rx_queues(uint16_t rx_queues) {
	printf("%u RX queue(s)\n", rx_queues);
	struct nic nic = open_nic(true);
	struct ixy_config config = {
	    .pci_addr = NIC_ADDR, .rx_queues = rx_queues, .tx_queues = 1, .interrupt_timeout_ms = 7};
	struct ixy_interrupts* irq = NULL;
	if (!nic.bar) {
		close_nic(&nic);
		return;
	}
	CHECK_EQ(igb_setup_interrupts(nic.bar, nic.pci, &config, &irq), 0);
	CHECK(irq != NULL);
	if (!irq) {
		close_nic(&nic);
		return;
	}
	CHECK_EQ(regs[REG_GPIE / 4], DOCUMENTED_GPIE);
	uint32_t vectors = (uint32_t)((1ull << rx_queues) - 1); // bit q: the vector of RX queue q
	CHECK_EQ(regs[REG_EIAC / 4], vectors);
	CHECK_EQ(regs[REG_EIAM / 4], vectors);
	for (uint16_t q = 0; q < 25; q++) { // all 25 vectors of the 82576
		if (q < rx_queues) {
			CHECK_EQ(regs[REG_EITR(q) / 4], DOCUMENTED_EITR);
		} else {
			CHECK_EQ(regs[REG_EITR(q) / 4], 0); // a vector no queue uses is left as it was
		}
	}
	for (uint16_t q = 0; q < 16; q++) {
		// valid (bit 7), vector q (bits 4:0); a queue without interrupts gets no entry
		CHECK_EQ(ivar_rx_entry(q), q < rx_queues ? (0x80u | q) : 0);
	}
	for (unsigned n = 0; n < 8; n++) {
		CHECK_EQ(regs[REG_IVAR(n) / 4] & IVAR_TX_ENTRIES, IVAR_TX_ENTRIES);
	}
	CHECK_EQ(num_eims, 0); // set up, all masked: nothing armed until the waiter arms a queue
	CHECK_EQ(num_eicr, 0);
	CHECK_EQ(irq->timeout_ms, 7);

	// Arming writes the queue's bit (and only it) to EICR, clearing the cause its polled packets latched (write 1
	// to clear), and then to EIMS; disarming writes it to EIMC (8.8).
	struct ixy_device dev = {.pci_addr = NIC_ADDR, .num_rx_queues = rx_queues, .interrupts = irq};
	for (uint16_t q = 0; q < rx_queues; q++) {
		num_eims = num_eimc = num_eicr = 0;
		irq->set_rx_interrupt(&dev, q, true);
		CHECK_EQ(num_eicr, 1);
		CHECK_EQ(eicr_writes[0], 1u << q);
		CHECK(last_eicr_write < last_eims_write);
		CHECK_EQ(num_eims, 1);
		CHECK_EQ(num_eimc, 0);
		CHECK_EQ(eims_writes[0], 1u << q);
		irq->set_rx_interrupt(&dev, q, false);
		CHECK_EQ(num_eicr, 1);
		CHECK_EQ(num_eims, 1);
		CHECK_EQ(num_eimc, 1);
		CHECK_EQ(eimc_writes[0], 1u << q);
		// The queue's eventfd is its vector's: a message on vector q wakes RX queue q's fd, no other.
		model_pci_raise_msix(nic.model, q);
		for (uint16_t other = 0; other < rx_queues; other++) {
			CHECK_EQ(drain(irq->rx_fds[other]), other == q);
		}
	}
	free(irq);
	close_nic(&nic);
}

// An app that polls (interrupt_timeout_ms 0), and a device without an MSI-X vector per queue: no interrupts, and
// the driver writes no interrupt register.
static void test_polled(int32_t timeout_ms, bool offer_msix) {
	printf("polled: timeout %d ms, MSI-X %s\n", timeout_ms, offer_msix ? "offered" : "absent");
	struct nic nic = open_nic(offer_msix);
	struct ixy_config config = {
	    .pci_addr = NIC_ADDR, .rx_queues = 2, .tx_queues = 1, .interrupt_timeout_ms = timeout_ms};
	struct ixy_interrupts* irq = (struct ixy_interrupts*)&config; // any non-NULL: the driver must clear it
	if (nic.bar) {
		CHECK_EQ(igb_setup_interrupts(nic.bar, nic.pci, &config, &irq), 0);
	}
	CHECK(irq == NULL);
	CHECK_EQ(writes, 0);
	close_nic(&nic);
}

int main(void) {
	test_rx_queues(1);
	test_rx_queues(3);
	test_rx_queues(16); // IGB_MAX_QUEUES: queues 8-15 have their IVAR entries in bits 23:16
	test_polled(0, true);
	test_polled(100, false);
	if (model_violation_count() > 0) {
		model_print_violations(stderr);
	}
	CHECK_EQ(model_violation_count(), 0);
	return check_summary();
}
