// The test side of the seam (src/driver/driver.h, src/pci.h, include/ixy/memory.h): DMA memory for test builds.
//
// Test builds link test/seam/dma_seam.c instead of src/memory.c: DMA memory is ordinary memory (no root, no huge
// pages) and the "physical" address a device sees is the virtual address, as behind an IOMMU that maps them 1:1.
// Every allocation is recorded, so a device model can check each DMA access against what the driver allocated.
#ifndef IXY_TEST_SEAM_H
#define IXY_TEST_SEAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// True if [addr, addr + len) lies inside one live DMA allocation.
bool seam_dma_contains(uintptr_t addr, size_t len);
// Number of live DMA allocations and their total bytes.
size_t seam_dma_live_allocations(void);
size_t seam_dma_live_bytes(void);
// Makes the next n allocations fail (as if huge pages ran out), 0 to stop.
void seam_dma_fail_next(unsigned n);

#endif
