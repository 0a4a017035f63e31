// MSI-X interrupts for the RX queue of the e1000 driver (e1000_interrupts.c), for ixy_waiter.
#ifndef IXY_E1000_INTERRUPTS_H
#define IXY_E1000_INTERRUPTS_H

#include "driver.h"

// If the app asked for interrupts (config->interrupt_timeout_ms) and the device's access has them (VFIO) and the NIC
// has MSI-X (the 82574L), routes RX queue 0 to MSI-X vector 0, masked, and stores what ixy_waiter needs in
// *interrupts (free() it after the device is reset); else *interrupts is NULL and the app polls. -1 with a message if
// asked for but not possible.
int e1000_setup_interrupts(uint8_t* bar, struct pci_device* pci, const struct ixy_config* config,
			   struct ixy_interrupts** interrupts);

#endif
