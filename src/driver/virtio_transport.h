// The two ways the VirtIO driver reaches a device over PCI (4.1.4), behind one small set of operations.
//
// The VirtIO specification keeps the device (here: a network card with virtqueues) apart from the transport that
// carries status, features, queue setup, notifications and the device configuration. Over PCI there are two:
//   legacy (virtio_legacy.c, 4.1.4.8): an IO-port BAR with a fixed register block; 32 feature bits; the queue is
//           given as one page number, with a fixed layout. VirtualBox, QEMU with disable-modern=on.
//   modern (virtio_modern.c, 4.1.4): vendor capabilities in config space point at structures in a memory BAR; 64
//           feature bits; three addresses per queue, a queue_enable switch and per-queue notification addresses.
//           Every QEMU NIC behind a PCIe port has only this one.
// virtio.c picks one transport when it opens the device and then only calls these operations: the virtqueues, the
// packet path and the control queue are the same code for both.
//
// Every operation prints what went wrong (naming the device) and returns -1 on failure.
#ifndef IXY_VIRTIO_TRANSPORT_H
#define IXY_VIRTIO_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../pci.h"

struct virtio_transport;

struct virtio_transport_ops {
	const char* name; // "legacy" or "modern"
	// The device status (2.1). Writing 0 resets the device: it forgets features and queues and stops all DMA.
	int (*get_status)(struct virtio_transport* t, uint8_t* status);
	int (*set_status)(struct virtio_transport* t, uint8_t status);
	// The features the device offers (2.2; legacy: bits 0-31 only).
	int (*get_features)(struct virtio_transport* t, uint64_t* offered);
	// Accepts features. The modern transport then sets FEATURES_OK and checks that the device kept it (3.1.1 steps
	// 5 and 6), which the legacy interface does not have (3.1.2).
	int (*set_features)(struct virtio_transport* t, uint64_t accepted);
	// The number of descriptors virtqueue `index` will have: at most `wanted` if the transport lets the driver
	// choose (modern, 4.1.4.3.2; wanted 0: the device's maximum), else the device's fixed size (legacy). 0: the
	// queue does not exist.
	int (*queue_size)(struct virtio_transport* t, uint16_t index, uint16_t wanted, uint16_t* size);
	// Gives the device virtqueue `index`: `size` descriptors, and the device addresses of the descriptor table,
	// the available ring and the used ring, laid out as the legacy interface requires (2.4.2: one page-aligned
	// block, used ring at the next 4096 byte boundary). Modern: also enables the queue.
	int (*enable_queue)(struct virtio_transport* t, uint16_t index, uint16_t size, uint64_t desc, uint64_t avail,
			    uint64_t used);
	// Makes virtqueue `index` signal MSI-X vector `vector` (4.1.4.3: queue_msix_vector; before enable_queue). NULL
	// in the legacy transport (ixy uses interrupts only through VFIO, which takes only the modern one).
	int (*set_queue_vector)(struct virtio_transport* t, uint16_t index, uint16_t vector);
	// Tells the device that virtqueue `index` has new chains (4.1.4.4, 4.1.4.8). The only operation of the packet
	// path: at most once per batch. Failures are printed, nothing else can be done about them.
	void (*notify)(struct virtio_transport* t, uint16_t index);
	// Reads len bytes of the device-specific configuration at offset (a 16 or 32 bit field with one access of its
	// width, 4.1.3.1), consistently: the modern transport retries while config_generation changes (4.1.4.3.1),
	// the legacy one until two reads agree (2.3.4).
	int (*read_config)(struct virtio_transport* t, uint32_t offset, void* buf, size_t len);
	// Writes the device-specific configuration. Only the legacy interface allows this (for the MAC address, 5.1.4).
	int (*write_config)(struct virtio_transport* t, uint32_t offset, const void* buf, size_t len);
	// Frees the transport. Reset the device first.
	void (*close)(struct virtio_transport* t);
};

// The part every transport shares; each embeds it as its first member.
struct virtio_transport {
	const struct virtio_transport_ops* ops;
	struct pci_device* pci;     // the device (owned by the driver)
	uint64_t required_features; // features the driver must accept on this transport (modern: VERSION_1, 6.1)
};

// The modern transport, if the device has the VirtIO capabilities (4.1.4): *transport is NULL (and nothing is
// printed) if it has none. Returns -1 with a message if it has them but they cannot be used.
int virtio_modern_open(struct pci_device* pci, struct virtio_transport** transport);
// The legacy transport through the device's IO-port BAR0, or NULL with a message.
struct virtio_transport* virtio_legacy_open(struct pci_device* pci);

#endif
