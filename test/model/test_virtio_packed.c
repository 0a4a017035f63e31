// What only packed virtqueues (src/driver/virtio_packed.c, VirtIO 1.2 2.8) and event indexes (VIRTIO_RING_F_EVENT_IDX,
// 2.7.7, 2.7.10, 2.8.10) have, against the VirtIO model (virtio_model.h): both wrap counters many times round a small
// ring, used descriptors with flags against the device's wrap counter or beyond what the device holds (RX and TX),
// IXY_VIRTIO_SPLIT forcing split virtqueues on a device that offers packed ones, and kicks only where the device
// asked for them. The packet tests of test_virtio.c and test_virtio_rss.c also run on packed virtqueues.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ixy/ixy.h>
#include <ixy/memory.h>

#include "../check.h"
#include "model_test.h"
#include "seam.h"
#include "virtio_model.h"

#define NIC_ADDR "0000:04:00.0"
static const uint8_t nic_mac[6] = {0x02, 0x00, 0x00, 0x01, 0x04, 0x00}; // the model's MAC for 04:00.0
#define PACKED_BIT 34
#define EVENT_IDX_BIT 29

// A modern-only device offering the default features and `extra`, with queues of at most queue_max descriptors.
static struct ixy_device* open_nic(struct model_virtio** nic, uint64_t extra, uint16_t queue_max) {
	*nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_MODERN_ONLY);
	model_virtio_offer(*nic, MODEL_VIRTIO_DEFAULT_FEATURES | extra);
	model_virtio_set_queue_max(*nic, queue_max);
	struct ixy_config config = {.pci_addr = NIC_ADDR, .rx_queues = 1, .tx_queues = 1};
	struct ixy_device* dev = ixy_init_config(&config);
	CHECK(dev != NULL);
	return dev;
}

