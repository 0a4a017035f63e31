// Where DMA memory comes from (memory.c owns the choice): a provider allocates whole huge pages and says what address
// a device uses for them. The process starts with hugetlbfs pages and their physical addresses (memory.c), the paper's
// way; a way to devices that needs other memory installs its provider once, before the first allocation: VFIO pages
// mapped into the IOMMU (vfio.c), or for AF_XDP devices only ordinary memory (xdp_memory.c). access.c installs it.
#ifndef IXY_DMA_PROVIDER_H
#define IXY_DMA_PROVIDER_H

#include <ixy/memory.h>

struct dma_provider {
	const char* name;
	bool iommu; // device addresses are virtual addresses (an IOMMU maps them 1:1); else physical ones (pagemap)
	// size is whole huge pages; fills all of *mem, or prints why not and returns -1.
	int (*allocate)(size_t size, struct dma_memory* mem);
	void (*free)(struct dma_memory* mem);
};

// Makes provider the process's. Fails (-1, no message) once DMA memory came from another one.
int memory_install_provider(const struct dma_provider* provider);
// True once DMA memory was allocated: the provider cannot change any more.
bool memory_in_use(void);
// The address a device uses for virt, which lies in DMA memory: its physical address, or behind an IOMMU its IO
// virtual address, which ixy makes equal to virt. 0 on failure.
uintptr_t memory_device_address(const void* virt);

#endif
