// MSI-X interrupts for the ixgbe driver's RX queues (82599 datasheet 7.3), for ixy_waiter (include/ixy/interrupts.h):
// the app asked for them and the device is reached through VFIO, which turns each vector's messages into an eventfd.
// RX queue i gets vector i. A vector masks itself when it sends its message (auto-mask), so a sleeping app is woken
// once, not once per packet; the waiter arms it again (EIMS_EX) before the next sleep and disarms it (EIMC_EX) when
// it wakes; its EITR holds it to one message per IXY_RX_INTERRUPT_INTERVAL_US (moderation). In a file of its own: a
// reader of the driver can follow the polling path in ixgbe.c without it, and all of it matters only when an app waits.
// Read it after ixgbe.c and docs/book/08-interrupts.md: start at ixgbe_setup_interrupts() at the bottom.
#include <stdlib.h>

#include <ixy/interrupts.h>

#include "../pci_interrupts.h"
#include "ixgbe_interrupts.h"
#include "ixgbe_regs.h"

struct ixgbe_interrupts {
	struct ixy_interrupts ixy; // first member: the device's ixy.interrupts points here
	uint8_t* bar;
	int fds[IXY_MAX_QUEUES]; // fds[i]: the eventfd of vector i, that of RX queue i
};

// Vector i is bit i % 32 of EIMS_EX(i / 32) (enable) and EIMC_EX(i / 32) (mask), 8.2.3.5.
// Arming first clears the queue's cause: every packet the app polled while the vector was masked latched it (7.3.1),
// and a latched cause fires the moment the vector is enabled, waking an idle app at once for nothing. Clearing it is
// safe because the waiter looks at the ring once more after arming: a packet that came before the arming is found
// there, one that comes after latches the cause again and fires. EICR is write-1-to-clear (8.2.3.5.1) and in MSI-X
// mode holds the causes of vectors 0-15 only (bits 15:0): queues 16-63 have no bit to clear and may still wake once.
static void ixgbe_set_rx_interrupt(struct ixy_device* dev, uint16_t queue_id, bool armed) {
	const struct ixgbe_interrupts* irq = (const struct ixgbe_interrupts*)dev->interrupts;
	if (armed && queue_id < 16) {
		set_reg32(irq->bar, IXGBE_EICR, 1u << queue_id);
	}
	uint32_t reg = armed ? IXGBE_EIMS_EX(queue_id / 32) : IXGBE_EIMC_EX(queue_id / 32);
	set_reg32(irq->bar, reg, 1u << (queue_id % 32)); // an uncached write: done when the function returns
}

int ixgbe_setup_interrupts(uint8_t* bar, struct pci_device* pci, const struct ixy_config* config,
			   struct ixy_interrupts** interrupts) {
	*interrupts = NULL;
	if (config->interrupt_timeout_ms == 0 || config->rx_queues == 0) {
		return 0; // the app polls
	}
	struct ixgbe_interrupts* irq = calloc(1, sizeof(*irq));
	int ret = irq ? pci_setup_rx_interrupts(pci, config->rx_queues, irq->fds) : -1;
	if (ret != 1) { // 0: the device is polled
		if (!irq) {
			ixy_error("%s: out of memory for interrupts", pci->addr);
		}
		free(irq);
		return ret;
	}
	// 7.3.1: MSI-X mode with its pending bit array; a vector masks itself after its message where EIAM_EX says so.
	set_reg32(bar, IXGBE_GPIE, IXGBE_GPIE_MULTIPLE_MSIX | IXGBE_GPIE_EIAME | IXGBE_GPIE_PBA_SUPPORT);
	for (uint16_t q = 0; q < config->rx_queues; q++) {
		// 7.3.4: the cause of RX queue q goes to vector q (IVAR(q / 2), even queues bits 7:0, odd ones 23:16).
		uint32_t shift = q % 2 * 16;
		uint32_t ivar = get_reg32(bar, IXGBE_IVAR(q / 2)) & ~(0xFFu << shift);
		set_reg32(bar, IXGBE_IVAR(q / 2), ivar | (IXGBE_IVAR_VALID | q) << shift);
		set_flags32(bar, IXGBE_EIAM_EX(q / 32), 1u << (q % 32));
		if (q < 16) {
			set_flags32(bar, IXGBE_EIAC, 1u << q); // the cause bit clears with the message (vectors 0-15)
		}
		// Moderation (7.3.2.1, EITR 8.2.3.5.12): vector q sends at most one message per interval, in units of
		// 2 us; CNT_WDIS: the write sets the interval and leaves the running counter alone.
		set_reg32(bar, IXGBE_EITR(q),
			  IXY_RX_INTERRUPT_INTERVAL_US / 2 << IXGBE_EITR_INTERVAL_SHIFT | IXGBE_EITR_CNT_WDIS);
	}
	irq->bar = bar;
	irq->ixy = (struct ixy_interrupts){irq->fds, config->interrupt_timeout_ms, ixgbe_set_rx_interrupt};
	*interrupts = &irq->ixy;
	return 0;
}