static void close_nic(struct ixy_device* dev) {
	ixy_close(dev);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

static unsigned count_of(const char* text, const char* needle) {
	unsigned n = 0;
	for (const char* at = strstr(text, needle); at; at = strstr(at + 1, needle)) {
		n++;
	}
	return n;
}

static uint32_t frame_len_for(uint32_t seq) {
	return 60 + (seq * 37) % 1455;
}

// Packets seq .. seq + n - 1 from pool, test frames of their lengths.
static void fill_packets(struct mempool* pool, struct pkt_buf** bufs, uint32_t n, uint32_t seq) {
	CHECK_EQ(pkt_buf_alloc_batch(pool, bufs, n), n);
	for (uint32_t i = 0; i < n; i++) {
		bufs[i]->size = frame_len_for(seq + i);
		model_test_frame(bufs[i]->data, bufs[i]->size, nic_mac, seq + i);
	}
}

// A ring of `size` descriptors, 40 times round for RX and TX, in batches that do not divide it (3 and 5): every
// frame arrives and leaves byte for byte, and the model's used position (and wrap counter) comes back to the start
// of the ring with the counter flipped each round. A driver whose wrap counter did not flip would see the device's
// used descriptors of the second round as not used (RX stalls) or make descriptors available the device takes for
// used ones (the model reports it). Sizes that are no power of two too (VirtIO 1.2, 2.8 allows any up to 32768):
// the device offers 7 or 1000 and the driver, asking for its default (1024), takes it; a driver that wrapped
// positions with a mask would run off the ring's end or refuse the queue.
static void test_wrap_around(uint16_t size) {
	model_test_begin(__func__);
	fprintf(stderr, "-- ring of %u\n", size);
	struct model_virtio* nic;
	struct ixy_device* dev = open_nic(&nic, MODEL_VIRTIO_F_RING_PACKED, size);
	struct mempool* pool = memory_allocate_mempool(64, 0);
	if (!dev || !pool) {
		model_pci_remove_all();
		return;
	}
	CHECK(model_virtio_packed(nic, MODEL_VIRTIO_RX) && model_virtio_packed(nic, MODEL_VIRTIO_TX));
	CHECK_EQ(model_virtio_queue_size(nic, MODEL_VIRTIO_RX), size);
	CHECK_EQ(model_virtio_queue_size(nic, MODEL_VIRTIO_TX), size);
	const uint32_t total = size * 40u;
	uint32_t delivered = 0, received = 0, flips = 0;
	bool last_wrap = true;
	while (received < total) {
		for (uint32_t i = 0; i < 3 && delivered < total; i++, delivered++) {
			uint8_t frame[1514];
			model_test_frame(frame, frame_len_for(delivered), nic_mac, delivered);
			CHECK_EQ(model_virtio_rx(nic, frame, frame_len_for(delivered)), MODEL_VIRTIO_RX_DELIVERED);
		}
		struct pkt_buf* bufs[8];
		uint32_t n = ixy_rx_batch(dev, 0, bufs, 8);
		for (uint32_t i = 0; i < n; i++, received++) {
			uint8_t frame[1514];
			model_test_frame(frame, frame_len_for(received), nic_mac, received);
			CHECK(bufs[i]->size == frame_len_for(received) &&
			      memcmp(bufs[i]->data, frame, bufs[i]->size) == 0);
		}
		pkt_buf_free_batch(bufs, n);
		uint16_t slot;
		bool wrap;
		model_virtio_used_position(nic, MODEL_VIRTIO_RX, &slot, &wrap);
		flips += wrap != last_wrap;
		last_wrap = wrap;
		if (n == 0) {
			break; // a stall: the check below fails
		}
	}
	CHECK_EQ(received, total);
	CHECK(flips >= 39); // the device went round 40 times
	// TX: 5 at a time, the device sending each batch on notify.
	uint32_t sent = 0;
	while (sent < total) {
		struct pkt_buf* bufs[5];
		uint32_t n = total - sent < 5 ? total - sent : 5;
		fill_packets(pool, bufs, n, sent);
		uint32_t queued = ixy_tx_batch(dev, 0, bufs, n);
		CHECK_EQ(queued, n);
		pkt_buf_free_batch(&bufs[queued], n - queued);
		sent += n;
		if (queued == 0) {
			break;
		}
	}
	CHECK_EQ(model_virtio_tx_count(nic), total);
	for (uint32_t i = 0; i < model_virtio_tx_count(nic); i++) {
		uint32_t len;
		const uint8_t* frame = model_virtio_tx_frame(nic, i, &len);
		CHECK(len == frame_len_for(i) && model_test_frame_seq(frame, len) == i);
	}
	CHECK_EQ(ixy_tx_batch(dev, 0, NULL, 0), 0);
	CHECK_EQ(pool->free_stack_top, 64); // every sent buffer freed
	close_nic(dev);
	memory_free_mempool(pool);
}

// Used descriptors the device gets wrong on RX: flags against its wrap counter (USED set to it, AVAIL not) are
// dropped, counted in rx_dropped and reported once; a length beyond the buffer and an id beyond the ring too (their
// cases run in test_virtio.c on packed rings as well). The good frame before them is delivered.
static void test_bad_rx_flags(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_nic(&nic, MODEL_VIRTIO_F_RING_PACKED, 64);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	model_test_capture_start();
	uint8_t frame[1514];
	model_test_frame(frame, 100, nic_mac, 0);
	CHECK_EQ(model_virtio_rx(nic, frame, 100), MODEL_VIRTIO_RX_DELIVERED);
	uint16_t id, slot;
	bool wrap;
	CHECK(model_virtio_take(nic, MODEL_VIRTIO_RX, &id));
	model_virtio_used_position(nic, MODEL_VIRTIO_RX, &slot, &wrap);
	// The previous round's AVAIL with this round's USED: no device writes this.
	model_virtio_put_used_raw(
	    nic, MODEL_VIRTIO_RX, slot, id, 112,
	    (uint16_t)((wrap ? 0 : MODEL_VIRTIO_DESC_F_AVAIL) | (wrap ? MODEL_VIRTIO_DESC_F_USED : 0)));
	struct pkt_buf* bufs[8];
	CHECK_EQ(ixy_rx_batch(dev, 0, bufs, 8), 1);
	CHECK_EQ(bufs[0]->size, 100);
	pkt_buf_free(bufs[0]);
	CHECK_EQ(ixy_rx_batch(dev, 0, bufs, 8), 0);
	char* text = model_test_capture_end();
	CHECK_EQ(count_of(text, "ixy: warning"), 1);
	CHECK(strstr(text, "flags against its wrap counter") != NULL);
	free(text);
	struct device_stats stats;
	memset(&stats, 0, sizeof(stats));
	ixy_read_stats(dev, &stats);
	CHECK_EQ(stats.rx_pkts, 1);
	CHECK_EQ(stats.rx_dropped, 1);
	model_test_capture_start();
	ixy_close(dev);
	text = model_test_capture_end();
	CHECK(strstr(text, "1 bad used ring entries ignored") != NULL);
	free(text);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// RX: used descriptors ahead of what the driver made available (a hostile device, 2.8: it holds only the
// descriptors the driver gave it). A ring of 8; a used descriptor with flags against the wrap counter is dropped
// and not made available again, so the device holds 7 (slots 1..7). It then writes 8 used descriptors with the
// right wrap bits: slots 1..7 naming no buffer (id 100: dropped, not offered again either), and slot 0 of the next
// round, which the driver never made available (buffer 0 sits in its table, unoffered), naming buffer 0. The
// driver reads 7 (in_flight bounds what it reads) and receives nothing; one that read on would hand out buffer 0,
// which the device never had, as a packet.
static void test_used_beyond_in_flight(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_nic(&nic, MODEL_VIRTIO_F_RING_PACKED, 8);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	model_test_capture_start();
	uint16_t id, slot;
	bool wrap;
	CHECK(model_virtio_take(nic, MODEL_VIRTIO_RX, &id));
	model_virtio_used_position(nic, MODEL_VIRTIO_RX, &slot, &wrap);
	CHECK(slot == 0 && wrap && id == 0);
	const uint16_t used_lap1 = MODEL_VIRTIO_DESC_F_AVAIL | MODEL_VIRTIO_DESC_F_USED, used_lap2 = 0;
	model_virtio_put_used_raw(nic, MODEL_VIRTIO_RX, 0, 0, 72, MODEL_VIRTIO_DESC_F_USED); // AVAIL of lap 2
	struct pkt_buf* bufs[16];
	CHECK_EQ(ixy_rx_batch(dev, 0, bufs, 16), 0);
	for (uint16_t s = 1; s < 8; s++) {
		model_virtio_put_used_raw(nic, MODEL_VIRTIO_RX, s, 100, 72, used_lap1);
	}
	model_virtio_put_used_raw(nic, MODEL_VIRTIO_RX, 0, 0, 72, used_lap2); // never made available in lap 2
	uint32_t n = ixy_rx_batch(dev, 0, bufs, 16);
	CHECK_EQ(n, 0);
	pkt_buf_free_batch(bufs, n);
	CHECK_EQ(ixy_rx_batch(dev, 0, bufs, 16), 0);
	char* text = model_test_capture_end();
	CHECK_EQ(count_of(text, "ixy: warning"), 1); // bad used descriptors are reported once
	free(text);
	struct device_stats stats;
	memset(&stats, 0, sizeof(stats));
	ixy_read_stats(dev, &stats);
	CHECK_EQ(stats.rx_pkts, 0);
	CHECK_EQ(stats.rx_dropped, 8);
	model_test_capture_start();
	ixy_close(dev);
	free(model_test_capture_end());
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// TX: used descriptors beyond those the device holds are not read (two packets in flight, three used descriptors
// written: the third names a buffer already returned and is never looked at); an id the device does not hold, and
// a descriptor with flags against the wrap counter, are counted and reported once, and no buffer is freed twice or
// lost: at close the pool is whole.
static void test_bad_tx_descriptors(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_nic(&nic, MODEL_VIRTIO_F_RING_PACKED, 64);
	struct mempool* pool = memory_allocate_mempool(256, 0);
	if (!dev || !pool) {
		model_pci_remove_all();
		return;
	}
	model_virtio_tx_on_notify(nic, false);
	model_test_capture_start();
	struct pkt_buf* bufs[8];
	fill_packets(pool, bufs, 2, 0);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 2), 2);
	uint16_t ids[2], slot;
	bool wrap;
	CHECK(model_virtio_take(nic, MODEL_VIRTIO_TX, &ids[0]));
	CHECK(model_virtio_take(nic, MODEL_VIRTIO_TX, &ids[1]));
	model_virtio_used_position(nic, MODEL_VIRTIO_TX, &slot, &wrap);
	uint16_t used = wrap ? MODEL_VIRTIO_DESC_F_AVAIL | MODEL_VIRTIO_DESC_F_USED : 0;
	model_virtio_put_used_raw(nic, MODEL_VIRTIO_TX, slot, ids[0], 0, used);
	model_virtio_put_used_raw(nic, MODEL_VIRTIO_TX, (uint16_t)(slot + 1), ids[1], 0, used);
	model_virtio_put_used_raw(nic, MODEL_VIRTIO_TX, (uint16_t)(slot + 2), ids[0], 0, used); // beyond: not read
	CHECK_EQ(ixy_tx_batch(dev, 0, NULL, 0), 0);
	CHECK_EQ(pool->free_stack_top, 256);
	char* text = model_test_capture_end();
	CHECK_EQ(count_of(text, "ixy: warning"), 0);
	free(text);
	// Slots 2 and 3 now: an id never offered, and flags of the other round.
	model_test_capture_start();
	fill_packets(pool, bufs, 2, 2);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 2), 2);
	model_virtio_put_used_raw(nic, MODEL_VIRTIO_TX, (uint16_t)(slot + 2), 5, 0, used);
	model_virtio_put_used_raw(nic, MODEL_VIRTIO_TX, (uint16_t)(slot + 3), ids[0], 0,
				  (uint16_t)(used ^ MODEL_VIRTIO_DESC_F_AVAIL));
	CHECK_EQ(ixy_tx_batch(dev, 0, NULL, 0), 0);
	text = model_test_capture_end();
	CHECK_EQ(count_of(text, "ixy: warning"), 1);
	free(text);
	CHECK_EQ(pool->free_stack_top, 256 - 2); // both still held by the device, as far as the driver knows
	model_test_capture_start();
	ixy_close(dev);
	text = model_test_capture_end();
	CHECK(strstr(text, "2 bad used ring entries ignored") != NULL);
	free(text);
	CHECK_EQ(pool->free_stack_top, 256); // virtio_stop gave the two back
	memory_free_mempool(pool);
	model_pci_remove_all();
}

