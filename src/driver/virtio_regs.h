// The registers of the two VirtIO PCI transports: the legacy interface's block in the IO-port BAR0 (VirtIO 1.0,
// 4.1.4.8, virtio_legacy.c) and the modern interface's common configuration structure (4.1.4.3, virtio_modern.c),
// with their names for the register trace (virtio_trace.c), as the ixgbe and igb drivers have theirs.
#ifndef IXY_VIRTIO_REGS_H
#define IXY_VIRTIO_REGS_H

#include "../trace.h" // struct ixy_reg_names
#include "virtio_spec.h"

// 4.1.4.8 Legacy Interfaces: the register block in the IO-port BAR0. Width, access, meaning.
#define REG_HOST_FEATURES 0x00  // 32 bit RO: feature bits 0-31 the device offers
#define REG_GUEST_FEATURES 0x04 // 32 bit RW: feature bits the driver accepts
#define REG_QUEUE_PFN 0x08      // 32 bit RW: address of the selected queue / 4096 (0: queue unused)
#define REG_QUEUE_SIZE 0x0c     // 16 bit RO: entries of the selected queue, 0 if it does not exist
#define REG_QUEUE_SELECT 0x0e   // 16 bit RW: the queue that QUEUE_PFN and QUEUE_SIZE refer to
#define REG_QUEUE_NOTIFY 0x10   // 16 bit RW: writing a queue index tells the device to look at that queue
#define REG_STATUS 0x12         // 8 bit RW: device status (2.1); writing 0 resets the device
// The device-specific configuration follows at 0x14 while MSI-X is disabled (at 0x18 with MSI-X). ixy never
// enables MSI-X, and the kernel's virtio-pci driver disables it when it is unbound, so it is always 0x14 here.
#define REG_DEVICE_CONFIG 0x14

// 4.1.4.3 struct virtio_pci_common_cfg: offsets and widths. "device_feature" and "driver_feature" show the 32 bits
// chosen by their select register; the queue_* fields are those of the queue chosen by queue_select.
#define COMMON_DEVICE_FEATURE_SELECT 0x00 // 32 bit RW
#define COMMON_DEVICE_FEATURE 0x04        // 32 bit RO
#define COMMON_DRIVER_FEATURE_SELECT 0x08 // 32 bit RW
#define COMMON_DRIVER_FEATURE 0x0c        // 32 bit RW
#define COMMON_DEVICE_STATUS 0x14         // 8 bit RW: 2.1; writing 0 resets the device
#define COMMON_CONFIG_GENERATION 0x15     // 8 bit RO: changes whenever the device configuration changes
#define COMMON_QUEUE_SELECT 0x16          // 16 bit RW
#define COMMON_QUEUE_SIZE 0x18            // 16 bit RW: the device's maximum; the driver may write a smaller one
#define COMMON_QUEUE_MSIX_VECTOR 0x1a     // 16 bit RW: the MSI-X vector of the queue's interrupts
#define COMMON_QUEUE_ENABLE 0x1c          // 16 bit RW: 1 once the driver has set the queue up
#define COMMON_QUEUE_NOTIFY_OFF 0x1e      // 16 bit RO: where the queue's notification address is (4.1.4.4)
#define COMMON_QUEUE_DESC 0x20            // 64 bit RW: descriptor table
#define COMMON_QUEUE_AVAIL 0x28           // 64 bit RW: available ring ("driver area")
#define COMMON_QUEUE_USED 0x30            // 64 bit RW: used ring ("device area")

// The names of these registers for the register trace (virtio_trace.c): of the legacy register block, and of the
// modern interface's common configuration, network device's configuration and notification structure.
extern const struct ixy_reg_names virtio_legacy_reg_names, virtio_common_reg_names;
extern const struct ixy_reg_names virtio_net_config_reg_names, virtio_notify_reg_names;

#endif
