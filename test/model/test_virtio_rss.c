// More than one queue pair and receive side scaling in the VirtIO driver (src/driver/virtio_rss.c), against the
// VirtIO model: the model's own Toeplitz hash against the published verification suite, the commands the driver
// sends (VQ_PAIRS_SET, RSS_CONFIG: pairs, hash types, table, key) and where its control queue is, the refusals (fewer
// pairs than asked, no RSS for a table, bad device values) that leave the device reset, and frames of many flows
// landing on the queue the software hash (src/rss.c) predicts, each flow on one queue and in order. Section numbers
// refer to VirtIO 1.2. Last, the counters with the queues in two threads while a third reads the statistics.
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ixy/ixy.h>
#include <ixy/memory.h>
#include <ixy/rss.h>

#include "../check.h"
#include "../rss_vectors.h"
#include "model_test.h"
#include "seam.h"
#include "virtio_model.h"

#define NIC_ADDR "0000:03:00.0"

// The hash types and commands, from the specification (5.1.6.4.3.1, 5.1.6.5.5), apart from driver and model.
#define HASH_IPV4 1u
#define HASH_TCPV4 2u
#define HASH_UDPV4 4u
#define VQ_PAIRS_SET 0
#define RSS_CONFIG 1

static size_t dma_before;
// Offered beside the defaults by every device of these tests: nothing (split virtqueues), or, on the second run,
// VIRTIO_F_RING_PACKED: the control commands and the flows on packed virtqueues (VirtIO 1.2, 2.8).
static uint64_t layout_features;

// A device of that kind offering extra_features (MQ, RSS, ...) and max_pairs pairs, opened with rx_queues RX and
// tx_queues TX queues; NULL if the driver refused.
static struct ixy_device* open_mq_rx_tx(struct model_virtio** nic, enum model_virtio_kind kind, uint64_t extra_features,
					uint16_t max_pairs, uint16_t rx_queues, uint16_t tx_queues,
					const struct ixy_rss* rss) {
	dma_before = seam_dma_live_allocations();
	*nic = model_virtio_add(NIC_ADDR, kind);
	model_virtio_offer(*nic, MODEL_VIRTIO_DEFAULT_FEATURES | layout_features | extra_features);
	model_virtio_set_max_pairs(*nic, max_pairs);
	model_virtio_set_queue_max(*nic, 64);
	struct ixy_config config = {
	    .pci_addr = NIC_ADDR, .rx_queues = rx_queues, .tx_queues = tx_queues, .ring_size = 64, .rss = rss};
	return ixy_init_config(&config);
}

// The same with `queues` RX and TX queues.
static struct ixy_device* open_mq(struct model_virtio** nic, enum model_virtio_kind kind, uint64_t extra_features,
				  uint16_t max_pairs, uint16_t queues, const struct ixy_rss* rss) {
	return open_mq_rx_tx(nic, kind, extra_features, max_pairs, queues, queues, rss);
}

// The driver sent VQ_PAIRS_SET with `pairs`, then RSS_CONFIG, and the device took it: its RSS configuration.
static const struct model_virtio_rss* check_pairs_then_rss(struct model_virtio* nic, uint16_t pairs) {
	uint8_t order[8];
	CHECK_EQ(model_virtio_mq_commands(nic, order), 2);
	CHECK_EQ(order[0], VQ_PAIRS_SET);
	CHECK_EQ(order[1], RSS_CONFIG);
	CHECK_EQ(model_virtio_pairs(nic), pairs);
	const struct model_virtio_rss* rss = model_virtio_rss(nic);
	CHECK(rss->enabled);
	return rss;
}

// A refused init refuses before it sets up any queue (from what the device configuration says), and leaves the device
// reset (no queue, no DMA memory, bus mastering off), with FAILED set on the way.
static void check_refused(struct model_virtio* nic, const struct ixy_device* dev) {
	CHECK(dev == NULL);
	CHECK_EQ(model_virtio_queue_enables(nic), 0);
	CHECK_EQ(model_virtio_status(nic), 0);
	CHECK(model_virtio_driver_failed(nic));
	for (uint16_t q = 0; q < MODEL_VIRTIO_MAX_QUEUES; q++) {
		CHECK(!model_virtio_queue_ready(nic, q));
	}
	CHECK_EQ(model_virtio_mq_commands(nic, (uint8_t[8]){0}), 0);
	CHECK(!model_pci_bus_master(model_virtio_pci(nic)));
	CHECK_EQ(seam_dma_live_allocations(), dma_before);
}

