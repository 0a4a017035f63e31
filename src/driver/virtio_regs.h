// The registers of the two VirtIO PCI transports: the legacy interface's block in the IO-port BAR0 (VirtIO 1.0,
// 4.1.4.8, virtio_legacy.c) and the modern interface's common configuration structure (4.1.4.3, virtio_modern.c),
// with their names for the register trace (src/trace.h), as the ixgbe and igb drivers have theirs.
#ifndef IXY_VIRTIO_REGS_H
#define IXY_VIRTIO_REGS_H

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

// Names for the trace: the legacy register block (with the network device's configuration after it), the common
// configuration (64 bit fields are written as two halves: (0) low, (1) high), the network device's configuration of
// the modern interface (5.1.4), and the notification structure (QEMU: one 4 byte slot per queue).
// clang-format off
#define VIRTIO_LEGACY_REG_NAMES \
	{"HOST_FEATURES", REG_HOST_FEATURES, 1, 0}, \
	{"GUEST_FEATURES", REG_GUEST_FEATURES, 1, 0}, \
	{"QUEUE_PFN", REG_QUEUE_PFN, 1, 0}, \
	{"QUEUE_SIZE", REG_QUEUE_SIZE, 1, 0}, \
	{"QUEUE_SELECT", REG_QUEUE_SELECT, 1, 0}, \
	{"QUEUE_NOTIFY", REG_QUEUE_NOTIFY, 1, 0}, \
	{"STATUS", REG_STATUS, 1, 0}, \
	{"MAC", REG_DEVICE_CONFIG + VIRTIO_NET_CONFIG_MAC, 6, 1}, \
	{"NET_STATUS", REG_DEVICE_CONFIG + VIRTIO_NET_CONFIG_STATUS, 1, 0}
#define VIRTIO_COMMON_REG_NAMES \
	{"DEVICE_FEATURE_SELECT", COMMON_DEVICE_FEATURE_SELECT, 1, 0}, \
	{"DEVICE_FEATURE", COMMON_DEVICE_FEATURE, 1, 0}, \
	{"DRIVER_FEATURE_SELECT", COMMON_DRIVER_FEATURE_SELECT, 1, 0}, \
	{"DRIVER_FEATURE", COMMON_DRIVER_FEATURE, 1, 0}, \
	{"DEVICE_STATUS", COMMON_DEVICE_STATUS, 1, 0}, \
	{"CONFIG_GENERATION", COMMON_CONFIG_GENERATION, 1, 0}, \
	{"QUEUE_SELECT", COMMON_QUEUE_SELECT, 1, 0}, \
	{"QUEUE_SIZE", COMMON_QUEUE_SIZE, 1, 0}, \
	{"QUEUE_MSIX_VECTOR", COMMON_QUEUE_MSIX_VECTOR, 1, 0}, \
	{"QUEUE_ENABLE", COMMON_QUEUE_ENABLE, 1, 0}, \
	{"QUEUE_NOTIFY_OFF", COMMON_QUEUE_NOTIFY_OFF, 1, 0}, \
	{"QUEUE_DESC", COMMON_QUEUE_DESC, 2, 4}, \
	{"QUEUE_DRIVER", COMMON_QUEUE_AVAIL, 2, 4}, \
	{"QUEUE_DEVICE", COMMON_QUEUE_USED, 2, 4}
#define VIRTIO_NET_CONFIG_NAMES \
	{"MAC", VIRTIO_NET_CONFIG_MAC, 6, 1}, \
	{"NET_STATUS", VIRTIO_NET_CONFIG_STATUS, 1, 0}, \
	{"SPEED", VIRTIO_NET_CONFIG_SPEED, 1, 0}
#define VIRTIO_NOTIFY_NAMES {"QUEUE_NOTIFY", 0, 8, 4}
// clang-format on

#endif
