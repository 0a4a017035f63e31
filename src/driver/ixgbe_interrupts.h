// MSI-X interrupts for the RX queues of the ixgbe driver (ixgbe_interrupts.c), for ixy_waiter.
#ifndef IXY_IXGBE_INTERRUPTS_H
#define IXY_IXGBE_INTERRUPTS_H

#include "driver.h"

// If the app asked for interrupts (config->interrupt_timeout_ms) and the device's access has them (VFIO), gives RX
// queue i MSI-X vector i, all masked, and stores what ixy_waiter needs in *interrupts (free() it after the device
// is reset); else *interrupts is NULL and the app polls. -1 with a message if asked for but not possible.
int ixgbe_setup_interrupts(uint8_t* bar, struct pci_device* pci, const struct ixy_config* config,
			   struct ixy_interrupts** interrupts);

#endif