// The model's hash against both columns of the suite: raw input under the published key, and from frames once the
// driver configured RSS (its default key is the published one).
static void test_model_hash(void) {
	model_test_begin(__func__);
	for (size_t i = 0; i < NUM_RSS_VECTORS; i++) {
		const struct rss_vector* v = &rss_vectors[i];
		uint8_t input[12];
		memcpy(input, v->src, 4);
		memcpy(input + 4, v->dst, 4);
		input[8] = (uint8_t)(v->src_port >> 8);
		input[9] = (uint8_t)v->src_port;
		input[10] = (uint8_t)(v->dst_port >> 8);
		input[11] = (uint8_t)v->dst_port;
		uint32_t ipv4 = model_virtio_toeplitz(rss_test_key, 40, input, 8);
		uint32_t tcp = model_virtio_toeplitz(rss_test_key, 40, input, 12);
		printf("model row %zu: IPv4 0x%08x (expected 0x%08x), IPv4/TCP 0x%08x (expected 0x%08x)\n", i + 1, ipv4,
		       v->hash_ipv4, tcp, v->hash_ipv4_tcp);
		CHECK_EQ(ipv4, v->hash_ipv4);
		CHECK_EQ(tcp, v->hash_ipv4_tcp);
	}
	struct model_virtio* nic;
	struct ixy_device* dev =
	    open_mq(&nic, MODEL_VIRTIO_MODERN_ONLY, MODEL_VIRTIO_F_MQ | MODEL_VIRTIO_F_RSS, 4, 4, NULL);
	CHECK(dev != NULL);
	uint8_t frame[64];
	uint32_t hash = 0;
	for (size_t i = 0; dev && i < NUM_RSS_VECTORS; i++) {
		const struct rss_vector* v = &rss_vectors[i];
		rss_test_frame(frame, sizeof(frame), v->src, v->dst, v->src_port, v->dst_port, RSS_TEST_TCP, 0, 0, 0);
		CHECK(model_virtio_rss_hash(nic, frame, sizeof(frame), &hash));
		CHECK_EQ(hash, v->hash_ipv4_tcp);
		rss_test_frame(frame, sizeof(frame), v->src, v->dst, v->src_port, v->dst_port, RSS_TEST_UDP, 1, 0, 0);
		CHECK(model_virtio_rss_hash(nic, frame, sizeof(frame), &hash)); // IP options skipped
		CHECK_EQ(hash, v->hash_ipv4_tcp);
		// A fragment: addresses only.
		rss_test_frame(frame, sizeof(frame), v->src, v->dst, v->src_port, v->dst_port, RSS_TEST_TCP, 0, 0x2000,
			       0);
		CHECK(model_virtio_rss_hash(nic, frame, sizeof(frame), &hash));
		CHECK_EQ(hash, v->hash_ipv4);
	}
	CHECK_NO_NEW_VIOLATIONS();
	ixy_close(dev);
	model_pci_remove_all();
}