// IXY_VIRTIO_SPLIT=1 (ixy_config.virtio_split, src/checks.c): split virtqueues on a device that offers packed ones;
// without it packed. The init line names the layout, and the features it prints have bit 34 as negotiated.
static void test_split_switch(void) {
	model_test_begin(__func__);
	for (int split = 0; split <= 1; split++) {
		if (split) {
			CHECK_EQ(setenv("IXY_VIRTIO_SPLIT", "1", 1), 0);
		}
		model_test_capture_start();
		struct model_virtio* nic;
		struct ixy_device* dev = open_nic(&nic, MODEL_VIRTIO_F_RING_PACKED, 64);
		char* text = model_test_capture_end();
		unsetenv("IXY_VIRTIO_SPLIT");
		if (!dev) {
			free(text);
			model_pci_remove_all();
			return;
		}
		CHECK_EQ(model_virtio_packed(nic, MODEL_VIRTIO_RX), !split);
		CHECK_EQ((model_virtio_driver_features(nic) >> PACKED_BIT) & 1, (uint64_t)!split);
		const char* line = strstr(text, "VirtIO modern interface, ");
		CHECK(line != NULL);
		if (line) {
			const char* word = line + strlen("VirtIO modern interface, ");
			CHECK(strncmp(word, split ? "split virtqueues" : "packed virtqueues", split ? 16 : 17) == 0);
			const char* hex = strstr(line, "features 0x");
			CHECK(hex && ((strtoull(hex + strlen("features 0x"), NULL, 16) >> PACKED_BIT) & 1) ==
					 (uint64_t)!split);
		}
		free(text);
		// Frames flow either way.
		uint8_t frame[1514];
		model_test_frame(frame, 200, nic_mac, 7);
		CHECK_EQ(model_virtio_rx(nic, frame, 200), MODEL_VIRTIO_RX_DELIVERED);
		struct pkt_buf* buf;
		CHECK_EQ(ixy_rx_batch(dev, 0, &buf, 1), 1);
		pkt_buf_free(buf);
		close_nic(dev);
	}
}

