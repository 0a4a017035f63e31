// Fuzz target: more than one queue pair and RSS in the VirtIO driver (src/driver/virtio_rss.c, and the control
// queue commands of src/driver/virtio.c that switch them on) facing a device that says anything: the features it
// offers, max_virtqueue_pairs, rss_max_key_size, rss_max_indirection_table_length and supported_hash_types (5.1.4 of
// VirtIO 1.2), and its answer to the control commands (5.1.6.5); with any queue counts and RSS configuration an app
// may ask for.
//
// Two modes, chosen by the first byte:
//   direct  virtio_mq_features(), virtio_mq_setup() and virtio_rss_config_data() called as virtio.c calls them, on a
//           transport whose read_config answers the input's values (or fails); 0 .. IXY_MAX_QUEUES queues.
//   model   ixy_init_config() on the VirtIO device model (test/model/virtio_model.h) with the input's features and
//           configuration fields, answering control commands OK, ERR or not at all; 1 .. MODEL_VIRTIO_MAX_PAIRS
//           queues (the pairs the model has room for).
//
// Input: mode (bit 0: model; bit 1: the model has only the legacy interface, which shows feature bits 0..31),
// features (bit 0 VIRTIO_NET_F_CTRL_VQ, 1 VIRTIO_NET_F_MQ, 2 VIRTIO_NET_F_RSS, 3 VIRTIO_NET_F_CTRL_RX: offered),
// rx_queues (u8), tx_queues (u8), max_virtqueue_pairs (selector u8 % 4, value u16: 0 value % 10; 1 one of 0x7fff,
// 0x8000, 0x8001, 0xffff, 0; 2 around the pairs asked for, max(rx, tx) - 2 + value % 5; 3 value), rss_max_key_size
// (u8), rss_max_indirection_table_length (u16), supported_hash_types (u32), the app's RSS (flags u8: bit 0 an
// ixy_rss is given, bit 1 its key is in the input, bits 2-3 its table: 0 entry i = i % rx_queues, 1 the 128 entries
// in the input, 2 that with one entry (position u8, value u8) from the input; then hash_types (u8, unknown bits
// too), the table bytes, the key bytes), then direct: a u8 mask (bit i: the i-th read_config fails); model: the
// control queue's answer (u8 % 3: OK, ERR, none).
//
// Invariants, direct:
//   - virtio_mq_features() accepts VIRTIO_NET_F_MQ and VIRTIO_NET_F_RSS only as offered, only with
//     VIRTIO_NET_F_CTRL_VQ and more than one pair asked for;
//   - every read_config is one of the fields max_virtqueue_pairs (offset 8, 2 bytes; only with MQ or RSS
//     negotiated), rss_max_key_size (17, 1), rss_max_indirection_table_length (18, 2), supported_hash_types (20, 4)
//     (only with RSS negotiated);
//   - virtio_mq_setup() succeeds exactly when the device allows what was asked: an RSS configuration with known
//     hash types and table entries below rx_queues; without MQ and RSS one pair; else max(rx, tx) <=
//     max_virtqueue_pairs < 0x8000 (and at least 1), and with RSS (more than one RX queue) a key size of at least 40,
//     a table length of at least 128 and the hash types asked for among the supported ones (RSS is used with one RX
//     queue too when MQ is not negotiated: RSS_CONFIG's max_tx_vq enables the TX queues then, with no hash types);
//     an RSS table given to a device without RSS is refused. On success *mq says the pairs asked for and the device's
//     max_virtqueue_pairs; on failure it is left at one pair, no RSS (what virtio_close then walks);
//   - virtio_rss_config_data() writes exactly VIRTIO_RSS_CONFIG_LEN bytes that decode (little endian, 5.1.6.5.7)
//     to the hash types asked for (VirtIO's bits), mask 127, unclassified queue 0, the table (the app's or
//     ixy_rss_default()'s; one RX queue: all 0, no hash types), max_tx_vq = the pairs, a 40 byte key (the app's or
//     the default one).
// Invariants, model: ixy_init_config() succeeds exactly when the device's values allow what was asked (as above),
// the control queue the driver puts at 2 * max_virtqueue_pairs exists, and every control command sent (VQ_PAIRS_SET
// with MQ, RSS_CONFIG with RSS, promiscuous mode with VIRTIO_NET_F_CTRL_RX) is answered OK. On success the device
// uses the pairs asked for, with the RSS configuration decoded as above; on failure the device is reset with FAILED
// set on the way and bus mastering off. Either way no DMA memory is left after close, and the model recorded no
// violation (its own checks of each command, field by field).
#include <stdbool.h>
#include <string.h>

