// The VirtIO driver's RX interrupt switch (ixy_interrupts.set_rx_interrupt, what ixy_waiter calls) against the
// VirtIO model, on the three ways a driver asks for interrupts: packed rings, the driver's event suppression area
// (ENABLE or DISABLE, VirtIO 1.2 2.8.10); split rings without VIRTIO_RING_F_EVENT_IDX, VRING_AVAIL_F_NO_INTERRUPT
// (2.7.7); split rings with it, used_event (2.7.10). Armed, the device's next used buffer must interrupt
// (model_virtio_interrupt_armed, model_virtio_signal) and the queue's MSI-X vector fire; disarmed, neither. Then
// again after the driver has taken packets, so that the arming follows the ring: a used_event left behind (or
// written one short) fires only when the used index comes round again, 65536 entries later; a flag or area that
// always says "none" never: either leaves the waiter asleep while packets wait.
#include <string.h>

#include <ixy/interrupts.h>
#include <ixy/ixy.h>
#include <ixy/memory.h>

#include "../check.h"
#include "model_test.h"
#include "virtio_model.h"

#define ADDR "0000:0c:00.0"
static const uint8_t nic_mac[6] = {0x02, 0x00, 0x00, 0x01, 0x0c, 0x00}; // the model's MAC for 0c:00.0

struct setup {
	const char* name;
	uint64_t features;
	bool packed;
};

static const struct setup setups[] = {
    {"packed", MODEL_VIRTIO_DEFAULT_FEATURES | MODEL_VIRTIO_F_RING_PACKED, true},
    {"split", MODEL_VIRTIO_DEFAULT_FEATURES, false},
    {"split, EVENT_IDX", MODEL_VIRTIO_DEFAULT_FEATURES | MODEL_VIRTIO_F_EVENT_IDX, false},
};

// The device receives `n` frames while the interrupt is off, looking after each whether to interrupt (as QEMU
// does), and does not; the driver takes them all.
static void receive(struct model_virtio* nic, struct ixy_device* dev, uint32_t n, uint32_t seq) {
	for (uint32_t i = 0; i < n; i++) {
		uint8_t frame[60];
		model_test_frame(frame, sizeof(frame), nic_mac, seq + i);
		CHECK_EQ(model_virtio_rx(nic, frame, sizeof(frame)), MODEL_VIRTIO_RX_DELIVERED);
		CHECK(!model_virtio_signal(nic, MODEL_VIRTIO_RX));
	}
	struct pkt_buf* bufs[32];
	CHECK_EQ(ixy_rx_batch(dev, 0, bufs, 32), n);
	pkt_buf_free_batch(bufs, n);
}

// One frame arrives: whether the device interrupted for it, and whether the queue's vector fired.
static bool frame_interrupts(struct model_virtio* nic, struct ixy_device* dev, uint32_t seq) {
	uint64_t fired = model_pci_msix_count(model_virtio_pci(nic), 0);
	uint8_t frame[60];
	model_test_frame(frame, sizeof(frame), nic_mac, seq);
	CHECK_EQ(model_virtio_rx(nic, frame, sizeof(frame)), MODEL_VIRTIO_RX_DELIVERED);
	bool signalled = model_virtio_signal(nic, MODEL_VIRTIO_RX);
	CHECK_EQ(model_pci_msix_count(model_virtio_pci(nic), 0), fired + signalled); // vector 0 is RX queue 0's
	struct pkt_buf* buf;
	CHECK_EQ(ixy_rx_batch(dev, 0, &buf, 1), 1);
	pkt_buf_free(buf);
	return signalled;
}

