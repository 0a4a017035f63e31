// The 82540EM model (e1000_model.h): written from the 8254x SDM only.
#include "e1000_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam.h"

#define REGS (MODEL_BAR0_SIZE / 4)
#define CTRL_RST (1u << 26) // 13.4.1: device reset, self-clearing
#define STATUS_UP 0x83u     // 13.4.2: FD (bit 0), LU (bit 1), SPEED 1000 Mb/s (bits 7:6 = 10b)
#define EECD_EE_PRES (1u << 8)
#define EERD_START 0x1u // 13.4.4 (82540EM layout): START bit 0, DONE bit 4, ADDR 15:8, DATA 31:16
#define EERD_DONE 0x10u
#define ICR_TXDW 0x01u // 13.4.17
#define ICR_RXT0 0x80u
#define RCTL_EN 0x2u // 13.4.22
#define RCTL_SECRC (1u << 26)
#define RCTL_BSEX (1u << 25)
#define TCTL_EN 0x2u // 13.4.33
#define RAH_AV (1u << 31)
#define TXD_CMD_EOP 0x01u // 3.3.3.1
#define TXD_CMD_RS 0x08u
#define TXD_CMD_DEXT 0x20u
#define TX_MAX_LEN 16288u // 3.3.3: the largest buffer of a legacy TX descriptor
#define TX_PACKET_MAX 65536u
#define DESC 16u
#define STATS_FIRST 0x4000u // 13.7: statistics, all clear on read
#define STATS_LAST 0x40FCu
#define MPC 0x4010u
#define GPRC 0x4074u
#define GPTC 0x4080u
#define GORCL 0x4088u
#define GOTCL 0x4090u
#define TORL 0x40C0u
#define TPR 0x40D0u
#define TPT 0x40D4u

struct model_e1000 {
	struct model_pci_device* pci;
	char name[16];
	uint32_t* regs;
	uint16_t eeprom[64];
	uint16_t phy[32];
	bool is_82574; // the 82574L (8086:10D3): EERD with DONE at bit 1 and ADDR at 15:2 (82574 datasheet 10.2.2.4)
	unsigned unknown;
	bool unknown_logged[REGS];
	bool tx_paused;
	uint8_t tx_gather[TX_PACKET_MAX];
	uint32_t tx_gather_len;
	uint8_t** tx_packets;
	uint32_t* tx_lens;
	uint32_t tx_count, tx_cap;
};

static uint32_t* reg(struct model_e1000* nic, uint32_t r) {
	return &nic->regs[r / 4];
}

// Registers of 13.4 the driver may touch without being logged: general, interrupts, RX/TX control and queues,
// statistics, filters.
static bool known(uint32_t r) {
	static const uint32_t single[] = {0x0,    0x8,    0x10,   0x14,   0x18,   0x20,   0x28,   0x2C,
					  0x30,   0x38,   0xC0,   0xC4,   0xC8,   0xD0,   0xD8,   0x100,
					  0x170,  0x178,  0x400,  0x410,  0xE00,  0x1000, 0x2160, 0x2168,
					  0x2800, 0x2804, 0x2808, 0x2810, 0x2818, 0x2820, 0x282C, 0x2C00,
					  0x3800, 0x3804, 0x3808, 0x3810, 0x3818, 0x3820, 0x3828, 0x382C,
					  0x5000, 0x5800, 0x5808, 0x2828, 0x3840}; // the last two: 82574L RXDCTL, TARC0
	for (size_t i = 0; i < sizeof(single) / sizeof(single[0]); i++) {
		if (single[i] == r) {
			return true;
		}
	}
	return (r >= STATS_FIRST && r <= STATS_LAST) || (r >= 0x5200 && r < 0x5480) || (r >= 0x5600 && r < 0x5800);
}

// The internal PHY at MDI address 1 (13.4.5 MDIC; PHY registers 13.5): control with reset and restart of
// auto-negotiation self-clearing, status and PHY specific status saying link up at 1000 Mb/s full duplex.
static void load_phy(struct model_e1000* nic) {
	memset(nic->phy, 0, sizeof(nic->phy));
	nic->phy[0] = 0x1140; // auto-negotiation enabled, full duplex, 1000 Mb/s
	nic->phy[1] = 0x796D; // capabilities, auto-negotiation complete, link up
	nic->phy[2] = 0x0141; // PHY identifier (13.5.3/4)
	nic->phy[3] = 0x0C50;
	nic->phy[17] = 0xAC00; // PHY specific status: 1000 Mb/s, full duplex, resolved, link
}

