// A software model of the Intel 82599 (see ixgbe_model.h for what it covers and what it leaves out).
//
// Reading guide: the register offsets come first (a table like the datasheet's register summary, 8.1.3), then the
// device state, reset and timing, the register read/write handlers, the transmit engine (TDT writes), the receive
// engine (injected frames) and the checks at close. Every check that records a violation names the datasheet
// section it enforces. Offsets and bits are defined here from the datasheet, independently of the driver.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ixgbe_model.h"
#include "seam.h"

// ---- registers (datasheet 8.2.3) ----

#define REG_CTRL 0x00000
#define CTRL_GIO_MASTER_DISABLE (1u << 2)
#define CTRL_LRST (1u << 3) // link reset, self-clearing
#define CTRL_RST (1u << 26) // device reset, self-clearing
#define REG_STATUS 0x00008
#define STATUS_LAN_ID_SHIFT 2
#define STATUS_GIO_MASTER_ENABLE (1u << 19)
#define REG_CTRL_EXT 0x00018
#define CTRL_EXT_NS_DIS (1u << 16) // no snoop disable

#define REG_EICR 0x00800 // interrupt cause, read clears
#define EICR_LSC (1u << 20)
#define REG_EICS 0x00808 // write sets causes
#define REG_EIAC 0x00810
#define REG_EIMS 0x00880 // mask set / read
#define REG_EIMC 0x00888 // mask clear; bit 31 reserved (8.2.3.5)
#define REG_EIAM 0x00890
#define REG_GPIE 0x00898
#define GPIE_MULTIPLE_MSIX (1u << 4) // MSI-X mode (8.2.3.5.18)
#define GPIE_EIAME (1u << 30)        // auto-mask on MSI-X message, per EIAM/EIAM_EX
// MSI-X mode, vectors 0-63 (8.2.3.5.3-8): mask set/clear and auto-mask, two registers of 32 vectors each. EIMS and
// EIMC bits 15:0 are the same bits as those of vectors 0-15.
#define REG_EIMS_EX(i) (0x00AA0 + 4 * (i))
#define REG_EIMC_EX(i) (0x00AB0 + 4 * (i))
#define REG_EIAM_EX(i) (0x00AD0 + 4 * (i))
// IVAR(n) (8.2.3.5.16): RX queue 2n in bits 7:0, TX queue 2n in 15:8, RX queue 2n+1 in 23:16, TX queue 2n+1 in
// 31:24; each entry: vector in bits 5:0, bit 7 valid.
#define REG_IVAR(n) (0x00900 + 4 * (n))
#define IVAR_VALID 0x80u
// EITR(n) (8.2.3.5.12): interrupt throttling of vector n; ITR_Interval in bits 11:3, in units of 2 us.
#define REG_EITR(n) ((n) < 24 ? 0x00820 + 4 * (n) : 0x12300 + 4 * ((n)-24))
#define EITR_INTERVAL_MASK 0xFF8u
#define MODEL_IXGBE_VECTORS 64

#define REG_EEC 0x10010
#define EEC_PRES (1u << 8) // EEPROM present
#define EEC_ARD (1u << 9)  // EEPROM auto-read done

// Receive queue n: 0x01000 + 0x40 * n (n < 64), 0x0D000 + 0x40 * (n - 64). Fields:
#define RXQ_RDBAL 0x00
#define RXQ_RDBAH 0x04
#define RXQ_RDLEN 0x08
#define RXQ_DCA_RXCTRL 0x0C
#define DCA_RXCTRL_BIT12 (1u << 12) // reserved, reads 1 after reset, must be cleared (4.6.7)
#define RXQ_RDH 0x10
#define RXQ_SRRCTL 0x14
#define RXQ_RDT 0x18
#define RXQ_RXDCTL 0x28
#define RXQ_RSCCTL 0x2C
#define REG_RXQ(n, field) ((n) < 64 ? 0x01000u + 0x40u * (n) + (field) : 0x0D000u + 0x40u * ((n)-64) + (field))
#define RXDCTL_ENABLE (1u << 25)
#define SRRCTL_BSIZEPACKET_MASK 0x1Fu // in KiB
#define SRRCTL_DESCTYPE_SHIFT 25
#define SRRCTL_DESCTYPE_MASK (7u << SRRCTL_DESCTYPE_SHIFT)
#define SRRCTL_DESCTYPE_ADV_ONEBUF (1u << SRRCTL_DESCTYPE_SHIFT)
#define SRRCTL_DROP_EN (1u << 28)
#define SRRCTL_DEFAULT 0x00000402u // 2 KiB packet buffers, 256 byte header buffers, legacy descriptors
// 82598-compatible aliases of the first 16 queues' SRRCTL and DCA_RXCTRL
#define REG_SRRCTL_ALIAS 0x02100
#define REG_DCA_RXCTRL_ALIAS 0x02200

#define REG_QPRC(n) (0x01030u + 0x40u * (n))  // 16 of these
#define REG_QPRDC(n) (0x01430u + 0x40u * (n)) // 16: packets dropped for lack of descriptors with DROP_EN
#define REG_RQSMR(n) (0x02300u + 4u * (n))    // queue -> statistics counter mapping, 4 queues per register

#define REG_RDRXCTL 0x02F00
#define RDRXCTL_CRCSTRIP (1u << 1)
#define RDRXCTL_DMAIDONE (1u << 3)
#define RDRXCTL_RSCFRSTSIZE (0x1Fu << 17)
#define RDRXCTL_RSCACKC (1u << 25)
#define RDRXCTL_FCOE_WRFIX (1u << 26)
#define RDRXCTL_DEFAULT (0x8u << 17) // RSCFRSTSIZE reads as non-zero after reset
#define REG_RXCTRL 0x03000
#define RXCTRL_RXEN (1u << 0)
#define REG_RXPBSIZE(n) (0x03C00u + 4u * (n))
#define REG_MPC(n) (0x03FA0u + 4u * (n))
#define REG_RNBC(n) (0x03FC0u + 4u * (n))

#define REG_CRCERRS 0x04000
#define REG_GPRC 0x04074
#define REG_BPRC 0x04078
#define REG_MPRC 0x0407C
#define REG_GPTC 0x04080
#define REG_GORCL 0x04088
#define REG_GORCH 0x0408C
#define REG_GOTCL 0x04090
#define REG_GOTCH 0x04094
#define REG_ROC 0x040AC
#define REG_TORL 0x040C0
#define REG_TORH 0x040C4
#define REG_TPR 0x040D0
#define REG_TPT 0x040D4
#define REG_MPTC 0x040F0
#define REG_BPTC 0x040F4
#define REG_XEC 0x04120

#define REG_HLREG0 0x04240
#define HLREG0_TXCRCEN (1u << 0)
#define HLREG0_RXCRCSTRP (1u << 1)
#define HLREG0_JUMBOEN (1u << 2)
#define HLREG0_TXPADEN (1u << 10)
#define REG_MAXFRS 0x04268
#define MAXFRS_MFS_SHIFT 16
#define REG_AUTOC 0x042A0
#define AUTOC_RESTART_AN (1u << 12)
#define AUTOC_LMS_SHIFT 13
#define AUTOC_LMS_MASK (7u << AUTOC_LMS_SHIFT)
#define AUTOC_LMS_10G_SERIAL (3u << AUTOC_LMS_SHIFT)
#define REG_LINKS 0x042A4
#define LINKS_UP (1u << 30)
#define LINKS_SPEED_10G (3u << 28)
#define LINKS_SPEED_1G (2u << 28)
#define REG_AUTOC2 0x042A8

#define REG_RTTDCS 0x04900
#define REG_DMATXCTL 0x04A80
#define DMATXCTL_TE (1u << 0)

#define REG_RXCSUM 0x05000
#define REG_FCTRL 0x05080
#define FCTRL_MPE (1u << 8)
#define FCTRL_UPE (1u << 9)
#define FCTRL_BAM (1u << 10)
// Receive side scaling (7.1.2.8). MRQC (8.2.3.7.12): MRQE in bits 3:0 (0001b: RSS only, no DCB or VMDq), and the hash
// field enables; RETA (n = 0..31): entry 4n+i in the byte at bits 8i+7:8i, of which the queue index takes bits 3:0;
// RSSRK (n = 0..9): key byte 4n+i in bits 8i+7:8i.
#define REG_MRQC 0x05818
#define MRQC_MRQE_MASK 0xFu
#define MRQC_MRQE_RSS 0x1u
#define MRQC_TCPIPV4 (1u << 16)
#define MRQC_IPV4 (1u << 17)
#define MRQC_UDPIPV4 (1u << 22)
#define REG_RETA(n) (0x05C00u + 4u * (n))
#define REG_RSSRK(n) (0x05C80u + 4u * (n))
#define RSS_KEY_BYTES 40u
#define RSS_TABLE_ENTRIES 128u

// Transmit queue n: 0x06000 + 0x40 * n (n < 128). Fields:
#define TXQ_TDBAL 0x00
#define TXQ_TDBAH 0x04
#define TXQ_TDLEN 0x08
#define TXQ_DCA_TXCTRL 0x0C
#define TXQ_TDH 0x10
#define TXQ_TDT 0x18
#define TXQ_TXDCTL 0x28
#define TXQ_TDWBAL 0x38
#define TXQ_TDWBAH 0x3C
#define REG_TXQ(n, field) (0x06000u + 0x40u * (n) + (field))
#define TXDCTL_ENABLE (1u << 25)
#define TDWBAL_HEAD_WB_ENABLE (1u << 0)

#define REG_DTXMXSZRQ 0x08100 // bits 11:0 valid, the rest reserved
#define REG_MTQC 0x08120
#define REG_SECTXCTRL 0x08800
#define REG_SECTXSTAT 0x08804
#define REG_SECRXCTRL 0x08D00
#define SECRXCTRL_RX_DIS (1u << 1)
#define REG_SECRXSTAT 0x08D04
#define SECRXSTAT_SECRX_RDY (1u << 0)

// Receive address n (n < 128); the first 16 are also at 0x05400 + 8 * n (82598 layout)
#define REG_RAL(n) (0x0A200u + 8u * (n))
#define REG_RAH(n) (0x0A204u + 8u * (n))
#define REG_RAL_ALIAS 0x05400
#define RAH_AV (1u << 31)
#define NUM_RAR 128

#define REG_TXPBSIZE(n) (0x0CC00u + 4u * (n))

// ---- descriptors ----

// Advanced transmit data descriptor, read format (7.2.3.2.4): buffer address, then
// cmd_type_len: DTALEN 15:0, DTYP 23:20, DCMD 31:24; olinfo_status: STA 3:0, ..., PAYLEN 31:14.
#define TXD_DTALEN_MASK 0xFFFFu
#define TXD_DTYP_SHIFT 20
#define TXD_DTYP_MASK (0xFu << TXD_DTYP_SHIFT)
#define TXD_DTYP_CONTEXT (0x2u << TXD_DTYP_SHIFT)
#define TXD_DTYP_DATA (0x3u << TXD_DTYP_SHIFT)
#define TXD_CMD_EOP (1u << 24)
#define TXD_CMD_IFCS (1u << 25)
#define TXD_CMD_RS (1u << 27)
#define TXD_CMD_DEXT (1u << 29)
#define TXD_CMD_VLE (1u << 30)
#define TXD_CMD_TSE (1u << 31)
#define TXD_PAYLEN_SHIFT 14
#define TXD_STA_DD (1u << 0) // write-back format (7.2.3.2.4): STA in the last dword

// Advanced receive descriptor, write-back format (7.1.6.2): dword 0 packet info, dword 1 RSS hash,
// dword 2 extended status/error, dword 3 length (15:0) and VLAN tag (31:16).
#define RXD_STAT_DD (1u << 0)
#define RXD_STAT_EOP (1u << 1)
#define RXD_PKTTYPE_IPV4 (1u << 4)
#define RXD_PKTTYPE_IPV6 (1u << 6)
#define RXD_PKTTYPE_TCP (1u << 8)
#define RXD_PKTTYPE_UDP (1u << 9)

#define DESC_SIZE 16u
#define ETHER_CRC_LEN 4u
#define ETHER_MIN_LEN 60u            // without CRC
#define STANDARD_MAX_FRAME 1518u     // with CRC, when HLREG0.JUMBOEN is 0
#define MAX_FRAME (16u * 1024)       // anything the model handles at all
#define MAX_RING_BYTES (128u * 1024) // RDLEN/TDLEN "validated lengths up to 128K (8K descriptors)"

// ---- timing (virtual microseconds) ----

#define RESET_US 1000u       // CTRL.RST and CTRL.LRST read as set this long
#define DMA_INIT_US 500u     // RDRXCTL.DMAIDONE this long after the reset ends
#define EEPROM_READ_US 2000u // EEC.ARD this long after the reset ends
#define DEFAULT_LINK_US 500000u
#define NEVER UINT64_MAX

#define LOG_CAPACITY 65536u

// ---- device state ----

// A queue's rings may be another thread's than the next queue's (the fast path, below): each starts a cache line.
struct rx_ring {
	_Alignas(64) bool enabled;
	uint32_t head; // RDH
	uint32_t tail; // RDT
	// latched when the queue is enabled:
	uintptr_t base;
	uint32_t size;        // descriptors
	uint32_t buffer_size; // bytes per packet buffer (SRRCTL.BSIZEPACKET)
	uint32_t max_write;   // most bytes the device writes into one buffer
	bool delivered;       // a frame was written since the queue was enabled
	// Descriptors the device owns (head up to tail) are fetched when the tail moves: their buffer address is
	// kept, as the hardware's prefetch would, and checked again when the descriptor is used.
	uintptr_t* fetched;
	uintptr_t* owned_set; // hash set of the owned buffer addresses: a buffer given twice is a driver bug
	uint32_t set_mask;
};