// Kicks with VIRTIO_RING_F_EVENT_IDX, on split (avail_event, 2.7.10) and packed rings (DESC at off_wrap, 2.8.10):
// the device asks to be notified when a given descriptor is made available. Batches before it cause no notification,
// the batch that passes it one, and the batches after it none again. Without EVENT_IDX offered, every batch
// notifies (the model asks for all of them) and the feature is not accepted.
static void test_event_idx_kicks(void) {
	for (int packed = 0; packed <= 1; packed++) {
		model_test_begin(__func__);
		struct model_virtio* nic;
		uint64_t ring = packed ? MODEL_VIRTIO_F_RING_PACKED : 0;
		struct ixy_device* dev = open_nic(&nic, ring | MODEL_VIRTIO_F_EVENT_IDX, 64);
		struct mempool* pool = memory_allocate_mempool(256, 0);
		if (!dev || !pool) {
			model_pci_remove_all();
			return;
		}
		fprintf(stderr, "-- %s\n", packed ? "packed" : "split");
		CHECK((model_virtio_driver_features(nic) >> EVENT_IDX_BIT) & 1);
		model_virtio_tx_on_notify(nic, false);
		// Packed: descriptor 10 of the first round (wrap counter 1); split: available index 10.
		model_virtio_kick_at(nic, MODEL_VIRTIO_TX, true, packed ? (uint16_t)(10 | 1u << 15) : 10);
		uint32_t before = model_virtio_notifications(nic, MODEL_VIRTIO_TX);
		struct pkt_buf* bufs[8];
		fill_packets(pool, bufs, 8, 0); // descriptors 0 .. 7
		CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 8), 8);
		CHECK_EQ(model_virtio_notifications(nic, MODEL_VIRTIO_TX), before);
		fill_packets(pool, bufs, 4, 8); // 8 .. 11: passes 10
		CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 4), 4);
		CHECK_EQ(model_virtio_notifications(nic, MODEL_VIRTIO_TX), before + 1);
		fill_packets(pool, bufs, 4, 12); // 12 .. 15
		CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 4), 4);
		CHECK_EQ(model_virtio_notifications(nic, MODEL_VIRTIO_TX), before + 1);
		CHECK(!model_virtio_kick_owed(nic, MODEL_VIRTIO_TX));
		CHECK_EQ(model_virtio_tx_process(nic), 16);
		CHECK_EQ(ixy_tx_batch(dev, 0, NULL, 0), 0);
		// Without a request of its own the model asks for the next descriptor: every batch notifies.
		model_virtio_kick_at(nic, MODEL_VIRTIO_TX, false, 0);
		model_virtio_tx_on_notify(nic, true);
		for (uint32_t round = 0; round < 3; round++) {
			uint32_t seen = model_virtio_notifications(nic, MODEL_VIRTIO_TX);
			fill_packets(pool, bufs, 4, 16 + 4 * round);
			CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 4), 4);
			CHECK_EQ(model_virtio_notifications(nic, MODEL_VIRTIO_TX), seen + 1);
		}
		CHECK_EQ(model_virtio_tx_count(nic), 28);
		ixy_close(dev);
		CHECK_EQ(pool->free_stack_top, 256);
		memory_free_mempool(pool);
		CHECK_NO_NEW_VIOLATIONS();
		model_pci_remove_all();
	}
	// Not offered: not accepted.
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_nic(&nic, 0, 64);
	CHECK(dev && !((model_virtio_driver_features(nic) >> EVENT_IDX_BIT) & 1));
	if (dev) {
		close_nic(dev);
	}
}

