// MSI-X interrupts for the e1000 driver's RX queue (82574 datasheet 7.4, "74" as in e1000_regs.h), for ixy_waiter
// (include/ixy/interrupts.h): the app asked for them, the device is reached through VFIO, and the NIC has MSI-X. The
// scheme of igb_interrupts.c with one queue: its cause RXQ0 goes to vector 0 (IVAR), the vector masks itself when it
// fires (auto-clear, EIAC), the waiter arms it (IMS) before it sleeps and disarms it (IMC) when it wakes, and EITR0
// holds it to one message per IXY_RX_INTERRUPT_INTERVAL_US. The 82540EM has no MSI-X (a PCI NIC with one interrupt
// line; QEMU's model has no MSI either): through VFIO it is polled, and pci_setup_rx_interrupts says so.
// Read it after e1000.c and docs/book/08-interrupts.md.
#include <stdlib.h>

#include <ixy/interrupts.h>

#include "../pci_interrupts.h"
#include "e1000_interrupts.h"
#include "e1000_regs.h"

struct e1000_interrupts {
	struct ixy_interrupts ixy; // first member: the device's ixy.interrupts points here
	uint8_t* bar;
	int fd; // the eventfd of vector 0, that of RX queue 0
};

// ICR is write-1-to-clear (74 10.2.4.1): arming first clears the cause latched by the packets the app polled while
// the vector was masked, so that it does not fire at once; the waiter's last look after arming makes that safe.
static void e1000_set_rx_interrupt(struct ixy_device* dev, uint16_t queue_id, bool armed) {
	(void)queue_id; // always 0
	const struct e1000_interrupts* irq = (const struct e1000_interrupts*)dev->interrupts;
	if (armed) {
		set_reg32(irq->bar, E1000_ICR, E1000_IRQ_RXQ0);
	}
	set_reg32(irq->bar, armed ? E1000_IMS : E1000_IMC, E1000_IRQ_RXQ0); // uncached: done when the function returns
}

int e1000_setup_interrupts(uint8_t* bar, struct pci_device* pci, const struct ixy_config* config,
			   struct ixy_interrupts** interrupts) {
	*interrupts = NULL;
	if (config->interrupt_timeout_ms == 0 || config->rx_queues == 0) {
		return 0; // the app polls
	}
	struct e1000_interrupts* irq = calloc(1, sizeof(*irq));
	int ret = irq ? pci_setup_rx_interrupts(pci, 1, &irq->fd) : -1;
	if (ret != 1) { // 0: the device is polled (the 82540EM, or sysfs)
		if (!irq) {
			ixy_error("%s: out of memory for interrupts", pci->addr);
		}
		free(irq);
		return ret;
	}
	// 74 7.4.2: RX queue 0's cause to vector 0; the pending bit array of MSI-X (CTRL_EXT.PBA_SUPPORT); the cause
	// cleared with its message, which also masks it (EIAC, with CTRL_EXT.IAME clear: 74 10.2.4.8).
	set_reg32(bar, E1000_IVAR, E1000_IVAR_RXQ0_VALID | 0);
	set_flags32(bar, E1000_CTRL_EXT, E1000_CTRL_EXT_PBA_SUPPORT);
	set_reg32(bar, E1000_EIAC, E1000_IRQ_RXQ0);
	// Moderation: at most one message per interval, in 256 ns units (74 10.2.4.13).
	set_reg32(bar, E1000_EITR0, IXY_RX_INTERRUPT_INTERVAL_US * 1000 / 256);
	irq->bar = bar;
	irq->ixy = (struct ixy_interrupts){&irq->fd, config->interrupt_timeout_ms, e1000_set_rx_interrupt};
	*interrupts = &irq->ixy;
	return 0;
}