struct tx_ring {
	_Alignas(64) bool enabled; // (a cache line: see struct rx_ring)
	uint32_t head;             // TDH
	uint32_t tail;             // TDT
	uintptr_t base;
	uint32_t size;
};

// A 36 bit octet counter read as a low and a high register; reading the low one latches the high part.
struct octet_counter {
	uint64_t value;
	uint32_t high_latch;
	bool latched;
};

struct tx_record {
	size_t offset;
	uint32_t len;
	uint16_t queue;
};

// What a queue's packets counted since the statistics last looked (fold_counts adds it to the NIC's): registers,
// which wrap at 32 bits as the NIC's do, octets of the 36 bit counters, and the model's own counters (those that
// the packet path counts).
struct queue_counts {
	uint32_t gprc, tpr, bprc, mprc, gptc, tpt, bptc, mptc;
	uint64_t gorc, tor, gotc;
	struct model_ixgbe_counters counters;
};

// Per queue index (RX and TX queue q): its lock and counts, on cache lines of their own (the fast path, below).
struct queue {
	_Alignas(64) pthread_mutex_t lock;
	struct queue_counts counts;
};

struct model_ixgbe {
	struct model_pci_device* pci;
	char name[16];
	uint32_t* regs; // the register file, indexed by offset / 4; values of plain registers live here
	uint8_t eeprom_mac[6];
	// knobs
	enum model_link_mode link_mode;
	uint32_t link_delay_us;
	bool tx_paused;
	bool record_tx;
	bool log_registers;
	model_tx_hook tx_hook;
	void* tx_hook_context;
	enum model_ixgbe_fault fault;
	// time-driven state
	bool reset_pending;
	uint64_t reset_done_at;
	uint64_t dma_done_at;
	uint64_t eeprom_done_at;
	uint64_t link_up_at;
	bool link_up;
	bool bar_unmapped;
	// queues
	struct rx_ring rx[MODEL_IXGBE_QUEUES];
	struct tx_ring tx[MODEL_IXGBE_QUEUES];
	struct queue queues[MODEL_IXGBE_QUEUES];
	uint32_t lockable; // queues 0 .. lockable - 1 may have been enabled: enter() takes their locks
	unsigned entered;  // depth of enter() calls (under the models' lock)
	// statistics wider than a register
	struct octet_counter gorc, gotc, tor;
	// MSI-X: bit v set: vector v is enabled (EIMS/EIMS_EX), cleared by EIMC/EIMC_EX, auto-mask and reset
	uint64_t msix_enabled;
	// latched causes of vectors 16-63 (those of vectors 0-15 are EICR bits 15:0)
	uint64_t causes_ex;
	// per vector: when its EITR interval since its last message ends (a cause may send a message from then on)
	uint64_t itr_ends_us[MODEL_IXGBE_VECTORS];
	// unicast addresses with RAH.AV set, rebuilt when RAL/RAH change
	uint8_t rar_macs[NUM_RAR][6];
	uint32_t num_rar_macs;
	// what happened
	struct model_ixgbe_counters counters;
	uint8_t* tx_bytes;
	size_t tx_bytes_used, tx_bytes_capacity;
	struct tx_record* tx_records;
	uint32_t num_tx_records, tx_records_capacity;
	struct model_log_entry* log;
	uint32_t log_length;
	uint8_t frame[MAX_FRAME]; // scratch for the frame being transmitted
};

static uint32_t* reg_ptr(struct model_ixgbe* nic, uint32_t reg) {
	return &nic->regs[reg / 4];
}

static uint32_t reg_get(const struct model_ixgbe* nic, uint32_t reg) {
	return nic->regs[reg / 4];
}

static bool bus_master(const struct model_ixgbe* nic) {
	return model_pci_bus_master(nic->pci);
}

static void log_access(struct model_ixgbe* nic, enum model_access access, uint32_t reg, uint32_t value) {
	if (!nic->log_registers) {
		return;
	}
	if (!nic->log) {
		nic->log = calloc(LOG_CAPACITY, sizeof(*nic->log));
		if (!nic->log) {
			model_usage_error("out of memory for the register log");
		}
	}
	if (access == MODEL_READ && nic->log_length > 0) {
		struct model_log_entry* last = &nic->log[nic->log_length - 1];
		if (last->access == MODEL_READ && last->reg == reg && last->value == value) {
			last->repeats++;
			return;
		}
	}
	if (nic->log_length < LOG_CAPACITY) {
		nic->log[nic->log_length++] = (struct model_log_entry){
		    .time_us = model_now_us(), .reg = reg, .value = value, .repeats = 1, .access = access};
	}
}

// ---- register names (for messages, the dump and the log) ----

struct reg_info {
	const char* name;
	uint32_t base;
	uint32_t count; // 1 for a single register
	uint32_t stride;
	uint32_t first; // index of the first element (64 for the upper receive queue block)
};

static const struct reg_info reg_table[] = {
    {"CTRL", REG_CTRL, 1, 0, 0},
    {"STATUS", REG_STATUS, 1, 0, 0},
    {"CTRL_EXT", REG_CTRL_EXT, 1, 0, 0},
    {"EICR", REG_EICR, 1, 0, 0},
    {"EICS", REG_EICS, 1, 0, 0},
    {"EIAC", REG_EIAC, 1, 0, 0},
    {"EITR", 0x00820, 24, 4, 0},
    {"EIMS", REG_EIMS, 1, 0, 0},
    {"EIMC", REG_EIMC, 1, 0, 0},
    {"EIAM", REG_EIAM, 1, 0, 0},
    {"GPIE", REG_GPIE, 1, 0, 0},
    {"IVAR", 0x00900, 64, 4, 0},
    {"IVAR_MISC", 0x00A00, 1, 0, 0},
    {"EIMS_EX", 0x00AA0, 2, 4, 0},
    {"EIMC_EX", 0x00AB0, 2, 4, 0},
    {"EIAM_EX", 0x00AD0, 2, 4, 0},
    {"RDBAL", 0x01000, 64, 0x40, 0},
    {"RDBAH", 0x01004, 64, 0x40, 0},
    {"RDLEN", 0x01008, 64, 0x40, 0},
    {"DCA_RXCTRL", 0x0100C, 64, 0x40, 0},
    {"RDH", 0x01010, 64, 0x40, 0},
    {"SRRCTL", 0x01014, 64, 0x40, 0},
    {"RDT", 0x01018, 64, 0x40, 0},
    {"RXDCTL", 0x01028, 64, 0x40, 0},
    {"RSCCTL", 0x0102C, 64, 0x40, 0},
    {"QPRC", 0x01030, 16, 0x40, 0},
    {"QBRC_L", 0x01034, 16, 0x40, 0},
    {"QBRC_H", 0x01038, 16, 0x40, 0},
    {"QPRDC", 0x01430, 16, 0x40, 0},
    {"RDBAL", 0x0D000, 64, 0x40, 64},
    {"RDBAH", 0x0D004, 64, 0x40, 64},
    {"RDLEN", 0x0D008, 64, 0x40, 64},
    {"DCA_RXCTRL", 0x0D00C, 64, 0x40, 64},
    {"RDH", 0x0D010, 64, 0x40, 64},
    {"SRRCTL", 0x0D014, 64, 0x40, 64},
    {"RDT", 0x0D018, 64, 0x40, 64},
    {"RXDCTL", 0x0D028, 64, 0x40, 64},
    {"RSCCTL", 0x0D02C, 64, 0x40, 64},
    {"RQSMR", 0x02300, 32, 4, 0},
    {"RDRXCTL", REG_RDRXCTL, 1, 0, 0},
    {"RXCTRL", REG_RXCTRL, 1, 0, 0},
    {"RXPBSIZE", 0x03C00, 8, 4, 0},
    {"MPC", 0x03FA0, 8, 4, 0},
    {"RNBC", 0x03FC0, 8, 4, 0},
    {"CRCERRS", REG_CRCERRS, 1, 0, 0},
    {"GPRC", REG_GPRC, 1, 0, 0},
    {"BPRC", REG_BPRC, 1, 0, 0},
    {"MPRC", REG_MPRC, 1, 0, 0},
    {"GPTC", REG_GPTC, 1, 0, 0},
    {"GORCL", REG_GORCL, 1, 0, 0},
    {"GORCH", REG_GORCH, 1, 0, 0},
    {"GOTCL", REG_GOTCL, 1, 0, 0},
    {"GOTCH", REG_GOTCH, 1, 0, 0},
    {"ROC", REG_ROC, 1, 0, 0},
    {"TORL", REG_TORL, 1, 0, 0},
    {"TORH", REG_TORH, 1, 0, 0},
    {"TPR", REG_TPR, 1, 0, 0},
    {"TPT", REG_TPT, 1, 0, 0},
    {"MPTC", REG_MPTC, 1, 0, 0},
    {"BPTC", REG_BPTC, 1, 0, 0},
    {"HLREG0", REG_HLREG0, 1, 0, 0},
    {"HLREG1", 0x04244, 1, 0, 0},
    {"MAXFRS", REG_MAXFRS, 1, 0, 0},
    {"MFLCN", 0x04294, 1, 0, 0},
    {"AUTOC", REG_AUTOC, 1, 0, 0},
    {"LINKS", REG_LINKS, 1, 0, 0},
    {"AUTOC2", REG_AUTOC2, 1, 0, 0},
    {"RTTDCS", REG_RTTDCS, 1, 0, 0},
    {"TXPBTHRESH", 0x04950, 8, 4, 0},
    {"DMATXCTL", REG_DMATXCTL, 1, 0, 0},
    {"RXCSUM", REG_RXCSUM, 1, 0, 0},
    {"RFCTL", 0x05008, 1, 0, 0},
    {"FCTRL", REG_FCTRL, 1, 0, 0},
    {"VLNCTRL", 0x05088, 1, 0, 0},
    {"MCSTCTRL", 0x05090, 1, 0, 0},
    {"MTA", 0x05200, 128, 4, 0},
    {"MRQC", REG_MRQC, 1, 0, 0},
    {"RETA", 0x05C00, 32, 4, 0},
    {"RSSRK", 0x05C80, 10, 4, 0},
    {"TDBAL", 0x06000, 128, 0x40, 0},
    {"TDBAH", 0x06004, 128, 0x40, 0},
    {"TDLEN", 0x06008, 128, 0x40, 0},
    {"DCA_TXCTRL", 0x0600C, 128, 0x40, 0},
    {"TDH", 0x06010, 128, 0x40, 0},
    {"TDT", 0x06018, 128, 0x40, 0},
    {"TXDCTL", 0x06028, 128, 0x40, 0},
    {"TDWBAL", 0x06038, 128, 0x40, 0},
    {"TDWBAH", 0x0603C, 128, 0x40, 0},
    {"DTXMXSZRQ", REG_DTXMXSZRQ, 1, 0, 0},
    {"MTQC", REG_MTQC, 1, 0, 0},
    {"SECTXCTRL", REG_SECTXCTRL, 1, 0, 0},
    {"SECTXSTAT", REG_SECTXSTAT, 1, 0, 0},
    {"SECRXCTRL", REG_SECRXCTRL, 1, 0, 0},
    {"SECRXSTAT", REG_SECRXSTAT, 1, 0, 0},
    {"RAL", 0x0A200, NUM_RAR, 8, 0},
    {"RAH", 0x0A204, NUM_RAR, 8, 0},
    {"TXPBSIZE", 0x0CC00, 8, 4, 0},
    {"EEC", REG_EEC, 1, 0, 0},
    {"EERD", 0x10014, 1, 0, 0},
};
#define NUM_REG_INFO (sizeof(reg_table) / sizeof(reg_table[0]))

// The offset a register is stored at: aliases of the 82598 layout map to the 82599 offsets.
static uint32_t canonical(uint32_t reg) {
	if (reg >= REG_SRRCTL_ALIAS && reg < REG_SRRCTL_ALIAS + 16 * 4) {
		return REG_RXQ((reg - REG_SRRCTL_ALIAS) / 4, RXQ_SRRCTL);
	}
	if (reg >= REG_DCA_RXCTRL_ALIAS && reg < REG_DCA_RXCTRL_ALIAS + 16 * 4) {
		return REG_RXQ((reg - REG_DCA_RXCTRL_ALIAS) / 4, RXQ_DCA_RXCTRL);
	}
	if (reg >= REG_RAL_ALIAS && reg < REG_RAL_ALIAS + 16 * 8) {
		return REG_RAL((reg - REG_RAL_ALIAS) / 8) + (reg & 4);
	}
	return reg;
}

const char* model_ixgbe_reg_name(uint32_t reg, char buf[24]) {
	reg = canonical(reg);
	for (size_t i = 0; i < NUM_REG_INFO; i++) {
		const struct reg_info* info = &reg_table[i];
		if (info->count == 1) {
			if (reg == info->base) {
				snprintf(buf, 24, "%s", info->name);
				return buf;
			}
		} else if (reg >= info->base && (reg - info->base) % info->stride == 0 &&
			   (reg - info->base) / info->stride < info->count) {
			snprintf(buf, 24, "%s(%u)", info->name, info->first + (reg - info->base) / info->stride);
			return buf;
		}
	}
	snprintf(buf, 24, "0x%05x", reg);
	return buf;
}

// Decodes a per-queue receive register into queue and field (RDBAL..RSCCTL).
static bool rx_queue_reg(uint32_t reg, uint32_t* queue, uint32_t* field) {
	uint32_t first;
	if (reg >= 0x01000 && reg < 0x02000) {
		first = 0;
		reg -= 0x01000;
	} else if (reg >= 0x0D000 && reg < 0x0E000) {
		first = 64;
		reg -= 0x0D000;
	} else {
		return false;
	}
	*queue = first + reg / 0x40;
	*field = reg % 0x40;
	return *field <= RXQ_RDT || *field == RXQ_RXDCTL || *field == RXQ_RSCCTL;
}

