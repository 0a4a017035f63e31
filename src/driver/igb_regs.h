// The registers of the Intel 82576 that igb.c (and its parts igb_interrupts.c, intel_rss.c) uses, and nothing else.
// The descriptors are the 82599's advanced ones: intel_adv_desc.h.
//
// Values from the "Intel 82576EB Gigabit Ethernet Controller Datasheet", revision 2.63 (December 2011); section
// numbers below refer to it (chapter 8: registers; 8.2 general, 8.8 interrupts, 8.10 receive, 8.12 transmit, 8.19
// statistics). Offsets agree with Linux's e1000_regs.h and QEMU's igb model. Registers are byte offsets into BAR0, all
// 32 bits wide. Per-queue registers are given for queues 0..15, the 82576's 16 queues (at the 0xC000/0xE000 offsets;
// queues 0-3 also answer at the 82575's older offsets, which we never use).
// Access: RW read/write, RO read only, RC cleared when read, WO write only. A register's bits follow it, indented.
#ifndef IXY_IGB_REGS_H
#define IXY_IGB_REGS_H

#include <stdint.h>

#include "../trace.h" // struct ixy_reg_names

#include "intel_adv_desc.h" // the advanced RX/TX descriptors, shared with the 82599 (ixgbe)

// PCI device IDs (vendor 0x8086) of the NICs igb.c drives: the copper 82576 ports, which the 82576 datasheet
// initialises alike (internal PHY at MDIO address 1). 0x10C9 (82576, what QEMU models) is the one proven; 0x10E8
// (quad port), 0x1526 (quad port ET2) and 0x150A (82576NS) are not. Fiber and SerDes 82576 (0x10E6, 0x10E7, 0x150D,
// 0x1518) have no copper PHY to negotiate through and are left out.
#define IGB_DEVICE_IDS 0x10C9, 0x10E8, 0x1526, 0x150A
#define IGB_MAX_QUEUES 16

// clang-format off
//      name                               offset or value           access  long name

// General, 8.2
#define IGB_CTRL                           0x00000                // RW      Device Control
#define   IGB_CTRL_GIO_MASTER_DISABLE      (1u << 2)              //         stop issuing DMA (master disable)
#define   IGB_CTRL_SLU                     (1u << 6)              //         Set Link Up
#define   IGB_CTRL_FRCSPD                  (1u << 11)             //         Force Speed
#define   IGB_CTRL_FRCDPX                  (1u << 12)             //         Force Duplex
#define   IGB_CTRL_RST                     (1u << 26)             //         Device Reset (global), self-clearing
#define IGB_STATUS                         0x00008                // RO      Device Status
#define   IGB_STATUS_LU                    (1u << 1)              //         Link Up
#define   IGB_STATUS_SPEED_SHIFT           6                      //         bits 7:6: 00b 10, 01b 100, 1xb 1000 Mb/s
#define   IGB_STATUS_SPEED_MASK            (3u << 6)
#define   IGB_STATUS_GIO_MASTER_ENABLE     (1u << 19)             //         DMA requests may still be pending
#define IGB_EECD                           0x00010                // RW      EEPROM/Flash Control
#define   IGB_EECD_AUTO_RD                 (1u << 9)              //         EEPROM Auto Read Done
#define IGB_MDIC                           0x00020                // RW      MDI Control: access to the PHY's registers
#define   IGB_MDIC_REG_SHIFT               16                     //         bits 20:16, PHY register
#define   IGB_MDIC_PHY_SHIFT               21                     //         bits 25:21, PHY address
#define   IGB_MDIC_OP_WRITE                (1u << 26)             //         bits 27:26 = 01b: write
#define   IGB_MDIC_READY                   (1u << 28)             //         the access is done
#define   IGB_MDIC_ERROR                   (1u << 30)             //         the access failed
#define IGB_PHY_ADDRESS                    1                      //         the internal copper PHY
#define IGB_PHY_CONTROL                    0                      //         PHY register 0 (IEEE 802.3 clause 22)
#define   IGB_PHY_CONTROL_RESTART_AN       (1u << 9)              //         restart auto-negotiation
#define   IGB_PHY_CONTROL_AN_ENABLE        (1u << 12)             //         auto-negotiation enable

