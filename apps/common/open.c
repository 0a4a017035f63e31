// Opening a device in promiscuous mode (see open.h).
#include <stdio.h>

#include "open.h"

struct ixy_device* open_promiscuous(const char* pci_addr) {
	struct ixy_device* dev = ixy_init(pci_addr, 1, 1);
	if (dev && ixy_set_promisc(dev, true) != 0) {
		fprintf(stderr,
			"%s: warning: cannot enable promiscuous mode: only frames addressed to the NIC arrive\n",
			pci_addr);
	}
	return dev;
}
