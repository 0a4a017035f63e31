// Where DMA memory comes from: see dma_provider.h. memory_allocate_dma and memory_free_dma (include/ixy/memory.h)
// pass each request on to the provider chosen last.
#include "dma_provider.h"
#include "log.h"

static const struct dma_provider* provider = &hugetlbfs_dma;
static size_t live_allocations; // made and not yet freed

int memory_select_provider(const struct dma_provider* wanted) {
	if (wanted != provider && live_allocations > 0) {
		ixy_error(
		    "this process has DMA memory for devices reached through %s; a device reached through %s cannot "
		    "use it (the addresses differ): reach all devices the same way",
		    provider->name, wanted->name);
		return -1;
	}
	provider = wanted;
	return 0;
}

uintptr_t memory_device_address(const void* virt) {
	return provider->iova ? (uintptr_t)virt : virt_to_phys(virt);
}

int memory_allocate_dma(size_t size, bool require_contiguous, struct dma_memory* mem) {
	size = (size + IXY_HUGE_PAGE_SIZE - 1) / IXY_HUGE_PAGE_SIZE * IXY_HUGE_PAGE_SIZE;
	if (require_contiguous && size > IXY_HUGE_PAGE_SIZE) {
		ixy_error("%zu bytes of physically contiguous DMA memory requested: at most one huge page", size);
		return -1;
	}
	int rc = provider->allocate(size, mem);
	live_allocations += rc == 0;
	return rc;
}

void memory_free_dma(struct dma_memory* mem) {
	if (mem->virt) {
		provider->free(mem);
		live_allocations--;
	}
	*mem = (struct dma_memory){0};
}