static bool tx_queue_reg(uint32_t reg, uint32_t* queue, uint32_t* field) {
	if (reg < 0x06000 || reg >= 0x08000) {
		return false;
	}
	*queue = (reg - 0x06000) / 0x40;
	*field = (reg - 0x06000) % 0x40;
	return true;
}

// Statistics registers are cleared when read (8.2.3.23).
static bool clear_on_read(uint32_t reg) {
	if (reg >= REG_MPC(0) && reg <= REG_RNBC(7)) {
		return true;
	}
	if ((reg >= REG_CRCERRS && reg <= REG_BPTC) || reg == REG_XEC) {
		return true;
	}
	// QPRC, QBRC_L, QBRC_H of queues 0-15 and QPRDC (the same fields of blocks 16-31)
	return reg >= REG_QPRC(0) && reg < REG_QPRC(32) && (reg - REG_QPRC(0)) % 0x40 < 0x0C;
}

// ---- locks ----
// The NIC is the models' lock's, as every model (model.h), with one exception: while it is quiet (the fast path),
// a queue's tail write and the benchmark's frames for it run under the queue's own lock only, so that threads on
// different queues do not wait for each other. All else enters (enter/leave): the models' lock, then the lock of
// every queue that may have been enabled. Queue locks are taken in ascending order, and a fast path holds one only:
// no thread waits for another in a circle.

static void lock_queue(struct model_ixgbe* nic, uint32_t q) {
	if (pthread_mutex_lock(&nic->queues[q].lock) != 0) {
		abort();
	}
}

static void unlock_queue(struct model_ixgbe* nic, uint32_t q) {
	if (pthread_mutex_unlock(&nic->queues[q].lock) != 0) {
		abort();
	}
}

static struct model_ixgbe* enter(const struct model_ixgbe* const_nic) {
	struct model_ixgbe* nic = (struct model_ixgbe*)const_nic; // (queries enter too: they fold the counts)
	model_lock();
	if (nic->entered++ == 0) {
		for (uint32_t q = 0; q < nic->lockable; q++) {
			lock_queue(nic, q);
		}
	}
	return nic;
}

static void leave(struct model_ixgbe* nic) {
	if (--nic->entered == 0) {
		for (uint32_t q = 0; q < nic->lockable; q++) {
			unlock_queue(nic, q);
		}
	}
	model_unlock();
}

// Before queue q is enabled (inside enter): its lock, and those below it, are held as if enter had taken them.
static void make_lockable(struct model_ixgbe* nic, uint32_t q) {
	for (; nic->lockable <= q; nic->lockable++) {
		lock_queue(nic, nic->lockable);
	}
}

// Adds what the queues counted to the statistics registers and counters (inside enter: nothing counts meanwhile).
// Every look at a statistic folds first, so that it sees every packet so far.
static void fold_counts(struct model_ixgbe* nic) {
	for (uint32_t q = 0; q < nic->lockable; q++) {
		struct queue_counts* c = &nic->queues[q].counts;
		*reg_ptr(nic, REG_GPRC) += c->gprc;
		*reg_ptr(nic, REG_TPR) += c->tpr;
		*reg_ptr(nic, REG_BPRC) += c->bprc;
		*reg_ptr(nic, REG_MPRC) += c->mprc;
		*reg_ptr(nic, REG_GPTC) += c->gptc;
		*reg_ptr(nic, REG_TPT) += c->tpt;
		*reg_ptr(nic, REG_BPTC) += c->bptc;
		*reg_ptr(nic, REG_MPTC) += c->mptc;
		nic->gorc.value = (nic->gorc.value + c->gorc) & 0xFFFFFFFFFull;
		nic->tor.value = (nic->tor.value + c->tor) & 0xFFFFFFFFFull;
		nic->gotc.value = (nic->gotc.value + c->gotc) & 0xFFFFFFFFFull;
		nic->counters.rx_good += c->counters.rx_good;
		nic->counters.rx_good_octets += c->counters.rx_good_octets;
		nic->counters.rx_delivered += c->counters.rx_delivered;
		nic->counters.rx_delivered_bytes += c->counters.rx_delivered_bytes;
		nic->counters.tx_frames += c->counters.tx_frames;
		nic->counters.tx_octets += c->counters.tx_octets;
		nic->counters.dma_reads += c->counters.dma_reads;
		nic->counters.dma_writes += c->counters.dma_writes;
		*c = (struct queue_counts){0};
	}
}

// ---- reset and time ----

static void free_rx_tracking(struct rx_ring* ring) {
	free(ring->fetched);
	free(ring->owned_set);
	ring->fetched = NULL;
	ring->owned_set = NULL;
	ring->set_mask = 0;
}

static void rebuild_rar_cache(struct model_ixgbe* nic) {
	nic->num_rar_macs = 0;
	for (uint32_t i = 0; i < NUM_RAR; i++) {
		uint32_t low = reg_get(nic, REG_RAL(i));
		uint32_t high = reg_get(nic, REG_RAH(i));
		if (high & RAH_AV) {
			uint8_t* mac = nic->rar_macs[nic->num_rar_macs++];
			mac[0] = (uint8_t)low;
			mac[1] = (uint8_t)(low >> 8);
			mac[2] = (uint8_t)(low >> 16);
			mac[3] = (uint8_t)(low >> 24);
			mac[4] = (uint8_t)high;
			mac[5] = (uint8_t)(high >> 8);
		}
	}
}

// Register values after a reset; those the EEPROM sets are taken from a typical SFP+ board.
static void load_defaults(struct model_ixgbe* nic) {
	fold_counts(nic); // the model's counters keep them
	memset(nic->regs, 0, MODEL_BAR0_SIZE);
	*reg_ptr(nic, REG_AUTOC) = AUTOC_LMS_10G_SERIAL;
	*reg_ptr(nic, REG_HLREG0) = HLREG0_TXCRCEN | HLREG0_RXCRCSTRP | HLREG0_TXPADEN;
	*reg_ptr(nic, REG_MAXFRS) = STANDARD_MAX_FRAME << MAXFRS_MFS_SHIFT;
	*reg_ptr(nic, REG_RDRXCTL) = RDRXCTL_DEFAULT;
	*reg_ptr(nic, REG_RXPBSIZE(0)) = 512u * 1024;
	*reg_ptr(nic, REG_TXPBSIZE(0)) = 160u * 1024;
	*reg_ptr(nic, REG_DTXMXSZRQ) = 0x10;
	for (uint32_t q = 0; q < MODEL_IXGBE_QUEUES; q++) {
		*reg_ptr(nic, REG_RXQ(q, RXQ_SRRCTL)) = SRRCTL_DEFAULT;
		*reg_ptr(nic, REG_RXQ(q, RXQ_DCA_RXCTRL)) = DCA_RXCTRL_BIT12;
	}
	const uint8_t* mac = nic->eeprom_mac;
	*reg_ptr(nic, REG_RAL(0)) =
	    (uint32_t)mac[0] | (uint32_t)mac[1] << 8 | (uint32_t)mac[2] << 16 | (uint32_t)mac[3] << 24;
	*reg_ptr(nic, REG_RAH(0)) = (uint32_t)mac[4] | (uint32_t)mac[5] << 8 | RAH_AV;
	rebuild_rar_cache(nic);
	for (uint32_t q = 0; q < MODEL_IXGBE_QUEUES; q++) {
		free_rx_tracking(&nic->rx[q]);
	}
	memset(nic->rx, 0, sizeof(nic->rx));
	memset(nic->tx, 0, sizeof(nic->tx));
	nic->gorc = nic->gotc = nic->tor = (struct octet_counter){0};
	nic->msix_enabled = 0;
	nic->causes_ex = 0;
	memset(nic->itr_ends_us, 0, sizeof(nic->itr_ends_us));
}

// CTRL.RST (4.6.3.2): everything except PCI configuration goes back to its default; the device is busy for a
// while, then loads the EEPROM and initialises its DMA engines.
static void device_reset(struct model_ixgbe* nic) {
	load_defaults(nic);
	uint64_t now = model_now_us();
	nic->reset_pending = true;
	nic->reset_done_at = now + RESET_US;
	nic->dma_done_at = nic->reset_done_at + DMA_INIT_US;
	nic->eeprom_done_at = nic->reset_done_at + EEPROM_READ_US;
	nic->link_up = false;
	nic->link_up_at = NEVER;
	nic->counters.resets++;
}

static void tx_process(struct model_ixgbe* nic, uint32_t queue);
static void send_due_messages(struct model_ixgbe* nic);

static void tx_process_all(struct model_ixgbe* nic) {
	for (uint32_t q = 0; q < MODEL_IXGBE_QUEUES; q++) {
		if (nic->tx[q].enabled && nic->tx[q].head != nic->tx[q].tail) {
			tx_process(nic, q);
		}
	}
}

// Brings time-driven state up to date: reset completion, link coming up.
static void catch_up(struct model_ixgbe* nic) {
	uint64_t now = model_now_us();
	if (nic->reset_pending && now >= nic->reset_done_at) {
		nic->reset_pending = false;
	}
	if (!nic->link_up && now >= nic->link_up_at) {
		nic->link_up = true;
		*reg_ptr(nic, REG_EICR) |= EICR_LSC;
		tx_process_all(nic);
	}
	send_due_messages(nic); // time passed: a cause held back by EITR may go now
}

static bool dma_init_done(const struct model_ixgbe* nic) {
	return !nic->reset_pending && model_now_us() >= nic->dma_done_at;
}

static bool eeprom_done(const struct model_ixgbe* nic) {
	return !nic->reset_pending && model_now_us() >= nic->eeprom_done_at;
}

static uint32_t link_speed_bits(const struct model_ixgbe* nic) {
	uint32_t lms = reg_get(nic, REG_AUTOC) & AUTOC_LMS_MASK;
	// LMS 000b (1G, no AN), 010b (1G AN) and 101b (SGMII) are 1 Gbit/s modes; the others run at 10 Gbit/s.
	if (lms == 0 || lms == (2u << AUTOC_LMS_SHIFT) || lms == (5u << AUTOC_LMS_SHIFT)) {
		return LINKS_SPEED_1G;
	}
	return LINKS_SPEED_10G;
}

// ---- reading registers ----

static uint32_t read_octets(struct octet_counter* counter, bool high, bool clear) {
	if (!high) {
		uint32_t low = (uint32_t)counter->value;
		if (clear) {
			counter->high_latch = (uint32_t)(counter->value >> 32) & 0xF;
			counter->latched = true;
			counter->value = 0;
		}
		return low;
	}
	uint32_t value = counter->latched ? counter->high_latch : (uint32_t)(counter->value >> 32) & 0xF;
	if (clear) {
		if (!counter->latched) {
			counter->value &= 0xFFFFFFFFu;
		}
		counter->latched = false;
	}
	return value;
}

// The value of a register; `consume` applies read side effects (clear-on-read).
static uint32_t register_value(struct model_ixgbe* nic, uint32_t reg, bool consume) {
	uint32_t queue, field;
	if (rx_queue_reg(reg, &queue, &field)) {
		const struct rx_ring* ring = &nic->rx[queue];
		switch (field) {
			case RXQ_RDH:
				return ring->head;
			case RXQ_RDT:
				return ring->tail;
			case RXQ_RXDCTL:
				return (reg_get(nic, reg) & ~RXDCTL_ENABLE) |
				       (ring->enabled && nic->fault != MODEL_IXGBE_QUEUES_STAY_OFF ? RXDCTL_ENABLE : 0);
			default:
				return reg_get(nic, reg);
		}
	}
	if (tx_queue_reg(reg, &queue, &field)) {
		const struct tx_ring* ring = &nic->tx[queue];
		switch (field) {
			case TXQ_TDH:
				return ring->head;
			case TXQ_TDT:
				return ring->tail;
			case TXQ_TXDCTL:
				return (reg_get(nic, reg) & ~TXDCTL_ENABLE) |
				       (ring->enabled && nic->fault != MODEL_IXGBE_QUEUES_STAY_OFF ? TXDCTL_ENABLE : 0);
			default:
				return reg_get(nic, reg);
		}
	}
	switch (reg) {
		case REG_CTRL:
			return reg_get(nic, reg) |
			       (nic->reset_pending || nic->fault == MODEL_IXGBE_STUCK_RESET ? CTRL_RST | CTRL_LRST : 0);
		case REG_STATUS: {
			uint32_t function = (uint32_t)(model_pci_addr(nic->pci)[11] - '0');
			uint32_t gio = reg_get(nic, REG_CTRL) & CTRL_GIO_MASTER_DISABLE ? 0 : STATUS_GIO_MASTER_ENABLE;
			return (function & 1) << STATUS_LAN_ID_SHIFT | gio;
		}
		case REG_EEC:
			return (reg_get(nic, reg) & ~(EEC_PRES | EEC_ARD)) | EEC_PRES |
			       (eeprom_done(nic) ? EEC_ARD : 0);
		case REG_RDRXCTL:
			return (reg_get(nic, reg) & ~RDRXCTL_DMAIDONE) | (dma_init_done(nic) ? RDRXCTL_DMAIDONE : 0);
		case REG_LINKS:
			return nic->link_up ? LINKS_UP | link_speed_bits(nic) : 0;
		case REG_EICR: {
			uint32_t causes = reg_get(nic, reg);
			if (consume) {
				*reg_ptr(nic, reg) = 0;
			}
			return causes;
		}
		case REG_SECRXSTAT:
			// nothing is ever in flight in the model: the security block is idle as soon as RX is halted
			return reg_get(nic, REG_SECRXCTRL) & SECRXCTRL_RX_DIS ? SECRXSTAT_SECRX_RDY : 0;
		case REG_GORCL:
		case REG_GORCH:
			return read_octets(&nic->gorc, reg == REG_GORCH, consume);
		case REG_GOTCL:
		case REG_GOTCH:
			return read_octets(&nic->gotc, reg == REG_GOTCH, consume);
		case REG_TORL:
		case REG_TORH:
			return read_octets(&nic->tor, reg == REG_TORH, consume);
		default:
			break;
	}
	uint32_t value = reg_get(nic, reg);
	if (consume && clear_on_read(reg)) {
		*reg_ptr(nic, reg) = 0;
	}
	return value;
}