static uint32_t mdic(struct model_e1000* nic, uint32_t v) {
	uint32_t addr = (v >> 16) & 0x1F, phy = (v >> 21) & 0x1F, op = (v >> 26) & 3;
	const uint32_t ready = 1u << 28, error = 1u << 30;
	if (phy != 1 || (op != 1 && op != 2)) {
		return (v & 0x3FFFFFFu) | ready | error;
	}
	if (op == 1) {
		uint16_t data = (uint16_t)v;
		if (addr == 0) {
			data &= (uint16_t) ~(0x8000u | 0x0200u); // reset and restart auto-negotiation self-clear
		}
		if (addr != 1 && addr != 2 && addr != 3 && addr != 17) {
			nic->phy[addr] = data;
		}
		return v | ready;
	}
	return (v & 0xFFFF0000u & ~error) | nic->phy[addr] | ready;
}

static void load_defaults(struct model_e1000* nic) {
	memset(nic->regs, 0, MODEL_BAR0_SIZE);
	*reg(nic, M_E1000_STATUS) = STATUS_UP;
	*reg(nic, M_E1000_RAL0) = (uint32_t)nic->eeprom[0] | (uint32_t)nic->eeprom[1] << 16; // 13.5.1: from EEPROM
	*reg(nic, M_E1000_RAH0) = nic->eeprom[2] | RAH_AV;
	nic->tx_gather_len = 0;
	load_phy(nic);
}

static uint32_t ring_count(struct model_e1000* nic, uint32_t len_reg) {
	return *reg(nic, len_reg) / DESC;
}

static uintptr_t ring_base(struct model_e1000* nic, uint32_t bal) {
	return (uintptr_t)((uint64_t)*reg(nic, bal + 4) << 32 | *reg(nic, bal));
}

// A descriptor of a ring, checked to lie in DMA memory; NULL (and a violation) if not.
static uint8_t* descriptor(struct model_e1000* nic, uint32_t bal, uint32_t len_reg, uint32_t index) {
	uintptr_t base = ring_base(nic, bal);
	uint32_t count = ring_count(nic, len_reg);
	if (base % 16 || *reg(nic, len_reg) % 128 || count == 0 || index >= count) {
		model_violation(nic->name, "ring at 0x%x: base 0x%lx, length %u, index %u not per 3.2.6/3.3", bal,
				(unsigned long)base, *reg(nic, len_reg), index);
		return NULL;
	}
	if (!model_dma_ok(base + (uintptr_t)index * DESC, DESC)) {
		model_violation(nic->name, "ring at 0x%x: descriptor %u outside DMA memory", bal, index);
		return NULL;
	}
	return seam_dma_virt(base + (uintptr_t)index * DESC);
}

static uint32_t rx_buffer_size(struct model_e1000* nic) {
	uint32_t rctl = *reg(nic, M_E1000_RCTL);
	uint32_t bsize = (rctl >> 16) & 3;
	if (rctl & RCTL_BSEX) {
		return bsize == 1 ? 16384 : bsize == 2 ? 8192 : 4096; // 00b reserved with BSEX; read as 4096 here
	}
	return 2048u >> bsize;
}

static void add64(struct model_e1000* nic, uint32_t low, uint64_t n) {
	uint64_t v = ((uint64_t)*reg(nic, low + 4) << 32 | *reg(nic, low)) + n;
	*reg(nic, low) = (uint32_t)v;
	*reg(nic, low + 4) = (uint32_t)(v >> 32);
}

static uint32_t crc32_ethernet(const uint8_t* data, size_t len) {
	uint32_t crc = 0xFFFFFFFFu;
	for (size_t i = 0; i < len; i++) {
		crc ^= data[i];
		for (int b = 0; b < 8; b++) {
			crc = crc >> 1 ^ (0xEDB88320u & (0u - (crc & 1)));
		}
	}
	return ~crc;
}

// ---- transmit ----