static void test_switch(const struct setup* setup) {
	model_test_begin(setup->name);
	fprintf(stderr, "-- %s\n", setup->name);
	struct model_virtio* nic = model_virtio_add(ADDR, MODEL_VIRTIO_MODERN_ONLY);
	model_virtio_offer(nic, setup->features);
	model_pci_offer_msix(model_virtio_pci(nic), true);
	struct ixy_config config = {.pci_addr = ADDR, .rx_queues = 1, .tx_queues = 1, .interrupt_timeout_ms = 100};
	struct ixy_device* dev = ixy_init_config(&config);
	CHECK(dev != NULL && dev->interrupts != NULL);
	if (!dev || !dev->interrupts) {
		ixy_close(dev);
		model_pci_remove_all();
		return;
	}
	CHECK_EQ(model_virtio_packed(nic, MODEL_VIRTIO_RX), setup->packed);
	CHECK_EQ(!!(model_virtio_driver_features(nic) & MODEL_VIRTIO_F_EVENT_IDX),
		 !!(setup->features & MODEL_VIRTIO_F_EVENT_IDX));
	uint32_t seq = 0;
	// Polling from the start: no interrupt.
	CHECK(!model_virtio_interrupt_armed(nic, MODEL_VIRTIO_RX));
	CHECK(!frame_interrupts(nic, dev, seq++));
	// Rounds of: packets taken (the ring moves on), armed: the next used buffer interrupts, once; disarmed: none.
	for (uint32_t round = 0; round < 3; round++) {
		receive(nic, dev, 5 + round, seq);
		seq += 5 + round;
		dev->interrupts->set_rx_interrupt(dev, 0, true);
		CHECK(model_virtio_interrupt_armed(nic, MODEL_VIRTIO_RX));
		CHECK(frame_interrupts(nic, dev, seq++));
		dev->interrupts->set_rx_interrupt(dev, 0, false);
		CHECK(!model_virtio_interrupt_armed(nic, MODEL_VIRTIO_RX));
		CHECK(!frame_interrupts(nic, dev, seq++));
	}
	CHECK_NO_NEW_VIOLATIONS();
	ixy_stop(dev);
	ixy_close(dev);
	model_pci_remove_all();
}

// Split with EVENT_IDX has no "never" (split_setup_queue): disarmed, used_event is one behind the used index, and
// the device, looking after every used entry, interrupts when its index comes round to it again: once in 65536
// entries, not before.
static void test_event_idx_comes_round(void) {
	model_test_begin(__func__);
	struct model_virtio* nic = model_virtio_add(ADDR, MODEL_VIRTIO_MODERN_ONLY);
	model_virtio_offer(nic, MODEL_VIRTIO_DEFAULT_FEATURES | MODEL_VIRTIO_F_EVENT_IDX);
	model_pci_offer_msix(model_virtio_pci(nic), true);
	struct ixy_config config = {.pci_addr = ADDR, .rx_queues = 1, .tx_queues = 1, .interrupt_timeout_ms = 100};
	struct ixy_device* dev = ixy_init_config(&config);
	CHECK(dev != NULL && dev->interrupts != NULL);
	if (!dev || !dev->interrupts) {
		ixy_close(dev);
		model_pci_remove_all();
		return;
	}
	dev->interrupts->set_rx_interrupt(dev, 0, true);
	CHECK(frame_interrupts(nic, dev, 0));
	dev->interrupts->set_rx_interrupt(dev, 0, false); // used_event: one behind the used index 1
	uint32_t interrupts = 0, first = 0;
	uint8_t frame[60];
	model_test_frame(frame, sizeof(frame), nic_mac, 1);
	for (uint32_t i = 1; i <= 2 * 65536; i++) { // entries 1 .. 131072
		CHECK_EQ(model_virtio_rx(nic, frame, sizeof(frame)), MODEL_VIRTIO_RX_DELIVERED);
		if (model_virtio_signal(nic, MODEL_VIRTIO_RX)) {
			first = first ? first : i;
			interrupts++;
		}
		struct pkt_buf* buf;
		if (ixy_rx_batch(dev, 0, &buf, 1) != 1) {
			CHECK(false);
			break;
		}
		pkt_buf_free(buf);
	}
	CHECK_EQ(interrupts, 2);
	CHECK_EQ(first, 65536); // the entry at used_event 0 (index 65536 mod 2^16) after the armed one
	CHECK_NO_NEW_VIOLATIONS();
	ixy_stop(dev);
	ixy_close(dev);
	model_pci_remove_all();
}

int main(void) {
	for (size_t i = 0; i < sizeof(setups) / sizeof(setups[0]); i++) {
		test_switch(&setups[i]);
	}
	test_event_idx_comes_round();
	return model_test_summary();
}
