// How this process reaches its devices: see access.h.
#include "access.h"

static const struct pci_access* process_access; // chosen by the first ixy_init (device.c), NULL before

int access_check(const char* pci_addr, const struct pci_access* access, const struct pci_access* other) {
	other = other ? other : process_access;
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
	process_access = access;
	return 0;
}

const struct pci_access* access_of_process(void) {
	return process_access;
}

const struct pci_access* access_of_memory(void) {
	if (!process_access) {
		process_access = &pci_sysfs_access; // nothing was chosen: nothing to check against
	}
	return process_access;
}