static void tx_record(struct model_e1000* nic) {
	if (nic->tx_count == nic->tx_cap) {
		nic->tx_cap = nic->tx_cap ? 2 * nic->tx_cap : 64;
		nic->tx_packets = realloc(nic->tx_packets, nic->tx_cap * sizeof(*nic->tx_packets));
		nic->tx_lens = realloc(nic->tx_lens, nic->tx_cap * sizeof(*nic->tx_lens));
		if (!nic->tx_packets || !nic->tx_lens) {
			model_usage_error("out of memory for TX packets");
		}
	}
	uint8_t* copy = malloc(nic->tx_gather_len ? nic->tx_gather_len : 1);
	if (!copy) {
		model_usage_error("out of memory for a TX packet");
	}
	memcpy(copy, nic->tx_gather, nic->tx_gather_len);
	nic->tx_packets[nic->tx_count] = copy;
	nic->tx_lens[nic->tx_count++] = nic->tx_gather_len;
	*reg(nic, GPTC) += 1;
	*reg(nic, TPT) += 1;
	add64(nic, GOTCL, nic->tx_gather_len + 4u); // 13.7: octets with the CRC the device appends (IFCS)
	nic->tx_gather_len = 0;
}

static void tx_process(struct model_e1000* nic) {
	if (nic->tx_paused || !(*reg(nic, M_E1000_TCTL) & TCTL_EN)) {
		return;
	}
	uint32_t count = ring_count(nic, M_E1000_TDLEN);
	while (count && *reg(nic, M_E1000_TDH) != *reg(nic, M_E1000_TDT)) {
		uint32_t head = *reg(nic, M_E1000_TDH);
		uint8_t* d = descriptor(nic, M_E1000_TDBAL, M_E1000_TDLEN, head);
		if (!d) {
			return;
		}
		uint64_t addr;
		uint16_t len;
		memcpy(&addr, d, 8);
		memcpy(&len, d + 8, 2);
		uint8_t cmd = d[11];
		if (cmd & TXD_CMD_DEXT) {
			model_violation(nic->name,
					"TX descriptor %u: DEXT set, the model knows legacy descriptors only", head);
		} else if (len == 0 || len > TX_MAX_LEN) {
			model_violation(nic->name, "TX descriptor %u: length %u outside 1..%u (3.3.3)", head, len,
					TX_MAX_LEN);
		} else if (!model_dma_ok((uintptr_t)addr, len)) {
			model_violation(nic->name, "TX descriptor %u: buffer 0x%lx+%u outside DMA memory", head,
					(unsigned long)addr, len);
		} else if (nic->tx_gather_len + len > TX_PACKET_MAX) {
			model_violation(nic->name, "TX packet longer than %u bytes", TX_PACKET_MAX);
			nic->tx_gather_len = 0;
		} else {
			memcpy(nic->tx_gather + nic->tx_gather_len, seam_dma_virt((uintptr_t)addr), len);
			nic->tx_gather_len += len;
			if (cmd & TXD_CMD_EOP) {
				tx_record(nic);
			}
		}
		if (cmd & TXD_CMD_RS) {
			__atomic_store_n(&d[12], (uint8_t)(d[12] | M_E1000_TXD_DD), __ATOMIC_RELEASE);
		}
		*reg(nic, M_E1000_TDH) = (head + 1) % count;
		*reg(nic, M_E1000_ICR) |= ICR_TXDW;
	}
}

// ---- register access ----

static uint32_t e1000_read32(void* model, uint32_t r) {
	struct model_e1000* nic = model;
	if (r >= MODEL_BAR0_SIZE || r % 4) {
		model_violation(nic->name, "read of 0x%x: outside BAR0 or unaligned", r);
		return 0;
	}
	if (!known(r)) {
		nic->unknown++;
		if (!nic->unknown_logged[r / 4]) {
			nic->unknown_logged[r / 4] = true;
			fprintf(stderr, "e1000 model %s: read of unmodelled register 0x%05x\n", nic->name, r);
		}
	}
	uint32_t v = *reg(nic, r);
	bool pair_low = r == GORCL || r == GOTCL || r == TORL || r == TORL + 8;
	bool pair_high = r == GORCL + 4 || r == GOTCL + 4 || r == TORL + 4 || r == TORL + 12;
	if (pair_high) {
		*reg(nic, r - 4) = 0; // 13.7: a 64 bit counter clears when its high half is read (the low one first)
		*reg(nic, r) = 0;
	} else if (r == M_E1000_ICR || (!pair_low && r >= STATS_FIRST && r <= STATS_LAST)) {
		*reg(nic, r) = 0; // clear on read (13.4.17, 13.7)
	} else if (r == 0x10) {
		v |= EECD_EE_PRES;
	}
	return v;
}

