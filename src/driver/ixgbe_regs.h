// The registers and descriptors of the Intel 82599 (and X540/X550) that ixgbe.c (and its parts ixgbe_interrupts.c,
// intel_rss.c) uses, and nothing else.
//
// Every value comes from the "Intel 82599 10 GbE Controller Datasheet", revision 3.3 (March 2016); section numbers
// below refer to it. Registers are byte offsets into BAR0, all 32 bits wide. Per-queue registers are given for
// queues 0..63 (ixy uses at most IXY_MAX_QUEUES = 64); queues 64..127 live at other offsets we never use.
// Access: RW read/write, RO read only, RC cleared when read, WO write only. A register's bits follow it, indented.
#ifndef IXY_IXGBE_REGS_H
#define IXY_IXGBE_REGS_H

#include <stdint.h>

#include "intel_adv_desc.h" // the advanced RX/TX descriptors, shared with the 82576 (igb)

// PCI device IDs (vendor 0x8086) of the NICs ixgbe.c drives: 82599 (the first 16), X540 (0x1528, 0x1560), X550
// (0x1563, 0x15D1) and X550EM_x (0x15AA..0x15AE), as listed in Linux's ixgbe_type.h. X550EM_a (0x15C2..0x15CE) is
// left out: it moved EEC and other registers ixgbe.c uses.
#define IXGBE_DEVICE_IDS                                                                                               \
	0x10F7, 0x10F8, 0x10F9, 0x10FB, 0x10FC, 0x1507, 0x1514, 0x1517, 0x151C, 0x1529, 0x152A, 0x154A, 0x154D,        \
	    0x154F, 0x1557, 0x1558, 0x1528, 0x1560, 0x1563, 0x15D1, 0x15AA, 0x15AB, 0x15AC, 0x15AD, 0x15AE

// The tables below are kept aligned by hand: one register per line, its bits indented below it.
// clang-format off
//      name                               offset or value           access  long name

// General control, 8.2.3.1, and EEPROM, 8.2.3.2
#define IXGBE_CTRL                         0x00000                // RW      Device Control
#define   IXGBE_CTRL_LRST                  (1u << 3)              //         Link Reset
#define   IXGBE_CTRL_RST                   (1u << 26)             //         Device Reset (global), self-clearing
#define IXGBE_CTRL_EXT                     0x00018                // RW      Extended Device Control
#define   IXGBE_CTRL_EXT_NS_DIS            (1u << 16)             //         No Snoop Disable
#define IXGBE_EEC                          0x10010                // RW      EEPROM/Flash Control
#define   IXGBE_EEC_ARD                    (1u << 9)              //         EEPROM Auto Read Done

// Interrupts, 8.2.3.5
#define IXGBE_EICR                         0x00800                // RW1C    Extended Interrupt Cause, 8.2.3.5.1 (MSI-X: bits 15:0 = vectors 0-15)
#define IXGBE_EIMC                         0x00888                // WO      Extended Interrupt Mask Clear
#define   IXGBE_EIMC_ALL                   0x7FFFFFFFu            //         bits 30:0 (bit 31 is reserved)
#define IXGBE_EIAC                         0x00810                // RW      Extended Interrupt Auto Clear (MSI-X: bits 15:0 = vectors 0-15)
#define IXGBE_GPIE                         0x00898                // RW      General Purpose Interrupt Enable
#define   IXGBE_GPIE_MULTIPLE_MSIX         (1u << 4)              //         MSI-X mode
#define   IXGBE_GPIE_EIAME                 (1u << 30)             //         Extended Interrupt Auto Mask Enable
#define   IXGBE_GPIE_PBA_SUPPORT           (1u << 31)             //         MSI-X Pending Bit Array support
#define IXGBE_IVAR(n)                      (0x00900 + 4 * (n))    // RW      Interrupt Vector Allocation: RX queue 2n bits 7:0, 2n+1 bits 23:16
#define   IXGBE_IVAR_VALID                 0x80u                  //         entry valid (the vector is bits 5:0)
#define IXGBE_EITR(n)                      ((n) < 24 ? 0x00820 + 4 * (n) : 0x12300 + 4 * ((n) - 24)) // RW Interrupt Throttle of MSI-X vector n, 8.2.3.5.12
#define   IXGBE_EITR_INTERVAL_SHIFT        3                      //         ITR_Interval, bits 11:3, in 2 us units
#define   IXGBE_EITR_CNT_WDIS              (1u << 31)             //         the write leaves the interval counter as it is
#define IXGBE_EIMS_EX(i)                   (0x00AA0 + 4 * (i))    // RW      Mask Set: MSI-X vectors 32i to 32i+31
#define IXGBE_EIMC_EX(i)                   (0x00AB0 + 4 * (i))    // WO      Mask Clear: MSI-X vectors 32i to 32i+31
#define IXGBE_EIAM_EX(i)                   (0x00AD0 + 4 * (i))    // RW      Auto Mask: MSI-X vectors 32i to 32i+31

