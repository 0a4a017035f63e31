// Interrupts of a taken device, for the drivers' interrupt code (ixgbe_interrupts.c, igb_interrupts.c, virtio.c):
// only an app that waits for packets (ixy_waiter, include/ixy/interrupts.h) needs them, and only VFIO has them.
#ifndef IXY_PCI_INTERRUPTS_H
#define IXY_PCI_INTERRUPTS_H

#include "pci.h"

// The interrupts of a driver's RX queues, one MSI-X vector per queue routed to the eventfds fds[0 .. count-1], for an
// app that asked to wait for packets; the one place where every driver decides what happens without them. Returns 1
// if the vectors are set up; 0 if the device is polled instead: through sysfs (which has no interrupts), or a device
// without an MSI-X vector for each queue (one line says so: an app that waits keeps working, it polls this device);
// -1 with a message if it fails.
static inline int pci_setup_rx_interrupts(struct pci_device* dev, unsigned count, int fds[]) {
	if (!dev->access->enable_interrupts) {
		return 0;
	}
	int ret = dev->access->enable_interrupts(dev, count, fds);
	if (ret == 0) {
		ixy_info("%s: no MSI-X vector for each of its %u RX queue(s): it is polled", dev->addr, count);
	}
	return ret;
}

#endif
