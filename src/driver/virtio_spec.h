// What the VirtIO specification says about network devices and split virtqueues: only the IDs, bits and structs
// ixy's VirtIO driver uses, for both PCI transports. Section numbers refer to "Virtual I/O Device (VIRTIO) Version
// 1.0" (OASIS), which also describes the legacy interface in its "Legacy Interface" subsections. All fields are
// little endian (2.4: legacy devices use the guest's byte order, which is little endian on x86), so ixy uses them
// as they are.
//
// The registers of the two transports are in virtio_regs.h (legacy IO-port BAR, 4.1.4.8; modern common
// configuration, 4.1.4.3).
#ifndef IXY_VIRTIO_SPEC_H
#define IXY_VIRTIO_SPEC_H

#include <stdint.h>

// PCI IDs (4.1.2.1, 4.1.2.3): 0x1000 is the transitional network device, which has the legacy interface and usually
// the modern one too; 0x1041 (0x1040 + device type 1) is a network device with only the modern interface.
#define VIRTIO_PCI_VENDOR_ID 0x1af4
#define VIRTIO_PCI_DEVICE_ID_NET_TRANSITIONAL 0x1000
#define VIRTIO_PCI_DEVICE_ID_NET_MODERN 0x1041

// 2.1 Device Status Field.
#define VIRTIO_STATUS_ACKNOWLEDGE 1  // the driver has noticed the device
#define VIRTIO_STATUS_DRIVER 2       // the driver knows how to drive it
#define VIRTIO_STATUS_DRIVER_OK 4    // the driver is ready: the device may start using the queues
#define VIRTIO_STATUS_FEATURES_OK 8  // the driver accepted features (not in the legacy interface, 3.1.2)
#define VIRTIO_STATUS_NEEDS_RESET 64 // the device hit an error it cannot recover from
#define VIRTIO_STATUS_FAILED 128     // the driver gave up on the device

// Feature bits, 64 of them (2.2). 5.1.3: bits of the network device; 6: reserved bits that any device may have.
#define VIRTIO_NET_F_MAC (1ull << 5)            // device config holds a MAC address
#define VIRTIO_NET_F_STATUS (1ull << 16)        // device config holds the link status
#define VIRTIO_NET_F_CTRL_VQ (1ull << 17)       // there is a control virtqueue
#define VIRTIO_NET_F_CTRL_RX (1ull << 18)       // the control virtqueue takes receive mode commands (promiscuous)
#define VIRTIO_NET_F_MQ (1ull << 22)            // more than one queue pair, automatic receive steering
#define VIRTIO_NET_F_CTRL_MAC_ADDR (1ull << 23) // the control virtqueue takes "set MAC address"
#define VIRTIO_F_ANY_LAYOUT (1ull << 27)        // legacy: the header need not have a descriptor of its own (5.1.6.6)
#define VIRTIO_RING_F_EVENT_IDX                                                                                        \
	(1ull << 29) // event indexes instead of flags suppress notifications (VirtIO 1.2, 2.7.7, 2.7.10)
#define VIRTIO_F_VERSION_1 (1ull << 32)        // the device follows VirtIO 1.0 (modern interface only, 6.1)
#define VIRTIO_F_ACCESS_PLATFORM (1ull << 33)  // the device's DMA goes through the platform's IOMMU (6.1)
#define VIRTIO_F_RING_PACKED (1ull << 34)      // packed virtqueues (VirtIO 1.2, 2.8; 2.7 in 1.1)
#define VIRTIO_NET_F_RSS (1ull << 60)          // receive side scaling, Toeplitz hash (VirtIO 1.2, 5.1.3)
#define VIRTIO_NET_F_SPEED_DUPLEX (1ull << 63) // device config holds the link speed (VirtIO 1.1, 5.1.3)

// 5.1.4 Device configuration layout of the network device: offsets into the device-specific configuration.
#define VIRTIO_NET_CONFIG_MAC 0                 // 6 bytes; with VIRTIO_NET_F_MAC
#define VIRTIO_NET_CONFIG_STATUS 6              // 16 bit; with VIRTIO_NET_F_STATUS
#define VIRTIO_NET_CONFIG_MAX_VIRTQUEUE_PAIRS 8 // 16 bit, 1..0x8000; with VIRTIO_NET_F_MQ or VIRTIO_NET_F_RSS
#define VIRTIO_NET_CONFIG_SPEED 12 // 32 bit, Mbit/s, 0xffffffff unknown; with VIRTIO_NET_F_SPEED_DUPLEX (1.1)
// With VIRTIO_NET_F_RSS (VirtIO 1.2, 5.1.4): the longest key (at least 40), the longest indirection table (at least
// 128 entries) and the hash types (VIRTIO_NET_HASH_TYPE_*) the device can compute.
#define VIRTIO_NET_CONFIG_RSS_MAX_KEY_SIZE 17     // 8 bit
#define VIRTIO_NET_CONFIG_RSS_MAX_TABLE_LENGTH 18 // 16 bit
#define VIRTIO_NET_CONFIG_SUPPORTED_HASH_TYPES 20 // 32 bit
#define VIRTIO_NET_S_LINK_UP 1
#define VIRTIO_NET_SPEED_UNKNOWN 0xffffffffu

// 2.4.5 The Virtqueue Descriptor Table: one entry per buffer, the device reads it.
struct vring_desc {
	uint64_t addr;  // device address of the buffer
	uint32_t len;   // its length: what the device reads, or at most what it may write
	uint16_t flags; // VRING_DESC_F_*
	uint16_t next;  // the next descriptor of the chain, with VRING_DESC_F_NEXT
};
#define VRING_DESC_F_NEXT 1  // the chain continues at `next`
#define VRING_DESC_F_WRITE 2 // the device writes this buffer (otherwise it reads it)

