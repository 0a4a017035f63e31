// The part of src/failsafe.h that test builds provide here rather than in the device model (test/model implements
// failsafe_check): the modelled devices have no kernel driver to bind, so giving one back is only recorded, for the
// tests to ask (seam_given_back).
#include <stdio.h>
#include <string.h>

#include "failsafe.h"
#include "seam.h"

static char given_back[128]; // "<pci addr> <kernel driver>" of the last give-back, "" if none

void failsafe_give_back(const char* pci_addr, const char* kernel_driver) {
	if (kernel_driver[0]) {
		snprintf(given_back, sizeof(given_back), "%s %s", pci_addr, kernel_driver);
	}
}

bool seam_given_back(const char* pci_addr, const char* kernel_driver) {
	char expected[sizeof(given_back)];
	snprintf(expected, sizeof(expected), "%s %s", pci_addr, kernel_driver);
	bool same = strcmp(given_back, expected) == 0;
	given_back[0] = '\0';
	return same;
}