// RX, a ring of 8: the device returns its first buffer under an id beyond the ring (dropped, the descriptor not made
// available again: it is lost), so from then on the driver makes descriptors available one position behind where
// it takes used ones, and each run must end where either position reaches the ring's end. Then 40 rounds of the
// ring in batches of 3, every frame byte for byte. A driver that bounded its runs by the used position only would
// write past the ring's end; one that did not write the id into the descriptor it makes available would offer
// buffers under the ids the device left there (first the bad one).
static void test_lost_descriptor_then_wraps(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_nic(&nic, MODEL_VIRTIO_F_RING_PACKED, 8);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	model_test_capture_start();
	uint16_t id;
	CHECK(model_virtio_take(nic, MODEL_VIRTIO_RX, &id));
	model_virtio_put_used(nic, MODEL_VIRTIO_RX, 100, 72);
	struct pkt_buf* bufs[8];
	CHECK_EQ(ixy_rx_batch(dev, 0, bufs, 8), 0);
	const uint32_t total = 7 * 40; // the device holds 7 buffers now
	uint32_t delivered = 0, received = 0;
	while (received < total) {
		for (uint32_t i = 0; i < 3 && delivered < total; i++, delivered++) {
			uint8_t frame[1514];
			model_test_frame(frame, frame_len_for(delivered), nic_mac, delivered);
			CHECK_EQ(model_virtio_rx(nic, frame, frame_len_for(delivered)), MODEL_VIRTIO_RX_DELIVERED);
		}
		uint32_t n = ixy_rx_batch(dev, 0, bufs, 8);
		for (uint32_t i = 0; i < n; i++, received++) {
			uint8_t frame[1514];
			model_test_frame(frame, frame_len_for(received), nic_mac, received);
			CHECK(bufs[i]->size == frame_len_for(received) &&
			      memcmp(bufs[i]->data, frame, bufs[i]->size) == 0);
		}
		pkt_buf_free_batch(bufs, n);
		if (n == 0) {
			break; // a stall: the check below fails
		}
	}
	CHECK_EQ(received, total);
	free(model_test_capture_end());
	struct device_stats stats;
	memset(&stats, 0, sizeof(stats));
	ixy_read_stats(dev, &stats);
	CHECK_EQ(stats.rx_pkts, total);
	CHECK_EQ(stats.rx_dropped, 1);
	model_test_capture_start();
	ixy_close(dev);
	free(model_test_capture_end());
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// TX, a ring of 7: after a buffer returned out of order, a used descriptor names id 7, the ring's size: no buffer
// the device holds (the table has 7 entries), counted, nothing freed for it. A bound of "id <= size" would read
// the table's eighth entry, beyond its end (here the heap's next chunk header: not NULL).
static void test_tx_id_at_ring_size(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_nic(&nic, MODEL_VIRTIO_F_RING_PACKED, 7);
	struct mempool* pool = memory_allocate_mempool(64, 0);
	if (!dev || !pool) {
		model_pci_remove_all();
		return;
	}
	model_virtio_tx_on_notify(nic, false);
	model_test_capture_start();
	struct pkt_buf* bufs[2];
	fill_packets(pool, bufs, 2, 0);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 2), 2);
	uint16_t ids[2], slot;
	bool wrap;
	CHECK(model_virtio_take(nic, MODEL_VIRTIO_TX, &ids[0]));
	CHECK(model_virtio_take(nic, MODEL_VIRTIO_TX, &ids[1]));
	model_virtio_used_position(nic, MODEL_VIRTIO_TX, &slot, &wrap);
	uint16_t used = wrap ? MODEL_VIRTIO_DESC_F_AVAIL | MODEL_VIRTIO_DESC_F_USED : 0;
	model_virtio_put_used_raw(nic, MODEL_VIRTIO_TX, slot, ids[1], 0, used); // out of order
	model_virtio_put_used_raw(nic, MODEL_VIRTIO_TX, (uint16_t)(slot + 1), 7, 0, used);
	CHECK_EQ(ixy_tx_batch(dev, 0, NULL, 0), 0);
	CHECK_EQ(pool->free_stack_top, 64 - 1); // ids[1] sent and freed, ids[0] still with the device
	char* text = model_test_capture_end();
	CHECK_EQ(count_of(text, "a chain it does not hold"), 1);
	free(text);
	model_test_capture_start();
	ixy_close(dev);
	text = model_test_capture_end();
	CHECK(strstr(text, "1 bad used ring entries ignored") != NULL);
	free(text);
	CHECK_EQ(pool->free_stack_top, 64);
	memory_free_mempool(pool);
	model_pci_remove_all();
}