// Receive filters, 8.2.3.7
#define IXGBE_FCTRL                        0x05080                // RW      Filter Control (write only while RXEN=0)
#define   IXGBE_FCTRL_MPE                  (1u << 8)              //         Multicast Promiscuous Enable
#define   IXGBE_FCTRL_UPE                  (1u << 9)              //         Unicast Promiscuous Enable
#define   IXGBE_FCTRL_BAM                  (1u << 10)             //         Broadcast Accept Mode
#define IXGBE_RAL0                         0x0A200                // RW      Receive Address Low [0]: MAC bytes 0-3
#define IXGBE_RAH0                         0x0A204                // RW      Receive Address High [0]: MAC bytes 4-5
#define   IXGBE_RAH_AV                     (1u << 31)             //         Address Valid

// Receive side scaling, 7.1.2.8: MRQC 8.2.3.7.12; RETA and RSSRK are among the receive filter registers of 8.2.3.7
#define IXGBE_MRQC                         0x05818                // RW      Multiple Receive Queues Command
#define   IXGBE_MRQC_MRQE_RSS              0x1u                   //         MRQE (bits 3:0) 0001b: RSS only, no DCB/VMDq
#define   IXGBE_MRQC_TCPIPV4               (1u << 16)             //         hash TCP over IPv4: addresses and ports
#define   IXGBE_MRQC_IPV4                  (1u << 17)             //         hash IPv4: addresses
#define   IXGBE_MRQC_UDPIPV4               (1u << 22)             //         hash UDP over IPv4: addresses and ports
#define IXGBE_RETA(n)                      (0x05C00 + 4 * (n))    // RW      Redirection Table, n = 0..31: entry 4n+i in
                                                                  //         bits 8i+3:8i (a 4 bit queue index)
#define IXGBE_RSSRK(n)                     (0x05C80 + 4 * (n))    // RW      RSS Random Key, n = 0..9: key byte 4n+i in
                                                                  //         bits 8i+7:8i

// Receive DMA, 8.2.3.8, and DCA, 8.2.3.11. Queue n = 0..63.
#define IXGBE_RDBAL(n)                     (0x01000 + 0x40 * (n)) // RW      Receive Descriptor Base Address Low
#define IXGBE_RDBAH(n)                     (0x01004 + 0x40 * (n)) // RW      Receive Descriptor Base Address High
#define IXGBE_RDLEN(n)                     (0x01008 + 0x40 * (n)) // RW      Receive Descriptor Length (bytes)
#define IXGBE_DCA_RXCTRL(n)                (0x0100C + 0x40 * (n)) // RW      Rx DCA Control
#define   IXGBE_DCA_RXCTRL_BIT12           (1u << 12)             //         reserved, resets to 1, must be 0 (4.6.7)
#define IXGBE_RDH(n)                       (0x01010 + 0x40 * (n)) // RW      Receive Descriptor Head (written at init)
#define IXGBE_SRRCTL(n)                    (0x01014 + 0x40 * (n)) // RW      Split and Replication Receive Control
#define   IXGBE_SRRCTL_BSIZEPACKET_MASK    0x1Fu                  //         bits 4:0, buffer size in KB
#define   IXGBE_SRRCTL_DESCTYPE_MASK       (7u << 25)             //         bits 27:25, descriptor type
#define   IXGBE_SRRCTL_DESCTYPE_ADV_ONEBUF (1u << 25)             //         001b: advanced, one buffer
#define   IXGBE_SRRCTL_DROP_EN             (1u << 28)             //         drop packets if no descriptor is free
#define IXGBE_RDT(n)                       (0x01018 + 0x40 * (n)) // RW      Receive Descriptor Tail
#define IXGBE_RXDCTL(n)                    (0x01028 + 0x40 * (n)) // RW      Receive Descriptor Control
#define   IXGBE_RXDCTL_ENABLE              (1u << 25)             //         Receive Queue Enable
#define IXGBE_RDRXCTL                      0x02F00                // RW      Receive DMA Control
#define   IXGBE_RDRXCTL_CRCSTRIP           (1u << 1)              //         strip CRC (same as HLREG0.RXCRCSTRP)
#define   IXGBE_RDRXCTL_DMAIDONE           (1u << 3)              //         DMA init done (read only)
#define   IXGBE_RDRXCTL_RSCFRSTSIZE        (0x1Fu << 17)          //         bits 21:17, software must clear them
#define   IXGBE_RDRXCTL_RSCACKC            (1u << 25)             //         software must set it
#define   IXGBE_RDRXCTL_FCOE_WRFIX         (1u << 26)             //         software must set it
#define IXGBE_RXCTRL                       0x03000                // RW      Receive Control
#define   IXGBE_RXCTRL_RXEN                (1u << 0)              //         Receive Enable
#define IXGBE_RXPBSIZE(n)                  (0x03C00 + 4 * (n))    // RW      Rx Packet Buffer Size, n = 0..7:
                                                                  //         KB in bits 19:10