static void e1000_write32(void* model, uint32_t r, uint32_t v) {
	struct model_e1000* nic = model;
	if (r >= MODEL_BAR0_SIZE || r % 4) {
		model_violation(nic->name, "write of 0x%x: outside BAR0 or unaligned", r);
		return;
	}
	if (!known(r)) {
		nic->unknown++;
		if (!nic->unknown_logged[r / 4]) {
			nic->unknown_logged[r / 4] = true;
			fprintf(stderr, "e1000 model %s: write of unmodelled register 0x%05x = 0x%x\n", nic->name, r,
				v);
		}
	}
	switch (r) {
		case M_E1000_CTRL:
			if (v & CTRL_RST) {
				load_defaults(nic);
				*reg(nic, r) = v & ~CTRL_RST;
			} else {
				*reg(nic, r) = v;
			}
			return;
		case M_E1000_STATUS: // read only
			return;
		case M_E1000_EERD:
			if (v & EERD_START) {
				uint32_t shift = nic->is_82574 ? 2 : 8;
				uint32_t addr = (v >> shift) & (nic->is_82574 ? 0x3FFFu : 0xFFu);
				uint32_t data = addr < 64 ? nic->eeprom[addr] : 0xFFFF;
				*reg(nic, r) = data << 16 | addr << shift | (nic->is_82574 ? 0x2u : EERD_DONE);
			} else {
				*reg(nic, r) = v;
			}
			return;
		case 0x20: // MDIC
			*reg(nic, r) = mdic(nic, v);
			return;
		case 0xC8: // ICS
			*reg(nic, M_E1000_ICR) |= v;
			return;
		case M_E1000_IMS:
			*reg(nic, M_E1000_IMS) |= v;
			return;
		case M_E1000_IMC:
			*reg(nic, M_E1000_IMS) &= ~v;
			return;
		case M_E1000_RDT:
		case M_E1000_TDT: {
			uint32_t count = ring_count(nic, r == M_E1000_RDT ? M_E1000_RDLEN : M_E1000_TDLEN);
			if (v >= count) {
				model_violation(nic->name, "%s = %u beyond a ring of %u descriptors",
						r == M_E1000_RDT ? "RDT" : "TDT", v, count);
				return;
			}
			*reg(nic, r) = v;
			if (r == M_E1000_TDT) {
				tx_process(nic);
			}
			return;
		}
		case M_E1000_TCTL:
			*reg(nic, r) = v;
			tx_process(nic);
			return;
		default:
			if (r >= STATS_FIRST && r <= STATS_LAST) {
				return; // read only
			}
			*reg(nic, r) = v;
	}
}

static void e1000_destroy(void* model) {
	struct model_e1000* nic = model;
	for (uint32_t i = 0; i < nic->tx_count; i++) {
		free(nic->tx_packets[i]);
	}
	free(nic->tx_packets);
	free(nic->tx_lens);
	free(nic->regs);
	free(nic);
}

// PCI configuration space (the 8254x SDM, 4.1: PCI header): vendor and device ID, class 020000.
static void e1000_config_space(void* model, uint8_t config[256]) {
	const struct model_e1000* nic = model;
	uint16_t device = nic->is_82574 ? MODEL_82574L_DEVICE_ID : MODEL_82540EM_DEVICE_ID;
	memset(config, 0, 256);
	config[0] = 0x86;
	config[1] = 0x80;
	config[2] = (uint8_t)device;
	config[3] = (uint8_t)(device >> 8);
	config[0x0B] = 0x02; // network controller, Ethernet
	config[0x12] = 0xBC; // BAR0: a 32 bit memory BAR (bit 0 clear) at 0xFEBC0000 (4.1: memory register base)
	config[0x13] = 0xFE;
}

static const struct model_pci_ops e1000_ops = {
    .config_space = e1000_config_space,
    .read32 = e1000_read32,
    .write32 = e1000_write32,
    .destroy = e1000_destroy,
};

// ---- the test's side ----

static struct model_e1000* add(const char* pci_addr, bool is_82574) {
	struct model_e1000* nic = calloc(1, sizeof(*nic));
	uint32_t* regs = calloc(1, MODEL_BAR0_SIZE);
	if (!nic || !regs || !pci_addr) {
		model_usage_error("model_e1000_add: out of memory or no address");
	}
	nic->regs = regs;
	nic->is_82574 = is_82574;
	snprintf(nic->name, sizeof(nic->name), "%s", pci_addr);
	const uint8_t mac[6] = {0x02, 0, 0, 0, 0, (uint8_t)(pci_addr[strlen(pci_addr) - 1] - '0')};
	for (int i = 0; i < 3; i++) {
		nic->eeprom[i] = (uint16_t)(mac[2 * i] | mac[2 * i + 1] << 8);
	}
	uint16_t sum = 0; // 5.6.1: words 0x00..0x3F add up to 0xBABA
	for (int i = 0; i < 63; i++) {
		sum = (uint16_t)(sum + nic->eeprom[i]);
	}
	nic->eeprom[63] = (uint16_t)(0xBABA - sum);
	load_defaults(nic);
	nic->pci = model_pci_add(pci_addr, 0x8086, is_82574 ? MODEL_82574L_DEVICE_ID : MODEL_82540EM_DEVICE_ID,
				 0x020000, &e1000_ops, nic);
	return nic;
}

