// PCI access through sysfs (/sys/bus/pci/devices/<addr>/...). Every function prints what went wrong,
// naming the device and the file, and returns -1 (or NULL) on failure.
//
// Test builds (IXY_SEAM) link a software device model's implementation of these functions instead of pci.c.
#ifndef IXY_PCI_H
#define IXY_PCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pci_ids {
	uint16_t vendor_id;
	uint16_t device_id;
	uint32_t class_code; // base class << 16 | sub class << 8 | programming interface
};

#define PCI_BASE_CLASS_NETWORK 0x02

// Reads len bytes of config space at offset (root sees all of it, others only the first 64 bytes). Touches nothing.
int pci_read_config(const char* pci_addr, void* buf, size_t len, uint32_t offset);
// Reads vendor, device and class from config space. Touches nothing.
int pci_read_ids(const char* pci_addr, struct pci_ids* ids);
// Writes the device's address to a sysfs file such as .../driver/unbind or /sys/bus/pci/drivers/<name>/bind.
int pci_write_address_to(const char* pci_addr, const char* path);
// Unbinds the kernel driver, if any.
int pci_unbind_driver(const char* pci_addr);
// Sets or clears Bus Master Enable in the command register (PCI 3.0 spec 6.2.2): the device may only DMA with it.
int pci_set_bus_master(const char* pci_addr, bool enable);
// Maps memory BAR bar_index (the NIC's registers). *size receives the length for pci_unmap_bar (NULL: nothing).
uint8_t* pci_map_bar(const char* pci_addr, unsigned bar_index, size_t* size);
void pci_unmap_bar(uint8_t* bar, size_t size);
// Opens BAR0 when it is an IO-port BAR; use pread/pwrite at the register offset. Returns the fd.
int pci_open_io_bar0(const char* pci_addr);

#endif