static uint32_t ixgbe_read32(void* model, uint32_t reg) {
	struct model_ixgbe* nic = enter(model);
	catch_up(nic);
	fold_counts(nic);
	reg = canonical(reg);
	uint32_t value = register_value(nic, reg, true);
	log_access(nic, MODEL_READ, reg, value);
	leave(nic);
	return value;
}

uint32_t model_ixgbe_peek(const struct model_ixgbe* const_nic, uint32_t reg) {
	struct model_ixgbe* nic = enter(const_nic);
	fold_counts(nic);
	uint32_t value = register_value(nic, canonical(reg), false);
	leave(nic);
	return value;
}

// ---- receive queue registers (4.6.7, 8.2.3.8) ----

static const char* rname(uint32_t reg, char buf[24]) {
	return model_ixgbe_reg_name(reg, buf);
}

static uintptr_t rx_ring_base(const struct model_ixgbe* nic, uint32_t q) {
	return (uintptr_t)((uint64_t)reg_get(nic, REG_RXQ(q, RXQ_RDBAH)) << 32 | reg_get(nic, REG_RXQ(q, RXQ_RDBAL)));
}

static uintptr_t tx_ring_base(const struct model_ixgbe* nic, uint32_t q) {
	return (uintptr_t)((uint64_t)reg_get(nic, REG_TXQ(q, TXQ_TDBAH)) << 32 | reg_get(nic, REG_TXQ(q, TXQ_TDBAL)));
}

// Checks a descriptor ring before a queue is enabled (7.1.9, 7.2.3.3; RDLEN/TDLEN in 8.2.3.8, 8.2.3.9).
static bool ring_ok(struct model_ixgbe* nic, const char* dir, uint32_t q, uintptr_t base, uint32_t len) {
	if (base == 0 || len == 0) {
		model_violation(nic->name,
				"%s queue %u enabled without a descriptor ring (base 0x%lx, length %u): "
				"program the ring before setting the ENABLE bit (4.6.7.1/4.6.8.1)",
				dir, q, (unsigned long)base, len);
		return false;
	}
	if (base % 128 != 0 || len % 128 != 0 || len > MAX_RING_BYTES) {
		model_violation(nic->name,
				"%s queue %u: ring base 0x%lx / length %u bytes illegal: both must be multiples "
				"of 128 and the length at most 128 KiB (8.2.3.8, 8.2.3.9)",
				dir, q, (unsigned long)base, len);
		return false;
	}
	if (!model_dma_ok(base, len)) {
		model_violation(nic->name, "%s queue %u: descriptor ring [0x%lx, +%u) is not in live DMA memory", dir,
				q, (unsigned long)base, len);
		return false;
	}
	return true;
}

static uint32_t ring_distance(uint32_t from, uint32_t to, uint32_t size) {
	return (to + size - from) % size;
}

static uint32_t hash_address(uintptr_t addr, uint32_t mask) {
	return (uint32_t)(((uint64_t)addr >> 6) * 0x9E3779B97F4A7C15ull >> 40) & mask;
}

// Adds a buffer address to the owned set; false if it is already there.
static bool owned_insert(struct rx_ring* ring, uintptr_t addr) {
	uint32_t i = hash_address(addr, ring->set_mask);
	while (ring->owned_set[i] != 0) {
		if (ring->owned_set[i] == addr) {
			return false;
		}
		i = (i + 1) & ring->set_mask;
	}
	ring->owned_set[i] = addr;
	return true;
}

// Removes a buffer address (linear probing with backward shift, so no tombstones are needed).
static void owned_remove(struct rx_ring* ring, uintptr_t addr) {
	uint32_t i = hash_address(addr, ring->set_mask);
	while (ring->owned_set[i] != addr) {
		if (ring->owned_set[i] == 0) {
			return;
		}
		i = (i + 1) & ring->set_mask;
	}
	uint32_t hole = i;
	for (uint32_t j = (hole + 1) & ring->set_mask; ring->owned_set[j] != 0; j = (j + 1) & ring->set_mask) {
		uint32_t home = hash_address(ring->owned_set[j], ring->set_mask);
		// move j into the hole unless its home lies cyclically in (hole, j]
		bool home_in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
		if (!home_in_range) {
			ring->owned_set[hole] = ring->owned_set[j];
			hole = j;
		}
	}
	ring->owned_set[hole] = 0;
}

// The device takes ownership of descriptors [from, to) (7.1.9: between head and tail): fetch their buffer
// addresses and check them.
static void rx_fetch(struct model_ixgbe* nic, uint32_t q, uint32_t from, uint32_t to) {
	struct rx_ring* ring = &nic->rx[q];
	for (uint32_t i = from; i != to; i = (i + 1) % ring->size) {
		uintptr_t desc = ring->base + (uintptr_t)i * DESC_SIZE;
		if (!model_dma_ok(desc, DESC_SIZE)) {
			model_violation(nic->name, "RX queue %u: descriptor %u at 0x%lx is not in live DMA memory", q,
					i, (unsigned long)desc);
			return;
		}
		uint64_t words[2];
		memcpy(words, seam_dma_virt(desc), sizeof(words));
		nic->queues[q].counts.counters.dma_reads++;
		uintptr_t buffer = (uintptr_t)words[0];
		if (words[1] & RXD_STAT_DD) {
			model_violation(
			    nic->name,
			    "RX queue %u: descriptor %u handed to the device with DD set: bit 0 of the "
			    "header address overlays DD of the write-back format, so the driver would see it "
			    "as done before the device wrote it (7.1.6.1/7.1.6.2)",
			    q, i);
		}
		if (buffer == 0 || !model_dma_ok(buffer, ring->max_write)) {
			model_violation(nic->name,
					"RX queue %u: descriptor %u points to buffer 0x%lx, whose %u bytes are not "
					"in live DMA memory",
					q, i, (unsigned long)buffer, ring->max_write);
		} else if (!owned_insert(ring, buffer)) {
			model_violation(nic->name,
					"RX queue %u: buffer 0x%lx given to the device twice (descriptor %u): the "
					"driver reuses a buffer it does not own (freed twice?)",
					q, (unsigned long)buffer, i);
		}
		ring->fetched[i] = buffer;
	}
}

static bool rx_enable(struct model_ixgbe* nic, uint32_t q) {
	struct rx_ring* ring = &nic->rx[q];
	uintptr_t base = rx_ring_base(nic, q);
	uint32_t len = reg_get(nic, REG_RXQ(q, RXQ_RDLEN));
	if (!ring_ok(nic, "RX", q, base, len)) {
		return false;
	}
	uint32_t srrctl = reg_get(nic, REG_RXQ(q, RXQ_SRRCTL));
	if ((srrctl & SRRCTL_DESCTYPE_MASK) != SRRCTL_DESCTYPE_ADV_ONEBUF) {
		model_violation(nic->name,
				"RX queue %u enabled with SRRCTL.DESCTYPE %u: the model implements the advanced "
				"one-buffer descriptors (001b, 7.1.6.1)",
				q, (srrctl & SRRCTL_DESCTYPE_MASK) >> SRRCTL_DESCTYPE_SHIFT);
		return false;
	}
	uint32_t buffer_kib = srrctl & SRRCTL_BSIZEPACKET_MASK;
	if (buffer_kib == 0 || buffer_kib > 16) {
		model_violation(nic->name, "RX queue %u: SRRCTL.BSIZEPACKET %u KiB, valid are 1 to 16 (8.2.3.8)", q,
				buffer_kib);
		return false;
	}
	uint32_t size = len / DESC_SIZE;
	if (ring->head >= size || ring->tail >= size) {
		model_violation(nic->name,
				"RX queue %u enabled with RDH %u / RDT %u outside the ring of %u descriptors", q,
				ring->head, ring->tail, size);
		return false;
	}
	uint32_t set_size = 1;
	while (set_size < 2 * size) {
		set_size *= 2;
	}
	free_rx_tracking(ring);
	ring->fetched = calloc(size, sizeof(uintptr_t));
	ring->owned_set = calloc(set_size, sizeof(uintptr_t));
	if (!ring->fetched || !ring->owned_set) {
		model_usage_error("out of memory for RX queue tracking");
	}
	ring->set_mask = set_size - 1;
	ring->base = base;
	ring->size = size;
	ring->buffer_size = buffer_kib * 1024;
	bool jumbo = reg_get(nic, REG_HLREG0) & HLREG0_JUMBOEN;
	uint32_t max_frame = jumbo ? reg_get(nic, REG_MAXFRS) >> MAXFRS_MFS_SHIFT : STANDARD_MAX_FRAME;
	ring->max_write = max_frame < ring->buffer_size ? max_frame : ring->buffer_size;
	make_lockable(nic, q);
	ring->enabled = true;
	rx_fetch(nic, q, ring->head, ring->tail);
	return true;
}

static void rx_disable(struct model_ixgbe* nic, uint32_t q) {
	nic->rx[q].enabled = false;
	free_rx_tracking(&nic->rx[q]);
}

static void rx_queue_write(struct model_ixgbe* nic, uint32_t reg, uint32_t q, uint32_t field, uint32_t value) {
	struct rx_ring* ring = &nic->rx[q];
	char name[24];
	if (!dma_init_done(nic)) {
		model_violation(nic->name, "%s written before RDRXCTL.DMAIDONE was set (4.6.3: wait for DMA init)",
				rname(reg, name));
	}
	switch (field) {
		case RXQ_RDBAL:
		case RXQ_RDBAH:
		case RXQ_RDLEN:
			if (ring->enabled && value != reg_get(nic, reg)) {
				model_violation(nic->name, "%s changed while RX queue %u is enabled", rname(reg, name),
						q);
			}
			*reg_ptr(nic, reg) = value;
			return;
		case RXQ_RDH:
			if (ring->enabled) {
				if (value >= ring->size) {
					model_violation(nic->name, "RDH(%u) = %u is outside the ring of %u", q, value,
							ring->size);
					return;
				}
				// the device forgets what it fetched and starts over at the new head
				memset(ring->owned_set, 0, (ring->set_mask + 1) * sizeof(uintptr_t));
				ring->head = value;
				rx_fetch(nic, q, ring->head, ring->tail);
			} else {
				ring->head = value;
			}
			return;
		case RXQ_RDT: {
			if (!ring->enabled) {
				if (value != ring->head) {
					model_violation(nic->name,
							"RDT(%u) bumped to %u before the queue is enabled: enable "
							"RXDCTL first, then bump the tail (4.6.7.1)",
							q, value);
				}
				ring->tail = value;
				return;
			}
			if (value >= ring->size) {
				model_violation(nic->name, "RDT(%u) = %u is beyond the ring of %u descriptors", q,
						value, ring->size);
				return;
			}
			uint32_t owned = ring_distance(ring->head, ring->tail, ring->size);
			uint32_t added = ring_distance(ring->tail, value, ring->size);
			if (owned + added >= ring->size) {
				model_violation(nic->name,
						"RDT(%u) moved from %u to %u, past RDH %u: descriptors the device "
						"still owns would be taken back (7.1.9)",
						q, ring->tail, value, ring->head);
				return;
			}
			uint32_t old_tail = ring->tail;
			ring->tail = value;
			rx_fetch(nic, q, old_tail, value);
			return;
		}
		case RXQ_RXDCTL: {
			*reg_ptr(nic, reg) = value & ~RXDCTL_ENABLE;
			bool enable = value & RXDCTL_ENABLE;
			if (enable && !ring->enabled) {
				rx_enable(nic, q); // stays disabled (reads 0) if the ring is not set up
			} else if (!enable && ring->enabled) {
				rx_disable(nic, q);
			}
			return;
		}
		case RXQ_SRRCTL:
			if (ring->enabled && value != reg_get(nic, reg)) {
				model_violation(nic->name, "SRRCTL(%u) changed while the queue is enabled", q);
			}
			*reg_ptr(nic, reg) = value;
			return;
		default:
			*reg_ptr(nic, reg) = value;
			return;
	}
}

// ---- transmit queue registers (4.6.8, 8.2.3.9) ----

static bool tx_enable(struct model_ixgbe* nic, uint32_t q) {
	struct tx_ring* ring = &nic->tx[q];
	uintptr_t base = tx_ring_base(nic, q);
	uint32_t len = reg_get(nic, REG_TXQ(q, TXQ_TDLEN));
	if (!ring_ok(nic, "TX", q, base, len)) {
		return false;
	}
	uint32_t size = len / DESC_SIZE;
	if (ring->head >= size || ring->tail >= size) {
		model_violation(nic->name,
				"TX queue %u enabled with TDH %u / TDT %u outside the ring of %u descriptors", q,
				ring->head, ring->tail, size);
		return false;
	}
	if (!(reg_get(nic, REG_DMATXCTL) & DMATXCTL_TE)) {
		model_violation(nic->name,
				"TX queue %u enabled before DMATXCTL.TE: enable the transmit path first (4.6.8)", q);
	}
	ring->base = base;
	ring->size = size;
	make_lockable(nic, q);
	ring->enabled = true;
	tx_process(nic, q);
	return true;
}

