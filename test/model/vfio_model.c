// VFIO for test builds (src/vfio.h): no modelled device is bound to vfio-pci (the model's failsafe_check_device
// reports no kernel driver), so ixy_init never takes this way; opening a device through it fails.
#include <stdio.h>

#include "model.h"
#include "vfio.h"

static struct pci_device* no_open(const char* pci_addr) {
	fprintf(stderr, "model: %s: no VFIO in the model\n", pci_addr);
	return NULL;
}

static const struct dma_provider iommu_memory = {.name = "VFIO (model)", .iommu = true}; // (the seam allocates)
const struct pci_access vfio_access = {.name = "VFIO (model)", .dma = &iommu_memory, .open = no_open};
