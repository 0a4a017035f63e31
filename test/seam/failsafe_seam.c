// The part of src/failsafe.h that test builds provide here rather than in the device model (test/model implements
// failsafe_check): the modelled devices are never bound to a kernel driver, so there is nothing to give back.
#include "failsafe.h"

void failsafe_give_back(const char* pci_addr, const char* kernel_driver) {
	(void)pci_addr;
	(void)kernel_driver;
}
