// More than one queue pair and receive side scaling (RSS) for the VirtIO driver. With VIRTIO_NET_F_MQ or
// VIRTIO_NET_F_RSS the device has up to max_virtqueue_pairs pairs of RX and TX virtqueues (5.1.2: receiveqN is
// virtqueue 2(N-1), transmitqN 2(N-1)+1, the control queue comes after the last pair); after setting them up the
// driver says how many it uses (VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET), and with RSS how the device spreads received
// packets over them (VIRTIO_NET_CTRL_MQ_RSS_CONFIG): the Toeplitz hash of include/ixy/rss.h under a key, and an
// indirection table indexed by the hash's low bits. In a file of its own: with one queue pair none of it runs.
// Section numbers refer to VirtIO 1.2, which has RSS (1.0 has only VIRTIO_NET_F_MQ).
#include <ixy/rss.h>

#include "virtio_rss.h"
#include "virtio_spec.h"

// Wanted for more than one queue pair; both need the control queue (5.1.3.1 "Feature bit requirements").
#define MQ_FEATURES (VIRTIO_NET_F_MQ | VIRTIO_NET_F_RSS)
// ixy's table: 128 entries, the hash's low 7 bits. The device's must hold at least that many (5.1.4: a device with
// RSS offers at least 128); ixy sends exactly 128, so the queue of a packet is ixy_rss_queue()'s.
#define RSS_TABLE_LENGTH IXY_RSS_TABLE_SIZE

static uint16_t wanted_pairs(const struct ixy_config* config) {
	return config->rx_queues > config->tx_queues ? config->rx_queues : config->tx_queues;
}

uint64_t virtio_mq_features(const struct ixy_config* config, uint64_t offered) {
	if (wanted_pairs(config) <= 1 || !(offered & VIRTIO_NET_F_CTRL_VQ)) {
		return 0;
	}
	return offered & MQ_FEATURES;
}

// ixy's hash types (ixy/rss.h) as VirtIO's (5.1.6.4.3.1).
static uint32_t virtio_hash_types(uint32_t ixy_types) {
	return ((ixy_types & IXY_RSS_IPV4) ? VIRTIO_NET_HASH_TYPE_IPV4 : 0) |
	       ((ixy_types & IXY_RSS_IPV4_TCP) ? VIRTIO_NET_HASH_TYPE_TCPV4 : 0) |
	       ((ixy_types & IXY_RSS_IPV4_UDP) ? VIRTIO_NET_HASH_TYPE_UDPV4 : 0);
}

// The RSS configuration ixy sends for config: the app's, or the default for its RX queues (defaults holds it); with
// one RX queue every entry receiveq1 and no hash types (config->rss is then neither checked nor used).
static const struct ixy_rss* rss_to_send(const struct ixy_config* config, struct ixy_rss* defaults) {
	if (config->rx_queues > 1 && config->rss) {
		return config->rss;
	}
	ixy_rss_default(defaults, config->rx_queues);
	if (config->rx_queues <= 1) {
		defaults->hash_types = 0;
	}
	return defaults;
}

// With RSS: the device's key size, table length and hash types (5.1.4), against what ixy sends.
static int check_rss_caps(const struct ixy_config* config, struct virtio_transport* t) {
	uint8_t max_key = 0;
	uint16_t max_table = 0;
	uint32_t supported = 0;
	if (t->ops->read_config(t, VIRTIO_NET_CONFIG_RSS_MAX_KEY_SIZE, &max_key, 1) != 0 ||
	    t->ops->read_config(t, VIRTIO_NET_CONFIG_RSS_MAX_TABLE_LENGTH, &max_table, 2) != 0 ||
	    t->ops->read_config(t, VIRTIO_NET_CONFIG_SUPPORTED_HASH_TYPES, &supported, 4) != 0) {
		return -1;
	}
	struct ixy_rss defaults;
	uint32_t types = virtio_hash_types(rss_to_send(config, &defaults)->hash_types);
	if (max_key < IXY_RSS_KEY_SIZE || max_table < RSS_TABLE_LENGTH || (types & ~supported)) {
		ixy_error("%s: the device's RSS takes keys of %u bytes, tables of %u entries and hash types 0x%x; ixy "
			  "needs %u, %u and 0x%x",
			  config->pci_addr, max_key, max_table, supported, IXY_RSS_KEY_SIZE, RSS_TABLE_LENGTH, types);
		return -1;
	}
	return 0;
}