struct model_e1000* model_e1000_add(const char* pci_addr) {
	return add(pci_addr, false);
}

struct model_e1000* model_e1000_add_82574(const char* pci_addr) {
	return add(pci_addr, true);
}

uint32_t model_e1000_reg(const struct model_e1000* nic, uint32_t r) {
	return nic->regs[r / 4];
}

unsigned model_e1000_unknown(const struct model_e1000* nic) {
	return nic->unknown;
}

void model_e1000_rx_write(struct model_e1000* nic, uint32_t index, const uint8_t* frame, uint16_t copy_len,
			  uint16_t length_field, uint8_t status, bool advance) {
	model_lock();
	uint8_t* d = descriptor(nic, M_E1000_RDBAL, M_E1000_RDLEN, index);
	uint64_t addr = 0;
	if (d) {
		memcpy(&addr, d, 8);
	}
	uint32_t size = rx_buffer_size(nic);
	if (d && addr && model_dma_ok((uintptr_t)addr, size)) {
		memcpy(seam_dma_virt((uintptr_t)addr), frame, copy_len < size ? copy_len : size);
		memcpy(d + 8, &length_field, 2);
		memset(d + 10, 0, 2); // checksum
		d[13] = 0;            // errors
		memset(d + 14, 0, 2); // special
		__atomic_store_n(&d[12], status, __ATOMIC_RELEASE);
		if (advance) {
			*reg(nic, M_E1000_RDH) = (index + 1) % ring_count(nic, M_E1000_RDLEN);
		}
		*reg(nic, M_E1000_ICR) |= ICR_RXT0;
	} else if (d) {
		model_violation(nic->name, "RX descriptor %u: buffer 0x%lx outside DMA memory", index,
				(unsigned long)addr);
	}
	model_unlock();
}

bool model_e1000_receive(struct model_e1000* nic, const uint8_t* frame, uint16_t len) {
	model_lock();
	uint32_t head = *reg(nic, M_E1000_RDH);
	bool crc = !(*reg(nic, M_E1000_RCTL) & RCTL_SECRC);
	uint32_t total = len + (crc ? 4u : 0u);
	bool ok = (*reg(nic, M_E1000_RCTL) & RCTL_EN) && ring_count(nic, M_E1000_RDLEN) &&
		  head != *reg(nic, M_E1000_RDT) && total <= rx_buffer_size(nic) && total <= 16384;
	if (ok) {
		uint8_t buf[16384];
		memcpy(buf, frame, len);
		uint32_t fcs = crc32_ethernet(frame, len); // 3.2.2: without SECRC the CRC goes to host memory too
		for (int i = 0; i < 4; i++) {
			buf[len + i] = (uint8_t)(fcs >> (8 * i));
		}
		model_e1000_rx_write(nic, head, buf, (uint16_t)total, (uint16_t)total, M_E1000_RXD_DD | M_E1000_RXD_EOP,
				     true);
		*reg(nic, GPRC) += 1;
		*reg(nic, TPR) += 1;
		add64(nic, GORCL, len + 4u);
		add64(nic, TORL, len + 4u);
	} else {
		*reg(nic, MPC) += 1;
	}
	model_unlock();
	return ok;
}

uint8_t* model_e1000_tx_descriptor(struct model_e1000* nic, uint32_t index) {
	return descriptor(nic, M_E1000_TDBAL, M_E1000_TDLEN, index);
}

void model_e1000_pause_tx(struct model_e1000* nic, bool paused) {
	model_lock();
	nic->tx_paused = paused;
	tx_process(nic);
	model_unlock();
}

uint32_t model_e1000_tx_count(const struct model_e1000* nic) {
	return nic->tx_count;
}

const uint8_t* model_e1000_tx_packet(const struct model_e1000* nic, uint32_t i, uint32_t* len) {
	if (i >= nic->tx_count) {
		return NULL;
	}
	*len = nic->tx_lens[i];
	return nic->tx_packets[i];
}
