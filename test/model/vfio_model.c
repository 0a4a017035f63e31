// VFIO for test builds (src/vfio.h): no modelled device is bound to vfio-pci (the model's failsafe_check reports no
// kernel driver), so ixy_init never takes this way; opening a device through it fails.
#include <stdio.h>

#include "model.h"
#include "vfio.h"

struct pci_device* vfio_open(const char* pci_addr) {
	fprintf(stderr, "model: %s: no VFIO in the model\n", pci_addr);
	return NULL;
}

static int no_allocate(size_t size, struct dma_memory* mem) {
	(void)size;
	(void)mem;
	model_usage_error("VFIO DMA memory requested from the model");
}

static void no_free(struct dma_memory* mem) {
	(void)mem;
	model_usage_error("VFIO DMA memory freed in the model");
}

const struct dma_provider vfio_dma = {"VFIO (model)", true, no_allocate, no_free};
