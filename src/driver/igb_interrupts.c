// MSI-X interrupts for the igb driver's RX queues (82576 datasheet 7.3), for ixy_waiter (include/ixy/interrupts.h):
// the app asked for them and the device is reached through VFIO, which turns each vector's messages into an eventfd.
// The same scheme as ixgbe_interrupts.c: RX queue i gets vector i, a vector masks itself when it fires (auto-mask),
// the waiter arms it (EIMS) before it sleeps and disarms it (EIMC) when it wakes, and its EITR holds it to one message
// per IXY_RX_INTERRUPT_INTERVAL_US. The 82576 differs in its register offsets, in having one 32-bit EIMS/EIMC for all
// its 25 vectors, in where IVAR keeps a queue's entry, and in EITR's unit.
// Read it after igb.c and docs/book/08-interrupts.md: start at igb_setup_interrupts() at the bottom.
#include <stdlib.h>

#include <ixy/interrupts.h>

#include "../pci_interrupts.h"
#include "igb_interrupts.h"
#include "igb_regs.h"

struct igb_interrupts {
	struct ixy_interrupts ixy; // first member: the device's ixy.interrupts points here
	uint8_t* bar;
	int fds[IGB_MAX_RX_VECTORS]; // fds[i]: the eventfd of vector i, that of RX queue i
};

// Vector i is bit i of EIMS (enable) and EIMC (mask) in MSI-X mode (8.8). As on the 82599 (ixgbe_interrupts.c),
// arming first clears the queue's cause, latched by the packets the app polled while the vector was masked, so that
// it does not fire at once; the waiter's last look after arming makes that safe. EICR is write-1-to-clear, a bit per
// vector in MSI-X mode (8.8).
static void igb_set_rx_interrupt(struct ixy_device* dev, uint16_t queue_id, bool armed) {
	const struct igb_interrupts* irq = (const struct igb_interrupts*)dev->interrupts;
	if (armed) {
		set_reg32(irq->bar, IGB_EICR, 1u << queue_id);
	}
	set_reg32(irq->bar, armed ? IGB_EIMS : IGB_EIMC, 1u << queue_id); // uncached: done when the function returns
}

int igb_setup_interrupts(uint8_t* bar, struct pci_device* pci, const struct ixy_config* config,
			 struct ixy_interrupts** interrupts) {
	*interrupts = NULL;
	if (config->interrupt_timeout_ms == 0 || config->rx_queues == 0) {
		return 0; // the app polls
	}
	// igb_init refused more than IGB_MAX_QUEUES RX queues: each has its vector, its fds[] slot and its EIMS bit.
	_Static_assert(IGB_MAX_QUEUES <= IGB_MAX_RX_VECTORS && IGB_MAX_RX_VECTORS <= 25,
		       "one MSI-X vector (of the 82576's 25) per RX queue");
	struct igb_interrupts* irq = calloc(1, sizeof(*irq));
	int ret = irq ? pci_setup_rx_interrupts(pci, config->rx_queues, irq->fds) : -1;
	if (ret != 1) { // 0: the device is polled
		if (!irq) {
			ixy_error("%s: out of memory for interrupts", pci->addr);
		}
		free(irq);
		return ret;
	}
	// 7.3: MSI-X mode with its pending bit array, auto-mask enabled; non-selective clear of ICR on read.
	set_reg32(bar, IGB_GPIE, IGB_GPIE_NSICR | IGB_GPIE_MULTIPLE_MSIX | IGB_GPIE_EIAME | IGB_GPIE_PBA);
	uint32_t vectors = 0;
	for (uint16_t q = 0; q < config->rx_queues; q++) {
		// 8.8: the entry of RX queue q is in IVAR(q % 8): bits 7:0 for queues 0-7, bits 23:16 for 8-15.
		uint32_t shift = q < 8 ? 0 : 16;
		uint32_t ivar = get_reg32(bar, IGB_IVAR(q % 8)) & ~(0xFFu << shift);
		set_reg32(bar, IGB_IVAR(q % 8), ivar | (IGB_IVAR_VALID | q) << shift);
		// Moderation (7.3): vector q sends at most one message per interval, in units of 1 us in bits 14:2, as
		// Linux's igb programs EITR (IGB_20K_ITR is 196, 49 << 2, about 20 000 a second) and as the I210
		// datasheet documents it (8.8.14); CNT_IGNR: the write sets the interval and leaves the running counter
		// alone.
		set_reg32(bar, IGB_EITR(q),
			  IXY_RX_INTERRUPT_INTERVAL_US << IGB_EITR_INTERVAL_SHIFT | IGB_EITR_CNT_IGNR);
		vectors |= 1u << q;
	}
	set_reg32(bar, IGB_EIAC, vectors); // a vector's cause clears with its message
	set_reg32(bar, IGB_EIAM, vectors); // and the vector masks itself
	irq->bar = bar;
	irq->ixy = (struct ixy_interrupts){irq->fds, config->interrupt_timeout_ms, igb_set_rx_interrupt};
	*interrupts = &irq->ixy;
	return 0;
}
