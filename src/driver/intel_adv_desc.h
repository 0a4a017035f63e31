// The advanced receive and transmit descriptors that the Intel 82599 (ixgbe.c) and 82576 (igb.c) share: the same
// 16 byte layout and the same bits. Sections: 82599 datasheet rev 3.3 (7.1.6, 7.2.3.2.4) and 82576 datasheet
// rev 2.63 (7.1.5, 7.2.2.3).
#ifndef IXY_INTEL_ADV_DESC_H
#define IXY_INTEL_ADV_DESC_H

#include <stdint.h>

// Advanced receive descriptor. Software writes the read format; the NIC overwrites it with the write-back format
// once it has stored a packet in the buffer.
union intel_adv_rx_desc {
	struct {
		uint64_t pkt_addr; // NIC writes the packet data here (physical address)
		uint64_t hdr_addr; // header buffer for header split (unused: 0); bit 0 overlaps DD below
	} read;
	struct {
		uint32_t info;         // packet type, RSS type, header length (unused)
		uint32_t rss_hash;     // RSS hash or checksum (unused)
		uint32_t status_error; // status bits 19:0, error bits 31:20
		uint16_t length;       // bytes the NIC wrote into this descriptor's buffer
		uint16_t vlan;         // stripped VLAN tag (unused)
	} wb;
};
#define ADV_RXD_STAT_DD (1u << 0)  // Descriptor Done: the NIC is finished with it
#define ADV_RXD_STAT_EOP (1u << 1) // End Of Packet: last descriptor of a packet

// Advanced transmit data descriptor (read format) and its write-back.
union intel_adv_tx_desc {
	struct {
		uint64_t buffer_addr;   // NIC reads the packet data from here (physical address)
		uint32_t cmd_type_len;  // command bits, descriptor type, length of this buffer
		uint32_t olinfo_status; // PAYLEN and offload options
	} read;
	struct {
		uint64_t reserved;
		uint32_t reserved2;
		uint32_t status; // DD is bit 0
	} wb;
};
#define ADV_TXD_DTYP_DATA (3u << 20) // bits 23:20 = 0011b: advanced data descriptor
#define ADV_TXD_DCMD_EOP (1u << 24)  // End Of Packet
#define ADV_TXD_DCMD_IFCS (1u << 25) // Insert FCS: the NIC appends the CRC
#define ADV_TXD_DCMD_RS (1u << 27)   // Report Status: the NIC sets DD when done
#define ADV_TXD_DCMD_DEXT (1u << 29) // Descriptor Extension: advanced format
#define ADV_TXD_PAYLEN_SHIFT 14      // olinfo_status bits 31:14, packet length
#define ADV_TXD_STAT_DD (1u << 0)    // Descriptor Done

_Static_assert(sizeof(union intel_adv_rx_desc) == 16, "RX descriptors are 16 bytes");
_Static_assert(sizeof(union intel_adv_tx_desc) == 16, "TX descriptors are 16 bytes");

#endif
