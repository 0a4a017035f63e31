// Refusals before anything is touched (checks.c): what ixy_init checks of the request and of the device's IDs.
// Each prints one message naming what is wrong and how to do it right.
#ifndef IXY_CHECKS_H
#define IXY_CHECKS_H

#include <ixy/ixy.h>

#include "driver/driver.h"
#include "pci.h"

// The address has the shape of a PCI address, the queue counts and the ring size are in range.
bool check_request(const struct ixy_config* config);
// The device is a network controller and driver (found by its IDs, NULL if none) drives it; if not, the message
// lists the IDs of all drivers. Also refuses config->virtio_legacy (IXY_VIRTIO_LEGACY=1) for a modern-only VirtIO NIC.
bool check_device(const struct ixy_config* config, const struct pci_ids* ids, const struct ixy_driver* driver,
		  const struct ixy_driver* const drivers[], size_t num_drivers);

#endif