// Interrupts, 8.8
#define IGB_IMC                            0x000D8                // WO      Interrupt Mask Clear
#define IGB_EICR                           0x01580                // RW1C    Extended Interrupt Cause (MSI-X: bit n = vector n)
#define IGB_EIMC                           0x01528                // WO      Extended Interrupt Mask Clear (MSI-X: bit n = vector n)
#define   IGB_IRQ_ALL                      0xFFFFFFFFu
#define IGB_EIMS                           0x01524                // RW      Extended Interrupt Mask Set (MSI-X: bit n = vector n)
#define IGB_EIAC                           0x0152C                // RW      Extended Interrupt Auto Clear
#define IGB_EIAM                           0x01530                // RW      Extended Interrupt Auto Mask
#define IGB_GPIE                           0x01514                // RW      General Purpose Interrupt Enable
#define   IGB_GPIE_NSICR                   (1u << 0)              //         Non Selective Interrupt Clear on Read
#define   IGB_GPIE_MULTIPLE_MSIX           (1u << 4)              //         MSI-X mode
#define   IGB_GPIE_EIAME                   (1u << 30)             //         Extended Interrupt Auto Mask Enable
#define   IGB_GPIE_PBA                     (1u << 31)             //         MSI-X Pending Bit Array support
#define IGB_IVAR(n)                        (0x01700 + 4 * (n))    // RW      Interrupt Vector Allocation, n = 0..7: RX queue n bits 7:0, n+8 bits 23:16
#define   IGB_IVAR_VALID                   0x80u                  //         entry valid (the vector is bits 4:0)
#define IGB_EITR(n)                        (0x01680 + 4 * (n))    // RW      Interrupt Throttle of MSI-X vector n = 0..24
#define   IGB_EITR_INTERVAL_SHIFT          2                      //         Interval, bits 14:2, in 1 us units
#define   IGB_EITR_CNT_IGNR                (1u << 31)             //         the write leaves the interval counter as it is
#define IGB_MAX_RX_VECTORS                 16                     //         one per RX queue (the 82576 has 25 vectors)

// Receive, 8.10, and receive address filters. Queue n = 0..15.
#define IGB_RCTL                           0x00100                // RW      Receive Control
#define   IGB_RCTL_EN                      (1u << 1)              //         Receiver Enable
#define   IGB_RCTL_UPE                     (1u << 3)              //         Unicast Promiscuous Enable
#define   IGB_RCTL_MPE                     (1u << 4)              //         Multicast Promiscuous Enable
#define   IGB_RCTL_BAM                     (1u << 15)             //         Broadcast Accept Mode
#define   IGB_RCTL_SECRC                   (1u << 26)             //         Strip Ethernet CRC
#define IGB_RDBAL(n)                       (0x0C000 + 0x40 * (n)) // RW      Receive Descriptor Base Address Low
#define IGB_RDBAH(n)                       (0x0C004 + 0x40 * (n)) // RW      Receive Descriptor Base Address High
#define IGB_RDLEN(n)                       (0x0C008 + 0x40 * (n)) // RW      Receive Descriptor Length (bytes)
#define IGB_SRRCTL(n)                      (0x0C00C + 0x40 * (n)) // RW      Split and Replication Receive Control
#define   IGB_SRRCTL_BSIZEPACKET_MASK      0x7Fu                  //         bits 6:0, buffer size in KB
#define   IGB_SRRCTL_DESCTYPE_MASK         (7u << 25)             //         bits 27:25, descriptor type
#define   IGB_SRRCTL_DESCTYPE_ADV_ONEBUF   (1u << 25)             //         001b: advanced, one buffer
#define   IGB_SRRCTL_DROP_EN               (1u << 31)             //         drop packets if no descriptor is free
#define IGB_RDH(n)                         (0x0C010 + 0x40 * (n)) // RW      Receive Descriptor Head (written at init)
#define IGB_RDT(n)                         (0x0C018 + 0x40 * (n)) // RW      Receive Descriptor Tail
#define IGB_RXDCTL(n)                      (0x0C028 + 0x40 * (n)) // RW      Receive Descriptor Control
#define   IGB_RXDCTL_ENABLE                (1u << 25)             //         Receive Queue Enable
#define IGB_RAL0                           0x05400                // RW      Receive Address Low [0]: MAC bytes 0-3
#define IGB_RAH0                           0x05404                // RW      Receive Address High [0]: MAC bytes 4-5
#define   IGB_RAH_AV                       (1u << 31)             //         Address Valid

// Receive side scaling, 7.1 (multiple receive queues, RSS); the registers are among 8.10's. Offsets, hash type bits
// and the RETA and RSSRK layouts are the 82599's (ixgbe_regs.h); MRQC's mode field and RXCSUM.PCSD are the 82576's.
#define IGB_RXCSUM                         0x05000                // RW      Receive Checksum Control (write: RCTL.EN 0)
#define   IGB_RXCSUM_PCSD                  (1u << 13)             //         Packet Checksum Disable: the RX descriptor
                                                                  //         carries the RSS hash, not the checksum
#define IGB_MRQC                           0x05818                // RW      Multiple Receive Queues Command
#define   IGB_MRQC_MRQE_RSS                0x2u                   //         bits 2:0, Multiple Receive Queues Enable:
                                                                  //         010b RSS only (000b off; 011b, 101b VMDq)
