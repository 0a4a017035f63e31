// The registers and legacy descriptors of the Intel 8254x (82540EM) and 82574L that e1000.c uses, and nothing else.
//
// Values from two manuals; "SDM" sections refer to the "PCI/PCI-X Family of Gigabit Ethernet Controllers Software
// Developer's Manual" (8254x, revision 4.0; chapter 13 registers, 3.2 and 3.3 descriptors, 14 initialisation), "74"
// sections to the "Intel 82574 GbE Controller Family Datasheet" (revision 3.4; chapter 10 registers, 7.1 and 7.2
// descriptors, 4.6 initialisation). Every register below has the same offset and the same bits on both NICs; where
// the 82574L adds bits, the register's comment says "82574L". Registers are byte offsets into BAR0, all 32 bits.
// Access: RW read/write, RO read only, RC cleared when read, WO write only. A register's bits follow it, indented.
#ifndef IXY_E1000_REGS_H
#define IXY_E1000_REGS_H

#include <stdint.h>

#include "../trace.h" // struct ixy_reg_names

// PCI device IDs (vendor 0x8086): the 82540EM (QEMU's "e1000", VirtualBox's default) and the 82574L (QEMU's
// "e1000e"). Both are proven on QEMU's models only.
#define E1000_DEV_82540EM 0x100E
#define E1000_DEV_82574L 0x10D3
#define E1000_DEVICE_IDS E1000_DEV_82540EM, E1000_DEV_82574L

// clang-format off
//      name                               offset or value           access  long name

// General, SDM 13.4, 74 10.2.2
#define E1000_CTRL                         0x00000                // RW      Device Control
#define   E1000_CTRL_GIO_MASTER_DISABLE    (1u << 2)              //         82574L: stop issuing DMA (reserved on 8254x)
#define   E1000_CTRL_SLU                   (1u << 6)              //         Set Link Up
#define   E1000_CTRL_FRCSPD                (1u << 11)             //         Force Speed
#define   E1000_CTRL_FRCDPX                (1u << 12)             //         Force Duplex
#define   E1000_CTRL_RST                   (1u << 26)             //         Device Reset, self-clearing
#define E1000_STATUS                       0x00008                // RO      Device Status
#define   E1000_STATUS_LU                  (1u << 1)              //         Link Up
#define   E1000_STATUS_SPEED_MASK          (3u << 6)              //         bits 7:6: 00b 10, 01b 100, 1xb 1000 Mb/s
#define   E1000_STATUS_GIO_MASTER_ENABLE   (1u << 19)             //         82574L: DMA requests may still be pending
#define E1000_MDIC                         0x00020                // RW      MDI Control: access to the PHY's registers
#define   E1000_MDIC_REG_SHIFT             16                     //         bits 20:16, PHY register
#define   E1000_MDIC_PHY_SHIFT             21                     //         bits 25:21, PHY address
#define   E1000_MDIC_OP_WRITE              (1u << 26)             //         bits 27:26 = 01b: write
#define   E1000_MDIC_READY                 (1u << 28)             //         the access is done
#define   E1000_MDIC_ERROR                 (1u << 30)             //         the access failed
#define E1000_PHY_ADDRESS                  1                      //         the internal copper PHY, on both
#define E1000_PHY_CONTROL                  0                      //         PHY register 0 (IEEE 802.3 clause 22)
#define   E1000_PHY_CONTROL_RESTART_AN     (1u << 9)              //         restart auto-negotiation
#define   E1000_PHY_CONTROL_AN_ENABLE      (1u << 12)             //         auto-negotiation enable

