// How this process reaches its devices (access.c): one way for all of them, sysfs or VFIO, each a table of operations
// (struct pci_access in pci.h: open a device, its DMA memory, its interrupts). One way, because DMA memory
// serves every device and has either physical addresses (sysfs) or IO virtual addresses (VFIO).
//
// The choice is made in one place: ixy_init's checks make it (check_init, checks.c) when it takes the first device, and
// install the way's DMA memory (memory.c). DMA memory allocated before that has physical addresses: it made the
// choice sysfs.
#ifndef IXY_ACCESS_H
#define IXY_ACCESS_H

#include "pci.h"

// Fails with a message if a device reached through `access` cannot join the devices reached through `other`, or,
// if other is NULL, the process's way. Changes nothing.
int access_check(const char* pci_addr, const struct pci_access* access, const struct pci_access* other);
// access_check, then makes access the process's way if there is none yet, and installs its DMA memory.
int access_choose(const char* pci_addr, const struct pci_access* access);
// The process's way to its devices: NULL before the choice, but sysfs once DMA memory was allocated before it.
const struct pci_access* access_of_process(void);

#endif
