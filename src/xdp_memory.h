// The DMA memory of a process whose devices are all AF_XDP ones (xdp_memory.c): one of the ways to devices (pci.h),
// below the drivers with the others.
#ifndef IXY_XDP_MEMORY_H
#define IXY_XDP_MEMORY_H

#include "pci.h"

// Ordinary memory, with no device addresses to look up; only its DMA memory (.dma) is set. check_taking (checks.c)
// chooses it.
extern const struct pci_access xdp_memory_access;

#endif