// Interrupts, SDM 13.4.17-21, 74 10.2.4
#define E1000_ICR                          0x000C0                // RC      Interrupt Cause Read
#define E1000_IMS                          0x000D0                // RW      Interrupt Mask Set
#define E1000_IMC                          0x000D8                // WO      Interrupt Mask Clear
#define   E1000_IRQ_ALL                    0xFFFFFFFFu
#define   E1000_IRQ_RXQ0                   (1u << 20)             //         82574L: RX queue 0 (MSI-X cause)
#define E1000_EIAC                         0x000DC                // RW      82574L: Extended Interrupt Auto Clear
#define E1000_IVAR                         0x000E4                // RW      82574L: Interrupt Vector Allocation
#define   E1000_IVAR_RXQ0_VALID            (1u << 3)              //         bits 2:0 RX queue 0's vector, bit 3 valid
#define E1000_EITR0                        0x000E8                // RW      82574L: Throttle of MSI-X vector 0
                                                                  //         (bits 15:0, in 256 ns units)
#define E1000_CTRL_EXT                     0x00018                // RW      Extended Device Control
#define   E1000_CTRL_EXT_PBA_SUPPORT       (1u << 31)             //         82574L: MSI-X pending bit array

// Receive, SDM 13.4.22-31, 74 10.2.5
#define E1000_RCTL                         0x00100                // RW      Receive Control
#define   E1000_RCTL_EN                    (1u << 1)              //         Receiver Enable
#define   E1000_RCTL_UPE                   (1u << 3)              //         Unicast Promiscuous Enable
#define   E1000_RCTL_MPE                   (1u << 4)              //         Multicast Promiscuous Enable
#define   E1000_RCTL_LPE                   (1u << 5)              //         Long Packet Enable (off: at most 1522)
#define   E1000_RCTL_BAM                   (1u << 15)             //         Broadcast Accept Mode
#define   E1000_RCTL_BSIZE_MASK            (3u << 16)             //         bits 17:16 Buffer Size: 00b, BSEX 0: 2048
#define   E1000_RCTL_BSEX                  (1u << 25)             //         Buffer Size Extension (x16)
#define   E1000_RCTL_SECRC                 (1u << 26)             //         Strip Ethernet CRC
#define E1000_RDBAL                        0x02800                // RW      Receive Descriptor Base Address Low
#define E1000_RDBAH                        0x02804                // RW      Receive Descriptor Base Address High
#define E1000_RDLEN                        0x02808                // RW      Receive Descriptor Length (bytes, x128)
#define E1000_RDH                          0x02810                // RW      Receive Descriptor Head (written at init)
#define E1000_RDT                          0x02818                // RW      Receive Descriptor Tail
#define E1000_RAL0                         0x05400                // RW      Receive Address Low [0]: MAC bytes 0-3
#define E1000_RAH0                         0x05404                // RW      Receive Address High [0]: MAC bytes 4-5
#define   E1000_RAH_AV                     (1u << 31)             //         Address Valid

// Transmit, SDM 13.4.33-42, 74 10.2.6
#define E1000_TCTL                         0x00400                // RW      Transmit Control
#define   E1000_TCTL_EN                    (1u << 1)              //         Transmit Enable
#define   E1000_TCTL_PSP                   (1u << 3)              //         Pad Short Packets (to 64 bytes)
#define   E1000_TCTL_CT_COLD               (0x0Fu << 4 | 0x40u << 12) //     Collision Threshold 15, Collision
                                                                  //         Distance 64 (full duplex), as recommended
#define E1000_TIPG                         0x00410                // RW      Transmit Inter Packet Gap
#define   E1000_TIPG_IEEE                  (10u | 8u << 10 | 6u << 20) //    IPGT 10, IPGR1 8, IPGR2 6 (SDM 13.4.34)
#define E1000_TDBAL                        0x03800                // RW      Transmit Descriptor Base Address Low
#define E1000_TDBAH                        0x03804                // RW      Transmit Descriptor Base Address High
#define E1000_TDLEN                        0x03808                // RW      Transmit Descriptor Length (bytes, x128)
#define E1000_TDH                          0x03810                // RW      Transmit Descriptor Head (written at init)
#define E1000_TDT                          0x03818                // RW      Transmit Descriptor Tail
#define E1000_TXDCTL                       0x03828                // RW      Transmit Descriptor Control
#define   E1000_TXDCTL_82574_BIT22         (1u << 22)             //         82574L: reserved, must be written 1
#define E1000_TARC0                        0x03840                // RW      82574L: Transmit Arbitration Count 0
#define   E1000_TARC_ENABLE                (1u << 10)             //         the queue may send (its reset value 1)

