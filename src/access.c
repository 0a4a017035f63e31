// How this process reaches its devices: see access.h.
#include "access.h"

static const struct pci_access* process_access; // chosen by the first ixy_init (device.c), NULL before

int access_check(const char* pci_addr, const struct pci_access* access, const struct pci_access* other) {
	other = other ? other : access_of_process();
	if (other && other != access) {
		ixy_error(
		    "PCI device %s would be reached through %s, but this process reaches its other devices through "
		    "%s: its DMA memory cannot serve both (physical or IO virtual addresses). Bind all of them to "
		    "vfio-pci (scripts/setup-vfio.sh) or none",
		    pci_addr, access->name, other->name);
		return -1;
	}
	return 0;
}

int access_choose(const char* pci_addr, const struct pci_access* access) {
	if (access_check(pci_addr, access, NULL) != 0) {
		return -1;
	}
	// (memory.c refuses only after an allocation of other memory, which made the way sysfs: access_check refused)
	if (access->dma && memory_install_provider(access->dma) != 0) {
		ixy_error("PCI device %s: DMA memory was allocated already, which %s cannot use", pci_addr,
			  access->name);
		return -1;
	}
	process_access = access;
	return 0;
}

const struct pci_access* access_of_process(void) {
	// DMA memory allocated before the first device was taken has physical addresses: the sysfs way's.
	return process_access ? process_access : memory_in_use() ? &pci_sysfs_access : NULL;
}
