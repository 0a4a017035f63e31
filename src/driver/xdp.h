// AF_XDP (xdp.c): a kernel network interface as an ixy device, named "xdp:<ifname>" where apps take a PCI address.
// Nothing is taken away from the kernel: ixy attaches an XDP program that redirects the interface's packets to its
// AF_XDP sockets, one per queue, and sends through them. The program is attached with a BPF link, so it goes away
// with the process, however that ends.
#ifndef IXY_XDP_H
#define IXY_XDP_H

#include <stdbool.h>

#include <ixy/ixy.h>

#include "../pci.h"
#include "../xdp_memory.h" // xdp_memory_access: the DMA memory of a process with AF_XDP devices only

#define XDP_NAME_PREFIX "xdp:"

// s is "xdp:<ifname>" with a name an interface can have: the driver's claims (driver.h). Prints nothing.
bool xdp_claims(const char* s);

// The device's operations (driver.h declares it): init is called with pci NULL. It has no huge_pages_needed: the
// process's UMEM is sized for all its AF_XDP devices together (struct xdp_plan).
extern const struct ixy_driver xdp_driver;

// What the process's AF_XDP devices need together, gathered by the checks before the first of them is opened. All
// their sockets share one UMEM (xdp.c), queue i of each device slice i of it, so slice i must hold every frame the
// rings of the devices' queues i can give the kernel; and all of them take the mode of its first socket: zero copy
// is tried only when every interface has the same kernel driver.
struct xdp_plan {
	uint32_t frames[IXY_MAX_QUEUES]; // per queue index: the frames the rings of the devices' queues of it can hold
	uint16_t queues;                 // the most queues a device has (at least 1): the UMEM's slices
	char driver[32];                 // the first interface's kernel driver (ethtool's name)
	bool drivers_differ;             // another interface has another driver
};

// The refusals of an AF_XDP device, one line each, before anything is changed: no such interface, a capability
// missing, a kernel without AF_XDP or BPF links, an XDP program attached already (unless config->force), an MTU
// above what a frame holds, a queue the interface does not have. Then adds the device to plan.
bool xdp_check(const struct ixy_config* config, struct xdp_plan* plan);
// The huge pages of a UMEM made for plan, if the process has no UMEM yet (else 0).
uint32_t xdp_umem_huge_pages(const struct xdp_plan* plan);
// The process's UMEM, if it has none yet, is made for plan when its first AF_XDP device opens (ixy_check_configs:
// the whole app). Without it the UMEM is made for that first device alone.
void xdp_adopt_plan(const struct xdp_plan* plan);

#endif
