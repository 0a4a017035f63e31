// The DMA memory of a process whose devices are all AF_XDP ones (xdp_memory.h), for the UMEM and the app's own
// pools: ordinary pages, no physical addresses (no /proc/self/pagemap, no hugetlbfs), device address = virtual
// address. A way to devices with only its DMA memory (a provider, dma_provider.h). A process that also reaches PCI
// devices takes its way's DMA memory for the UMEM instead (checks.c decides: ixy_check_configs picks the PCI way when
// any of the app's devices is PCI); a PCI device cannot join once this memory was chosen (check_taking refuses it). It
// sits with the other ways (pci.c, vfio.c), below the drivers: access.c installs its provider into memory.c, which
// would call up into the AF_XDP driver (driver/xdp.c) if this were there.
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "xdp_memory.h"

static int xdp_memory_allocate(size_t size, struct dma_memory* mem) {
	// Ordinary pages, present from the start (MAP_POPULATE, zero-filled). The kernel pins a UMEM's pages when it is
	// registered; nothing needs their physical addresses.
	void* virt = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (virt == MAP_FAILED) {
		ixy_error("cannot map %zu bytes of memory: %s", size, strerror(errno));
		return -1;
	}
	*mem = (struct dma_memory){.virt = virt, .phy = (uintptr_t)virt, .size = size};
	return 0;
}

static void xdp_memory_free(struct dma_memory* mem) {
	if (munmap(mem->virt, mem->size) != 0) {
		ixy_warn("munmap of memory failed: %s", strerror(errno));
	}
}

static const struct dma_provider ordinary_memory = {
    .name = "ordinary memory", .iommu = true, .allocate = xdp_memory_allocate, .free = xdp_memory_free};

const struct pci_access xdp_memory_access = {.name = "AF_XDP (ordinary memory, no PCI devices)",
					     .dma = &ordinary_memory};