// 2.4.6 The Virtqueue Available Ring ("driver area" in the modern interface): the driver offers chains here.
struct vring_avail {
	uint16_t flags;  // VRING_AVAIL_F_NO_INTERRUPT: we poll, the device need not interrupt us
	uint16_t idx;    // where the driver puts the next entry (mod queue size); only ever increases
	uint16_t ring[]; // head descriptor index of each offered chain
};
#define VRING_AVAIL_F_NO_INTERRUPT 1

// 2.4.8 The Virtqueue Used Ring ("device area"): the device returns finished chains here.
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

// Packed virtqueues (VirtIO 1.2, 2.8; 2.7 in 1.1). 2.8.13 "Packed Virtqueue Descriptor": one ring of
// these, which the driver makes available and the device marks used, in place.
struct vring_packed_desc {
	uint64_t addr; // device address of the buffer
	union {
		struct {
			uint32_t len; // available: its length; used: the bytes the device wrote
			uint16_t id;  // buffer id: the driver's name for the buffer, which the used descriptor returns
			uint16_t flags; // VRING_DESC_F_NEXT, VRING_DESC_F_WRITE, and the two below
		};
		// The three in one (little endian: len in bits 0-31, id in 32-47, flags in 48-63), for the packet
		// path: one aligned 8 byte load reads them together.
		uint64_t len_id_flags;
	};
};
_Static_assert(sizeof(struct vring_packed_desc) == 16, "2.8.13: 16 bytes");
// 2.7.1: a descriptor is available when AVAIL equals the driver's wrap counter and USED does not; used when both
// equal the device's wrap counter. Each counter starts at 1 and flips whenever its side passes the ring's end.
#define VRING_PACKED_DESC_F_AVAIL (1u << 7)
#define VRING_PACKED_DESC_F_USED (1u << 15)
// 2.8.14 "Event Suppression Structure Format": the driver area and the device area each hold one. flags:
// ENABLE (events wanted), DISABLE (none), DESC (only for the descriptor at off_wrap: bits 0-14 its offset, bit 15
// the wrap counter it is wanted with; only with VIRTIO_RING_F_EVENT_IDX).
struct vring_packed_event {
	uint16_t off_wrap;
	uint16_t flags;
};
#define VRING_PACKED_EVENT_FLAG_ENABLE 0
#define VRING_PACKED_EVENT_FLAG_DISABLE 1
#define VRING_PACKED_EVENT_FLAG_DESC 2
#define VRING_PACKED_EVENT_WRAP_SHIFT 15

// 2.4.2: the legacy interface puts the used ring at the next multiple of 4096 bytes after the available ring, and
// takes the queue's address as a page number. The modern interface takes three addresses; ixy uses the same layout.
#define VIRTIO_LEGACY_QUEUE_ALIGN 4096
#define VIRTIO_LEGACY_PFN_SHIFT 12

// 5.1.6 The header in front of every packet. Without VIRTIO_NET_F_MRG_RXBUF the legacy interface has these 10 bytes;
// with VIRTIO_F_VERSION_1 the 16 bit num_buffers follows (12 bytes), whatever was negotiated (5.1.6.1). ixy uses no
// offloads, so on transmit the header is all zeros, and received headers are ignored.
struct virtio_net_hdr {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
	uint16_t num_buffers; // VERSION_1 only: not part of the legacy header
} __attribute__((packed));
#define VIRTIO_NET_HDR_LEN_LEGACY 10
#define VIRTIO_NET_HDR_LEN_V1 12
// Hash types (VirtIO 1.2, 5.1.6.4.3.1 "Supported/enabled hash types"): the IPv4 ones ixy uses.
#define VIRTIO_NET_HASH_TYPE_IPV4 (1u << 0)  // source and destination address
#define VIRTIO_NET_HASH_TYPE_TCPV4 (1u << 1) // plus the TCP ports
#define VIRTIO_NET_HASH_TYPE_UDPV4 (1u << 2) // plus the UDP ports
_Static_assert(sizeof(struct virtio_net_hdr) == VIRTIO_NET_HDR_LEN_V1, "VirtIO 1.0 net header is 12 bytes");

// 5.1.6.5 Control virtqueue commands: class and command byte, data, then one ack byte written by the device.
#define VIRTIO_NET_CTRL_RX 0
#define VIRTIO_NET_CTRL_RX_PROMISC 0 // data: 1 byte, 1 = on, 0 = off (5.1.6.5.1)
#define VIRTIO_NET_CTRL_MAC 1
#define VIRTIO_NET_CTRL_MAC_ADDR_SET 1 // data: the 6 byte MAC address (5.1.6.5.2)
#define VIRTIO_NET_CTRL_MQ 4
// data: le16 virtqueue_pairs, 1..max_virtqueue_pairs (VirtIO 1.2, 5.1.6.5.6 "Automatic receive steering in
// multiqueue mode"; 5.1.6.5.5 in VirtIO 1.1)
#define VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET 0
// data: struct virtio_net_rss_config (VirtIO 1.2, 5.1.6.5.7 "Receive-side scaling (RSS)"): le32 hash_types, le16
// indirection_table_mask, le16 unclassified_queue, le16 indirection_table[mask + 1], le16 max_tx_vq, u8
// hash_key_length, u8 hash_key_data[hash_key_length]. Queues are named by queue pair (receiveq1 is 0).
#define VIRTIO_NET_CTRL_MQ_RSS_CONFIG 1
#define VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MIN 1
#define VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MAX 0x8000
#define VIRTIO_NET_OK 0
#define VIRTIO_NET_ERR 1

#endif
