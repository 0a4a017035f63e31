// Where DMA memory comes from (dma_provider.c). There are two answers because there are two ways to reach a device
// (pci.h): through sysfs, devices use physical addresses, and memory.c's hugetlbfs pages serve them; through VFIO,
// devices use IO virtual addresses, and VFIO's provider (vfio.c) maps huge pages into the IOMMU at IO virtual
// address == virtual address. src/device.c chooses when it takes a device; all devices of a process must agree.
//
// Test builds (IXY_SEAM) link test/seam/dma_seam.c instead.
#ifndef IXY_DMA_PROVIDER_H
#define IXY_DMA_PROVIDER_H

#include <ixy/memory.h>

struct dma_provider {
	const char* name;
	bool iova; // devices reach this memory at IO virtual address == virtual address (else physical address)
	int (*allocate)(size_t size, struct dma_memory* mem); // size: whole huge pages; fills all fields
	void (*free)(struct dma_memory* mem);
};

// Huge pages from hugetlbfs with physical addresses (memory.c): the provider until a device is reached through VFIO.
extern const struct dma_provider hugetlbfs_dma;

// Switches to provider. Fails with a message while DMA memory of the other kind exists.
int memory_select_provider(const struct dma_provider* provider);
// The address a device uses for virt, which lies in DMA memory: its physical address, or behind an IOMMU (VFIO) its
// IO virtual address, which ixy makes equal to virt. 0 on failure.
uintptr_t memory_device_address(const void* virt);

#endif