#include <ixy/ixy.h>
#include <ixy/rss.h>

#include "driver/virtio_rss.h"
#include "driver/virtio_spec.h"
#include "fuzz_input.h"
#include "seam.h"
#include "virtio_model.h"

#define NIC_ADDR "0000:09:00.0"
#define MQ_BITS (VIRTIO_NET_F_MQ | VIRTIO_NET_F_RSS)
// VirtIO's hash types (5.1.6.4.3.1), from the specification rather than from virtio_rss.c.
#define HASH_IPV4 1u
#define HASH_TCPV4 2u
#define HASH_UDPV4 4u

// What the input asks for and what the device says.
struct scenario {
	bool model, legacy;
	uint64_t offered;
	struct ixy_config config;
	struct ixy_rss rss;
	uint16_t max_pairs;
	uint8_t max_key;
	uint16_t max_table;
	uint32_t supported;
	uint8_t fail_mask;
	enum model_virtio_ctrl_answer answer;
};

static struct scenario s;

static uint16_t wanted_pairs(void) {
	return s.config.rx_queues > s.config.tx_queues ? s.config.rx_queues : s.config.tx_queues;
}

static uint16_t fuzz_max_pairs(struct fuzz_input* in) {
	static const uint16_t special[] = {0x7fff, 0x8000, 0x8001, 0xffff, 0};
	uint8_t selector = fuzz_u8(in) % 4;
	uint16_t value = fuzz_u16(in);
	switch (selector) {
		case 0:
			return value % 10;
		case 1:
			return special[value % 5];
		case 2:
			return (uint16_t)(wanted_pairs() - 2 + value % 5);
		default:
			return value;
	}
}

static void read_scenario(struct fuzz_input* in) {
	memset(&s, 0, sizeof(s));
	uint8_t mode = fuzz_u8(in);
	s.model = mode & 1;
	s.legacy = s.model && (mode & 2);
	uint8_t features = fuzz_u8(in);
	s.offered = ((features & 1) ? VIRTIO_NET_F_CTRL_VQ : 0) | ((features & 2) ? VIRTIO_NET_F_MQ : 0) |
		    ((features & 4) ? VIRTIO_NET_F_RSS : 0) | ((features & 8) ? VIRTIO_NET_F_CTRL_RX : 0);
	uint16_t queues = s.model ? MODEL_VIRTIO_MAX_PAIRS : IXY_MAX_QUEUES + 1;
	uint16_t first = s.model ? 1 : 0;
	s.config.pci_addr = NIC_ADDR;
	s.config.rx_queues = (uint16_t)(first + fuzz_u8(in) % queues);
	s.config.tx_queues = (uint16_t)(first + fuzz_u8(in) % queues);
	s.config.ring_size = 64;
	s.max_pairs = fuzz_max_pairs(in);
	s.max_key = fuzz_u8(in);
	s.max_table = fuzz_u16(in);
	s.supported = fuzz_u32(in);
	uint8_t rss_flags = fuzz_u8(in);
	ixy_rss_default(&s.rss, s.config.rx_queues ? s.config.rx_queues : 1);
	s.rss.hash_types = fuzz_u8(in);
	uint8_t table_mode = (rss_flags >> 2) & 3;
	if (table_mode == 1 || table_mode == 2) {
		for (uint32_t i = 0; i < IXY_RSS_TABLE_SIZE; i++) {
			s.rss.table[i] = table_mode == 1 ? fuzz_u8(in) : s.rss.table[i];
		}
		if (table_mode == 2) {
			uint8_t position = fuzz_u8(in) % IXY_RSS_TABLE_SIZE;
			s.rss.table[position] = fuzz_u8(in);
		}
	}
	for (uint32_t i = 0; (rss_flags & 2) && i < IXY_RSS_KEY_SIZE; i++) {
		s.rss.key[i] = fuzz_u8(in);
	}
	s.config.rss = (rss_flags & 1) ? &s.rss : NULL;
	if (s.model) {
		s.answer = (enum model_virtio_ctrl_answer)(fuzz_u8(in) % 3);
	} else {
		s.fail_mask = fuzz_u8(in);
	}
}

