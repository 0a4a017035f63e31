// The VirtIO driver's notifications against the VirtIO model's requests (issue 29): on split rings with
// VIRTIO_RING_F_EVENT_IDX (2.7.10) and on packed rings with and without it (2.8.10), the device asks for a kick at
// different places (always, at an event index or descriptor offset, never); after every TX batch the driver must
// owe the device no kick (model_virtio_kick_owed), and the model, which sends only when notified, has sent every
// frame; nor may the driver kick where the device did not ask (model_virtio_needless_notifications). A driver that
// skips a kick the device asked for leaves frames unsent, one that kicks every batch wastes exits; both fail here.
// On packed rings the same again with the reserved bits of the device's event flags set (2.8.14: the driver reads
// only the 2-bit field), and with the reserved value 3 in that field, which ixy takes as ENABLE.
#include <stdlib.h>
#include <string.h>

#include <ixy/ixy.h>
#include <ixy/memory.h>

#include "../check.h"
#include "model_test.h"
#include "virtio_model.h"

#define ADDR "0000:0b:00.0"
#define RING 64
#define BATCH 24 // not a divisor of the ring: batches end at every offset in turn

struct setup {
	const char* name;
	uint64_t features;
	bool packed;
	uint16_t reserved; // set in the device's event flags beside its request (model_virtio_event_flags_extra)
};
#define RESERVED_BITS 0xfffc // 2.8.14: bits 2-15 of the flags

static const struct setup setups[] = {
    {"split, EVENT_IDX", MODEL_VIRTIO_DEFAULT_FEATURES | MODEL_VIRTIO_F_EVENT_IDX, false, 0},
    {"packed", MODEL_VIRTIO_DEFAULT_FEATURES | MODEL_VIRTIO_F_RING_PACKED, true, 0},
    {"packed, EVENT_IDX", MODEL_VIRTIO_DEFAULT_FEATURES | MODEL_VIRTIO_F_RING_PACKED | MODEL_VIRTIO_F_EVENT_IDX, true,
     0},
    {"packed, reserved bits", MODEL_VIRTIO_DEFAULT_FEATURES | MODEL_VIRTIO_F_RING_PACKED, true, RESERVED_BITS},
    {"packed, EVENT_IDX, reserved bits",
     MODEL_VIRTIO_DEFAULT_FEATURES | MODEL_VIRTIO_F_RING_PACKED | MODEL_VIRTIO_F_EVENT_IDX, true, RESERVED_BITS},
};

// One batch of BATCH frames: all taken, no kick owed after it. Returns whether the driver notified.
static bool one_batch(struct model_virtio* nic, struct ixy_device* dev, struct mempool* pool) {
	struct pkt_buf* bufs[BATCH];
	CHECK_EQ(pkt_buf_alloc_batch(pool, bufs, BATCH), BATCH);
	for (unsigned i = 0; i < BATCH; i++) {
		bufs[i]->size = 60;
		memset(bufs[i]->data, (int)i, 60);
	}
	uint32_t kicks = model_virtio_notifications(nic, MODEL_VIRTIO_TX);
	uint32_t sent = ixy_tx_batch(dev, 0, bufs, BATCH);
	CHECK_EQ(sent, BATCH);
	pkt_buf_free_batch(bufs + sent, BATCH - sent);
	CHECK(!model_virtio_kick_owed(nic, MODEL_VIRTIO_TX));
	CHECK_EQ(model_virtio_needless_notifications(nic, MODEL_VIRTIO_TX), 0); // and no kick it was not asked for
	return model_virtio_notifications(nic, MODEL_VIRTIO_TX) != kicks;
}

// Sends `batches` batches while the device asks to be notified of every one: everything reaches the wire.
static void send_batches(struct model_virtio* nic, struct ixy_device* dev, struct mempool* pool, unsigned batches) {
	for (unsigned b = 0; b < batches; b++) {
		uint32_t before = model_virtio_tx_count(nic);
		CHECK(one_batch(nic, dev, pool));
		CHECK_EQ(model_virtio_tx_count(nic), before + BATCH);
	}
}

static void test_kicks(const struct setup* setup) {
	model_test_begin(setup->name);
	fprintf(stderr, "-- %s\n", setup->name);
	struct model_virtio* nic = model_virtio_add(ADDR, MODEL_VIRTIO_MODERN_ONLY);
	model_virtio_offer(nic, setup->features);
	struct ixy_device* dev = model_test_open(ADDR, RING);
	CHECK_EQ(model_virtio_packed(nic, MODEL_VIRTIO_TX), setup->packed);
	model_virtio_event_flags_extra(nic, setup->reserved);
	struct mempool* pool = memory_allocate_mempool(1024, 0);
	if (!pool) {
		model_usage_error("no mempool for the test");
	}
	// the default request: split with EVENT_IDX, the next entry the device takes; packed, always
	send_batches(nic, dev, pool, 8);
	// at given places (with EVENT_IDX): the driver kicks when it passes them, whichever batch that is
	for (uint16_t at = 0; (setup->features & MODEL_VIRTIO_F_EVENT_IDX) && at < 2 * RING; at += 13) {
		uint16_t event = setup->packed ? (uint16_t)(at % RING | (at < RING ? 0x8000 : 0)) : at;
		model_virtio_kick_at(nic, MODEL_VIRTIO_TX, true, event);
		uint32_t before = model_virtio_tx_count(nic);
		// a device that sends only when notified: without a kick (rightly, no kick is owed) nothing was sent
		if (!one_batch(nic, dev, pool)) {
			CHECK_EQ(model_virtio_tx_count(nic), before);
			model_virtio_tx_process(nic);
		}
		CHECK_EQ(model_virtio_tx_count(nic), before + BATCH);
	}
	model_virtio_kick_at(nic, MODEL_VIRTIO_TX, false, 0);
	send_batches(nic, dev, pool, 4);
	// never: not one kick more
	model_virtio_suppress_notify(nic, true);
	uint32_t kicks = model_virtio_notifications(nic, MODEL_VIRTIO_TX);
	struct pkt_buf* bufs[BATCH];
	for (unsigned b = 0; b < 6; b++) {
		CHECK_EQ(pkt_buf_alloc_batch(pool, bufs, BATCH), BATCH);
		for (unsigned i = 0; i < BATCH; i++) {
			bufs[i]->size = 60;
		}
		uint32_t sent = ixy_tx_batch(dev, 0, bufs, BATCH);
		pkt_buf_free_batch(bufs + sent, BATCH - sent);
		model_virtio_tx_process(nic);
	}
	CHECK_EQ(model_virtio_notifications(nic, MODEL_VIRTIO_TX), kicks);
	model_virtio_suppress_notify(nic, false);
	send_batches(nic, dev, pool, 2);
	CHECK_NO_NEW_VIOLATIONS();
	ixy_stop(dev);
	ixy_close(dev);
	memory_free_mempool(pool);
	model_pci_remove_all();
}