static void tx_queue_write(struct model_ixgbe* nic, uint32_t reg, uint32_t q, uint32_t field, uint32_t value) {
	struct tx_ring* ring = &nic->tx[q];
	char name[24];
	if (!dma_init_done(nic)) {
		model_violation(nic->name, "%s written before RDRXCTL.DMAIDONE was set (4.6.3: wait for DMA init)",
				rname(reg, name));
	}
	switch (field) {
		case TXQ_TDBAL:
		case TXQ_TDBAH:
		case TXQ_TDLEN:
			if (ring->enabled && value != reg_get(nic, reg)) {
				model_violation(nic->name, "%s changed while TX queue %u is enabled", rname(reg, name),
						q);
			}
			*reg_ptr(nic, reg) = value;
			return;
		case TXQ_TDH:
			if (ring->enabled && value >= ring->size) {
				model_violation(nic->name, "TDH(%u) = %u is outside the ring of %u", q, value,
						ring->size);
				return;
			}
			ring->head = value;
			return;
		case TXQ_TDT: {
			if (!ring->enabled) {
				if (value != ring->head) {
					model_violation(nic->name,
							"TDT(%u) bumped to %u before the queue is enabled (4.6.8: the "
							"tail must not be bumped until the queue is enabled)",
							q, value);
				}
				ring->tail = value;
				return;
			}
			if (value >= ring->size) {
				model_violation(nic->name, "TDT(%u) = %u is beyond the ring of %u descriptors", q,
						value, ring->size);
				return;
			}
			uint32_t pending = ring_distance(ring->head, ring->tail, ring->size);
			uint32_t added = ring_distance(ring->tail, value, ring->size);
			if (pending + added >= ring->size) {
				model_violation(nic->name,
						"TDT(%u) moved from %u to %u, past TDH %u: the ring was overfilled "
						"(7.2.3.3)",
						q, ring->tail, value, ring->head);
				return;
			}
			ring->tail = value;
			tx_process(nic, q);
			return;
		}
		case TXQ_TXDCTL: {
			*reg_ptr(nic, reg) = value & ~TXDCTL_ENABLE;
			bool enable = value & TXDCTL_ENABLE;
			if (enable && !ring->enabled) {
				tx_enable(nic, q);
			} else if (!enable && ring->enabled) {
				ring->enabled = false;
			}
			return;
		}
		default:
			*reg_ptr(nic, reg) = value;
			return;
	}
}

// ---- other registers ----

// RXCTRL.RXEN 0 -> 1: the receive path may only be enabled once it is configured (4.6.7).
static void check_rx_enable(struct model_ixgbe* nic) {
	uint32_t rdrxctl = reg_get(nic, REG_RDRXCTL);
	if (rdrxctl & RDRXCTL_RSCFRSTSIZE) {
		model_violation(nic->name,
				"RXCTRL.RXEN set while RDRXCTL.RSCFRSTSIZE (bits 21:17) is 0x%x: software must "
				"clear it (8.2.3.8)",
				(rdrxctl & RDRXCTL_RSCFRSTSIZE) >> 17);
	}
	if (!(rdrxctl & RDRXCTL_RSCACKC) || !(rdrxctl & RDRXCTL_FCOE_WRFIX)) {
		model_violation(nic->name,
				"RXCTRL.RXEN set while RDRXCTL.RSCACKC (bit 25) or FCOE_WRFIX (bit 26) is 0: "
				"software must set both (8.2.3.8)");
	}
	bool hl_strip = reg_get(nic, REG_HLREG0) & HLREG0_RXCRCSTRP;
	bool dma_strip = rdrxctl & RDRXCTL_CRCSTRIP;
	if (hl_strip != dma_strip) {
		model_violation(nic->name,
				"RXCTRL.RXEN set with HLREG0.RXCRCSTRP %d but RDRXCTL.CRCSTRIP %d: both must be "
				"set the same (8.2.3.8)",
				hl_strip, dma_strip);
	}
	if (!(reg_get(nic, REG_SECRXCTRL) & SECRXCTRL_RX_DIS)) {
		model_violation(nic->name,
				"RXCTRL.RXEN set without halting the receive data path first: set "
				"SECRXCTRL.RX_DIS, wait for SECRXSTAT.SECRX_RDY, set RXEN, clear RX_DIS (4.6.7; "
				"specification update: RX DMA may hang otherwise)");
	}
}

static void write_register(struct model_ixgbe* nic, uint32_t reg, uint32_t value) {
	catch_up(nic);
	reg = canonical(reg);
	log_access(nic, MODEL_WRITE, reg, value);
	char name[24];
	if (nic->reset_pending && reg != REG_CTRL) {
		model_violation(nic->name,
				"%s written while the device is still in reset: wait until CTRL.RST clears "
				"(4.6.3.2)",
				rname(reg, name));
		return;
	}
	uint32_t queue, field;
	if (rx_queue_reg(reg, &queue, &field)) {
		rx_queue_write(nic, reg, queue, field, value);
		return;
	}
	if (tx_queue_reg(reg, &queue, &field)) {
		tx_queue_write(nic, reg, queue, field, value);
		return;
	}
	if (clear_on_read(reg) || reg == REG_GORCL || reg == REG_GORCH || reg == REG_GOTCL || reg == REG_GOTCH ||
	    reg == REG_TORL || reg == REG_TORH) {
		return; // statistics are read-only
	}
	switch (reg) {
		case REG_CTRL:
			if (value & CTRL_RST) {
				device_reset(nic); // CTRL reads back RST until the reset is done
			}
			*reg_ptr(nic, reg) = value & ~(CTRL_RST | CTRL_LRST);
			if ((value & CTRL_LRST) && !(value & CTRL_RST)) {
				// link reset: the link goes down and negotiates again
				nic->link_up = false;
				nic->link_up_at =
				    nic->link_mode == MODEL_LINK_NEVER ? NEVER : model_now_us() + nic->link_delay_us;
			}
			return;
		case REG_STATUS:
		case REG_LINKS:
		case REG_SECRXSTAT:
			return; // read-only
		case REG_EEC:
			*reg_ptr(nic, reg) = value & ~(EEC_PRES | EEC_ARD);
			return;
		case REG_RDRXCTL:
			*reg_ptr(nic, reg) = value & ~RDRXCTL_DMAIDONE;
			return;
		case REG_EICR:
			*reg_ptr(nic, reg) &= ~value; // write 1 to clear
			return;
		case REG_EICS:
			*reg_ptr(nic, REG_EICR) |= value;
			send_due_messages(nic);
			return;
		case REG_EIMS: // enabling a vector whose cause is latched sends its message (7.3.1)
			*reg_ptr(nic, REG_EIMS) |= value;
			nic->msix_enabled |= value & 0xFFFFu;
			send_due_messages(nic);
			return;
		case REG_EIMS_EX(0):
		case REG_EIMS_EX(1):
			nic->msix_enabled |= (uint64_t)value << (reg == REG_EIMS_EX(1) ? 32 : 0);
			send_due_messages(nic);
			return;
		case REG_EIMC_EX(0):
		case REG_EIMC_EX(1):
			nic->msix_enabled &= ~((uint64_t)value << (reg == REG_EIMC_EX(1) ? 32 : 0));
			return;
		case REG_EIMC:
			if (value & (1u << 31)) {
				model_violation(nic->name,
						"EIMC written with reserved bit 31 set (0x%08x): write 0x7FFFFFFF to "
						"mask all interrupts (8.2.3.5)",
						value);
			}
			*reg_ptr(nic, REG_EIMS) &= ~(value & 0x7FFFFFFFu);
			nic->msix_enabled &= ~(uint64_t)(value & 0xFFFFu);
			return;
		case REG_DTXMXSZRQ:
			if (value & ~0xFFFu) {
				model_violation(nic->name,
						"DTXMXSZRQ written with reserved bits set (0x%08x): only bits 11:0 "
						"(Max_Bytes_Num_Req) may be non-zero, e.g. 0xFFF (8.2.3.9)",
						value);
			}
			*reg_ptr(nic, reg) = value;
			return;
		case REG_FCTRL:
			if ((reg_get(nic, REG_RXCTRL) & RXCTRL_RXEN) && value != reg_get(nic, reg)) {
				model_violation(nic->name,
						"FCTRL changed from 0x%08x to 0x%08x while RXCTRL.RXEN is 1: clear "
						"RXEN before changing the receive filters (8.2.3.7.1)",
						reg_get(nic, reg), value);
			}
			*reg_ptr(nic, reg) = value;
			return;
		case REG_RXCTRL:
			if ((value & RXCTRL_RXEN) && !(reg_get(nic, reg) & RXCTRL_RXEN)) {
				check_rx_enable(nic);
			}
			if (!dma_init_done(nic)) {
				model_violation(nic->name, "RXCTRL written before RDRXCTL.DMAIDONE was set (4.6.3)");
			}
			*reg_ptr(nic, reg) = value;
			return;
		case REG_DMATXCTL:
			if (!dma_init_done(nic)) {
				model_violation(nic->name, "DMATXCTL written before RDRXCTL.DMAIDONE was set (4.6.3)");
			}
			*reg_ptr(nic, reg) = value;
			if (value & DMATXCTL_TE) {
				tx_process_all(nic);
			}
			return;
		case REG_AUTOC:
			if (!eeprom_done(nic)) {
				model_violation(nic->name,
						"AUTOC written before EEC.ARD was set: the EEPROM auto-read would "
						"overwrite it (4.6.3)");
			}
			*reg_ptr(nic, reg) = value & ~AUTOC_RESTART_AN; // Restart_AN is self-clearing
			if (value & AUTOC_RESTART_AN) {
				nic->link_up = false;
				nic->link_up_at =
				    nic->link_mode == MODEL_LINK_NEVER ? NEVER : model_now_us() + nic->link_delay_us;
			}
			return;
		default:
			*reg_ptr(nic, reg) = value;
			if (reg >= REG_RAL(0) && reg <= REG_RAH(NUM_RAR - 1)) {
				rebuild_rar_cache(nic);
			}
			return;
	}
}

static void ixgbe_write32(void* model, uint32_t reg, uint32_t value) {
	struct model_ixgbe* nic = enter(model);
	write_register(nic, reg, value);
	leave(nic);
}

void model_ixgbe_write(struct model_ixgbe* nic, uint32_t reg, uint32_t value) {
	ixgbe_write32(nic, reg, value);
}

// ---- transmit engine (7.2) ----

static bool transmitting(const struct model_ixgbe* nic) {
	return nic->link_up && !nic->tx_paused && !nic->reset_pending && bus_master(nic) &&
	       (reg_get(nic, REG_DMATXCTL) & DMATXCTL_TE);
}

static void record_frame(struct model_ixgbe* nic, uint16_t queue, const uint8_t* frame, uint32_t len) {
	if (nic->tx_bytes_used + len > nic->tx_bytes_capacity) {
		size_t capacity = nic->tx_bytes_capacity ? nic->tx_bytes_capacity * 2 : 1u << 20;
		while (capacity < nic->tx_bytes_used + len) {
			capacity *= 2;
		}
		uint8_t* bytes = realloc(nic->tx_bytes, capacity);
		if (!bytes) {
			model_usage_error("out of memory for recorded TX frames");
		}
		nic->tx_bytes = bytes;
		nic->tx_bytes_capacity = capacity;
	}
	if (nic->num_tx_records == nic->tx_records_capacity) {
		uint32_t capacity = nic->tx_records_capacity ? nic->tx_records_capacity * 2 : 4096;
		struct tx_record* records = realloc(nic->tx_records, capacity * sizeof(*records));
		if (!records) {
			model_usage_error("out of memory for recorded TX frames");
		}
		nic->tx_records = records;
		nic->tx_records_capacity = capacity;
	}
	memcpy(nic->tx_bytes + nic->tx_bytes_used, frame, len);
	nic->tx_records[nic->num_tx_records++] =
	    (struct tx_record){.offset = nic->tx_bytes_used, .len = len, .queue = queue};
	nic->tx_bytes_used += len;
}

static void count_tx(struct model_ixgbe* nic, uint32_t q, const uint8_t* frame, uint32_t len) {
	struct queue_counts* c = &nic->queues[q].counts;
	uint32_t wire_len = len;
	if (wire_len < ETHER_MIN_LEN && (reg_get(nic, REG_HLREG0) & HLREG0_TXPADEN)) {
		wire_len = ETHER_MIN_LEN;
	}
	wire_len += ETHER_CRC_LEN;
	c->gptc++;
	c->tpt++;
	c->gotc += wire_len;
	if (frame && (frame[0] & 1)) {
		bool broadcast = memcmp(frame, "\xff\xff\xff\xff\xff\xff", 6) == 0;
		(*(broadcast ? &c->bptc : &c->mptc))++;
	}
	c->counters.tx_frames++;
	c->counters.tx_octets += wire_len;
}

// Reads descriptor `index` of a TX ring; false (with a violation) if the ring memory is gone.
static bool tx_read_descriptor(struct model_ixgbe* nic, uint32_t q, uint32_t index, uint64_t* addr, uint32_t* cmd,
			       uint32_t* olinfo) {
	uintptr_t desc = nic->tx[q].base + (uintptr_t)index * DESC_SIZE;
	if (!model_dma_ok(desc, DESC_SIZE)) {
		model_violation(nic->name,
				"TX queue %u: descriptor %u at 0x%lx is not in live DMA memory; queue stopped", q,
				index, (unsigned long)desc);
		nic->tx[q].enabled = false;
		return false;
	}
	uint32_t words[4];
	memcpy(words, seam_dma_virt(desc), sizeof(words));
	nic->queues[q].counts.counters.dma_reads++;
	*addr = (uint64_t)words[1] << 32 | words[0];
	*cmd = words[2];
	*olinfo = words[3];
	return true;
}

