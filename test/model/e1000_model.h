// A minimal software model of the Intel 8254x (82540EM, PCI ID 8086:100E), written from Intel's "PCI/PCI-X Family
// of Gigabit Ethernet Controllers Software Developer's Manual" (8254x SDM) without reading the e1000 driver, for
// testing src/driver/e1000.c against a device that behaves per the manual and, on request, one that does not.
//
// What it models (section numbers are the SDM's):
// - The register file (13.4): CTRL.RST self-clearing with all registers back to their defaults, STATUS with the link
//   up (full duplex, 1000 Mb/s) once out of reset, EERD (5.3.1 / 13.4.4: START, DONE, ADDR 15:8, DATA 31:16) reading
//   an EEPROM whose words 0-2 hold the MAC address, RAL0/RAH0 loaded from that EEPROM at every reset, ICR clear on
//   read, IMS/IMC setting and clearing the mask (read at IMS), RCTL/TCTL enables, the statistics registers clear on
//   read (13.7), the PHY behind MDIC (13.4.5). Registers it does not know keep what was written and are logged once
//   (model_e1000_unknown).
// - Receive (3.2): legacy descriptors, 16 bytes: buffer address, length, checksum, status (DD bit 0, EOP bit 1),
//   errors, special. A frame the test injects goes to the descriptor at RDH if RDH != RDT, in one buffer of
//   RCTL.BSIZE bytes; the model writes length and DD|EOP and advances RDH; without a free descriptor it is missed
//   (MPC). Counted in GPRC/GORC/TPR/TOR.
// - Transmit (3.3): legacy descriptors (3.3.3), taken from TDH up to TDT when TDT is written: the buffers of a
//   packet up to EOP are gathered, DD is written back in STA when RS is set, TDH advances. Counted in GPTC/GOTC/TPT.
// - Checks (violations, model.h): ring bases 16-byte aligned and in DMA memory, lengths multiples of 128, tails
//   inside the ring, every buffer in DMA memory, a TX length of 0 or above 16288 bytes (3.3.3).
// - A hostile device on request: descriptors written with any length and status (model_e1000_rx_write).
//
// Left out: the 82574L beyond its EERD layout (model_e1000_add_82574), the PHY beyond MDIC reads and writes at address
// 1 (link up at 1000 Mb/s full duplex, reset and restart of auto-negotiation self-clearing), interrupts beyond ICR's
// bits, checksum offload, context descriptors, VLAN, filters (every frame is accepted), flow control, RDTR/RADV timers.
#ifndef IXY_TEST_E1000_MODEL_H
#define IXY_TEST_E1000_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

#define MODEL_82540EM_DEVICE_ID 0x100E
#define MODEL_82574L_DEVICE_ID 0x10D3

// Registers (13.4, byte offsets into BAR0), as the tests need them.
#define M_E1000_CTRL 0x0000
#define M_E1000_STATUS 0x0008
#define M_E1000_EERD 0x0014
#define M_E1000_ICR 0x00C0
#define M_E1000_IMS 0x00D0
#define M_E1000_IMC 0x00D8
#define M_E1000_RCTL 0x0100
#define M_E1000_TCTL 0x0400
#define M_E1000_RDBAL 0x2800
#define M_E1000_RDBAH 0x2804
#define M_E1000_RDLEN 0x2808
#define M_E1000_RDH 0x2810
#define M_E1000_RDT 0x2818
#define M_E1000_TDBAL 0x3800
#define M_E1000_TDBAH 0x3804
#define M_E1000_TDLEN 0x3808
#define M_E1000_TDH 0x3810
#define M_E1000_TDT 0x3818
#define M_E1000_RAL0 0x5400
#define M_E1000_RAH0 0x5404

// Legacy descriptor status bits (3.2.3.1, 3.3.3.2).
#define M_E1000_RXD_DD 0x01
#define M_E1000_RXD_EOP 0x02
#define M_E1000_TXD_DD 0x01

struct model_e1000;

// Adds an 82540EM at pci_addr with MAC 02:00:00:00:00:<function> in its EEPROM.
struct model_e1000* model_e1000_add(const char* pci_addr);
// The same as an 82574L (8086:10D3) as far as this model goes: only the EERD layout differs (DONE bit 1, ADDR 15:2);
// its legacy descriptors, rings and statistics are the 8254x's; TARC0 and RXDCTL are plain registers. Nothing else
// of the 82574L is modelled.
struct model_e1000* model_e1000_add_82574(const char* pci_addr);
// A register as the device holds it (no read side effects).
uint32_t model_e1000_reg(const struct model_e1000* nic, uint32_t reg);
// Number of accesses to registers the model does not know (each logged once to stderr).
unsigned model_e1000_unknown(const struct model_e1000* nic);

// Receives a frame as the manual says (DD|EOP, its length). False if no descriptor was free (counted in MPC).
bool model_e1000_receive(struct model_e1000* nic, const uint8_t* frame, uint16_t len);
// A hostile device: writes descriptor `index` (any, also beyond RDT) with len bytes of frame copied into its buffer
// (at most the buffer's size) and the given length and status fields; advances RDH to index + 1 if advance.
void model_e1000_rx_write(struct model_e1000* nic, uint32_t index, const uint8_t* frame, uint16_t copy_len,
			  uint16_t length_field, uint8_t status, bool advance);
// The TX descriptor `index` as 16 raw bytes (a hostile test may set its DD bit).
uint8_t* model_e1000_tx_descriptor(struct model_e1000* nic, uint32_t index);
// Stops (or restarts) TX processing: descriptors stay where the driver put them until resumed.
void model_e1000_pause_tx(struct model_e1000* nic, bool paused);

// Transmitted packets, in order: number, and a copy of packet i (NULL if i is out of range).
uint32_t model_e1000_tx_count(const struct model_e1000* nic);
const uint8_t* model_e1000_tx_packet(const struct model_e1000* nic, uint32_t i, uint32_t* len);

#endif
