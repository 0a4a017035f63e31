// The test side of the seam (src/driver/driver.h, src/pci.h, include/ixy/memory.h): DMA memory for test builds.
//
// Test builds link test/seam/dma_seam.c instead of src/memory.c: DMA memory is ordinary memory (no root, no huge
// pages). Every allocation is recorded, so a device model can check each DMA access against what the driver
// allocated. The address a device sees comes in two modes, as in ixy (dma_memory.phy, pkt_buf.buf_addr_phy):
//   IO virtual addresses (the default): the virtual address, as behind an IOMMU that maps memory 1:1 (VFIO); only
//     allocated ("mapped") memory is reachable;
//   physical addresses (environment IXY_SEAM_ADDRESSES=physical): the virtual address plus SEAM_PHYSICAL_OFFSET, so
//     that a driver that hands a device a virtual address, or does arithmetic across the two, is caught.
// A device model turns a device address back into a pointer with seam_dma_virt(). In both modes device addresses lie
// below 2^44, where the legacy VirtIO interface can reach them (a 32 bit page number, 4.1.4.8): DMA memory is
// mapped between SEAM_DMA_BASE and SEAM_DMA_END, not taken from the heap (below 2 GiB: the only low addresses that
// AddressSanitizer leaves to the program on x86-64, its shadow memory starts at 0x7fff8000).
#ifndef IXY_TEST_SEAM_H
#define IXY_TEST_SEAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SEAM_DMA_BASE 0x10000000ull // 256 MiB
#define SEAM_DMA_END 0x7fe00000ull
#define SEAM_PHYSICAL_OFFSET 0x0000020000000000ull // 2 TiB: no device address is a virtual one

// Where the CPU sees the memory a device reaches at device address addr (which must lie in live DMA memory).
void* seam_dma_virt(uintptr_t addr);
// True if [addr, addr + len) (device addresses) lies inside one live DMA allocation.
bool seam_dma_contains(uintptr_t addr, size_t len);
// Number of live DMA allocations and their total bytes.
size_t seam_dma_live_allocations(void);
size_t seam_dma_live_bytes(void);
// Makes the next n allocations fail (as if huge pages ran out), 0 to stop.
void seam_dma_fail_next(unsigned n);
// True if the last device given back to its kernel driver (failsafe_give_back) was pci_addr, to kernel_driver;
// forgets it.
bool seam_given_back(const char* pci_addr, const char* kernel_driver);

#endif
