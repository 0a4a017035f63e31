// PCI devices. Before ixy takes a device it only reads its IDs and class, by address (pci.c, through sysfs:
// /sys/bus/pci/devices/<addr>/...). A device it has taken is a struct pci_device: config space, BARs and bus
// mastering, reached through one of two ways, one table of operations (struct pci_access) each; the process uses one
// of them for all its devices (access.h):
//   sysfs (pci.c): the kernel's files for the device; needs root, and the device's DMA uses physical addresses;
//   VFIO (vfio.c): a device the administrator bound to vfio-pci; its DMA goes through the IOMMU.
// Drivers only call the functions below: they do not know which way it is.
//
// Every function prints what went wrong, naming the device, and returns -1 (or NULL) on failure.
// Test builds (IXY_SEAM) link a software device model's implementation (test/model) instead of pci.c and vfio.c.
#ifndef IXY_PCI_H
#define IXY_PCI_H

#include <ctype.h>
#include <errno.h>
#include <linux/pci_regs.h> // PCI_COMMAND, PCI_BASE_ADDRESS_0 and their bits (PCI Local Bus spec 3.0, 6.1, 6.2)
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <ixy/ixy.h> // IXY_DRIVER_NAME_MAX

#include "dma_provider.h"
#include "log.h"

struct pci_device;

// A way to reach devices.
struct pci_access {
	const char* name; // "sysfs" or "VFIO"
	// Takes the device (sysfs: after ixy_init unbound its kernel driver). NULL with a message.
	struct pci_device* (*open)(const char* pci_addr);
	// The DMA memory its devices need, installed when the process chooses this way (access.c); NULL: the paper's,
	// hugetlbfs pages with physical addresses (memory.c).
	const struct dma_provider* dma;
	// Reads or writes len bytes of config space at offset.
	int (*config)(struct pci_device* dev, void* buf, size_t len, uint32_t offset, bool write);
	// Maps memory BAR `bar` with mmap; *size receives its length. NULL with a message.
	uint8_t* (*map_bar)(struct pci_device* dev, unsigned bar, size_t* size);
	// Closes what the access opened and frees dev (pci_close unmapped BAR 0).
	void (*close)(struct pci_device* dev);
	// Routes the device's MSI-X vectors 0 .. count-1 to new eventfds, stored in fds[0 .. count-1]; closed with the
	// device, and returns 1; 0 without a word if the device has fewer than count MSI-X vectors; -1 with a message
	// if it fails.
	// NULL where the access has no interrupts (sysfs). Drivers call it through pci_setup_rx_interrupts
	// (pci_interrupts.h).
	int (*enable_interrupts)(struct pci_device* dev, unsigned count, int fds[]);
};

// The part of a taken device every access has; each embeds it as its first member.
struct pci_device {
	char addr[sizeof("0000:00:00.0")];
	const struct pci_access* access;
	uint8_t* bar0; // memory BAR 0, mapped by pci_map_bar0: ixgbe's and igb's registers (NULL for VirtIO)
	size_t bar0_size;
};

// The sysfs way (pci.c; its DMA memory: hugetlbfs, memory.c). The VFIO way is vfio_access (vfio.h).
extern const struct pci_access pci_sysfs_access;

// Maps BAR 0 into dev->bar0 if it is a memory BAR (ixgbe and igb have their registers there); VirtIO has an I/O BAR
// there (bit 0 of the BAR register set, PCI Local Bus 3.0, 6.2.5.1) or none (the register reads 0), which it reaches
// its own way (driver/virtio_legacy.c, virtio_modern.c). ixy_init calls it when it opens the device.
static inline int pci_map_bar0(struct pci_device* dev) {
	uint32_t bar0 = 0;
	int rc = dev->access->config(dev, &bar0, sizeof(bar0), PCI_BASE_ADDRESS_0, false);
	if (rc == 0 && bar0 != 0 && !(bar0 & PCI_BASE_ADDRESS_SPACE_IO)) {
		dev->bar0 = dev->access->map_bar(dev, 0, &dev->bar0_size);
		rc = dev->bar0 ? 0 : -1;
	}
	return rc;
}

// Sets or clears Bus Master Enable in the command register (PCI Local Bus 3.0, 6.2.2): a function may only start
// DMA while it is set.
static inline int pci_set_bus_master(struct pci_device* dev, bool enable) {
	uint16_t command;
	if (dev->access->config(dev, &command, sizeof(command), PCI_COMMAND, false) != 0) {
		return -1;
	}
	command = enable ? (command | PCI_COMMAND_MASTER) : (command & ~PCI_COMMAND_MASTER);
	return dev->access->config(dev, &command, sizeof(command), PCI_COMMAND, true);
}

// Unmaps BAR 0, closes the device and frees dev.
static inline void pci_close(struct pci_device* dev) {
	if (dev->bar0 && munmap(dev->bar0, dev->bar0_size) != 0) {
		ixy_warn("%s: unmapping BAR 0 failed: %s", dev->addr, strerror(errno));
	}
	dev->access->close(dev);
}

// ---- Before ixy takes a device (pci.c)

struct pci_ids {
	uint16_t vendor_id;
	uint16_t device_id;
	uint32_t class_code; // base class << 16 | sub class << 8 | programming interface
};

// Whether s has the shape of a PCI address, domain:bus:device.function with hex digits (0000:03:00.0), function 0..7.
static inline bool pci_addr_shape(const char* s) {
	const char* pattern = "xxxx:xx:xx.x"; // x: a hex digit
	for (size_t i = 0; s && i <= strlen(pattern); i++) {
		if (pattern[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != pattern[i]) {
			return false;
		}
	}
	return s && s[11] <= '7';
}

// Reads vendor, device and class from config space. Touches nothing.
int pci_read_ids(const char* pci_addr, struct pci_ids* ids);
// Writes the device's address to a sysfs file such as .../driver/unbind or /sys/bus/pci/drivers/<name>/bind.
int pci_write_address_to(const char* pci_addr, const char* path);
// The name of the kernel driver bound to the device into name, "" if none.
int pci_read_kernel_driver(const char* pci_addr, char name[IXY_DRIVER_NAME_MAX]);
// Unbinds the device's kernel driver; the caller knows there is one (pci_read_kernel_driver read its name).
int pci_unbind_driver(const char* pci_addr);

#endif
