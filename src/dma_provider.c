// DMA memory (include/ixy/memory.h) from the process's way to its devices (access.h): through sysfs hugetlbfs pages
// with physical addresses (memory.c); through VFIO pages mapped into the IOMMU, whose device addresses are their
// virtual addresses. In a file of its own, apart from memory.c: the ways' tables call memory.c, and this calls them.
#include "access.h"

uintptr_t memory_device_address(const void* virt) {
	return access_of_memory()->iommu ? (uintptr_t)virt : virt_to_phys(virt);
}

int memory_allocate_dma(size_t size, bool require_contiguous, struct dma_memory* mem) {
	size = (size + IXY_HUGE_PAGE_SIZE - 1) / IXY_HUGE_PAGE_SIZE * IXY_HUGE_PAGE_SIZE;
	if (require_contiguous && size > IXY_HUGE_PAGE_SIZE) {
		ixy_error("%zu bytes of physically contiguous DMA memory requested: at most one huge page", size);
		return -1;
	}
	return access_of_memory()->allocate(size, mem);
}

void memory_free_dma(struct dma_memory* mem) {
	if (mem->virt) {
		access_of_memory()->free(mem);
	}
	*mem = (struct dma_memory){0};
}