// Receive security (LinkSec/IPsec) data path, 8.2.3.12
#define IXGBE_SECRXCTRL                    0x08D00                // RW      Security Rx Control
#define   IXGBE_SECRXCTRL_RX_DIS           (1u << 1)              //         halt the receive data path
#define IXGBE_SECRXSTAT                    0x08D04                // RO      Security Rx Status
#define   IXGBE_SECRXSTAT_SECRX_RDY        (1u << 0)              //         receive data path is empty (halted)

// Transmit DMA, 8.2.3.9, and DCB, 8.2.3.10. Queue n = 0..63.
#define IXGBE_TDBAL(n)                     (0x06000 + 0x40 * (n)) // RW      Transmit Descriptor Base Address Low
#define IXGBE_TDBAH(n)                     (0x06004 + 0x40 * (n)) // RW      Transmit Descriptor Base Address High
#define IXGBE_TDLEN(n)                     (0x06008 + 0x40 * (n)) // RW      Transmit Descriptor Length (bytes)
#define IXGBE_TDH(n)                       (0x06010 + 0x40 * (n)) // RW      Transmit Descriptor Head (written at init)
#define IXGBE_TDT(n)                       (0x06018 + 0x40 * (n)) // RW      Transmit Descriptor Tail
#define IXGBE_TXDCTL(n)                    (0x06028 + 0x40 * (n)) // RW      Transmit Descriptor Control
#define   IXGBE_TXDCTL_THRESH_MASK         0x007F7F7Fu            //         bits 6:0 PTHRESH (prefetch), 14:8 HTHRESH
                                                                  //         (host), 22:16 WTHRESH (write-back)
#define   IXGBE_TXDCTL_THRESH(p, h, w)     ((p) | (h) << 8 | (w) << 16)
#define   IXGBE_TXDCTL_ENABLE              (1u << 25)             //         Transmit Queue Enable

// A queue's descriptor ring registers, as offsets from its base address register RDBAL(n) (RX) or TDBAL(n) (TX):
// receive and transmit rings have the same layout (8.2.3.8, 8.2.3.9).
#define IXGBE_RING_BAL                     0x00                   //         Descriptor Base Address Low
#define IXGBE_RING_BAH                     0x04                   //         Descriptor Base Address High
#define IXGBE_RING_LEN                     0x08                   //         Descriptor ring Length (bytes)
#define IXGBE_RING_HEAD                    0x10                   //         Descriptor Head
#define IXGBE_RING_TAIL                    0x18                   //         Descriptor Tail
#define IXGBE_RTTDCS                       0x04900                // RW      DCB Tx Descriptor Plane Control/Status
#define   IXGBE_RTTDCS_ARBDIS              (1u << 6)              //         descriptor arbiter disable
#define IXGBE_DMATXCTL                     0x04A80                // RW      DMA Tx Control
#define   IXGBE_DMATXCTL_TE                (1u << 0)              //         Transmit Enable
#define IXGBE_DTXMXSZRQ                    0x08100                // RW      DMA Tx Max Allowed Size Requests
#define   IXGBE_DTXMXSZRQ_MAX              0xFFFu                 //         bits 11:0 (bits 15:12 are reserved)
#define IXGBE_TXPBSIZE(n)                  (0x0CC00 + 4 * (n))    // RW      Tx Packet Buffer Size, n = 0..7:
                                                                  //         KB in bits 19:10

