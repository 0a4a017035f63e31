// AF_XDP (xdp.c): a kernel network interface as an ixy device, named "xdp:<ifname>" where apps take a PCI address.
// Nothing is taken away from the kernel: ixy attaches an XDP program that redirects the interface's packets to its
// AF_XDP sockets, one per queue, and sends through them. The program is attached with a BPF link, so it goes away
// with the process, however that ends.
#ifndef IXY_XDP_H
#define IXY_XDP_H

#include <stdbool.h>

#include <ixy/ixy.h>

#include "../pci.h"

#define XDP_NAME_PREFIX "xdp:"

// The device's operations (driver.h declares it): init is called with pci NULL; huge_pages_needed is the UMEM's
// huge pages until the process has one.
extern const struct ixy_driver xdp_driver;
// The DMA memory of a process with AF_XDP devices only, the UMEM and the app's own pools: ordinary pages, no
// physical addresses (no /proc/self/pagemap, no hugetlbfs), device address = virtual address. Only allocate and free
// are set. A process that also reaches PCI devices takes its way's DMA memory for the UMEM instead (checks.c decides:
// ixy_check_configs picks the PCI way when any of the app's devices is PCI); a PCI device cannot join once this
// memory was chosen (check_taking refuses it).
extern const struct pci_access xdp_memory_access;

// The refusals of an AF_XDP device, one line each, before anything is changed: no such interface, a capability
// missing, a kernel without AF_XDP or BPF links, an XDP program attached already (unless config->force), an MTU
// above what a frame holds, a queue the interface does not have.
bool xdp_check(const struct ixy_config* config);

#endif