int virtio_mq_setup(const struct ixy_config* config, struct virtio_transport* t, uint64_t features,
		    struct virtio_mq* mq) {
	*mq = (struct virtio_mq){.pairs = 1, .max_pairs = 1};
	uint16_t wanted = wanted_pairs(config);
	if (config->rx_queues > 1 && config->rss) {
		if (config->rss->hash_types & ~IXY_RSS_ALL) {
			ixy_error("%s: RSS hash types 0x%x: unknown bits", config->pci_addr, config->rss->hash_types);
			return -1;
		}
		for (uint32_t i = 0; i < IXY_RSS_TABLE_SIZE; i++) {
			if (config->rss->table[i] >= config->rx_queues) {
				ixy_error("%s: RSS table entry %u is queue %u, there are %u RX queues",
					  config->pci_addr, i, config->rss->table[i], config->rx_queues);
				return -1;
			}
		}
	}
	if (!(features & MQ_FEATURES)) {
		if (wanted > 1) {
			ixy_error("%s: %u queue pairs requested, the device has one (no VIRTIO_NET_F_MQ or "
				  "VIRTIO_NET_F_RSS with VIRTIO_NET_F_CTRL_VQ; QEMU: mq=on and a netdev with queues=N)",
				  config->pci_addr, wanted);
			return -1;
		}
		return 0;
	}
	// 5.1.4: max_virtqueue_pairs is 1..0x8000. Untrusted: also below 0x8000, so that the control queue's index
	// 2 * max_pairs fits the 16 bit queue select.
	uint16_t max_pairs = 0;
	if (t->ops->read_config(t, VIRTIO_NET_CONFIG_MAX_VIRTQUEUE_PAIRS, &max_pairs, 2) != 0) {
		return -1;
	}
	if (max_pairs < VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MIN || max_pairs >= VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MAX ||
	    max_pairs < wanted) {
		ixy_error("%s: %u queue pairs requested, the device offers %u", config->pci_addr, wanted, max_pairs);
		return -1;
	}
	// *mq changes only on success: virtio_close walks mq->pairs queues after a failed init.
	struct virtio_mq found = {.pairs = wanted, .max_pairs = max_pairs};
	// With RSS, RSS_CONFIG whenever more than one pair is used: its table names only the RX queues ixy reads
	// (receiveq1 alone if there is one), and without VIRTIO_NET_F_MQ its max_tx_vq is the only way to enable
	// transmitq2.. (5.1.6.5.6, 5.1.6.5.7). Without RSS the device steers a flow to the RX queue of the TX queue it
	// last used (5.1.6.5.6.4): with fewer RX than TX queues, one that ixy never reads.
	found.rss = (features & VIRTIO_NET_F_RSS) && wanted > 1;
	if (found.rss) {
		if (check_rss_caps(config, t) != 0) {
			return -1;
		}
	} else if (config->rx_queues > 1 && config->rss) {
		ixy_error("%s: an RSS table was given, the device has no RSS (VIRTIO_NET_F_RSS; QEMU: rss=on)",
			  config->pci_addr);
		return -1;
	} else if (wanted > 1) {
		ixy_warn("%s: the device has no RSS: it steers received packets by the TX queue of their flow "
			 "(5.1.6.5.6)%s",
			 config->pci_addr,
			 config->rx_queues < wanted ? "; those for the RX queues ixy does not read are lost" : "");
	}
	*mq = found;
	return 0;
}

static uint8_t* put_le16(uint8_t* p, uint16_t value) {
	p[0] = (uint8_t)value;
	p[1] = (uint8_t)(value >> 8);
	return p + 2;
}

// 5.1.6.5.7, struct virtio_net_rss_config, all little endian.
size_t virtio_rss_config_data(const struct ixy_config* config, const struct virtio_mq* mq, uint8_t* buf) {
	struct ixy_rss defaults;
	const struct ixy_rss* rss = rss_to_send(config, &defaults);
	uint32_t types = virtio_hash_types(rss->hash_types);
	uint8_t* p = buf;
	for (int i = 0; i < 4; i++) {
		*p++ = (uint8_t)(types >> 8 * i);
	}
	p = put_le16(p, RSS_TABLE_LENGTH - 1); // indirection_table_mask
	p = put_le16(p, 0);                    // unclassified_queue: receiveq1
	for (uint32_t i = 0; i < RSS_TABLE_LENGTH; i++) {
		p = put_le16(p, rss->table[i]); // the receive queue, by pair (receiveq1 is 0)
	}
	p = put_le16(p, mq->pairs); // max_tx_vq: the transmit queues ixy may use
	*p++ = IXY_RSS_KEY_SIZE;
	for (uint32_t i = 0; i < IXY_RSS_KEY_SIZE; i++) {
		*p++ = rss->key[i];
	}
	return (size_t)(p - buf);
}
