// The legacy VirtIO PCI interface and the split virtqueue: only the registers, bits and structs ixy's VirtIO
// driver uses. Section numbers refer to "Virtual I/O Device (VIRTIO) Version 1.0" (OASIS), which describes the
// legacy interface in its "Legacy Interface" subsections. All fields are little endian; so is x86, so we use
// them as they are (2.4.3: a legacy device uses the guest's native byte order).
#ifndef IXY_VIRTIO_LEGACY_H
#define IXY_VIRTIO_LEGACY_H

#include <stdint.h>

// PCI IDs (4.1.2.3): 0x1000 is the transitional network device, the one with the legacy interface.
#define VIRTIO_PCI_VENDOR_ID 0x1af4
#define VIRTIO_PCI_DEVICE_ID_NET_LEGACY 0x1000

// 4.1.4.8 Legacy Interfaces: the register block in the IO-port BAR0. Width, access, meaning.
#define VIRTIO_PCI_HOST_FEATURES 0x00  // 32 bit RO: feature bits 0-31 the device offers
#define VIRTIO_PCI_GUEST_FEATURES 0x04 // 32 bit RW: feature bits the driver accepts
#define VIRTIO_PCI_QUEUE_PFN 0x08      // 32 bit RW: address of the selected queue / 4096 (0: queue unused)
#define VIRTIO_PCI_QUEUE_SIZE 0x0c     // 16 bit RO: entries of the selected queue, 0 if it does not exist
#define VIRTIO_PCI_QUEUE_SELECT 0x0e   // 16 bit RW: the queue that QUEUE_PFN and QUEUE_SIZE refer to
#define VIRTIO_PCI_QUEUE_NOTIFY 0x10   // 16 bit RW: writing a queue index tells the device to look at that queue
#define VIRTIO_PCI_STATUS 0x12         // 8 bit RW: device status (2.1); writing 0 resets the device
#define VIRTIO_PCI_ISR 0x13            // 8 bit RO: interrupt status, cleared by reading (ixy polls, never reads it)
// The device-specific configuration follows at 0x14 while MSI-X is disabled (at 0x18 with MSI-X). ixy never
// enables MSI-X, and the kernel's virtio-pci driver disables it when it is unbound, so it is always 0x14 here.
#define VIRTIO_PCI_CONFIG 0x14

// The legacy interface puts the used ring at the next multiple of 4096 bytes (2.4.2).
#define VIRTIO_LEGACY_QUEUE_ALIGN 4096
#define VIRTIO_LEGACY_PFN_SHIFT 12

// 2.1 Device Status Field. (FEATURES_OK, 8, does not exist in the legacy interface: 3.1.2.)
#define VIRTIO_STATUS_ACKNOWLEDGE 1  // the driver has noticed the device
#define VIRTIO_STATUS_DRIVER 2       // the driver knows how to drive it
#define VIRTIO_STATUS_DRIVER_OK 4    // the driver is ready: the device may start using the queues
#define VIRTIO_STATUS_NEEDS_RESET 64 // the device hit an error it cannot recover from
#define VIRTIO_STATUS_FAILED 128     // the driver gave up on the device

// 5.1.3 Feature bits of the network device (bits 0-31, the only ones the legacy interface has).
#define VIRTIO_NET_F_MAC (1u << 5)            // device config holds a MAC address
#define VIRTIO_NET_F_STATUS (1u << 16)        // device config holds the link status
#define VIRTIO_NET_F_CTRL_VQ (1u << 17)       // there is a control virtqueue
#define VIRTIO_NET_F_CTRL_RX (1u << 18)       // the control virtqueue takes receive mode commands (promiscuous)
#define VIRTIO_NET_F_CTRL_MAC_ADDR (1u << 23) // the control virtqueue takes "set MAC address"

// 5.1.4 Device configuration layout, as offsets from VIRTIO_PCI_CONFIG.
#define VIRTIO_NET_CONFIG_MAC 0    // 6 bytes; with VIRTIO_NET_F_MAC
#define VIRTIO_NET_CONFIG_STATUS 6 // 16 bit; with VIRTIO_NET_F_STATUS
#define VIRTIO_NET_S_LINK_UP 1

// 2.4.5 The Virtqueue Descriptor Table: one entry per buffer, the device reads it.
struct vring_desc {
	uint64_t addr;  // physical address of the buffer
	uint32_t len;   // its length: what the device reads, or at most what it may write
	uint16_t flags; // VRING_DESC_F_*
	uint16_t next;  // the next descriptor of the chain, with VRING_DESC_F_NEXT
};
#define VRING_DESC_F_NEXT 1  // the chain continues at `next`
#define VRING_DESC_F_WRITE 2 // the device writes this buffer (otherwise it reads it)

// 2.4.6 The Virtqueue Available Ring: the driver offers descriptor chains here, the device reads it.
struct vring_avail {
	uint16_t flags;  // VRING_AVAIL_F_NO_INTERRUPT: we poll, the device need not interrupt us
	uint16_t idx;    // where the driver puts the next entry (mod queue size); only ever increases
	uint16_t ring[]; // head descriptor index of each offered chain
};
#define VRING_AVAIL_F_NO_INTERRUPT 1

// 2.4.8 The Virtqueue Used Ring: the device returns finished chains here, the driver reads it.
struct vring_used_elem {
	uint32_t id;  // head descriptor index of the finished chain
	uint32_t len; // bytes the device wrote into the chain (0 for chains it only read)
};
struct vring_used {
	uint16_t flags; // VRING_USED_F_NO_NOTIFY: the device does not need to be notified of new buffers
	uint16_t idx;   // where the device puts the next entry (mod queue size)
	struct vring_used_elem ring[];
};
#define VRING_USED_F_NO_NOTIFY 1

// 5.1.6 The header in front of every packet. Without VIRTIO_NET_F_MRG_RXBUF it is these 10 bytes. ixy uses no
// offloads, so on transmit it is all zeros, and received headers are ignored.
struct virtio_net_hdr {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
} __attribute__((packed));
_Static_assert(sizeof(struct virtio_net_hdr) == 10, "legacy virtio-net header is 10 bytes");

// 5.1.6.5 Control virtqueue commands: class and command byte, data, then one ack byte written by the device.
#define VIRTIO_NET_CTRL_RX 0
#define VIRTIO_NET_CTRL_RX_PROMISC 0 // data: 1 byte, 1 = on, 0 = off (5.1.6.5.1)
#define VIRTIO_NET_CTRL_MAC 1
#define VIRTIO_NET_CTRL_MAC_ADDR_SET 1 // data: the 6 byte MAC address (5.1.6.5.2)
#define VIRTIO_NET_OK 0
#define VIRTIO_NET_ERR 1

#endif
