// PCI functions that test builds provide here rather than in the device model (test/model implements the rest of
// src/pci.h): the modelled devices are never bound to a kernel driver.
#include "pci.h"

int pci_get_driver(const char* pci_addr, char driver[PCI_DRIVER_NAME_MAX]) {
	(void)pci_addr;
	driver[0] = '\0';
	return 0;
}

void pci_bind_driver(const char* pci_addr, const char* driver) {
	(void)pci_addr;
	(void)driver;
}

int pci_check_not_in_use(const char* pci_addr, bool force) {
	(void)pci_addr;
	(void)force;
	return 0;
}