// Sends one packet starting at TDH whose last descriptor is `last`; checks every descriptor field (7.2.3.2.4).
static void tx_send_packet(struct model_ixgbe* nic, uint32_t q, uint32_t last) {
	struct tx_ring* ring = &nic->tx[q];
	bool copy = nic->record_tx || nic->tx_hook;
	bool head_writeback = reg_get(nic, REG_TXQ(q, TXQ_TDWBAL)) & TDWBAL_HEAD_WB_ENABLE;
	uint32_t frame_len = 0;
	uint32_t paylen = 0;
	const uint8_t* first_bytes = NULL; // start of the frame in host memory, for the statistics
	bool first = true;
	bool frame_ok = true;
	for (;;) {
		uint32_t index = ring->head;
		uint64_t addr;
		uint32_t cmd, olinfo;
		if (!tx_read_descriptor(nic, q, index, &addr, &cmd, &olinfo)) {
			return;
		}
		uint32_t dtyp = cmd & TXD_DTYP_MASK;
		if (!(cmd & TXD_CMD_DEXT)) {
			model_violation(nic->name,
					"TX queue %u descriptor %u: DEXT clear (legacy descriptor); use advanced "
					"data descriptors with DEXT and DTYP=0011b (7.2.3.2.4)",
					q, index);
			frame_ok = false;
		} else if (dtyp == TXD_DTYP_CONTEXT && first) {
			model_violation(nic->name,
					"TX queue %u descriptor %u: context descriptors (offloads) are not "
					"modelled",
					q, index);
			frame_ok = false;
		} else if (dtyp != TXD_DTYP_DATA) {
			model_violation(nic->name,
					"TX queue %u descriptor %u: DTYP %u, a data descriptor needs 0011b "
					"(7.2.3.2.4)",
					q, index, dtyp >> TXD_DTYP_SHIFT);
			frame_ok = false;
		} else {
			uint32_t len = cmd & TXD_DTALEN_MASK;
			if (first) {
				paylen = olinfo >> TXD_PAYLEN_SHIFT;
				if (!(cmd & TXD_CMD_IFCS)) {
					model_violation(nic->name,
							"TX queue %u descriptor %u: IFCS clear, the frame would leave "
							"without a CRC (7.2.3.2.4)",
							q, index);
				}
				if (cmd & TXD_CMD_TSE) {
					model_violation(nic->name,
							"TX queue %u descriptor %u: TSE set without a context "
							"descriptor (7.2.3.2.4)",
							q, index);
					frame_ok = false;
				}
			}
			if (len == 0) {
				model_violation(nic->name, "TX queue %u descriptor %u: data length 0 (7.2.3.2.4)", q,
						index);
				frame_ok = false;
			} else if (frame_len + len > MAX_FRAME) {
				model_violation(nic->name, "TX queue %u: frame longer than %u bytes", q, MAX_FRAME);
				frame_ok = false;
			} else if (!model_dma_ok((uintptr_t)addr, len)) {
				model_violation(nic->name,
						"TX queue %u descriptor %u: buffer [0x%llx, +%u) is not in live DMA "
						"memory",
						q, index, (unsigned long long)addr, len);
				frame_ok = false;
			} else {
				if (copy) {
					memcpy(nic->frame + frame_len, seam_dma_virt((uintptr_t)addr), len);
				}
				if (frame_len == 0 && len >= 6) {
					first_bytes = seam_dma_virt((uintptr_t)addr);
				}
				if (frame_len == 0) {
					// the packet's first buffer: a received frame's wait ends
					model_stamp_sent(addr);
				}
				nic->queues[q].counts.counters.dma_reads++;
				frame_len += len;
			}
		}
		first = false;
		// write back (7.2.3.5): DD in the descriptors with RS, unless the head is written back instead
		if ((cmd & TXD_CMD_RS) && !head_writeback) {
			// The status dword last, with release, as the driver reads it with acquire (ThreadSanitizer
			// sees the order then: the model's thread is the NIC's DMA, the driver's thread polls DD).
			uint32_t* done = seam_dma_virt(ring->base + (uintptr_t)index * DESC_SIZE);
			memset(done, 0, 3 * sizeof(uint32_t));
			__atomic_store_n(&done[3], TXD_STA_DD, __ATOMIC_RELEASE);
			nic->queues[q].counts.counters.dma_writes++;
		}
		ring->head = (ring->head + 1) % ring->size;
		if (index == last) {
			break;
		}
	}
	if (head_writeback) {
		uintptr_t where = (uintptr_t)((uint64_t)reg_get(nic, REG_TXQ(q, TXQ_TDWBAH)) << 32 |
					      (reg_get(nic, REG_TXQ(q, TXQ_TDWBAL)) & ~3u));
		if (!model_dma_ok(where, 4)) {
			model_violation(nic->name, "TX queue %u: head write-back address 0x%lx not in live DMA memory",
					q, (unsigned long)where);
		} else {
			memcpy(seam_dma_virt(where), &ring->head, 4);
			nic->queues[q].counts.counters.dma_writes++;
		}
	}
	if (!frame_ok) {
		return;
	}
	if (paylen != frame_len) {
		model_violation(nic->name,
				"TX queue %u: PAYLEN %u but the packet's descriptors hold %u bytes: without TSO "
				"PAYLEN is the whole packet length (7.2.3.2.4)",
				q, paylen, frame_len);
	}
	if (frame_len < ETHER_MIN_LEN && !(reg_get(nic, REG_HLREG0) & HLREG0_TXPADEN)) {
		model_violation(nic->name,
				"TX queue %u: %u byte frame sent with HLREG0.TXPADEN clear: a runt on the wire", q,
				frame_len);
	}
	count_tx(nic, q, copy ? nic->frame : first_bytes, frame_len);
	if (nic->record_tx) {
		record_frame(nic, (uint16_t)q, nic->frame, frame_len);
	}
	if (nic->tx_hook) {
		nic->tx_hook(nic->tx_hook_context, nic, (uint16_t)q, nic->frame, frame_len);
	}
}

// Sends what the driver queued between TDH and TDT, packet by packet (a packet ends at a descriptor with EOP).
static void tx_process(struct model_ixgbe* nic, uint32_t q) {
	struct tx_ring* ring = &nic->tx[q];
	while (ring->enabled && transmitting(nic) && ring->head != ring->tail) {
		// find the end of the packet at the head
		uint32_t last = ring->head;
		for (;;) {
			uint64_t addr;
			uint32_t cmd, olinfo;
			if (!tx_read_descriptor(nic, q, last, &addr, &cmd, &olinfo)) {
				return;
			}
			if (cmd & TXD_CMD_EOP) {
				break;
			}
			last = (last + 1) % ring->size;
			if (last == ring->tail) {
				model_violation(
				    nic->name,
				    "TX queue %u: TDT %u points into the middle of a packet (no EOP "
				    "before it): the tail must point past a packet's last descriptor (7.2.3.3)",
				    q, ring->tail);
				return;
			}
		}
		tx_send_packet(nic, q, last);
	}
}

// ---- receive engine (7.1) ----

static bool receiving(const struct model_ixgbe* nic) {
	return nic->link_up && !nic->reset_pending && (reg_get(nic, REG_RXCTRL) & RXCTRL_RXEN);
}

// L2 filtering (7.1.1): broadcast with FCTRL.BAM, multicast with FCTRL.MPE (the MTA is not modelled),
// unicast with FCTRL.UPE or a receive address register holding the destination.
static bool l2_accept(const struct model_ixgbe* nic, const uint8_t* frame) {
	uint32_t fctrl = reg_get(nic, REG_FCTRL);
	if (frame[0] & 1) {
		bool broadcast = memcmp(frame, "\xff\xff\xff\xff\xff\xff", 6) == 0;
		return broadcast ? (fctrl & FCTRL_BAM) != 0 : (fctrl & FCTRL_MPE) != 0;
	}
	if (fctrl & FCTRL_UPE) {
		return true;
	}
	for (uint32_t i = 0; i < nic->num_rar_macs; i++) {
		if (memcmp(frame, nic->rar_macs[i], 6) == 0) {
			return true;
		}
	}
	return false;
}

static uint32_t ethernet_crc(const uint8_t* data, uint32_t len) {
	uint32_t crc = 0xFFFFFFFFu;
	for (uint32_t i = 0; i < len; i++) {
		crc ^= data[i];
		for (int bit = 0; bit < 8; bit++) {
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
		}
	}
	return ~crc;
}

static uint32_t packet_type(const uint8_t* frame, uint32_t len) {
	uint32_t ethertype = (uint32_t)frame[12] << 8 | frame[13];
	uint32_t type = 0;
	uint8_t protocol = 0;
	if (ethertype == 0x0800 && len >= 34) {
		type = RXD_PKTTYPE_IPV4;
		protocol = frame[23];
	} else if (ethertype == 0x86DD && len >= 54) {
		type = RXD_PKTTYPE_IPV6;
		protocol = frame[20];
	}
	if (type && protocol == 17) {
		type |= RXD_PKTTYPE_UDP;
	} else if (type && protocol == 6) {
		type |= RXD_PKTTYPE_TCP;
	}
	return type;
}

// The statistics counter a queue's per-queue statistics go to (RQSMR, 8.2.3.8).
static uint32_t queue_stat_index(const struct model_ixgbe* nic, uint32_t q) {
	return (reg_get(nic, REG_RQSMR(q / 4)) >> (8 * (q % 4))) & 0xF;
}

static void count_rx_good(struct model_ixgbe* nic, uint32_t q, const uint8_t* frame, uint32_t len) {
	struct queue_counts* c = &nic->queues[q].counts;
	uint32_t octets = len + ETHER_CRC_LEN;
	c->gprc++;
	c->tpr++;
	c->gorc += octets;
	c->tor += octets;
	if (frame[0] & 1) {
		bool broadcast = memcmp(frame, "\xff\xff\xff\xff\xff\xff", 6) == 0;
		(*(broadcast ? &c->bprc : &c->mprc))++;
	}
	c->counters.rx_good++;
	c->counters.rx_good_octets += octets;
}

// The last step of 4.6.7 before frames flow: CTRL_EXT.NS_DIS set, DCA_RXCTRL[n] bit 12 cleared.
static void check_first_delivery(struct model_ixgbe* nic, uint32_t q) {
	if (!(reg_get(nic, REG_CTRL_EXT) & CTRL_EXT_NS_DIS)) {
		model_violation(nic->name,
				"RX queue %u receives with CTRL_EXT.NS_DIS (bit 16) clear: software must set it "
				"(4.6.7, last step)",
				q);
	}
	if (reg_get(nic, REG_RXQ(q, RXQ_DCA_RXCTRL)) & DCA_RXCTRL_BIT12) {
		model_violation(nic->name,
				"RX queue %u receives with DCA_RXCTRL(%u) bit 12 set: software must clear it "
				"(4.6.7, last step)",
				q, q);
	}
}

// Writes a frame into the buffers of the descriptors at RDH, then writes the descriptors back (7.1.6.2).
// ---- MSI-X interrupts of received packets (7.3) ----
// A packet written back to RX queue q raises the queue's cause, which IVAR maps to an MSI-X vector (7.3.4). The cause
// is latched whether or not the vector is enabled: in EICR bits 15:0 for vectors 0-15 (7.3.1.4), for vectors 16-63
// in causes_ex. A vector sends its message while it is enabled (EIMS/EIMS_EX) and a cause of it is latched: when the
// cause comes, when software enables the vector (a cause that came while it was masked interrupts at once), or when
// its EITR interval ends. The message clears the cause where EIAC says so (vectors 0-15; vectors 16-63 always, they
// have no EICR bit to keep it in), and masks the vector where GPIE.EIAME and its EIAM_EX bit say so (7.3.1.3).
// Moderation (7.3.2.1, EITR): after a message, the vector sends no other for ITR_Interval; a cause that comes
// meanwhile waits for the interval's end (the model sends it at the first register access or frame after that end).
// An interval that ended while no cause came lets the next cause interrupt at once.
static bool cause_latched(const struct model_ixgbe* nic, uint32_t vector) {
	return vector < 16 ? reg_get(nic, REG_EICR) >> vector & 1 : nic->causes_ex >> vector & 1;
}

static void set_cause(struct model_ixgbe* nic, uint32_t vector, bool latched) {
	uint32_t* eicr = reg_ptr(nic, REG_EICR);
	if (vector < 16) {
		*eicr = latched ? *eicr | 1u << vector : *eicr & ~(1u << vector);
	} else {
		nic->causes_ex = latched ? nic->causes_ex | 1ull << vector : nic->causes_ex & ~(1ull << vector);
	}
}

static void send_message(struct model_ixgbe* nic, uint32_t vector) {
	uint32_t gpie = reg_get(nic, REG_GPIE);
	if (!(gpie & GPIE_MULTIPLE_MSIX)) {
		model_violation(nic->name,
				"vector %u is enabled with a receive cause latched, but GPIE.Multiple_MSIX is 0: set "
				"MSI-X mode before enabling queue interrupts (7.3.1, 8.2.3.5.18)",
				vector);
		nic->msix_enabled &= ~(1ull << vector);
		return;
	}
	nic->counters.msix_messages++;
	model_pci_raise_msix(nic->pci, vector);
	nic->itr_ends_us[vector] = model_now_us() + 2 * ((reg_get(nic, REG_EITR(vector)) & EITR_INTERVAL_MASK) >> 3);
	if (vector >= 16 || (reg_get(nic, REG_EIAC) >> vector & 1)) {
		set_cause(nic, vector, false);
	}
	if ((gpie & GPIE_EIAME) && (reg_get(nic, REG_EIAM_EX(vector / 32)) >> (vector % 32) & 1)) {
		nic->msix_enabled &= ~(1ull << vector);
	}
}

// Sends the message of every enabled vector with a latched cause whose EITR interval has ended.
static void send_due_messages(struct model_ixgbe* nic) {
	uint64_t now = model_now_us();
	for (uint32_t v = 0; v < MODEL_IXGBE_VECTORS && nic->msix_enabled >> v != 0; v++) {
		if ((nic->msix_enabled >> v & 1) && cause_latched(nic, v) && now >= nic->itr_ends_us[v]) {
			send_message(nic, v);
		}
	}
}

// The IVAR entry of RX queue q's cause (7.3.4).
static uint32_t rx_ivar_entry(const struct model_ixgbe* nic, uint32_t q) {
	return reg_get(nic, REG_IVAR(q / 2)) >> (q % 2 * 16) & 0xFFu;
}

