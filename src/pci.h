// PCI devices through sysfs (/sys/bus/pci/devices/<addr>/..., pci.c). Before ixy takes a device it only reads its
// IDs and class, by address. A device it has taken is a struct pci_device (pci_access.h): config space, BARs and
// bus mastering, reached through sysfs or VFIO.
//
// Every function prints what went wrong, naming the device, and returns -1 (or NULL) on failure.
// Test builds (IXY_SEAM) link a software device model's implementation (test/model) instead of pci.c and vfio.c.
#ifndef IXY_PCI_H
#define IXY_PCI_H

#include "pci_access.h" // a device ixy has taken: the operations sysfs and VFIO share

#define PCI_BASE_CLASS_NETWORK 0x02

struct pci_ids {
	uint16_t vendor_id;
	uint16_t device_id;
	uint32_t class_code; // base class << 16 | sub class << 8 | programming interface
};

// Reads vendor, device and class from config space. Touches nothing.
int pci_read_ids(const char* pci_addr, struct pci_ids* ids);
// Writes the device's address to a sysfs file such as .../driver/unbind or /sys/bus/pci/drivers/<name>/bind.
int pci_write_address_to(const char* pci_addr, const char* path);
// Unbinds the device's kernel driver; the caller knows there is one (failsafe_check_device read its name).
int pci_unbind_driver(const char* pci_addr);

#endif
