// Fail safety around ixy_init (see failsafe.c): checks that keep ixy from taking a device it must not take, and
// the way back when init fails after the kernel driver was unbound. The checks answer what checks.c asks of the
// machine for ixy_init and ixy_check_configs, and change nothing; failsafe_give_back is for ixy_init (device.c) and
// ixy_give_back (checks.c).
//
// Test builds (IXY_SEAM) link stand-ins from test/seam and test/model instead of failsafe.c.
#ifndef IXY_FAILSAFE_H
#define IXY_FAILSAFE_H

#include <ixy/ixy.h>

// Fails with a message unless this process may take the device, whose kernel driver is kernel_driver ("" if none,
// pci_read_kernel_driver). A device bound to vfio-pci (reached through VFIO) passes. Any other: the process
// runs as root, and the device's network interface is neither up nor has an IP address (someone uses it) unless
// config->force (IXY_FORCE=1) says to take it anyway (then it warns). Touches no device.
int failsafe_check_device(const struct ixy_config* config, const char* kernel_driver);
// Fails with a message naming who unless pages huge pages of DMA memory can be had: they are free, and hugetlbfs is
// mounted (sysfs, iommu false) or RLIMIT_MEMLOCK leaves room for them (VFIO, iommu true).
int failsafe_check_memory(const char* who, uint64_t pages, bool iommu);
// Binds the device to that kernel driver again (nothing if it is ""): gives it back after a failed ixy_init, or when
// the app gives up (ixy_give_back).
void failsafe_give_back(const char* pci_addr, const char* kernel_driver);

#endif