// A ring's registers as offsets from its base address register RDBAL or TDBAL: the same for RX and TX.
#define E1000_RING_BAL                     0x00
#define E1000_RING_BAH                     0x04
#define E1000_RING_LEN                     0x08
#define E1000_RING_HEAD                    0x10
#define E1000_RING_TAIL                    0x18

// Statistics, SDM 13.7, 74 10.2.8: all cleared when read. Octet counts include the CRC.
#define E1000_MPC                          0x04010                // RC      Missed Packets Count (no room in the FIFO)
#define E1000_GPRC                         0x04074                // RC      Good Packets Received Count
#define E1000_GPTC                         0x04080                // RC      Good Packets Transmitted Count
#define E1000_GORCL                        0x04088                // RC      Good Octets Received Count, bits 31:0
#define E1000_GORCH                        0x0408C                // RC      Good Octets Received Count, bits 63:32
#define E1000_GOTCL                        0x04090                // RC      Good Octets Transmitted Count, 31:0
#define E1000_GOTCH                        0x04094                // RC      Good Octets Transmitted Count, 63:32
// clang-format on

_Static_assert(E1000_RDT - E1000_RDBAL == E1000_RING_TAIL && E1000_TDT - E1000_TDBAL == E1000_RING_TAIL &&
		   E1000_RDH - E1000_RDBAL == E1000_RING_HEAD && E1000_TDLEN - E1000_TDBAL == E1000_RING_LEN,
	       "RX and TX rings: the same register layout");

// Legacy receive descriptor (SDM 3.2.3, 74 7.1.4.1). Software writes buffer_addr and clears status; the NIC writes
// the rest once the packet is in memory. (The 82574L's extended descriptors, RFCTL.EXSTEN, are not used.)
struct e1000_rx_desc {
	uint64_t buffer_addr; // NIC writes the packet data here (device address)
	uint16_t length;      // bytes the NIC wrote into this descriptor's buffer
	uint16_t checksum;    // packet checksum (unused)
	uint8_t status;       // DD, EOP, ...
	uint8_t errors;       // frame errors; such frames are not stored unless RCTL.SBP
	uint16_t special;     // VLAN tag (unused)
};
#define E1000_RXD_STAT_DD 0x01  // Descriptor Done: the NIC is finished with it
#define E1000_RXD_STAT_EOP 0x02 // End Of Packet: last descriptor of a packet

// Legacy transmit descriptor (SDM 3.3.3, 74 7.2.10.1): DEXT (bit 5 of cmd) clear.
struct e1000_tx_desc {
	uint64_t buffer_addr; // NIC reads the packet data from here (device address)
	uint32_t cmd_len;     // bits 15:0 length, 23:16 checksum offset (unused), 31:24 command
	uint32_t status;      // bits 3:0 status (DD is bit 0), then checksum start and VLAN (unused)
};
#define E1000_TXD_CMD_EOP (1u << 24)  // End Of Packet
#define E1000_TXD_CMD_IFCS (1u << 25) // Insert FCS: the NIC appends the CRC
#define E1000_TXD_CMD_RS (1u << 27)   // Report Status: the NIC sets DD when done
#define E1000_TXD_STAT_DD 0x01u       // Descriptor Done
#define E1000_TX_MAX_LEN 16288u       // SDM 3.3.3: the most one legacy descriptor's buffer may hold (the 82540EM)

_Static_assert(sizeof(struct e1000_rx_desc) == 16 && sizeof(struct e1000_tx_desc) == 16, "descriptors: 16 bytes");

// The names of these registers for the register trace (e1000_trace.c): e1000.c passes them to ixy_trace_bar.
extern const struct ixy_reg_names e1000_reg_names;

#endif