static void rx_interrupt(struct model_ixgbe* nic, uint32_t q) {
	uint32_t entry = rx_ivar_entry(nic, q);
	if (entry & IVAR_VALID) {
		set_cause(nic, entry & 0x3Fu, true);
		send_due_messages(nic);
	}
}

static enum model_rx_result rx_deliver(struct model_ixgbe* nic, uint32_t q, const uint8_t* frame, uint32_t len) {
	struct rx_ring* ring = &nic->rx[q];
	if (!ring->delivered) {
		check_first_delivery(nic, q);
		ring->delivered = true;
	}
	bool strip = reg_get(nic, REG_HLREG0) & HLREG0_RXCRCSTRP;
	uint32_t total = strip ? len : len + ETHER_CRC_LEN;
	uint8_t crc[ETHER_CRC_LEN] = {0};
	if (!strip) {
		uint32_t value = ethernet_crc(frame, len);
		memcpy(crc, &value, sizeof(crc)); // transmitted least significant byte first
	}
	uint32_t needed = (total + ring->buffer_size - 1) / ring->buffer_size;
	if (ring_distance(ring->head, ring->tail, ring->size) < needed) {
		if (reg_get(nic, REG_RXQ(q, RXQ_SRRCTL)) & SRRCTL_DROP_EN) {
			count_rx_good(nic, q, frame, len);
			(*reg_ptr(nic, REG_QPRDC(queue_stat_index(nic, q))))++;
			nic->counters.rx_queue_dropped++;
		} else {
			(*reg_ptr(nic, REG_MPC(0)))++;
			nic->counters.rx_missed++;
		}
		return MODEL_RX_NO_DESCRIPTOR;
	}
	count_rx_good(nic, q, frame, len);
	model_stamp_received(ring->fetched[ring->head]); // the frame's first buffer, written back below
	uint32_t written = 0;
	uint32_t pkt_info = packet_type(frame, len);
	while (written < total) {
		uint32_t index = ring->head;
		uintptr_t desc = ring->base + (uintptr_t)index * DESC_SIZE;
		uintptr_t buffer = ring->fetched[index];
		uint32_t chunk = total - written < ring->buffer_size ? total - written : ring->buffer_size;
		if (!model_dma_ok(desc, DESC_SIZE)) {
			model_violation(nic->name,
					"RX queue %u: descriptor %u at 0x%lx is not in live DMA memory; queue "
					"stopped",
					q, index, (unsigned long)desc);
			rx_disable(nic, q);
			return MODEL_RX_BAD_FRAME;
		}
		uint64_t now_in_ring;
		memcpy(&now_in_ring, seam_dma_virt(desc), sizeof(now_in_ring));
		if (now_in_ring != buffer) {
			model_violation(nic->name,
					"RX queue %u: descriptor %u was changed (buffer 0x%lx -> 0x%llx) while the "
					"device owned it (7.1.9)",
					q, index, (unsigned long)buffer, (unsigned long long)now_in_ring);
		}
		if (buffer == 0 || !model_dma_ok(buffer, chunk)) {
			model_violation(nic->name,
					"RX queue %u: frame of %u bytes would be written to 0x%lx, not live DMA "
					"memory; queue stopped",
					q, chunk, (unsigned long)buffer);
			rx_disable(nic, q);
			return MODEL_RX_BAD_FRAME;
		}
		// frame bytes, then (without CRC stripping) the CRC
		uint32_t from_frame = 0;
		if (written < len) {
			from_frame = len - written < chunk ? len - written : chunk;
			memcpy(seam_dma_virt(buffer), frame + written, from_frame);
		}
		for (uint32_t i = from_frame; i < chunk; i++) {
			((uint8_t*)seam_dma_virt(buffer))[i] = crc[written + i - len];
		}
		written += chunk;
		uint32_t status = RXD_STAT_DD | (written == total ? RXD_STAT_EOP : 0);
		// PKT_LEN is the number of bytes in this descriptor's buffer; VLAN tag 0
		uint32_t wb[2] = {pkt_info, 0};
		uint32_t* words = seam_dma_virt(desc);
		memcpy(words, wb, sizeof(wb));
		words[3] = chunk;
		__atomic_store_n(&words[2], status, __ATOMIC_RELEASE); // the status last (see the TX write-back)
		nic->queues[q].counts.counters.dma_writes += 2;
		owned_remove(ring, buffer);
		ring->head = (ring->head + 1) % ring->size;
	}
	nic->queues[q].counts.counters.rx_delivered++;
	nic->queues[q].counts.counters.rx_delivered_bytes += len;
	rx_interrupt(nic, q);
	return MODEL_RX_DELIVERED;
}

// The longest frame the MAC takes now, with CRC (MAXFRS with jumbo frames, else 1518 bytes).
static uint32_t max_frame(const struct model_ixgbe* nic) {
	bool jumbo = reg_get(nic, REG_HLREG0) & HLREG0_JUMBOEN;
	return jumbo ? reg_get(nic, REG_MAXFRS) >> MAXFRS_MFS_SHIFT : STANDARD_MAX_FRAME;
}

static enum model_rx_result inject(struct model_ixgbe* nic, uint16_t queue, const void* frame, uint32_t len) {
	if (queue >= MODEL_IXGBE_QUEUES || !frame || len < ETHER_MIN_LEN || len > MAX_FRAME - ETHER_CRC_LEN) {
		model_usage_error("model_ixgbe_inject_rx: queue %u, %u bytes (frames are 60..%u bytes without CRC)",
				  queue, len, MAX_FRAME - ETHER_CRC_LEN);
	}
	catch_up(nic);
	if (!receiving(nic) || !nic->rx[queue].enabled || !bus_master(nic)) {
		nic->counters.rx_off++;
		return MODEL_RX_OFF;
	}
	if (len + ETHER_CRC_LEN > max_frame(nic)) {
		(*reg_ptr(nic, REG_ROC))++;
		return MODEL_RX_BAD_FRAME;
	}
	if (!l2_accept(nic, frame)) {
		nic->counters.rx_filtered++;
		return MODEL_RX_FILTERED;
	}
	return rx_deliver(nic, queue, frame, len);
}

enum model_rx_result model_ixgbe_inject_rx(struct model_ixgbe* nic, uint16_t queue, const void* frame, uint32_t len) {
	enter(nic);
	enum model_rx_result result = inject(nic, queue, frame, len);
	leave(nic);
	return result;
}

// ---- receive side scaling (7.1.2.8) ----
// The model's own Toeplitz hash, written apart from ixy's (src/rss.c) so that a mistake in one shows against the
// other: for each set input bit j (j = 0 the most significant bit of the first byte), the 32 key bits j..j+31 are
// read out of the key directly and XORed into the result (7.1.2.8.1).

// Key byte i as RSSRK holds it.
static uint8_t rss_key_byte(const struct model_ixgbe* nic, uint32_t i) {
	return i < RSS_KEY_BYTES ? (uint8_t)(reg_get(nic, REG_RSSRK(i / 4)) >> (8 * (i % 4))) : 0;
}

// The 32 key bits that start at bit `first` (bit 0: the most significant bit of key byte 0); 0 beyond the key.
static uint32_t rss_key_window(const struct model_ixgbe* nic, uint32_t first) {
	uint64_t bits = 0; // 40 bits: the 5 key bytes that hold the window
	for (uint32_t i = 0; i < 5; i++) {
		bits = bits << 8 | rss_key_byte(nic, first / 8 + i);
	}
	return (uint32_t)(bits >> (8 - first % 8));
}

static uint32_t rss_toeplitz(const struct model_ixgbe* nic, const uint8_t* input, uint32_t len) {
	uint32_t hash = 0;
	for (uint32_t j = 0; j < 8 * len; j++) {
		if (input[j / 8] & (0x80u >> (j % 8))) {
			hash ^= rss_key_window(nic, j);
		}
	}
	return hash;
}

// The hash input of a frame as MRQC's field enables select it (7.1.2.8.1): for an IPv4 TCP or UDP packet that is not
// a fragment and whose type is enabled, source and destination address and port (12 bytes); else, with IPv4 enabled,
// the two addresses (8 bytes); else none (0). The IP header's length (IHL) skips its options. Untagged frames only.
static uint32_t rss_input(const struct model_ixgbe* nic, const uint8_t* frame, uint32_t len, uint8_t input[12]) {
	uint32_t mrqc = reg_get(nic, REG_MRQC);
	if (len < 34 || frame[12] != 0x08 || frame[13] != 0x00 || (frame[14] >> 4) != 4) {
		return 0;
	}
	const uint8_t* ip = frame + 14;
	uint32_t ihl = (ip[0] & 0xFu) * 4u;
	if (ihl < 20 || len < 14 + ihl) {
		return 0;
	}
	memcpy(input, ip + 12, 8);
	bool more_fragments = ip[6] & 0x20, offset = ((ip[6] & 0x1Fu) << 8 | ip[7]) != 0;
	uint32_t l4_type = ip[9] == 6 ? MRQC_TCPIPV4 : ip[9] == 17 ? MRQC_UDPIPV4 : 0;
	if ((mrqc & l4_type) && !more_fragments && !offset && len >= 14 + ihl + 4) {
		memcpy(input + 8, ip + ihl, 4);
		return 12;
	}
	return (mrqc & MRQC_IPV4) ? 8 : 0;
}

bool model_ixgbe_rss(const struct model_ixgbe* nic, const void* frame, uint32_t len, uint32_t* hash, uint16_t* queue) {
	*hash = 0;
	*queue = 0;
	if ((reg_get(nic, REG_MRQC) & MRQC_MRQE_MASK) != MRQC_MRQE_RSS) {
		return false;
	}
	uint8_t input[12];
	uint32_t n = rss_input(nic, frame, len, input);
	if (n == 0) {
		return false; // not hashed: hash 0, RSS output index 0
	}
	*hash = rss_toeplitz(nic, input, n);
	uint32_t entry = *hash % RSS_TABLE_ENTRIES; // the low 7 bits
	*queue = (uint16_t)((reg_get(nic, REG_RETA(entry / 4)) >> (8 * (entry % 4))) & 0xFu);
	return true;
}

enum model_rx_result model_ixgbe_receive(struct model_ixgbe* nic, const void* frame, uint32_t len, uint16_t* queue) {
	uint32_t hash;
	if (!frame || len < ETHER_MIN_LEN) {
		model_usage_error("model_ixgbe_receive: %u bytes (frames are 60..%u bytes without CRC)", len,
				  MAX_FRAME - ETHER_CRC_LEN);
	}
	model_ixgbe_rss(nic, frame, len, &hash, queue);
	return model_ixgbe_inject_rx(nic, *queue, frame, len);
}

// ---- the fast path ----
// While the NIC is quiet (nothing recorded or logged, no TX hook, no frame stamps, the link up, no reset pending, no
// MSI-X vector enabled: catch_up has nothing to do), a tail write (RDT, TDT) of an enabled queue touches only its
// queue's ring and counts, DMA memory and the violations. Then it runs under the queue's lock alone, taken with
// trylock: a queue whose lock is held (enter, maybe by this very thread) goes the usual way.

static bool quiet(const struct model_ixgbe* nic) {
	return !nic->log_registers && !nic->record_tx && !nic->tx_hook && nic->link_up && !nic->reset_pending &&
	       nic->msix_enabled == 0 && !model_stamps_on();
}

static bool trylock_queue(struct model_ixgbe* nic, uint32_t q) {
	return pthread_mutex_trylock(&nic->queues[q].lock) == 0;
}

static bool ixgbe_queue_write32(void* model, uint32_t reg, uint32_t value) {
	struct model_ixgbe* nic = model;
	uint32_t q, field;
	bool rx = rx_queue_reg(reg, &q, &field) && field == RXQ_RDT;
	bool tx = !rx && tx_queue_reg(reg, &q, &field) && field == TXQ_TDT;
	if (!(rx || tx) || !trylock_queue(nic, q)) {
		return false;
	}
	bool fast = (rx ? nic->rx[q].enabled : nic->tx[q].enabled) && quiet(nic);
	if (fast && rx) {
		rx_queue_write(nic, reg, q, field, value);
	} else if (fast) {
		tx_queue_write(nic, reg, q, field, value);
	}
	unlock_queue(nic, q);
	return fast;
}

// A frame for RX queue q that the queue takes without any effect beyond it: the NIC quiet and receiving, the frame
// accepted, no interrupt cause, and descriptors for it (even with its CRC). Else it goes through
// model_ixgbe_inject_rx.
static bool rx_fast(const struct model_ixgbe* nic, uint32_t q, const uint8_t* frame, uint32_t len) {
	const struct rx_ring* ring = &nic->rx[q];
	return ring->enabled && quiet(nic) && receiving(nic) && bus_master(nic) && frame && len >= ETHER_MIN_LEN &&
	       len + ETHER_CRC_LEN <= max_frame(nic) && len <= MAX_FRAME - ETHER_CRC_LEN && l2_accept(nic, frame) &&
	       !(rx_ivar_entry(nic, q) & IVAR_VALID) &&
	       (uint64_t)ring_distance(ring->head, ring->tail, ring->size) * ring->buffer_size >= len + ETHER_CRC_LEN;
}

// The benchmark's frames (bench/threads_bench.c): the fast path's as long as they may, under the queue's lock only.
uint32_t model_ixgbe_inject_rx_burst(struct model_ixgbe* nic, uint16_t queue, const void* frame, uint32_t len,
				     uint32_t count) {
	uint32_t delivered = 0, i = 0;
	if (queue < MODEL_IXGBE_QUEUES && trylock_queue(nic, queue)) {
		for (; i < count && rx_fast(nic, queue, frame, len); i++) {
			delivered += rx_deliver(nic, queue, frame, len) == MODEL_RX_DELIVERED;
		}
		unlock_queue(nic, queue);
	}
	for (; i < count; i++) {
		delivered += model_ixgbe_inject_rx(nic, queue, frame, len) == MODEL_RX_DELIVERED;
	}
	return delivered;
}

