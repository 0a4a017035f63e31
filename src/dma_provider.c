// DMA memory through the process's way to its devices (access.h): memory_allocate_dma and memory_free_dma
// (include/ixy/memory.h) pass each request on to its allocate and free.
#include "access.h"

// Memory made before the first device is taken has physical addresses: it makes sysfs the process's way.
static const struct pci_access* memory_access(void) {
	if (!access_of_process()) {
		access_choose("(none yet)", &pci_sysfs_access); // cannot fail: nothing was chosen
	}
	return access_of_process();
}

uintptr_t memory_device_address(const void* virt) {
	return memory_access()->iommu ? (uintptr_t)virt : virt_to_phys(virt);
}

int memory_allocate_dma(size_t size, bool require_contiguous, struct dma_memory* mem) {
	size = (size + IXY_HUGE_PAGE_SIZE - 1) / IXY_HUGE_PAGE_SIZE * IXY_HUGE_PAGE_SIZE;
	if (require_contiguous && size > IXY_HUGE_PAGE_SIZE) {
		ixy_error("%zu bytes of physically contiguous DMA memory requested: at most one huge page", size);
		return -1;
	}
	return memory_access()->allocate(size, mem);
}

void memory_free_dma(struct dma_memory* mem) {
	if (mem->virt) {
		memory_access()->free(mem);
	}
	*mem = (struct dma_memory){0};
}
