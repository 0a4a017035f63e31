// Receive side scaling for the igb and ixgbe drivers (intel_rss.h): the NIC hashes each received IPv4 packet's
// addresses (and TCP/UDP ports) with the Toeplitz hash under a 40 byte key (RSSRK), and the low 7 bits of the hash
// pick one of 128 redirection table entries (RETA), each naming an RX queue: 82599 datasheet 7.1.2.8, 82576
// datasheet 7.1 (multiple receive queues). In a file of its own: igb.c and ixgbe.c read the same without it, and with
// one RX queue none of it runs. The hash itself is the NIC's; ixy's software copy of it (include/ixy/rss.h) is for
// apps and tests.
#include <ixy/rss.h>

#include "igb_regs.h"
#include "intel_rss.h"
#include "ixgbe_regs.h"

// The registers both NICs share, at the same offsets and with the same bits (igb_regs.h says so; checked here).
_Static_assert(IGB_MRQC == IXGBE_MRQC && IGB_RETA(0) == IXGBE_RETA(0) && IGB_RSSRK(0) == IXGBE_RSSRK(0) &&
		   IGB_MRQC_IPV4 == IXGBE_MRQC_IPV4 && IGB_MRQC_TCPIPV4 == IXGBE_MRQC_TCPIPV4 &&
		   IGB_MRQC_UDPIPV4 == IXGBE_MRQC_UDPIPV4,
	       "the 82576's RSS registers are the 82599's");

// The 82599's table entries are 4 bits: without DCB or virtualisation RSS reaches queues 0..15; its MRQE 0001b is RSS
// only (4.6.11.3.4, DCB and VT off). The 82576 has 16 RX queues; RSS here spreads over at most 8, the most Linux's
// igb driver uses for RSS on an 82576 (an entry's queue lies in its low bits; QEMU's model reads bits 3:0), and its
// mode 010b is RSS only (011b would be VMDq); it needs RXCSUM.PCSD: the RSS hash and the packet checksum share a field
// of the RX descriptor's write-back (QEMU's igb model does no RSS without it).
const struct intel_rss_nic intel_rss_82599 = {.max_queues = 16, .mrqc_mode = IXGBE_MRQC_MRQE_RSS};
const struct intel_rss_nic intel_rss_82576 = {
    .max_queues = 8, .mrqc_mode = IGB_MRQC_MRQE_RSS, .rxcsum_pcsd = IGB_RXCSUM_PCSD};

// Checks an app's table against the queues the device has and what RSS reaches; prints the first misfit.
static bool rss_valid(const struct ixy_rss* rss, const struct ixy_config* config, uint16_t max_queues) {
	if (rss->hash_types & ~IXY_RSS_ALL) {
		ixy_error("%s: RSS hash types 0x%x: unknown bits", config->pci_addr, rss->hash_types);
		return false;
	}
	for (uint32_t i = 0; i < IXY_RSS_TABLE_SIZE; i++) {
		if (rss->table[i] >= config->rx_queues || rss->table[i] >= max_queues) {
			ixy_error("%s: RSS table entry %u is queue %u: the device has %u RX queues, RSS reaches %u",
				  config->pci_addr, i, rss->table[i], config->rx_queues, max_queues);
			return false;
		}
	}
	return true;
}

// Four bytes into a register, the first of them in bits 7:0 (RSSRK: key bytes 4n..4n+3; RETA: entries 4n..4n+3).
static uint32_t four_bytes(const uint8_t* b) {
	return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
}

bool intel_setup_rss(uint8_t* bar, const struct ixy_config* config, const struct intel_rss_nic* nic) {
	if (config->rx_queues <= 1) {
		return true; // MRQC keeps its reset value: RSS off, everything to queue 0
	}
	struct ixy_rss defaults;
	const struct ixy_rss* rss = config->rss;
	if (!rss) {
		uint16_t queues = config->rx_queues < nic->max_queues ? config->rx_queues : nic->max_queues;
		if (queues < config->rx_queues) {
			ixy_warn("%s: RSS spreads packets over RX queues 0..%u only", config->pci_addr, queues - 1u);
		}
		ixy_rss_default(&defaults, queues);
		rss = &defaults;
	} else if (!rss_valid(rss, config, nic->max_queues)) {
		return false;
	}
	// While the receiver is off: the receive filters, RSSRK and RETA among them (and RXCSUM on the 82576), then
	// MRQC (82599: 4.6.7; 82576: 4.5.9).
	for (uint32_t n = 0; n < IXY_RSS_KEY_SIZE / 4; n++) {
		set_reg32(bar, IXGBE_RSSRK(n), four_bytes(&rss->key[4 * n]));
	}
	for (uint32_t n = 0; n < IXY_RSS_TABLE_SIZE / 4; n++) {
		set_reg32(bar, IXGBE_RETA(n), four_bytes(&rss->table[4 * n]));
	}
	if (nic->rxcsum_pcsd) {
		set_flags32(bar, IGB_RXCSUM, nic->rxcsum_pcsd);
	}
	uint32_t mrqc = nic->mrqc_mode;
	mrqc |= (rss->hash_types & IXY_RSS_IPV4) ? IXGBE_MRQC_IPV4 : 0;
	mrqc |= (rss->hash_types & IXY_RSS_IPV4_TCP) ? IXGBE_MRQC_TCPIPV4 : 0;
	mrqc |= (rss->hash_types & IXY_RSS_IPV4_UDP) ? IXGBE_MRQC_UDPIPV4 : 0;
	set_reg32(bar, IXGBE_MRQC, mrqc);
	return true;
}