#define   IGB_MRQC_TCPIPV4                 (1u << 16)             //         hash TCP over IPv4: addresses and ports
#define   IGB_MRQC_IPV4                    (1u << 17)             //         hash IPv4: addresses
#define   IGB_MRQC_UDPIPV4                 (1u << 22)             //         hash UDP over IPv4: addresses and ports
#define IGB_RETA(n)                        (0x05C00 + 4 * (n))    // RW      Redirection Table, n = 0..31: entry 4n+i in
                                                                  //         bits 8i+7:8i, its queue in the low bits
#define IGB_RSSRK(n)                       (0x05C80 + 4 * (n))    // RW      RSS Random Key, n = 0..9: key byte 4n+i in
                                                                  //         bits 8i+7:8i

// Transmit, 8.12. Queue n = 0..15.
#define IGB_TCTL                           0x00400                // RW      Transmit Control
#define   IGB_TCTL_EN                      (1u << 1)              //         Transmit Enable
#define   IGB_TCTL_PSP                     (1u << 3)              //         Pad Short Packets (to 64 bytes)
#define   IGB_TCTL_CT_MASK                 (0xFFu << 4)           //         bits 11:4, Collision Threshold
#define   IGB_TCTL_CT_DEFAULT              (15u << 4)             //         15, as the datasheet recommends
#define IGB_TDBAL(n)                       (0x0E000 + 0x40 * (n)) // RW      Transmit Descriptor Base Address Low
#define IGB_TDBAH(n)                       (0x0E004 + 0x40 * (n)) // RW      Transmit Descriptor Base Address High
#define IGB_TDLEN(n)                       (0x0E008 + 0x40 * (n)) // RW      Transmit Descriptor Length (bytes)
#define IGB_TDH(n)                         (0x0E010 + 0x40 * (n)) // RW      Transmit Descriptor Head (written at init)
#define IGB_TDT(n)                         (0x0E018 + 0x40 * (n)) // RW      Transmit Descriptor Tail
#define IGB_TXDCTL(n)                      (0x0E028 + 0x40 * (n)) // RW      Transmit Descriptor Control
#define   IGB_TXDCTL_THRESH_MASK           0x001F1F1Fu            //         bits 4:0 PTHRESH (prefetch), 12:8 HTHRESH
                                                                  //         (host), 20:16 WTHRESH (write-back)
#define   IGB_TXDCTL_THRESH(p, h, w)       ((p) | (h) << 8 | (w) << 16)
#define   IGB_TXDCTL_ENABLE                (1u << 25)             //         Transmit Queue Enable

// A queue's descriptor ring registers, as offsets from its base address register RDBAL(n) (RX) or TDBAL(n) (TX):
// the same layout for RX and TX, and the same as the 82599's.
#define IGB_RING_BAL                       0x00                   //         Descriptor Base Address Low
#define IGB_RING_BAH                       0x04                   //         Descriptor Base Address High
#define IGB_RING_LEN                       0x08                   //         Descriptor ring Length (bytes)
#define IGB_RING_HEAD                      0x10                   //         Descriptor Head
#define IGB_RING_TAIL                      0x18                   //         Descriptor Tail

// Statistics, 8.19: all cleared when read. Octet counts include the CRC.
#define IGB_MPC                            0x04010                // RC      Missed Packets Count (packet buffer full)
#define IGB_GPRC                           0x04074                // RC      Good Packets Received Count
#define IGB_GPTC                           0x04080                // RC      Good Packets Transmitted Count
#define IGB_GORCL                          0x04088                // RC      Good Octets Received Count, bits 31:0
#define IGB_GORCH                          0x0408C                // RC      Good Octets Received Count, bits 63:32
#define IGB_GOTCL                          0x04090                // RC      Good Octets Transmitted Count, 31:0
#define IGB_GOTCH                          0x04094                // RC      Good Octets Transmitted Count, 63:32
#define IGB_RQDPC(n)                       (0x0C030 + 0x40 * (n)) // RC      Receive Queue Drop Packet Count
// clang-format on

_Static_assert(IGB_RDBAH(1) - IGB_RDBAL(1) == IGB_RING_BAH && IGB_TDBAH(1) - IGB_TDBAL(1) == IGB_RING_BAH,
	       "RX and TX rings: same BAH offset");
_Static_assert(IGB_RDLEN(1) - IGB_RDBAL(1) == IGB_RING_LEN && IGB_TDLEN(1) - IGB_TDBAL(1) == IGB_RING_LEN,
	       "RX and TX rings: same LEN offset");
_Static_assert(IGB_RDH(1) - IGB_RDBAL(1) == IGB_RING_HEAD && IGB_TDH(1) - IGB_TDBAL(1) == IGB_RING_HEAD,
	       "RX and TX rings: same head offset");
_Static_assert(IGB_RDT(1) - IGB_RDBAL(1) == IGB_RING_TAIL && IGB_TDT(1) - IGB_TDBAL(1) == IGB_RING_TAIL,
	       "RX and TX rings: same tail offset");

// The names of these registers for the register trace (igb_trace.c): igb.c passes them to ixy_trace_bar.
extern const struct ixy_reg_names igb_reg_names;

#endif