static uint32_t virtio_types(uint32_t ixy_types) {
	return ((ixy_types & IXY_RSS_IPV4) ? HASH_IPV4 : 0) | ((ixy_types & IXY_RSS_IPV4_TCP) ? HASH_TCPV4 : 0) |
	       ((ixy_types & IXY_RSS_IPV4_UDP) ? HASH_UDPV4 : 0);
}

// What virtio_mq_setup must do with the features negotiated and read_config never failing.
struct prediction {
	bool ok;
	struct virtio_mq mq;
};

static struct prediction predict_setup(uint64_t features) {
	const struct ixy_config* c = &s.config;
	struct prediction p = {.ok = false, .mq = {.pairs = 1, .max_pairs = 1, .rss = false}};
	uint16_t wanted = wanted_pairs();
	if (c->rx_queues > 1 && c->rss) {
		if (c->rss->hash_types & ~IXY_RSS_ALL) {
			return p;
		}
		for (uint32_t i = 0; i < IXY_RSS_TABLE_SIZE; i++) {
			if (c->rss->table[i] >= c->rx_queues) {
				return p;
			}
		}
	}
	if (!(features & MQ_BITS)) {
		p.ok = wanted <= 1;
		return p;
	}
	if (s.max_pairs < 1 || s.max_pairs >= 0x8000 || s.max_pairs < wanted) {
		return p;
	}
	// RSS_CONFIG whenever more than one pair is used: its table keeps frames on the RX queues ixy reads, and
	// without VIRTIO_NET_F_MQ only its max_tx_vq enables more than one TX queue (5.1.6.5.6).
	bool rss = (features & VIRTIO_NET_F_RSS) && wanted > 1;
	if (rss) {
		uint32_t asked = c->rx_queues > 1 ? virtio_types(c->rss ? c->rss->hash_types : IXY_RSS_ALL) : 0;
		if (s.max_key < IXY_RSS_KEY_SIZE || s.max_table < IXY_RSS_TABLE_SIZE || (asked & ~s.supported)) {
			return p;
		}
	} else if (c->rx_queues > 1 && c->rss) {
		return p; // a table for a device without RSS
	}
	p.ok = true;
	p.mq = (struct virtio_mq){.pairs = wanted, .max_pairs = s.max_pairs, .rss = rss};
	return p;
}