// Split queues must have a power of two (2.7): with packed ones not negotiated (IXY_VIRTIO_SPLIT), a device that
// offers 1000 descriptors is refused, with a line saying why, and the device is left failed.
static void test_split_needs_power_of_two(void) {
	model_test_begin(__func__);
	CHECK_EQ(setenv("IXY_VIRTIO_SPLIT", "1", 1), 0);
	struct model_virtio* nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_MODERN_ONLY);
	model_virtio_offer(nic, MODEL_VIRTIO_DEFAULT_FEATURES | MODEL_VIRTIO_F_RING_PACKED);
	model_virtio_set_queue_max(nic, 1000);
	struct ixy_config config = {.pci_addr = NIC_ADDR, .rx_queues = 1, .tx_queues = 1};
	model_test_capture_start();
	struct ixy_device* dev = ixy_init_config(&config);
	char* text = model_test_capture_end();
	unsetenv("IXY_VIRTIO_SPLIT");
	CHECK(dev == NULL);
	CHECK(strstr(text, "has size 1000, expected a power of two") != NULL);
	free(text);
	CHECK(model_virtio_driver_failed(nic));
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

int main(void) {
	test_wrap_around(8);
	test_wrap_around(7);
	test_wrap_around(1000);
	test_split_needs_power_of_two();
	test_lost_descriptor_then_wraps();
	test_tx_id_at_ring_size();
	test_bad_rx_flags();
	test_used_beyond_in_flight();
	test_bad_tx_descriptors();
	test_split_switch();
	test_event_idx_kicks();
	return model_test_summary();
}
