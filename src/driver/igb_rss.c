// Receive side scaling (RSS) for the igb driver, 82576 datasheet 7.1 (multiple receive queues): the NIC hashes each
// received IPv4 packet's addresses (and TCP/UDP ports) with the Toeplitz hash under a 40 byte key (RSSRK), and the
// low 7 bits of the hash pick one of 128 redirection table entries (RETA), each naming an RX queue. The same scheme,
// offsets and layout as the 82599's (ixgbe_rss.c); the 82576 differs in MRQC's mode field (RSS only is 010b) and in
// RXCSUM.PCSD, which must be set for RSS: the hash and the packet checksum share a field of the RX descriptor's
// write-back (QEMU's igb model does no RSS without it). In a file of its own: igb.c reads the same without it, and
// with one RX queue none of it runs.
#include <ixy/rss.h>

#include "igb_regs.h"
#include "igb_rss.h"

// The 82576 has 16 RX queues. RSS here spreads over at most 8, the most Linux's igb driver uses for RSS on an
// 82576: an entry's queue lies in its low bits (Linux writes it unshifted on the 82576 without VFs; QEMU's model reads
// bits 3:0), and 8 queues fit either reading of how many of those bits the hardware takes.
#define RSS_MAX_QUEUES 8

// Checks an app's table against the queues the device has and what RSS reaches; prints the first misfit.
static bool rss_valid(const struct ixy_rss* rss, const struct ixy_config* config) {
	if (rss->hash_types & ~IXY_RSS_ALL) {
		ixy_error("%s: RSS hash types 0x%x: unknown bits", config->pci_addr, rss->hash_types);
		return false;
	}
	for (uint32_t i = 0; i < IXY_RSS_TABLE_SIZE; i++) {
		if (rss->table[i] >= config->rx_queues || rss->table[i] >= RSS_MAX_QUEUES) {
			ixy_error("%s: RSS table entry %u is queue %u: the device has %u RX queues, RSS reaches %u",
				  config->pci_addr, i, rss->table[i], config->rx_queues, RSS_MAX_QUEUES);
			return false;
		}
	}
	return true;
}

bool igb_setup_rss(uint8_t* bar, const struct ixy_config* config) {
	if (config->rx_queues <= 1) {
		return true; // MRQC keeps its reset value: RSS off, everything to queue 0
	}
	struct ixy_rss defaults;
	const struct ixy_rss* rss = config->rss;
	if (!rss) {
		uint16_t queues = config->rx_queues < RSS_MAX_QUEUES ? config->rx_queues : RSS_MAX_QUEUES;
		if (queues < config->rx_queues) {
			ixy_warn("%s: RSS spreads packets over RX queues 0..%u only", config->pci_addr, queues - 1u);
		}
		ixy_rss_default(&defaults, queues);
		rss = &defaults;
	} else if (!rss_valid(rss, config)) {
		return false;
	}
	// 4.5.9: while the receiver is off, the key and the table, the descriptor's hash field (RXCSUM), then MRQC.
	// RSSRK(n) holds key bytes 4n..4n+3, the first of them in bits 7:0.
	for (uint32_t n = 0; n < IXY_RSS_KEY_SIZE / 4; n++) {
		const uint8_t* k = &rss->key[4 * n];
		set_reg32(bar, IGB_RSSRK(n), k[0] | k[1] << 8 | k[2] << 16 | (uint32_t)k[3] << 24);
	}
	// RETA(n) holds entries 4n..4n+3, the first of them in bits 7:0, each a queue number in its low bits.
	for (uint32_t n = 0; n < IXY_RSS_TABLE_SIZE / 4; n++) {
		const uint8_t* e = &rss->table[4 * n];
		set_reg32(bar, IGB_RETA(n), e[0] | e[1] << 8 | e[2] << 16 | (uint32_t)e[3] << 24);
	}
	set_flags32(bar, IGB_RXCSUM, IGB_RXCSUM_PCSD);
	uint32_t mrqc = IGB_MRQC_MRQE_RSS;
	mrqc |= (rss->hash_types & IXY_RSS_IPV4) ? IGB_MRQC_IPV4 : 0;
	mrqc |= (rss->hash_types & IXY_RSS_IPV4_TCP) ? IGB_MRQC_TCPIPV4 : 0;
	mrqc |= (rss->hash_types & IXY_RSS_IPV4_UDP) ? IGB_MRQC_UDPIPV4 : 0;
	set_reg32(bar, IGB_MRQC, mrqc);
	return true;
}
