// Fail safety (src/checks.c, book chapter 12): what an app asks before it takes any device, so that a refusal
// leaves every device as it was; and the way back for an app that gives up after it took some.
#ifndef IXY_CHECKS_H_PUBLIC
#define IXY_CHECKS_H_PUBLIC

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ixy.h"

// Runs the checks of ixy_init for every device an app will open (address, device, driver, root, interface in use,
// all reached the same way) and then checks the DMA memory of all of them together, plus app_huge_pages for the
// app's own pools (memory_mempool_huge_pages: the pages memory_allocate_mempool takes): free huge pages and, through
// VFIO, locked memory. Prints why if not (failsafe.c). Touches no device and changes nothing: ixy_init still decides
// how the process reaches its devices; but for an app with AF_XDP and PCI devices it chooses the PCI way already, so
// that the AF_XDP UMEM is DMA memory a PCI NIC can send from. An app calls it once, before it takes the first device:
// ixy_init itself can only check one device's memory, when the devices before it are taken already.
bool ixy_check_configs(const struct ixy_config configs[], size_t num_configs, uint32_t app_huge_pages);

// For an app that gives up before it used its devices (ixy-fwd: the second NIC did not start): closes dev (ixy_close)
// and binds the device again to the kernel driver ixy_init unbound (dev->kernel_driver), so that its network
// interface comes back, as a new interface. Needs what unbinding needed: root, before the app drops it
// (ixy/sandbox.h). Nothing to bind through VFIO (the device stays bound to vfio-pci) or for AF_XDP. dev may be NULL.
// A normal exit closes with ixy_close: the NIC stays unbound, ready for the next ixy app (book chapter 12 says why).
void ixy_give_back(struct ixy_device* dev);

// Checks that s looks like a PCI address "DDDD:BB:DD.F" (hex digits), or names a kernel interface "xdp:<ifname>"
// that ixy drives through AF_XDP sockets (src/driver/xdp.c; then no PCI device is taken). Prints nothing.
bool ixy_valid_pci_addr(const char* s);

#endif