uint32_t model_ixgbe_rx_descriptors_available(const struct model_ixgbe* const_nic, uint16_t queue) {
	struct model_ixgbe* nic = enter(const_nic);
	const struct rx_ring* ring = &nic->rx[queue];
	uint32_t available = ring->enabled ? ring_distance(ring->head, ring->tail, ring->size) : 0;
	leave(nic);
	return available;
}

// ---- the driver lets go: unmapping and freeing memory ----

static bool can_reach(uintptr_t start, size_t size, uintptr_t addr, size_t len) {
	return addr < start + size && start < addr + len;
}

// DMA memory is about to be freed: the device must not be able to reach it any more.
static void check_dma_freed(struct model_ixgbe* nic, uintptr_t start, size_t size) {
	catch_up(nic);
	if (!bus_master(nic) || nic->reset_pending) {
		return;
	}
	for (uint32_t q = 0; q < MODEL_IXGBE_QUEUES; q++) {
		struct rx_ring* rx = &nic->rx[q];
		if (rx->enabled) {
			bool hit = can_reach(start, size, rx->base, (size_t)rx->size * DESC_SIZE);
			for (uint32_t i = rx->head; !hit && i != rx->tail; i = (i + 1) % rx->size) {
				hit = can_reach(start, size, rx->fetched[i], rx->max_write);
			}
			if (hit) {
				model_violation(nic->name,
						"DMA memory [0x%lx, +%zu) freed while RX queue %u (enabled) can still "
						"write into it: stop the device (reset or disable the queue) first",
						(unsigned long)start, size, q);
			}
		}
		struct tx_ring* tx = &nic->tx[q];
		if (tx->enabled) {
			bool hit = can_reach(start, size, tx->base, (size_t)tx->size * DESC_SIZE);
			// the descriptors still pending point to buffers the device will read (the memory is still
			// there)
			for (uint32_t i = tx->head; !hit && i != tx->tail; i = (i + 1) % tx->size) {
				const uint8_t* desc = seam_dma_virt(tx->base + (uintptr_t)i * DESC_SIZE);
				uint64_t addr;
				uint32_t cmd;
				memcpy(&addr, desc, sizeof(addr));
				memcpy(&cmd, desc + 8, sizeof(cmd));
				hit = can_reach(start, size, (uintptr_t)addr, cmd & TXD_DTALEN_MASK);
			}
			if (hit) {
				model_violation(nic->name,
						"DMA memory [0x%lx, +%zu) freed while TX queue %u (enabled) can still "
						"read from it: stop the device (reset or disable the queue) first",
						(unsigned long)start, size, q);
			}
		}
	}
}

// The driver unmapped BAR0: after this it cannot stop the device, so it must have stopped it (ixy_close: "no DMA
// after this returns").
static void ixgbe_dma_freed(void* model, uintptr_t start, size_t size) {
	struct model_ixgbe* nic = enter(model);
	check_dma_freed(nic, start, size);
	leave(nic);
}

// The driver unmapped BAR0 (ixgbe_unmapped, below).
static void check_unmapped(struct model_ixgbe* nic) {
	catch_up(nic);
	nic->bar_unmapped = true;
	if (!bus_master(nic) || nic->reset_pending) {
		return;
	}
	bool rx_on = reg_get(nic, REG_RXCTRL) & RXCTRL_RXEN;
	for (uint32_t q = 0; q < MODEL_IXGBE_QUEUES; q++) {
		if (rx_on && nic->rx[q].enabled) {
			model_violation(nic->name,
					"BAR0 unmapped while RX queue %u is enabled with RXCTRL.RXEN: the device "
					"would keep writing received frames to memory",
					q);
			return;
		}
		if (nic->tx[q].enabled && nic->tx[q].head != nic->tx[q].tail) {
			model_violation(nic->name,
					"BAR0 unmapped while TX queue %u has %u descriptors pending: the device "
					"would keep reading memory",
					q, ring_distance(nic->tx[q].head, nic->tx[q].tail, nic->tx[q].size));
			return;
		}
	}
}

static void ixgbe_unmapped(void* model) {
	struct model_ixgbe* nic = enter(model);
	check_unmapped(nic);
	leave(nic);
}

static void ixgbe_destroy(void* model) {
	struct model_ixgbe* nic = model;
	for (uint32_t q = 0; q < MODEL_IXGBE_QUEUES; q++) {
		free_rx_tracking(&nic->rx[q]);
		pthread_mutex_destroy(&nic->queues[q].lock);
	}
	free(nic->regs);
	free(nic->tx_bytes);
	free(nic->tx_records);
	free(nic->log);
	free(nic);
}

static const struct model_pci_ops ixgbe_ops = {
    .read32 = ixgbe_read32,
    .write32 = ixgbe_write32,
    .queue_write32 = ixgbe_queue_write32,
    .unmapped = ixgbe_unmapped,
    .dma_freed = ixgbe_dma_freed,
    .destroy = ixgbe_destroy,
};

// ---- setup and knobs ----

static uint8_t hex_value(char c) {
	return (uint8_t)(c >= '0' && c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
}

struct model_ixgbe* model_ixgbe_add(const char* pci_addr) {
	if (!pci_addr || strlen(pci_addr) != 12) {
		model_usage_error("model_ixgbe_add: PCI address like 0000:01:00.0 expected");
	}
	struct model_ixgbe* nic = aligned_alloc(64, sizeof(*nic)); // (its queues start cache lines)
	uint32_t* regs = calloc(1, MODEL_BAR0_SIZE);
	if (!nic || !regs) {
		model_usage_error("out of memory for a model NIC");
	}
	memset(nic, 0, sizeof(*nic));
	for (uint32_t q = 0; q < MODEL_IXGBE_QUEUES; q++) {
		if (pthread_mutex_init(&nic->queues[q].lock, NULL) != 0) {
			model_usage_error("pthread_mutex_init failed");
		}
	}
	nic->regs = regs;
	snprintf(nic->name, sizeof(nic->name), "%s", pci_addr);
	// 02:... is a locally administered address: 02:00:00:<bus>:<device>:<function>
	const uint8_t mac[6] = {0x02,
				0x00,
				0x00,
				(uint8_t)(hex_value(pci_addr[5]) << 4 | hex_value(pci_addr[6])),
				(uint8_t)(hex_value(pci_addr[8]) << 4 | hex_value(pci_addr[9])),
				hex_value(pci_addr[11])};
	memcpy(nic->eeprom_mac, mac, 6);
	nic->link_mode = MODEL_LINK_UP_AFTER_AN;
	nic->link_delay_us = DEFAULT_LINK_US;
	nic->record_tx = true;
	nic->log_registers = true;
	nic->link_up_at = NEVER;
	// The device starts as left by the kernel driver's removal: reset long ago, link down.
	load_defaults(nic);
	nic->pci = model_pci_add(pci_addr, MODEL_INTEL_VENDOR_ID, MODEL_82599_SFP_DEVICE_ID, MODEL_NETWORK_CLASS,
				 &ixgbe_ops, nic);
	return nic;
}

const char* model_ixgbe_pci_addr(const struct model_ixgbe* nic) {
	return nic->name;
}

struct model_pci_device* model_ixgbe_pci(const struct model_ixgbe* nic) {
	return nic->pci;
}

void model_ixgbe_set_link_mode(struct model_ixgbe* nic, enum model_link_mode mode, uint32_t link_delay_us) {
	nic->link_mode = mode;
	nic->link_delay_us = link_delay_us;
}

void model_ixgbe_set_eeprom_mac(struct model_ixgbe* nic, const uint8_t mac[6]) {
	memcpy(nic->eeprom_mac, mac, 6);
	*reg_ptr(nic, REG_RAL(0)) =
	    (uint32_t)mac[0] | (uint32_t)mac[1] << 8 | (uint32_t)mac[2] << 16 | (uint32_t)mac[3] << 24;
	*reg_ptr(nic, REG_RAH(0)) = (uint32_t)mac[4] | (uint32_t)mac[5] << 8 | RAH_AV;
	rebuild_rar_cache(nic);
}

void model_ixgbe_pause_tx(struct model_ixgbe* nic, bool paused) {
	enter(nic);
	nic->tx_paused = paused;
	catch_up(nic);
	if (!paused) {
		tx_process_all(nic);
	}
	leave(nic);
}

void model_ixgbe_record_tx(struct model_ixgbe* nic, bool record) {
	nic->record_tx = record;
}

void model_ixgbe_log_registers(struct model_ixgbe* nic, bool log) {
	nic->log_registers = log;
}

void model_ixgbe_set_tx_hook(struct model_ixgbe* nic, model_tx_hook hook, void* context) {
	nic->tx_hook = hook;
	nic->tx_hook_context = context;
}

void model_ixgbe_set_fault(struct model_ixgbe* nic, enum model_ixgbe_fault fault) {
	nic->fault = fault;
}

void model_ixgbe_set_perfect(struct model_ixgbe* nic, bool perfect) {
	nic->record_tx = !perfect;
	nic->log_registers = !perfect;
	nic->tx_paused = false;
}

// ---- queries ----

uint32_t model_ixgbe_tx_frame_count(const struct model_ixgbe* const_nic) {
	struct model_ixgbe* nic = enter(const_nic);
	catch_up(nic);
	uint32_t count = nic->num_tx_records;
	leave(nic);
	return count;
}

const uint8_t* model_ixgbe_tx_frame(const struct model_ixgbe* nic, uint32_t i, uint32_t* len, uint16_t* queue) {
	if (i >= nic->num_tx_records) {
		model_usage_error("model_ixgbe_tx_frame(%u): only %u frames recorded", i, nic->num_tx_records);
	}
	if (len) {
		*len = nic->tx_records[i].len;
	}
	if (queue) {
		*queue = nic->tx_records[i].queue;
	}
	return nic->tx_bytes + nic->tx_records[i].offset;
}

void model_ixgbe_clear_tx_frames(struct model_ixgbe* nic) {
	nic->num_tx_records = 0;
	nic->tx_bytes_used = 0;
}

uint32_t model_ixgbe_tx_pending(const struct model_ixgbe* const_nic, uint16_t queue) {
	struct model_ixgbe* nic = enter(const_nic);
	catch_up(nic);
	const struct tx_ring* ring = &nic->tx[queue];
	uint32_t pending = ring->size ? ring_distance(ring->head, ring->tail, ring->size) : 0;
	leave(nic);
	return pending;
}

struct model_ixgbe_counters model_ixgbe_counters(const struct model_ixgbe* const_nic) {
	struct model_ixgbe* nic = enter(const_nic);
	catch_up(nic);
	fold_counts(nic);
	struct model_ixgbe_counters counters = nic->counters;
	leave(nic);
	return counters;
}

uint64_t model_ixgbe_rx_dropped(const struct model_ixgbe* const_nic) {
	struct model_ixgbe* nic = enter(const_nic);
	uint64_t dropped = nic->counters.rx_missed + nic->counters.rx_queue_dropped;
	leave(nic);
	return dropped;
}

bool model_ixgbe_link_up(const struct model_ixgbe* const_nic) {
	struct model_ixgbe* nic = enter(const_nic);
	catch_up(nic);
	bool up = nic->link_up;
	leave(nic);
	return up;
}

uint32_t model_ixgbe_log_length(const struct model_ixgbe* nic) {
	return nic->log_length;
}

const struct model_log_entry* model_ixgbe_log_entry(const struct model_ixgbe* nic, uint32_t i) {
	return i < nic->log_length ? &nic->log[i] : NULL;
}

int64_t model_ixgbe_log_find(const struct model_ixgbe* nic, uint32_t from, enum model_access access, uint32_t reg,
			     uint32_t mask) {
	reg = canonical(reg);
	for (uint32_t i = from; i < nic->log_length; i++) {
		const struct model_log_entry* e = &nic->log[i];
		if (e->access == access && e->reg == reg && (e->value & mask) == mask) {
			return i;
		}
	}
	return -1;
}

uint32_t model_ixgbe_last_write(const struct model_ixgbe* nic, uint32_t reg) {
	uint32_t value = 0;
	for (int64_t i = model_ixgbe_log_find(nic, 0, MODEL_WRITE, reg, 0); i >= 0;
	     i = model_ixgbe_log_find(nic, (uint32_t)i + 1, MODEL_WRITE, reg, 0)) {
		value = nic->log[i].value;
	}
	return value;
}

void model_ixgbe_clear_log(struct model_ixgbe* nic) {
	nic->log_length = 0;
}

void model_ixgbe_dump(const struct model_ixgbe* nic, FILE* out) {
	for (size_t i = 0; i < NUM_REG_INFO; i++) {
		const struct reg_info* info = &reg_table[i];
		for (uint32_t n = 0; n < info->count; n++) {
			uint32_t reg = info->base + n * info->stride;
			uint32_t value = model_ixgbe_peek(nic, reg);
			if (value != 0) {
				char name[24];
				fprintf(out, "%s[0x%05x]:0x%08x\n", model_ixgbe_reg_name(reg, name), reg, value);
			}
		}
	}
}

void model_ixgbe_print_log(const struct model_ixgbe* nic, FILE* out, uint32_t from, uint32_t count) {
	for (uint32_t i = from; i < nic->log_length && i - from < count; i++) {
		const struct model_log_entry* e = &nic->log[i];
		char name[24];
		fprintf(out, "%6u %10llu us %s %s[0x%05x]:0x%08x", i, (unsigned long long)e->time_us,
			e->access == MODEL_WRITE ? "W" : "R", model_ixgbe_reg_name(e->reg, name), e->reg, e->value);
		if (e->repeats > 1) {
			fprintf(out, " (x%u)", e->repeats);
		}
		fprintf(out, "\n");
	}
}
