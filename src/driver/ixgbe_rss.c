// Receive side scaling (RSS) for the ixgbe driver, 82599 datasheet 7.1.2.8: the NIC hashes each received IPv4 packet's
// addresses (and TCP/UDP ports) with the Toeplitz hash under a 40 byte key (RSSRK), and the low 7 bits of the hash
// pick one of 128 redirection table entries (RETA), each naming an RX queue. In a file of its own: ixgbe.c reads the
// same without it, and with one RX queue none of it runs. The hash itself is the NIC's; ixy's software copy of it
// (include/ixy/rss.h) is for apps and tests.
#include <ixy/rss.h>

#include "ixgbe_regs.h"
#include "ixgbe_rss.h"

// The 82599's redirection table entries are 4 bits (RETA): without DCB or virtualisation RSS reaches queues 0..15.
#define RSS_MAX_QUEUES 16

// Checks an app's table against the queues the device has and what the 82599 can reach; prints the first misfit.
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

bool ixgbe_setup_rss(uint8_t* bar, const struct ixy_config* config) {
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
	// 4.6.7: the receive filters, RSSRK and RETA among them, then MRQC with the DCB and virtualisation mode
	// (4.6.11.3.4, DCB and VT off: MRQE 0xxxb with the RSS mode in the low bits).
	// RSSRK(n) holds key bytes 4n..4n+3, the first of them in bits 7:0.
	for (uint32_t n = 0; n < IXY_RSS_KEY_SIZE / 4; n++) {
		const uint8_t* k = &rss->key[4 * n];
		set_reg32(bar, IXGBE_RSSRK(n), k[0] | k[1] << 8 | k[2] << 16 | (uint32_t)k[3] << 24);
	}
	// RETA(n) holds entries 4n..4n+3, the first of them in bits 7:0 (of which the queue takes bits 3:0).
	for (uint32_t n = 0; n < IXY_RSS_TABLE_SIZE / 4; n++) {
		const uint8_t* e = &rss->table[4 * n];
		set_reg32(bar, IXGBE_RETA(n), e[0] | e[1] << 8 | e[2] << 16 | (uint32_t)e[3] << 24);
	}
	uint32_t mrqc = IXGBE_MRQC_MRQE_RSS;
	mrqc |= (rss->hash_types & IXY_RSS_IPV4) ? IXGBE_MRQC_IPV4 : 0;
	mrqc |= (rss->hash_types & IXY_RSS_IPV4_TCP) ? IXGBE_MRQC_TCPIPV4 : 0;
	mrqc |= (rss->hash_types & IXY_RSS_IPV4_UDP) ? IXGBE_MRQC_UDPIPV4 : 0;
	set_reg32(bar, IXGBE_MRQC, mrqc);
	return true;
}