// The RSS_CONFIG data (5.1.6.5.7) ixy must send for a successful setup with RSS, decoded field by field.
static void check_rss_config(const uint8_t* d, size_t len, uint16_t pairs) {
	struct ixy_rss defaults;
	const struct ixy_rss* rss = s.config.rss;
	if (s.config.rx_queues <= 1) { // only to enable the TX queues: every entry 0, nothing hashed
		ixy_rss_default(&defaults, 1);
		defaults.hash_types = 0;
		rss = &defaults;
	} else if (!rss) {
		ixy_rss_default(&defaults, s.config.rx_queues);
		rss = &defaults;
	}
	FUZZ_CHECK(len == VIRTIO_RSS_CONFIG_LEN);
	uint32_t types = (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
	FUZZ_CHECK(types == virtio_types(rss->hash_types));
	FUZZ_CHECK((types & ~s.supported) == 0);
	FUZZ_CHECK((d[4] | d[5] << 8) == IXY_RSS_TABLE_SIZE - 1); // indirection_table_mask
	FUZZ_CHECK((d[6] | d[7] << 8) == 0);                      // unclassified_queue
	const uint8_t* p = d + 8;
	for (uint32_t i = 0; i < IXY_RSS_TABLE_SIZE; i++, p += 2) {
		uint16_t entry = (uint16_t)(p[0] | p[1] << 8);
		FUZZ_CHECK(entry == rss->table[i]);
		FUZZ_CHECK(entry == 0 || (entry < s.config.rx_queues && entry < pairs));
	}
	FUZZ_CHECK((p[0] | p[1] << 8) == pairs); // max_tx_vq
	FUZZ_CHECK(p[2] == IXY_RSS_KEY_SIZE);    // hash_key_length
	FUZZ_CHECK(memcmp(p + 3, rss->key, IXY_RSS_KEY_SIZE) == 0);
	FUZZ_CHECK((size_t)(p + 3 + IXY_RSS_KEY_SIZE - d) == len);
}

// ---- direct: a transport that only has the device configuration

struct fuzz_transport {
	struct virtio_transport t;
	uint64_t features; // negotiated
	unsigned reads;
};

static int fuzz_read_config(struct virtio_transport* t, uint32_t offset, void* buf, size_t len) {
	struct fuzz_transport* ft = (struct fuzz_transport*)t;
	bool mq = ft->features & MQ_BITS, rss = ft->features & VIRTIO_NET_F_RSS;
	FUZZ_CHECK(ft->reads < 8);
	bool fail = (s.fail_mask >> ft->reads++) & 1;
	uint8_t value[4];
	if (offset == VIRTIO_NET_CONFIG_MAX_VIRTQUEUE_PAIRS && len == 2) {
		FUZZ_CHECK(mq);
		memcpy(value, &s.max_pairs, 2);
	} else if (offset == VIRTIO_NET_CONFIG_RSS_MAX_KEY_SIZE && len == 1) {
		FUZZ_CHECK(rss);
		value[0] = s.max_key;
	} else if (offset == VIRTIO_NET_CONFIG_RSS_MAX_TABLE_LENGTH && len == 2) {
		FUZZ_CHECK(rss);
		memcpy(value, &s.max_table, 2);
	} else if (offset == VIRTIO_NET_CONFIG_SUPPORTED_HASH_TYPES && len == 4) {
		FUZZ_CHECK(rss);
		memcpy(value, &s.supported, 4);
	} else {
		FUZZ_CHECK(!"read_config of no multiqueue field, or not with its width");
	}
	if (fail) {
		return -1;
	}
	memcpy(buf, value, len);
	return 0;
}

static const struct virtio_transport_ops fuzz_ops = {.name = "fuzz", .read_config = fuzz_read_config};

static void run_direct(void) {
	const struct ixy_config* c = &s.config;
	uint64_t accepted = virtio_mq_features(c, s.offered);
	uint64_t expected = wanted_pairs() > 1 && (s.offered & VIRTIO_NET_F_CTRL_VQ) ? s.offered & MQ_BITS : 0;
	FUZZ_CHECK(accepted == expected);
	// As virtio.c negotiates: what it wants of the offered features, the multiqueue ones only as accepted.
	uint64_t features = (s.offered & ~MQ_BITS) | accepted;
	struct fuzz_transport ft = {.t = {.ops = &fuzz_ops}, .features = features};
	struct virtio_mq mq = {.pairs = 0x5a5a, .max_pairs = 0xa5a5, .rss = true};
	int rc = virtio_mq_setup(c, &ft.t, features, &mq);
	FUZZ_CHECK(rc == 0 || rc == -1);
	struct prediction p = predict_setup(features);
	// A failed read fails the setup; which reads there are follows from the features (checked in read_config).
	bool read_failed = s.fail_mask & ((1u << ft.reads) - 1);
	FUZZ_CHECK((rc == 0) == (p.ok && !read_failed));
	if (rc != 0) {
		FUZZ_CHECK(mq.pairs == 1 && mq.max_pairs == 1 && !mq.rss);
		return;
	}
	FUZZ_CHECK(mq.pairs == p.mq.pairs && mq.max_pairs == p.mq.max_pairs && mq.rss == p.mq.rss);
	FUZZ_CHECK(mq.pairs >= 1 && mq.pairs <= IXY_MAX_QUEUES && mq.pairs <= mq.max_pairs && mq.max_pairs < 0x8000);
	if (mq.rss) {
		uint8_t buf[VIRTIO_RSS_CONFIG_LEN + 16];
		memset(buf, 0xa5, sizeof(buf));
		size_t len = virtio_rss_config_data(c, &mq, buf);
		check_rss_config(buf, len, mq.pairs);
		for (size_t i = VIRTIO_RSS_CONFIG_LEN; i < sizeof(buf); i++) {
			FUZZ_CHECK(buf[i] == 0xa5);
		}
	}
}

// ---- model: the whole driver against the device model

static void run_model(void) {
	size_t dma_before = seam_dma_live_allocations();
	struct model_virtio* nic =
	    model_virtio_add(NIC_ADDR, s.legacy ? MODEL_VIRTIO_LEGACY_ONLY : MODEL_VIRTIO_MODERN_ONLY);
	uint64_t offered = (MODEL_VIRTIO_DEFAULT_FEATURES & ~(VIRTIO_NET_F_CTRL_VQ | VIRTIO_NET_F_CTRL_RX)) | s.offered;
	model_virtio_offer(nic, offered);
	model_virtio_set_max_pairs(nic, s.max_pairs);
	model_virtio_set_rss_caps(nic, s.max_key, s.max_table, s.supported);
	model_virtio_set_queue_max(nic, 64);
	model_virtio_ctrl_answer(nic, s.answer);
	// What the driver negotiates of it (the legacy interface shows bits 0..31).
	uint64_t visible = s.legacy ? s.offered & 0xffffffffull : s.offered;
	bool ctrl_vq = visible & VIRTIO_NET_F_CTRL_VQ;
	uint64_t mq_features = wanted_pairs() > 1 && ctrl_vq ? visible & MQ_BITS : 0;
	uint64_t features = (ctrl_vq ? visible & ~MQ_BITS : 0) | mq_features;
	struct prediction p = predict_setup(features);
	bool ok = p.ok;
	// The control queue follows the device's last pair: the model has room for MODEL_VIRTIO_MAX_PAIRS.
	ok &= !(mq_features && ctrl_vq) || s.max_pairs <= MODEL_VIRTIO_MAX_PAIRS;
	bool commands = (mq_features & VIRTIO_NET_F_MQ) || p.mq.rss || (ctrl_vq && (visible & VIRTIO_NET_F_CTRL_RX));
	ok &= !commands || s.answer == MODEL_VIRTIO_CTRL_OK;

	struct ixy_device* dev = ixy_init_config(&s.config);
	FUZZ_CHECK((dev != NULL) == ok);
	if (dev) {
		uint16_t pairs = model_virtio_pairs(nic);
		FUZZ_CHECK(model_virtio_ctrl_queue(nic) == (mq_features ? 2 * s.max_pairs : 2));
		FUZZ_CHECK(pairs == (mq_features ? wanted_pairs() : 1));
		const struct model_virtio_rss* rss = model_virtio_rss(nic);
		FUZZ_CHECK(rss->enabled == p.mq.rss);
		if (rss->enabled) {
			uint8_t data[VIRTIO_RSS_CONFIG_LEN];
			uint8_t* d = data;
			for (int i = 0; i < 4; i++) {
				*d++ = (uint8_t)(rss->hash_types >> 8 * i);
			}
			uint16_t fields[2] = {rss->table_mask, rss->unclassified};
			for (uint32_t i = 0; i < 2 + IXY_RSS_TABLE_SIZE + 1u; i++) {
				uint16_t v = i < 2                        ? fields[i]
					     : i < 2 + IXY_RSS_TABLE_SIZE ? rss->table[i - 2]
									  : rss->max_tx_vq;
				*d++ = (uint8_t)v;
				*d++ = (uint8_t)(v >> 8);
			}
			*d++ = rss->key_length;
			memcpy(d, rss->key, IXY_RSS_KEY_SIZE);
			FUZZ_CHECK(rss->table_mask == IXY_RSS_TABLE_SIZE - 1 && rss->key_length == IXY_RSS_KEY_SIZE);
			check_rss_config(data, sizeof(data), pairs);
		}
		FUZZ_CHECK(model_virtio_promisc(nic) == (ctrl_vq && (visible & VIRTIO_NET_F_CTRL_RX)));
		ixy_close(dev);
	} else {
		FUZZ_CHECK(model_virtio_driver_failed(nic));
		FUZZ_CHECK(!model_pci_bus_master(model_virtio_pci(nic)));
	}
	FUZZ_CHECK(model_virtio_status(nic) == 0);
	FUZZ_CHECK(seam_dma_live_allocations() == dma_before);
	model_pci_remove_all();
	if (model_violation_count() > 0) {
		model_print_violations(stderr);
		FUZZ_CHECK(model_violation_count() == 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
	struct fuzz_input in = fuzz_input(data, size);
	read_scenario(&in);
	if (s.model) {
		run_model();
	} else {
		run_direct();
	}
	return 0;
}
