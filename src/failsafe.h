// Fail safety around ixy_init (see failsafe.c): checks that keep ixy from taking a device it must not take, and
// the way back when init fails after the kernel driver was unbound.
//
// Test builds (IXY_SEAM) link stand-ins from test/seam and test/model instead of failsafe.c.
#ifndef IXY_FAILSAFE_H
#define IXY_FAILSAFE_H

#include <ixy/ixy.h>

#include "driver/driver.h"

#define FAILSAFE_DRIVER_NAME_MAX 64

// Fails with a message unless this process may take the device for that driver. Stores the name of the device's
// kernel driver ("" if none) in kernel_driver. A device bound to vfio-pci (reached through VFIO): the huge pages the
// driver will allocate are free, and RLIMIT_MEMLOCK leaves room for them. Any other: the process runs as root, the
// device's network interface is neither up nor has an IP address (someone uses it) unless the environment variable
// IXY_FORCE=1 says to take it anyway (then it warns), hugetlbfs is mounted and the huge pages are free. Touches no
// device; remembers how the process reaches its devices (sysfs or VFIO: all must agree). ixy_check_configs (ixy.h)
// runs the same checks for all devices of an app, with their DMA memory and the app's own pools counted together.
int failsafe_check(const struct ixy_config* config, const struct ixy_driver* driver,
		   char kernel_driver[FAILSAFE_DRIVER_NAME_MAX]);
// Binds the device to that kernel driver again (nothing if it is ""): gives it back after a failed ixy_init.
void failsafe_give_back(const char* pci_addr, const char* kernel_driver);

#endif
