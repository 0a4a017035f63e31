// VFIO: the second way ixy reaches a device (beside sysfs, pci.c). An administrator binds the NIC to the kernel's
// vfio-pci driver and gives its IOMMU group to a user (scripts/setup-vfio.sh); ixy then opens the group and the
// device through /dev/vfio, without root: config space, BARs and DMA all go through the IOMMU, which lets the device
// reach only the memory ixy mapped for it (the paper, section 3.6; Linux Documentation/driver-api/vfio.rst).
//
// Test builds (IXY_SEAM) link the device model's implementation (test/model) instead of vfio.c.
#ifndef IXY_VFIO_H
#define IXY_VFIO_H

#include "pci.h"

// The Linux driver a device must be bound to for ixy to use VFIO.
#define VFIO_PCI_DRIVER "vfio-pci"

// The VFIO way to reach devices (struct pci_access, pci.h):
//   open: a device bound to vfio-pci; its IOMMU group joins the process's one container (type 1 IOMMU) and the
//     device is reached through its VFIO file. NULL with a message that says why not: no IOMMU, group not viable
//     (names the devices in it), /dev/vfio/<group> not accessible (says who owns it), group in use by another process.
//   allocate/free: huge pages (no hugetlbfs mount needed) mapped into the container at IO virtual address == virtual
//     address, unmapped before they are freed. The mapping pins the pages; it counts against RLIMIT_MEMLOCK.
//   enable_interrupts: MSI-X vectors routed to eventfds.
extern const struct pci_access vfio_access;

#endif