// With EVENT_IDX, the device asks for exactly the first descriptor (split: entry) of the next batch: that batch
// kicks; then for the last one of the batch before: the next batch must not kick (the device heard of it already).
// 20 batches of BATCH, so that the requests fall at every offset of the ring and across its end (packed: the wrap
// counter in the request is the round's). A driver whose idea of the batch's start is one off in either direction
// (vring_need_event's old index) fails one of the two.
static void test_kick_at_batch_edges(const struct setup* setup) {
	model_test_begin(__func__);
	fprintf(stderr, "-- %s: requests at the batch's first descriptor and just before it\n", setup->name);
	struct model_virtio* nic = model_virtio_add(ADDR, MODEL_VIRTIO_MODERN_ONLY);
	model_virtio_offer(nic, setup->features);
	struct ixy_device* dev = model_test_open(ADDR, RING);
	struct mempool* pool = memory_allocate_mempool(1024, 0);
	if (!pool) {
		model_usage_error("no mempool for the test");
	}
	for (unsigned b = 0; b < 20; b++) {
		model_virtio_tx_process(nic); // all sent and returned: the device's used position is the driver's next
		uint16_t next, before;
		if (setup->packed) {
			uint16_t slot;
			bool wrap;
			model_virtio_used_position(nic, MODEL_VIRTIO_TX, &slot, &wrap);
			next = (uint16_t)(slot | (wrap ? 0x8000 : 0));
			before = slot > 0 ? (uint16_t)(next - 1) : (uint16_t)((RING - 1) | (wrap ? 0 : 0x8000));
		} else {
			next = model_virtio_avail_idx(nic, MODEL_VIRTIO_TX);
			before = (uint16_t)(next - 1);
		}
		model_virtio_kick_at(nic, MODEL_VIRTIO_TX, true, b % 2 ? before : next);
		CHECK_EQ(one_batch(nic, dev, pool), b % 2 == 0); // one_batch: no kick owed, none needless
	}
	model_virtio_tx_process(nic);
	CHECK_NO_NEW_VIOLATIONS();
	ixy_stop(dev);
	ixy_close(dev);
	memory_free_mempool(pool);
	model_pci_remove_all();
}

// The reserved value 3 in the device's 2-bit field (2.8.14), whatever it asks for underneath: a notification for
// every batch, also where it would have said DISABLE or DESC (a kick too many costs the device a look at the ring,
// one too few stalls TX).
static void test_reserved_value(void) {
	model_test_begin(__func__);
	struct model_virtio* nic = model_virtio_add(ADDR, MODEL_VIRTIO_MODERN_ONLY);
	model_virtio_offer(nic, MODEL_VIRTIO_DEFAULT_FEATURES | MODEL_VIRTIO_F_RING_PACKED | MODEL_VIRTIO_F_EVENT_IDX);
	struct ixy_device* dev = model_test_open(ADDR, RING);
	struct mempool* pool = memory_allocate_mempool(1024, 0);
	if (!pool) {
		model_usage_error("no mempool for the test");
	}
	model_virtio_event_flags_extra(nic, 3);
	send_batches(nic, dev, pool, 3);
	model_virtio_kick_at(nic, MODEL_VIRTIO_TX, true, (uint16_t)(RING / 2)); // DESC, far behind: now 3 as well
	send_batches(nic, dev, pool, 3);
	model_virtio_kick_at(nic, MODEL_VIRTIO_TX, false, 0);
	model_virtio_suppress_notify(nic, true); // DISABLE: now 3 as well
	send_batches(nic, dev, pool, 3);
	CHECK_NO_NEW_VIOLATIONS();
	ixy_stop(dev);
	ixy_close(dev);
	memory_free_mempool(pool);
	model_pci_remove_all();
}

int main(void) {
	for (size_t i = 0; i < sizeof(setups) / sizeof(setups[0]); i++) {
		test_kicks(&setups[i]);
		if (setups[i].features & MODEL_VIRTIO_F_EVENT_IDX) {
			test_kick_at_batch_edges(&setups[i]);
		}
	}
	test_reserved_value();
	return model_test_summary();
}