// MAC, 8.2.3.22
#define IXGBE_HLREG0                       0x04240                // RW      MAC Core Control 0
#define   IXGBE_HLREG0_TXCRCEN             (1u << 0)              //         append the CRC to sent frames
#define   IXGBE_HLREG0_RXCRCSTRP           (1u << 1)              //         strip the CRC of received frames
#define   IXGBE_HLREG0_TXPADEN             (1u << 10)             //         pad short frames to 64 bytes
#define IXGBE_AUTOC                        0x042A0                // RW      Auto-Negotiation Control
#define   IXGBE_AUTOC_AN_RESTART           (1u << 12)             //         restart auto-negotiation
#define   IXGBE_AUTOC_LMS_MASK             (7u << 13)             //         bits 15:13, Link Mode Select
#define   IXGBE_AUTOC_LMS_10G_SERIAL       (3u << 13)             //         011b: 10 GbE serial link
#define IXGBE_LINKS                        0x042A4                // RO      Link Status
#define   IXGBE_LINKS_SPEED_SHIFT          28                     //         bits 29:28: 01b 100M, 10b 1G, 11b 10G
#define   IXGBE_LINKS_SPEED_MASK           (3u << 28)
#define   IXGBE_LINKS_UP                   (1u << 30)             //         Link Up

// Statistics, 8.2.3.23: all cleared when read. Octet counts include the CRC.
#define IXGBE_MPC(n)                       (0x03FA0 + 4 * (n))    // RC      Missed Packets Count, Rx buffer n = 0..7
#define IXGBE_GPRC                         0x04074                // RC      Good Packets Received Count
#define IXGBE_GPTC                         0x04080                // RC      Good Packets Transmitted Count
#define IXGBE_GORCL                        0x04088                // RC      Good Octets Received Count, bits 31:0
#define IXGBE_GORCH                        0x0408C                // RC      Good Octets Received Count, bits 35:32
#define IXGBE_GOTCL                        0x04090                // RC      Good Octets Transmitted Count, 31:0
#define IXGBE_GOTCH                        0x04094                // RC      Good Octets Transmitted Count, 35:32
#define IXGBE_QPRDC(n)                     (0x01430 + 0x40 * (n)) // RC      Queue Packets Received Drop Count, n = 0..15
// clang-format on

_Static_assert(IXGBE_RDBAH(1) - IXGBE_RDBAL(1) == IXGBE_RING_BAH && IXGBE_TDBAH(1) - IXGBE_TDBAL(1) == IXGBE_RING_BAH,
	       "RX and TX rings: same BAH offset");
_Static_assert(IXGBE_RDLEN(1) - IXGBE_RDBAL(1) == IXGBE_RING_LEN && IXGBE_TDLEN(1) - IXGBE_TDBAL(1) == IXGBE_RING_LEN,
	       "RX and TX rings: same LEN offset");
_Static_assert(IXGBE_RDH(1) - IXGBE_RDBAL(1) == IXGBE_RING_HEAD && IXGBE_TDH(1) - IXGBE_TDBAL(1) == IXGBE_RING_HEAD,
	       "RX and TX rings: same head offset");
_Static_assert(IXGBE_RDT(1) - IXGBE_RDBAL(1) == IXGBE_RING_TAIL && IXGBE_TDT(1) - IXGBE_TDBAL(1) == IXGBE_RING_TAIL,
	       "RX and TX rings: same tail offset");

// The names of these registers for the register trace (src/trace.h), in ixgbe_trace.c.
struct ixy_reg_names;
extern const struct ixy_reg_names ixgbe_reg_names;

#endif