// Four of six pairs with the default RSS: the driver negotiates MQ and RSS, sets up virtqueues 0..7, the control
// queue at 12 (after the device's sixth pair, 5.1.2), sends VQ_PAIRS_SET 4 then RSS_CONFIG with IPv4, TCPv4, UDPv4,
// 128 entries i % 4, unclassified queue 0, max_tx_vq 4 and the published key.
static void test_commands_default(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev =
	    open_mq(&nic, MODEL_VIRTIO_MODERN_ONLY, MODEL_VIRTIO_F_MQ | MODEL_VIRTIO_F_RSS, 6, 4, NULL);
	CHECK(dev != NULL);
	CHECK(model_virtio_driver_features(nic) & MODEL_VIRTIO_F_MQ);
	CHECK(model_virtio_driver_features(nic) & MODEL_VIRTIO_F_RSS);
	CHECK_EQ(model_virtio_ctrl_queue(nic), 12);
	CHECK(model_virtio_queue_ready(nic, 12));
	for (uint16_t q = 0; q < 12; q++) {
		CHECK_EQ(model_virtio_queue_ready(nic, q), q < 8);
	}
	for (uint16_t k = 0; k < 4; k++) {
		CHECK_EQ(model_virtio_avail_pending(nic, (uint16_t)(2 * k)), 64); // every RX queue filled
	}
	const struct model_virtio_rss* rss = check_pairs_then_rss(nic, 4);
	CHECK_EQ(rss->hash_types, HASH_IPV4 | HASH_TCPV4 | HASH_UDPV4);
	CHECK_EQ(rss->table_mask, 127);
	CHECK_EQ(rss->unclassified, 0);
	CHECK_EQ(rss->max_tx_vq, 4);
	CHECK_EQ(rss->key_length, 40);
	CHECK(memcmp(rss->key, rss_test_key, 40) == 0);
	uint32_t wrong_entries = 0;
	for (uint32_t i = 0; i < 128; i++) {
		wrong_entries += rss->table[i] != i % 4;
	}
	CHECK_EQ(wrong_entries, 0);
	CHECK(model_virtio_promisc(nic)); // still switched on, after the MQ commands
	CHECK_NO_NEW_VIOLATIONS();
	ixy_close(dev);
	CHECK_EQ(model_virtio_status(nic), 0);
	CHECK_EQ(seam_dma_live_allocations(), dma_before);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// The app's own table, key and hash types (TCP only) over 3 RX queues: sent as they are.
static void test_commands_app_table(void) {
	model_test_begin(__func__);
	struct ixy_rss app;
	for (uint32_t i = 0; i < IXY_RSS_KEY_SIZE; i++) {
		app.key[i] = (uint8_t)(i * 13 + 1);
	}
	for (uint32_t i = 0; i < IXY_RSS_TABLE_SIZE; i++) {
		app.table[i] = (uint8_t)((i * 7) % 3);
	}
	app.hash_types = IXY_RSS_IPV4_TCP;
	struct model_virtio* nic;
	struct ixy_device* dev =
	    open_mq(&nic, MODEL_VIRTIO_MODERN_ONLY, MODEL_VIRTIO_F_MQ | MODEL_VIRTIO_F_RSS, 3, 3, &app);
	CHECK(dev != NULL);
	const struct model_virtio_rss* rss = model_virtio_rss(nic);
	CHECK(rss->enabled);
	CHECK_EQ(rss->hash_types, HASH_TCPV4);
	CHECK_EQ(rss->key_length, 40);
	CHECK(memcmp(rss->key, app.key, 40) == 0);
	uint32_t wrong_entries = 0;
	for (uint32_t i = 0; i < 128; i++) {
		wrong_entries += rss->table[i] != app.table[i];
	}
	CHECK_EQ(wrong_entries, 0);
	CHECK_EQ(model_virtio_pairs(nic), 3);
	CHECK_EQ(model_virtio_ctrl_queue(nic), 6);
	CHECK_NO_NEW_VIOLATIONS();
	ixy_close(dev);
	model_pci_remove_all();
}

// One queue: nothing of the above, whatever the device offers (control queue at 2, no MQ command).
static void test_one_queue_unchanged(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev =
	    open_mq(&nic, MODEL_VIRTIO_MODERN_ONLY, MODEL_VIRTIO_F_MQ | MODEL_VIRTIO_F_RSS, 4, 1, NULL);
	CHECK(dev != NULL);
	CHECK(!(model_virtio_driver_features(nic) & (MODEL_VIRTIO_F_MQ | MODEL_VIRTIO_F_RSS)));
	CHECK_EQ(model_virtio_ctrl_queue(nic), 2);
	CHECK(model_virtio_queue_ready(nic, 2));
	CHECK_EQ(model_virtio_mq_commands(nic, (uint8_t[8]){0}), 0);
	CHECK_NO_NEW_VIOLATIONS();
	ixy_close(dev);
	model_pci_remove_all();
}

// One RX queue, four TX queues, a device with MQ and RSS: VQ_PAIRS_SET 4, then RSS_CONFIG with every entry receiveq1,
// no hash types and max_tx_vq 4. Without it the device would steer a flow to the RX queue of the TX queue it last
// used (5.1.6.5.6.4): receiveq2..4, which ixy never reads.
static void test_fewer_rx_queues(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev =
	    open_mq_rx_tx(&nic, MODEL_VIRTIO_MODERN_ONLY, MODEL_VIRTIO_F_MQ | MODEL_VIRTIO_F_RSS, 4, 1, 4, NULL);
	CHECK(dev != NULL);
	const struct model_virtio_rss* rss = check_pairs_then_rss(nic, 4);
	CHECK_EQ(rss->hash_types, 0);
	CHECK_EQ(rss->unclassified, 0);
	CHECK_EQ(rss->max_tx_vq, 4);
	uint32_t wrong_entries = 0;
	for (uint32_t i = 0; i < 128; i++) {
		wrong_entries += rss->table[i] != 0;
	}
	CHECK_EQ(wrong_entries, 0);
	CHECK_NO_NEW_VIOLATIONS();
	ixy_close(dev);
	CHECK_EQ(seam_dma_live_allocations(), dma_before);
	model_pci_remove_all();
}

// The legacy interface shows feature bits 0..31 only: MQ, not RSS. Without a table the driver uses automatic
// steering (VQ_PAIRS_SET only); with one it refuses.
static void test_legacy_mq(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev =
	    open_mq(&nic, MODEL_VIRTIO_LEGACY_ONLY, MODEL_VIRTIO_F_MQ | MODEL_VIRTIO_F_RSS | MODEL_VIRTIO_F_ANY_LAYOUT,
		    2, 2, NULL);
	CHECK(dev != NULL);
	uint8_t order[8];
	CHECK_EQ(model_virtio_mq_commands(nic, order), 1);
	CHECK_EQ(order[0], VQ_PAIRS_SET);
	CHECK_EQ(model_virtio_pairs(nic), 2);
	CHECK(!model_virtio_rss(nic)->enabled);
	CHECK_EQ(model_virtio_ctrl_queue(nic), 4);
	CHECK_NO_NEW_VIOLATIONS();
	ixy_close(dev);
	model_pci_remove_all();

	struct ixy_rss app;
	ixy_rss_default(&app, 2);
	dev = open_mq(&nic, MODEL_VIRTIO_LEGACY_ONLY, MODEL_VIRTIO_F_MQ | MODEL_VIRTIO_F_RSS, 2, 2, &app);
	check_refused(nic, dev);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// Refusals, each in one line and with the device left reset: fewer pairs than asked; neither MQ nor RSS; a table
// without RSS; max_virtqueue_pairs 0 or 0x8000 (whose control queue would be virtqueue 65536); RSS with a key or
// table too short for ixy's, or without a hash type asked for; a table naming a queue the app did not ask for.
static void test_refusals(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_rss app;
	ixy_rss_default(&app, 4);
	const uint64_t both = MODEL_VIRTIO_F_MQ | MODEL_VIRTIO_F_RSS;
	struct {
		const char* what;
		uint64_t features;
		uint16_t max_pairs;
		const struct ixy_rss* rss;
		uint8_t key_size;
		uint16_t table_length;
		uint32_t hash_types;
	} cases[] = {
	    {"fewer pairs", both, 3, NULL, 40, 128, 0x1ff},
	    {"no MQ, no RSS", 0, 4, NULL, 40, 128, 0x1ff},
	    {"a table without RSS", MODEL_VIRTIO_F_MQ, 4, &app, 40, 128, 0x1ff},
	    {"max_virtqueue_pairs 0", both, 0, NULL, 40, 128, 0x1ff},
	    {"max_virtqueue_pairs 0x8000", both, 0x8000, NULL, 40, 128, 0x1ff},
	    {"key of 39 bytes", both, 4, NULL, 39, 128, 0x1ff},
	    {"table of 64 entries", both, 4, NULL, 40, 64, 0x1ff},
	    {"no UDPv4", both, 4, &app, 40, 128, HASH_IPV4 | HASH_TCPV4},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fprintf(stderr, "-- refusal: %s\n", cases[i].what);
		dma_before = seam_dma_live_allocations();
		nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_MODERN_ONLY);
		model_virtio_offer(nic, MODEL_VIRTIO_DEFAULT_FEATURES | layout_features | cases[i].features);
		model_virtio_set_max_pairs(nic, cases[i].max_pairs);
		model_virtio_set_rss_caps(nic, cases[i].key_size, cases[i].table_length, cases[i].hash_types);
		struct ixy_config config = {
		    .pci_addr = NIC_ADDR, .rx_queues = 4, .tx_queues = 4, .ring_size = 64, .rss = cases[i].rss};
		check_refused(nic, ixy_init_config(&config));
		CHECK_NO_NEW_VIOLATIONS();
		model_pci_remove_all();
	}
	// A table entry beyond the RX queues asked for (2 RX, 4 TX).
	app.table[77] = 2;
	dma_before = seam_dma_live_allocations();
	nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_MODERN_ONLY);
	model_virtio_offer(nic, MODEL_VIRTIO_DEFAULT_FEATURES | layout_features | both);
	model_virtio_set_max_pairs(nic, 4);
	struct ixy_config config = {.pci_addr = NIC_ADDR, .rx_queues = 2, .tx_queues = 4, .rss = &app};
	check_refused(nic, ixy_init_config(&config));
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// A flow: addresses, ports, protocol.
struct flow {
	uint8_t src[4], dst[4];
	uint16_t src_port, dst_port;
	uint8_t proto;
};

static struct flow flow_of(uint32_t f) {
	struct flow flow = {{10, 0, (uint8_t)(f / 7), (uint8_t)(f + 1)},
			    {192, 168, (uint8_t)(f % 5), (uint8_t)(200 - f)},
			    (uint16_t)(1024 + f * 389),
			    (uint16_t)(80 + f % 3),
			    f % 2 ? RSS_TEST_UDP : RSS_TEST_TCP};
	return flow;
}

#define FLOWS 64
#define ROUNDS 6
#define QUEUES 4

// Frames of 64 flows (TCP and UDP, and one ARP frame per round: unclassified, queue 0), interleaved, ROUNDS rounds:
// the model puts each on the queue its own hash picks; that must be the queue src/rss.c predicts, and the driver
// must give each frame to the app on that queue, each flow's frames in order, none twice. Then a frame sent on each
// TX queue leaves from that queue.
static void test_flows(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev =
	    open_mq(&nic, MODEL_VIRTIO_MODERN_ONLY, MODEL_VIRTIO_F_MQ | MODEL_VIRTIO_F_RSS, QUEUES, QUEUES, NULL);
	CHECK(dev != NULL);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	struct ixy_rss predicted;
	ixy_rss_default(&predicted, QUEUES);
	uint32_t next_seq[FLOWS + 1] = {0}; // per flow (FLOWS: ARP), the next sequence number expected
	uint32_t per_queue[QUEUES] = {0}, predicted_per_queue[QUEUES] = {0}, mismatches = 0, out_of_order = 0;
	uint16_t flow_queue[FLOWS + 1] = {0};
	for (uint32_t round = 0; round < ROUNDS; round++) {
		for (uint32_t f = 0; f <= FLOWS; f++) {
			uint8_t frame[128];
			uint32_t len = 64 + f;
			uint32_t seq = round << 16 | f; // round in the high bits, flow in the low
			if (f < FLOWS) {
				struct flow fl = flow_of(f);
				rss_test_frame(frame, len, fl.src, fl.dst, fl.src_port, fl.dst_port, fl.proto, 0, 0,
					       seq);
			} else {
				memset(frame, 0, len);
				frame[12] = 0x08;
				frame[13] = 0x06; // ARP
				memcpy(frame + len - 4, &seq, 4);
			}
			uint16_t queue = ixy_rss_queue(&predicted, frame, len);
			predicted_per_queue[queue]++;
			CHECK_EQ(model_virtio_rx(nic, frame, len), MODEL_VIRTIO_RX_DELIVERED);
			mismatches += model_virtio_last_rx_queue(nic) != queue;
			if (round == 0) {
				flow_queue[f] = queue;
			}
			mismatches += flow_queue[f] != queue; // a flow stays on its queue
		}
		// The app polls each queue; each frame must come on the queue predicted, in order per flow.
		for (uint16_t q = 0; q < QUEUES; q++) {
			struct pkt_buf* bufs[64];
			uint32_t n = ixy_rx_batch(dev, q, bufs, 64);
			for (uint32_t i = 0; i < n; i++) {
				uint32_t seq = model_test_frame_seq(bufs[i]->data, bufs[i]->size);
				uint32_t f = seq & 0xffff;
				CHECK(f <= FLOWS);
				if (f <= FLOWS) {
					mismatches += flow_queue[f] != q;
					out_of_order += (seq >> 16) != next_seq[f];
					next_seq[f] = (seq >> 16) + 1;
				}
				per_queue[q]++;
				pkt_buf_free(bufs[i]);
			}
		}
	}
	for (uint16_t q = 0; q < QUEUES; q++) {
		printf("queue_%u_rx=%u predicted=%u\n", q, per_queue[q], predicted_per_queue[q]);
		CHECK_EQ(per_queue[q], predicted_per_queue[q]);
		CHECK(per_queue[q] > 0); // 64 flows spread over all four
	}
	CHECK_EQ(mismatches, 0);
	CHECK_EQ(out_of_order, 0);
	for (uint32_t f = 0; f <= FLOWS; f++) {
		CHECK_EQ(next_seq[f], ROUNDS); // every frame of every flow arrived, once
	}
	// TX: one frame on each queue leaves from that queue.
	struct mempool* pool = memory_allocate_mempool(64, 2048);
	CHECK(pool != NULL);
	for (uint16_t q = 0; pool && q < QUEUES; q++) {
		struct pkt_buf* buf = pkt_buf_alloc(pool);
		buf->size = 60;
		memset(buf->data, 0, 60);
		buf->data[59] = (uint8_t)q;
		CHECK_EQ(ixy_tx_batch(dev, q, &buf, 1), 1);
	}
	CHECK_EQ(model_virtio_tx_count(nic), QUEUES);
	for (uint32_t i = 0; i < model_virtio_tx_count(nic); i++) {
		uint32_t len;
		const uint8_t* frame = model_virtio_tx_frame(nic, i, &len);
		CHECK_EQ(model_virtio_tx_frame_queue(nic, i), frame[59]);
	}
	CHECK_NO_NEW_VIOLATIONS();
	ixy_close(dev);
	memory_free_mempool(pool);
	model_pci_remove_all();
}

// ---- Statistics with the queues in threads (ixy.h, "Threads")

#define STATS_PAIRS 2
#define STATS_ROUNDS 20000
#define STATS_BATCH 8

struct stats_worker {
	struct ixy_device* dev;
	struct model_virtio* nic;
	uint16_t queue;
	uint64_t moved, bytes_moved; // frames received and then sent, their bytes with CRC as the driver counts them
	uint32_t failures;           // a frame not delivered, received or sent as expected
};

static atomic_int stats_workers_done;

// One queue pair's thread, as in ixy-fwd --queues: offers STATS_BATCH frames on its RX queue (model_virtio_rx_on,
// under the model lock, as a NIC would while the app runs), receives them and sends them on its TX queue, which the
// model sends at once (on the notification). At the end an empty batch counts what the device took last.
static void* stats_worker(void* arg) {
	struct stats_worker* w = arg;
	uint8_t frame[128] = {0};
	for (uint32_t round = 0; round < STATS_ROUNDS; round++) {
		uint32_t len = 60 + (round + w->queue) % 64;
		frame[0] = (uint8_t)w->queue;
		model_lock();
		for (uint32_t i = 0; i < STATS_BATCH; i++) {
			w->failures += model_virtio_rx_on(w->nic, w->queue, frame, len) != MODEL_VIRTIO_RX_DELIVERED;
		}
		if (w->queue == 0 && round % 256 == 0) {
			model_virtio_clear_tx(w->nic); // the model records every frame sent: keep that small
		}
		model_unlock();
		struct pkt_buf* bufs[STATS_BATCH];
		uint32_t n = ixy_rx_batch(w->dev, w->queue, bufs, STATS_BATCH);
		w->failures += n != STATS_BATCH;
		uint32_t sent = ixy_tx_batch(w->dev, w->queue, bufs, n);
		w->failures += sent != n;
		pkt_buf_free_batch(bufs + sent, n - sent);
		w->moved += sent;
		w->bytes_moved += (uint64_t)sent * (len + IXY_ETHER_CRC_BYTES);
	}
	ixy_tx_batch(w->dev, w->queue, NULL, 0);
	atomic_fetch_add(&stats_workers_done, 1);
	return NULL;
}

// The driver counts in each queue, written by the queue's thread only, and read_stats (here the main thread, while
// the workers run) only reads them: every packet moved must be in the sums of all reads, once. A read_stats that
// resets what another thread counts loses the packets counted between its read and its reset.
static void test_stats_threads(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_mq(&nic, MODEL_VIRTIO_MODERN_ONLY, MODEL_VIRTIO_F_MQ | MODEL_VIRTIO_F_RSS,
					 STATS_PAIRS, STATS_PAIRS, NULL);
	CHECK(dev != NULL);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	struct stats_worker workers[STATS_PAIRS];
	pthread_t threads[STATS_PAIRS];
	atomic_store(&stats_workers_done, 0);
	for (uint16_t q = 0; q < STATS_PAIRS; q++) {
		workers[q] = (struct stats_worker){.dev = dev, .nic = nic, .queue = q};
		CHECK_EQ(pthread_create(&threads[q], NULL, stats_worker, &workers[q]), 0);
	}
	struct device_stats stats;
	memset(&stats, 0, sizeof(stats));
	uint64_t reads = 0;
	while (atomic_load(&stats_workers_done) < STATS_PAIRS) {
		ixy_read_stats(dev, &stats);
		reads++;
	}
	for (uint16_t q = 0; q < STATS_PAIRS; q++) {
		CHECK_EQ(pthread_join(threads[q], NULL), 0);
	}
	ixy_read_stats(dev, &stats);
	uint64_t moved = 0, bytes_moved = 0;
	for (uint16_t q = 0; q < STATS_PAIRS; q++) {
		CHECK_EQ(workers[q].failures, 0);
		moved += workers[q].moved;
		bytes_moved += workers[q].bytes_moved;
	}
	printf("moved=%llu reads=%llu rx_pkts=%llu tx_pkts=%llu rx_bytes=%llu tx_bytes=%llu rx_dropped=%llu\n",
	       (unsigned long long)moved, (unsigned long long)reads, (unsigned long long)stats.rx_pkts,
	       (unsigned long long)stats.tx_pkts, (unsigned long long)stats.rx_bytes,
	       (unsigned long long)stats.tx_bytes, (unsigned long long)stats.rx_dropped);
	CHECK_EQ(moved, (uint64_t)STATS_PAIRS * STATS_ROUNDS * STATS_BATCH);
	CHECK(reads > 1); // the reads overlapped the workers
	CHECK_EQ(stats.rx_pkts, moved);
	CHECK_EQ(stats.tx_pkts, moved);
	CHECK_EQ(stats.rx_bytes, bytes_moved);
	CHECK_EQ(stats.tx_bytes, bytes_moved);
	CHECK_EQ(stats.rx_dropped, 0);
	CHECK_NO_NEW_VIOLATIONS();
	ixy_close(dev);
	model_pci_remove_all();
}

int main(void) {
	test_model_hash();
	for (int packed = 0; packed <= 1; packed++) {
		layout_features = packed ? MODEL_VIRTIO_F_RING_PACKED : 0;
		fprintf(stderr, "-- %s virtqueues\n", packed ? "packed" : "split");
		test_commands_default();
		test_commands_app_table();
		test_one_queue_unchanged();
		test_fewer_rx_queues();
		test_legacy_mq();
		test_refusals();
		test_flows();
		test_stats_threads();
	}
	return model_test_summary();
}
