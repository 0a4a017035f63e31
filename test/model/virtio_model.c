// The VirtIO transports for test builds (src/driver/virtio_transport.h): no modelled device has a VirtIO interface
// yet, so opening one fails as on a device without BARs.
#include <stdio.h>

#include "driver/virtio_transport.h"

int virtio_modern_open(struct pci_device* pci, struct virtio_transport** transport) {
	(void)pci;
	*transport = NULL;
	return 0;
}

struct virtio_transport* virtio_legacy_open(struct pci_device* pci) {
	fprintf(stderr, "pci: %s: BAR0 is not an IO port BAR (model)\n", pci->addr);
	return NULL;
}
