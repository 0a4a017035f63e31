// The VirtIO driver (src/driver/virtio.c) against the VirtIO device model (virtio_model.h): initialisation and
// feature negotiation on both transports, a device that refuses the features, receive and transmit byte for byte,
// refill, statistics, used ring entries a broken device gets wrong (dropped, counted, reported once, and the app
// keeps receiving), the control queue, failing DMA allocations, and close (device reset, bus mastering off).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ixy/ixy.h>
#include <ixy/settings.h>
#include <ixy/memory.h>

#include "../check.h"
#include "driver/driver.h"

#include "driver/virtio_spec.h"
#include "driver/virtio_transport.h"
#include "model_test.h"
#include "seam.h"
#include "seam_io.h"
#include "virtio_model.h"

extern const struct ixy_driver virtio_driver; // src/driver/virtio.c (named only by src/feature_entries.c)

#define NIC_ADDR "0000:04:00.0"
static const uint8_t nic_mac[6] = {0x02, 0x00, 0x00, 0x01, 0x04, 0x00}; // the model's MAC for 04:00.0
static const uint8_t foreign_mac[6] = {0x02, 0x00, 0x00, 0x99, 0x99, 0x99};

// What ixy accepts of the model's default offer: MAC, STATUS, CTRL_VQ, CTRL_RX, CTRL_MAC_ADDR (+ VERSION_1 on the
// modern interface), not the checksum offloads or mergeable RX buffers.
#define IXY_FEATURES_LEGACY                                                                                            \
	(VIRTIO_NET_F_MAC | VIRTIO_NET_F_STATUS | VIRTIO_NET_F_CTRL_VQ | VIRTIO_NET_F_CTRL_RX |                        \
	 VIRTIO_NET_F_CTRL_MAC_ADDR)
#define IXY_FEATURES_MODERN (IXY_FEATURES_LEGACY | VIRTIO_F_VERSION_1)
#define STATUS_RUNNING_MODERN                                                                                          \
	(VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER | VIRTIO_STATUS_FEATURES_OK | VIRTIO_STATUS_DRIVER_OK)
#define STATUS_RUNNING_LEGACY (VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER | VIRTIO_STATUS_DRIVER_OK)
#define RX_DATA_ROOM 2048 // packet bytes of a buffer of the driver's RX pool (2048 + 64 byte buffers)

static size_t dma_before;

// The packet tests run once for each descriptor layout of virtio.c (2.6.4): one descriptor per packet on the modern
// interface (VERSION_1) and on the legacy one with ANY_LAYOUT; a chain of two (header, frame) on the legacy one
// without it; and the packed virtqueues of virtio_packed.c (VirtIO 1.2, 2.8), modern only. The model checks that
// every chain follows the negotiated layout. On packed queues a head is a buffer id (virtio_model.h).
struct layout {
	const char* name;
	enum model_virtio_kind kind;
	uint64_t offered;
	uint32_t per_packet; // descriptors per packet
	bool packed;
};
static const struct layout layouts[] = {
    {"modern, one descriptor", MODEL_VIRTIO_MODERN_ONLY, MODEL_VIRTIO_DEFAULT_FEATURES, 1, false},
    {"legacy with ANY_LAYOUT, one descriptor", MODEL_VIRTIO_LEGACY_ONLY,
     MODEL_VIRTIO_DEFAULT_FEATURES | MODEL_VIRTIO_F_ANY_LAYOUT, 1, false},
    {"legacy without ANY_LAYOUT, two descriptors", MODEL_VIRTIO_LEGACY_ONLY, MODEL_VIRTIO_DEFAULT_FEATURES, 2, false},
    {"modern, packed virtqueues", MODEL_VIRTIO_MODERN_ONLY, MODEL_VIRTIO_DEFAULT_FEATURES | MODEL_VIRTIO_F_RING_PACKED,
     1, true},
};
static const struct layout* layout = &layouts[0];

// The chains (packets) a queue of 64 descriptors holds in the current layout.
static uint32_t chains_of_64(void) {
	return 64 / layout->per_packet;
}

// A descriptor index that is no chain's head: a data descriptor, or (one descriptor per packet) one beyond the
// queue of 64.
static uint32_t not_a_head(uint32_t head) {
	return layout->per_packet == 2 ? head + 1 : 64 + head;
}

static struct ixy_device* open_nic(struct model_virtio** nic, enum model_virtio_kind kind, uint32_t ring_size) {
	dma_before = seam_dma_live_allocations();
	*nic = model_virtio_add(NIC_ADDR, kind);
	struct ixy_config config = {.pci_addr = NIC_ADDR, .rx_queues = 1, .tx_queues = 1, .ring_size = ring_size};
	struct ixy_device* dev = ixy_init_config(&config);
	CHECK(dev != NULL);
	return dev;
}

// A NIC with queues of 64 descriptors in the current layout.
static struct ixy_device* open_packet_nic(struct model_virtio** nic) {
	dma_before = seam_dma_live_allocations();
	*nic = model_virtio_add(NIC_ADDR, layout->kind);
	model_virtio_offer(*nic, layout->offered);
	model_virtio_set_queue_max(*nic, 64);
	struct ixy_config config = {.pci_addr = NIC_ADDR, .rx_queues = 1, .tx_queues = 1, .ring_size = 64};
	struct ixy_device* dev = ixy_init_config(&config);
	CHECK(dev != NULL);
	CHECK(!dev || model_virtio_avail_pending(*nic, MODEL_VIRTIO_RX) == chains_of_64());
	CHECK(!dev || model_virtio_packed(*nic, MODEL_VIRTIO_RX) == layout->packed);
	return dev;
}

// The device is as after close: reset, queues forgotten, transport closed, bus mastering off, no DMA memory left.
static void check_left_reset(const struct model_virtio* nic) {
	CHECK_EQ(model_virtio_status(nic), 0);
	CHECK(!model_virtio_queue_ready(nic, MODEL_VIRTIO_RX));
	CHECK(!model_virtio_queue_ready(nic, MODEL_VIRTIO_TX));
	CHECK(!model_virtio_queue_ready(nic, MODEL_VIRTIO_CTRL));
	CHECK(model_virtio_transport(nic) == NULL);
	CHECK(!model_pci_bus_master(model_virtio_pci(nic)));
	CHECK_EQ(seam_dma_live_allocations(), dma_before);
}

static void close_nic(struct model_virtio* nic, struct ixy_device* dev) {
	ixy_close(dev);
	check_left_reset(nic);
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

// The device receives test frame seq from the wire.
static void deliver(struct model_virtio* nic, uint32_t seq) {
	uint8_t frame[1514];
	model_test_frame(frame, frame_len_for(seq), nic_mac, seq);
	CHECK_EQ(model_virtio_rx(nic, frame, frame_len_for(seq)), MODEL_VIRTIO_RX_DELIVERED);
}

// Receives `count` packets, checks that they are test frames first_seq, first_seq + 1, ... byte for byte, frees them.
// Returns how many arrived.
static uint32_t receive_in_order(struct ixy_device* dev, uint32_t first_seq, uint32_t count, uint32_t batch) {
	struct pkt_buf* bufs[512];
	uint32_t got = 0;
	for (int tries = 0; tries < 100 && got < count; tries++) {
		uint32_t want = count - got < batch ? count - got : batch;
		uint32_t n = ixy_rx_batch(dev, 0, bufs, want);
		CHECK(n <= want);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t seq = first_seq + got + i;
			uint8_t frame[1514];
			model_test_frame(frame, frame_len_for(seq), nic_mac, seq);
			CHECK_EQ(bufs[i]->size, frame_len_for(seq));
			CHECK(bufs[i]->size == frame_len_for(seq) && memcmp(bufs[i]->data, frame, bufs[i]->size) == 0);
			pkt_buf_free(bufs[i]);
		}
		got += n;
	}
	CHECK_EQ(got, count);
	return got;
}

static struct device_stats read_stats(struct ixy_device* dev) {
	struct device_stats stats;
	memset(&stats, 0, sizeof(stats));
	ixy_read_stats(dev, &stats);
	return stats;
}

// 3.1.1 on the modern interface: reset, ACKNOWLEDGE, DRIVER, features, FEATURES_OK, queues, DRIVER_OK (the model
// checks the order); only the features ixy uses; promiscuous mode through the control queue; MAC and link from
// the device configuration.
static void test_init_modern(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_nic(&nic, MODEL_VIRTIO_MODERN_ONLY, 0);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	CHECK(strcmp(dev->driver_name, "virtio") == 0);
	CHECK(strcmp(model_virtio_transport(nic), "modern") == 0);
	CHECK_EQ(model_virtio_status(nic), STATUS_RUNNING_MODERN);
	CHECK_EQ(model_virtio_driver_features(nic), IXY_FEATURES_MODERN);
	CHECK_EQ(model_virtio_queue_size(nic, MODEL_VIRTIO_RX), 256);
	CHECK_EQ(model_virtio_queue_size(nic, MODEL_VIRTIO_TX), 256);
	CHECK(model_virtio_queue_ready(nic, MODEL_VIRTIO_CTRL));
	CHECK(model_virtio_promisc(nic));
	CHECK(model_pci_bus_master(model_virtio_pci(nic)));
	// Every RX chain (one descriptor each, VERSION_1) is offered, and the device was told.
	CHECK_EQ(model_virtio_avail_pending(nic, MODEL_VIRTIO_RX), 256);
	CHECK(model_virtio_notifications(nic, MODEL_VIRTIO_RX) >= 1);
	uint8_t mac[6];
	CHECK_EQ(ixy_get_mac_addr(dev, mac), 0);
	CHECK(memcmp(mac, nic_mac, 6) == 0);
	CHECK_EQ(ixy_get_link_speed(dev), 1000); // no speed in the configuration: the nominal 1000
	model_virtio_set_link(nic, false, VIRTIO_NET_SPEED_UNKNOWN);
	CHECK_EQ(ixy_get_link_speed(dev), 0);
	CHECK_NO_NEW_VIOLATIONS();
	close_nic(nic, dev);

	// With VIRTIO_NET_F_SPEED_DUPLEX (1.1) the speed comes from the configuration.
	model_test_begin("test_init_modern (speed)");
	dma_before = seam_dma_live_allocations();
	nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_MODERN_ONLY);
	model_virtio_offer(nic, MODEL_VIRTIO_DEFAULT_FEATURES | VIRTIO_NET_F_SPEED_DUPLEX);
	model_virtio_set_link(nic, true, 25000);
	dev = ixy_init(NIC_ADDR, 1, 1);
	CHECK(dev != NULL);
	CHECK_EQ(model_virtio_driver_features(nic), IXY_FEATURES_MODERN | VIRTIO_NET_F_SPEED_DUPLEX);
	CHECK_EQ(ixy_get_link_speed(dev), 25000);
	close_nic(nic, dev);
}

// A device without a control queue: no promiscuous mode, no CTRL_RX/CTRL_MAC_ADDR accepted, still works.
static void test_init_without_control_queue(void) {
	model_test_begin(__func__);
	dma_before = seam_dma_live_allocations();
	struct model_virtio* nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_MODERN_ONLY);
	model_virtio_offer(nic, MODEL_VIRTIO_DEFAULT_FEATURES & ~VIRTIO_NET_F_CTRL_VQ);
	struct ixy_device* dev = ixy_init(NIC_ADDR, 1, 1);
	CHECK(dev != NULL);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	CHECK_EQ(model_virtio_driver_features(nic), VIRTIO_NET_F_MAC | VIRTIO_NET_F_STATUS | VIRTIO_F_VERSION_1);
	CHECK(!model_virtio_queue_ready(nic, MODEL_VIRTIO_CTRL));
	CHECK(ixy_set_promisc(dev, false) != 0);
	deliver(nic, 1);
	receive_in_order(dev, 1, 1, 8);
	close_nic(nic, dev);
}

// The legacy interface (3.1.2): no FEATURES_OK, 32 feature bits, the 10 byte header, a fixed queue size.
static void test_init_legacy(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_nic(&nic, MODEL_VIRTIO_LEGACY_ONLY, 64);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	CHECK(strcmp(model_virtio_transport(nic), "legacy") == 0);
	CHECK_EQ(model_virtio_status(nic), STATUS_RUNNING_LEGACY);
	CHECK_EQ(model_virtio_driver_features(nic), IXY_FEATURES_LEGACY);
	CHECK_EQ(model_virtio_net_hdr_len(nic), VIRTIO_NET_HDR_LEN_LEGACY);
	CHECK_EQ(model_virtio_queue_size(nic, MODEL_VIRTIO_RX), 256);    // the legacy size is the device's
	CHECK_EQ(model_virtio_avail_pending(nic, MODEL_VIRTIO_RX), 128); // no ANY_LAYOUT: two descriptors per packet
	CHECK(model_virtio_promisc(nic));
	for (uint32_t seq = 0; seq < 10; seq++) {
		deliver(nic, seq);
	}
	receive_in_order(dev, 0, 10, 4);
	struct mempool* pool = memory_allocate_mempool(64, 0);
	struct pkt_buf* buf = pkt_buf_alloc(pool);
	model_test_frame(buf->data, 100, foreign_mac, 7);
	buf->size = 100;
	CHECK_EQ(ixy_tx_batch(dev, 0, &buf, 1), 1);
	CHECK_EQ(model_virtio_tx_count(nic), 1);
	uint32_t len = 0;
	const uint8_t* sent = model_virtio_tx_frame(nic, 0, &len);
	CHECK_EQ(len, 100);
	CHECK(len == 100 && memcmp(sent, buf->data, 100) == 0);
	model_virtio_clear_tx(nic);
	ixy_close(dev);
	memory_free_mempool(pool);
	check_left_reset(nic);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// VIRTIO_F_ANY_LAYOUT is accepted on the legacy interface (then one descriptor per packet: every descriptor of the
// queue is an RX chain), not on the modern one, where VERSION_1 already allows any layout (2.6.4, 6).
static void test_any_layout_negotiation(void) {
	model_test_begin(__func__);
	const enum model_virtio_kind kinds[] = {MODEL_VIRTIO_LEGACY_ONLY, MODEL_VIRTIO_MODERN_ONLY};
	const uint64_t expected[] = {IXY_FEATURES_LEGACY | MODEL_VIRTIO_F_ANY_LAYOUT, IXY_FEATURES_MODERN};
	for (int i = 0; i < 2; i++) {
		dma_before = seam_dma_live_allocations();
		struct model_virtio* nic = model_virtio_add(NIC_ADDR, kinds[i]);
		model_virtio_offer(nic, MODEL_VIRTIO_DEFAULT_FEATURES | MODEL_VIRTIO_F_ANY_LAYOUT);
		struct ixy_device* dev = ixy_init(NIC_ADDR, 1, 1);
		CHECK(dev != NULL);
		if (!dev) {
			model_pci_remove_all();
			return;
		}
		CHECK_EQ(model_virtio_driver_features(nic), expected[i]);
		CHECK_EQ(model_virtio_avail_pending(nic, MODEL_VIRTIO_RX), 256);
		close_nic(nic, dev);
	}
}

// A transitional device is driven through the modern interface, unless IXY_VIRTIO_LEGACY=1; a modern-only device
// cannot be forced to legacy (refused with a message by its IDs, before ixy touches it).
static void test_transport_choice(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_nic(&nic, MODEL_VIRTIO_BOTH, 0);
	CHECK(dev && strcmp(model_virtio_transport(nic), "modern") == 0);
	close_nic(nic, dev);

	CHECK_EQ(setenv("IXY_VIRTIO_LEGACY", "1", 1), 0);
	dev = open_nic(&nic, MODEL_VIRTIO_BOTH, 0);
	CHECK(dev && strcmp(model_virtio_transport(nic), "legacy") == 0);
	CHECK_EQ(model_virtio_driver_features(nic), IXY_FEATURES_LEGACY);
	close_nic(nic, dev);

	dma_before = seam_dma_live_allocations();
	nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_MODERN_ONLY);
	model_test_capture_start();
	dev = ixy_init(NIC_ADDR, 1, 1);
	char* text = model_test_capture_end();
	CHECK(dev == NULL);
	CHECK(strstr(text, "modern-only VirtIO NIC") != NULL);
	free(text);
	CHECK_EQ(model_pci_touches(model_virtio_pci(nic)), 0);
	check_left_reset(nic);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
	CHECK_EQ(unsetenv("IXY_VIRTIO_LEGACY"), 0);
}

// 3.1.1 step 6: a device that clears FEATURES_OK does not support what the driver accepted. ixy gives up with one
// message and leaves the device reset.
static void test_features_refused(void) {
	model_test_begin(__func__);
	dma_before = seam_dma_live_allocations();
	struct model_virtio* nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_MODERN_ONLY);
	model_virtio_refuse_features(nic, true);
	unsigned allocations = model_dma_allocations();
	model_test_capture_start();
	struct ixy_device* dev = ixy_init(NIC_ADDR, 1, 1);
	char* text = model_test_capture_end();
	CHECK(dev == NULL);
	CHECK_EQ(count_of(text, "error"), 1);
	CHECK(strstr(text, "FEATURES_OK") != NULL);
	free(text);
	// Nothing set up after the refusal: no queue, no DMA memory; FAILED set (2.1.1), then the reset.
	CHECK_EQ(model_dma_allocations(), allocations);
	CHECK(model_virtio_driver_failed(nic));
	check_left_reset(nic);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// A device without VERSION_1 on the modern interface is refused before any feature is accepted.
static void test_modern_without_version_1(void) {
	model_test_begin(__func__);
	dma_before = seam_dma_live_allocations();
	struct model_virtio* nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_MODERN_ONLY);
	model_virtio_offer(nic, MODEL_VIRTIO_DEFAULT_FEATURES & ~VIRTIO_F_VERSION_1);
	model_test_capture_start();
	struct ixy_device* dev = ixy_init(NIC_ADDR, 1, 1);
	char* text = model_test_capture_end();
	CHECK(dev == NULL);
	CHECK_EQ(count_of(text, "error"), 1);
	CHECK(strstr(text, "VERSION_1") != NULL);
	free(text);
	CHECK_EQ(model_virtio_driver_features(nic), 0);
	check_left_reset(nic);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// 4.1.4.3.1: a device that changes its configuration while the driver reads a field of several bytes (here the MAC
// address) also changes config_generation; the driver reads again and gets the new address whole, not three bytes
// of each. The legacy interface has no generation counter: the driver reads until two reads agree. A configuration
// that keeps changing: an error, not a torn address.
static void test_config_changes_during_read(void) {
	model_test_begin(__func__);
	const enum model_virtio_kind kinds[] = {MODEL_VIRTIO_MODERN_ONLY, MODEL_VIRTIO_LEGACY_ONLY};
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct model_virtio* nic;
		struct ixy_device* dev = open_nic(&nic, kinds[k], 0);
		if (!dev) {
			model_pci_remove_all();
			continue;
		}
		const uint8_t new_mac[6] = {0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f}; // each byte differs from nic_mac's
		uint8_t mac[6] = {0};
		model_virtio_change_mac_during_read(nic, new_mac, 1);
		CHECK_EQ(ixy_get_mac_addr(dev, mac), 0);
		CHECK(memcmp(mac, new_mac, 6) == 0);
		CHECK_EQ(model_virtio_config_generation(nic), 1); // one change (the legacy interface cannot see it)
		CHECK_EQ(ixy_get_mac_addr(dev, mac), 0);          // and it stays so
		CHECK(memcmp(mac, new_mac, 6) == 0);

		model_virtio_change_mac_during_read(nic, nic_mac, 1000);
		model_test_capture_start();
		int rc = ixy_get_mac_addr(dev, mac);
		char* text = model_test_capture_end();
		CHECK(rc != 0);
		CHECK_EQ(count_of(text, "error"), 1);
		CHECK(strstr(text, "keeps changing") != NULL);
		free(text);
		model_virtio_change_mac_during_read(nic, nic_mac, 0);
		close_nic(nic, dev);
	}
}

// The modern interface lets ixy choose the queue size (at most the device's); the default is the device's maximum,
// but no more than the 1024 descriptors the huge page estimate (virtio_driver.huge_pages_needed, which
// ixy_check_configs adds up before any device is unbound) counted on: a device with larger queues must not need
// more memory than the check promised.
static void test_ring_sizes(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_nic(&nic, MODEL_VIRTIO_MODERN_ONLY, 64);
	CHECK_EQ(model_virtio_queue_size(nic, MODEL_VIRTIO_RX), 64);
	CHECK_EQ(model_virtio_queue_size(nic, MODEL_VIRTIO_TX), 64);
	close_nic(nic, dev);

	dma_before = seam_dma_live_allocations();
	nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_MODERN_ONLY);
	model_virtio_set_queue_max(nic, 1024);
	dev = ixy_init(NIC_ADDR, 1, 1);
	CHECK(dev != NULL);
	CHECK_EQ(model_virtio_queue_size(nic, MODEL_VIRTIO_RX), 1024);
	CHECK_EQ(model_virtio_avail_pending(nic, MODEL_VIRTIO_RX), 1024);
	close_nic(nic, dev);

	model_test_begin("test_ring_sizes (device offers 4096)");
	dma_before = seam_dma_live_allocations();
	size_t bytes_before = seam_dma_live_bytes();
	nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_MODERN_ONLY);
	model_virtio_set_queue_max(nic, 4096);
	struct ixy_config default_size = {.pci_addr = NIC_ADDR, .rx_queues = 1, .tx_queues = 1};
	dev = ixy_init_config(&default_size);
	CHECK(dev != NULL);
	CHECK_EQ(model_virtio_queue_size(nic, MODEL_VIRTIO_RX), 1024);
	CHECK_EQ(model_virtio_queue_size(nic, MODEL_VIRTIO_TX), 1024);
	size_t pages = (seam_dma_live_bytes() - bytes_before) / IXY_HUGE_PAGE_SIZE;
	printf("DMA memory: %zu huge pages, estimated %u\n", pages, virtio_driver.huge_pages_needed(&default_size));
	CHECK(pages <= virtio_driver.huge_pages_needed(&default_size));
	close_nic(nic, dev);

	// More than the device has: its maximum, with a warning.
	model_test_begin("test_ring_sizes (too large)");
	dma_before = seam_dma_live_allocations();
	nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_MODERN_ONLY);
	struct ixy_config config = {.pci_addr = NIC_ADDR, .rx_queues = 1, .tx_queues = 1, .ring_size = 2048};
	model_test_capture_start();
	dev = ixy_init_config(&config);
	char* text = model_test_capture_end();
	CHECK(dev != NULL);
	CHECK(strstr(text, "warning") && strstr(text, "ring size 2048"));
	free(text);
	CHECK_EQ(model_virtio_queue_size(nic, MODEL_VIRTIO_RX), 256);
	close_nic(nic, dev);
}

// Frames of many lengths arrive byte for byte and in order, over several rounds of the ring; every chain is offered
// again (refill) after each batch; the statistics count packets and bytes (+ 4 CRC bytes each, as on a wire); the
// refill notifies the device once per batch, not at all with VRING_USED_F_NO_NOTIFY.
static void test_rx(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_packet_nic(&nic);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	uint32_t chains = chains_of_64(), seq = 0;
	uint64_t bytes = 0;
	const uint32_t batches[] = {1, 7, 32, 32, 31, 3, 32, 16};
	for (uint32_t round = 0; round < sizeof(batches) / sizeof(batches[0]); round++) {
		uint32_t n = batches[round];
		for (uint32_t i = 0; i < n; i++) {
			bytes += frame_len_for(seq + i) + IXY_ETHER_CRC_BYTES;
			deliver(nic, seq + i);
		}
		CHECK_EQ(model_virtio_avail_pending(nic, MODEL_VIRTIO_RX), chains - n);
		receive_in_order(dev, seq, n, 5);
		CHECK_EQ(model_virtio_avail_pending(nic, MODEL_VIRTIO_RX), chains); // refilled
		seq += n;
	}
	// A full ring: one frame more finds no buffer; after the batch, all fit again.
	for (uint32_t i = 0; i < chains; i++) {
		bytes += frame_len_for(seq + i) + IXY_ETHER_CRC_BYTES;
		deliver(nic, seq + i);
	}
	uint8_t frame[60];
	model_test_frame(frame, 60, nic_mac, 999);
	CHECK_EQ(model_virtio_rx(nic, frame, 60), MODEL_VIRTIO_RX_NO_BUFFER);
	receive_in_order(dev, seq, chains, 64);
	seq += chains;
	struct device_stats stats = read_stats(dev);
	CHECK_EQ(stats.rx_pkts, seq);
	CHECK_EQ(stats.rx_bytes, bytes);
	CHECK_EQ(stats.rx_dropped, 0);
	CHECK_EQ(read_stats(dev).rx_pkts, 0); // read_stats returns what happened since the last call
	struct pkt_buf* bufs[4];
	CHECK_EQ(ixy_rx_batch(dev, 0, bufs, 4), 0);
	// Refilling notifies the device once per batch (2.6.10 / legacy 2.4.7)...
	uint32_t notified = model_virtio_notifications(nic, MODEL_VIRTIO_RX);
	deliver(nic, seq);
	deliver(nic, seq + 1);
	receive_in_order(dev, seq, 2, 2);
	CHECK_EQ(model_virtio_notifications(nic, MODEL_VIRTIO_RX), notified + 1);
	// ... unless the device set VRING_USED_F_NO_NOTIFY; an empty batch never notifies.
	model_virtio_suppress_notify(nic, true);
	deliver(nic, seq + 2);
	deliver(nic, seq + 3);
	receive_in_order(dev, seq + 2, 2, 2);
	CHECK_EQ(ixy_rx_batch(dev, 0, bufs, 4), 0);
	CHECK_EQ(model_virtio_notifications(nic, MODEL_VIRTIO_RX), notified + 1);
	close_nic(nic, dev);
}

// While the app holds every buffer of the RX pool, frames wait in the used ring; they come once it frees some.
static void test_rx_pool_empty(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_packet_nic(&nic);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	enum { POOL = 4096 }; // the driver's RX pool (RX_MEMPOOL_ENTRIES)
	static struct pkt_buf* held[POOL];
	uint32_t num_held = 0, seq = 0;
	while (num_held < POOL - chains_of_64()) { // the ring holds the rest
		deliver(nic, seq);
		seq++;
		uint32_t n = ixy_rx_batch(dev, 0, &held[num_held], 1);
		CHECK_EQ(n, 1);
		if (n != 1) {
			break;
		}
		num_held++;
	}
	deliver(nic, seq);
	CHECK_EQ(ixy_rx_batch(dev, 0, &held[num_held], 1), 0); // no fresh buffer for the chain: the frame waits
	pkt_buf_free(held[--num_held]);
	receive_in_order(dev, seq, 1, 1);
	while (num_held > 0) {
		pkt_buf_free(held[--num_held]);
	}
	close_nic(nic, dev);
}

static void fill_packets(struct mempool* pool, struct pkt_buf** bufs, uint32_t n, uint32_t first_seq) {
	CHECK_EQ(pkt_buf_alloc_batch(pool, bufs, n), n);
	for (uint32_t i = 0; i < n; i++) {
		bufs[i]->size = frame_len_for(first_seq + i);
		model_test_frame(bufs[i]->data, bufs[i]->size, foreign_mac, first_seq + i);
	}
}

// The model's wire holds frames first_seq .. first_seq + n - 1 from position `from` on.
static void check_wire(const struct model_virtio* nic, uint32_t from, uint32_t first_seq, uint32_t n) {
	CHECK_EQ(model_virtio_tx_count(nic), from + n);
	for (uint32_t i = 0; i < n && from + i < model_virtio_tx_count(nic); i++) {
		uint32_t len = 0;
		const uint8_t* sent = model_virtio_tx_frame(nic, from + i, &len);
		uint8_t frame[1514];
		model_test_frame(frame, frame_len_for(first_seq + i), foreign_mac, first_seq + i);
		CHECK_EQ(len, frame_len_for(first_seq + i));
		CHECK(len == frame_len_for(first_seq + i) && memcmp(sent, frame, len) == 0);
	}
}

// Frames are sent byte for byte, in order; sent buffers go back to the app's pool when the driver cleans the queue
// (the next tx_batch), and only then count in the statistics; a full queue takes no more; with
// VRING_USED_F_NO_NOTIFY the driver does not notify.
static void test_tx(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_packet_nic(&nic);
	struct mempool* pool = memory_allocate_mempool(256, 0);
	if (!dev || !pool) {
		model_pci_remove_all();
		return;
	}
	struct pkt_buf* bufs[80];
	uint32_t chains = chains_of_64();
	fill_packets(pool, bufs, 20, 0);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 20), 20);
	check_wire(nic, 0, 0, 20);
	CHECK_EQ(model_virtio_notifications(nic, MODEL_VIRTIO_TX), 1); // one per batch
	CHECK_EQ(pool->free_stack_top, 256 - 20);                      // not cleaned yet
	// Reading the statistics touches no queue (the queue may be another thread's, ixy.h): the packets the device
	// took count once a tx_batch has seen them, here an empty one from the queue's thread.
	uint64_t bytes = 0;
	for (uint32_t i = 0; i < 20; i++) {
		bytes += frame_len_for(i) + IXY_ETHER_CRC_BYTES;
	}
	CHECK_EQ(read_stats(dev).tx_pkts, 0);
	CHECK_EQ(pool->free_stack_top, 256 - 20);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 0), 0);
	CHECK_EQ(pool->free_stack_top, 256);
	struct device_stats stats = read_stats(dev);
	CHECK_EQ(stats.tx_pkts, 20);
	CHECK_EQ(stats.tx_bytes, bytes);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 0), 0);
	CHECK_EQ(read_stats(dev).tx_pkts, 0); // since the last read

	// The device does not send: one packet per chain, then the queue is full.
	model_virtio_tx_on_notify(nic, false);
	fill_packets(pool, bufs, chains + 8, 20);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, chains + 8), chains);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs + chains, 8), 0);
	CHECK_EQ(model_virtio_tx_process(nic), chains);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs + chains, 8), 8);
	CHECK_EQ(model_virtio_tx_process(nic), 8);
	check_wire(nic, 20, 20, chains + 8);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 0), 0);
	CHECK_EQ(pool->free_stack_top, 256);
	CHECK_EQ(read_stats(dev).tx_pkts, chains + 8);
	model_virtio_clear_tx(nic);

	// The device says it needs no notifications.
	model_virtio_suppress_notify(nic, true);
	uint32_t notified = model_virtio_notifications(nic, MODEL_VIRTIO_TX);
	fill_packets(pool, bufs, 4, 60);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 4), 4);
	CHECK_EQ(model_virtio_notifications(nic, MODEL_VIRTIO_TX), notified);
	CHECK_EQ(model_virtio_tx_process(nic), 4);
	check_wire(nic, 0, 60, 4);

	// Close with packets in the queue: reset first, then their buffers go back to the pool.
	fill_packets(pool, bufs, 10, 64);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 10), 10);
	ixy_close(dev);
	CHECK_EQ(pool->free_stack_top, 256);
	memory_free_mempool(pool);
	check_left_reset(nic);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// Promiscuous mode and the MAC address through the control queue (5.1.6.5).
static void test_control_queue(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_nic(&nic, MODEL_VIRTIO_MODERN_ONLY, 0);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	CHECK_EQ(ixy_set_promisc(dev, false), 0);
	CHECK(!model_virtio_promisc(nic));
	CHECK_EQ(ixy_set_promisc(dev, true), 0);
	CHECK(model_virtio_promisc(nic));
	const uint8_t new_mac[6] = {0x02, 0x12, 0x34, 0x56, 0x78, 0x9a};
	CHECK_EQ(ixy_set_mac_addr(dev, new_mac), 0);
	uint8_t mac[6];
	CHECK_EQ(ixy_get_mac_addr(dev, mac), 0);
	CHECK(memcmp(mac, new_mac, 6) == 0);
	close_nic(nic, dev);
}

// One bad used entry of each kind in the RX queue, between good frames: each dropped and counted in rx_dropped,
// the good frames around it delivered, the device reported once (not per entry), the count printed at close.
static void test_bad_rx_entries(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_packet_nic(&nic);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	uint32_t hdr = model_virtio_net_hdr_len(nic);
	uint32_t seq = 0, bad = 0;
	model_test_capture_start();
	// Lengths: beyond the buffer (by one, and huge), no frame at all (header only), nothing written.
	const uint32_t bad_lens[] = {hdr + RX_DATA_ROOM + 1, 0xffffffffu, hdr, 0};
	for (uint32_t i = 0; i < sizeof(bad_lens) / sizeof(bad_lens[0]); i++) {
		deliver(nic, seq);
		uint16_t head;
		CHECK(model_virtio_take(nic, MODEL_VIRTIO_RX, &head));
		model_virtio_put_used(nic, MODEL_VIRTIO_RX, head, bad_lens[i]);
		bad++;
		deliver(nic, seq + 1);
		receive_in_order(dev, seq, 2, 8);
		seq += 2;
		CHECK_EQ(model_virtio_avail_pending(nic, MODEL_VIRTIO_RX),
			 chains_of_64()); // the bad chain was offered again
	}
	// The largest frame that fits is not bad.
	uint16_t head;
	CHECK(model_virtio_take(nic, MODEL_VIRTIO_RX, &head));
	model_virtio_put_used(nic, MODEL_VIRTIO_RX, head, hdr + RX_DATA_ROOM);
	struct pkt_buf* buf;
	CHECK_EQ(ixy_rx_batch(dev, 0, &buf, 1), 1);
	CHECK_EQ(buf->size, RX_DATA_ROOM);
	pkt_buf_free(buf);
	// Ids that are no chain the driver gave: beyond the queue, a data descriptor (odd; with one descriptor per
	// packet: beyond the queue), 2^32 - 2.
	// Packed: the device takes a buffer and returns it under the bad id (the used descriptor takes the place of
	// an available one, 2.8.5; the buffer is lost to the driver).
	const uint32_t bad_ids[] = {64, not_a_head(0), not_a_head(62), 0xfffffffeu};
	for (uint32_t i = 0; i < sizeof(bad_ids) / sizeof(bad_ids[0]); i++) {
		deliver(nic, seq);
		CHECK(!layout->packed || model_virtio_take(nic, MODEL_VIRTIO_RX, &head));
		model_virtio_put_used(nic, MODEL_VIRTIO_RX, bad_ids[i], 100);
		bad++;
		deliver(nic, seq + 1);
		receive_in_order(dev, seq, 2, 8);
		seq += 2;
	}
	// Split: a used index that jumps past what the device holds: nothing behind it is trusted, nothing
	// delivered... (packed has no index: test_virtio_packed.c writes used descriptors beyond those held)
	if (!layout->packed) {
		uint16_t used = model_virtio_used_idx(nic, MODEL_VIRTIO_RX);
		deliver(nic, seq);
		model_virtio_set_used_idx(nic, MODEL_VIRTIO_RX, (uint16_t)(used + 1000));
		struct pkt_buf* bufs[8];
		CHECK_EQ(ixy_rx_batch(dev, 0, bufs, 8), 0);
		CHECK_EQ(ixy_rx_batch(dev, 0, bufs, 8), 0);
		// ... until the device's index makes sense again.
		model_virtio_set_used_idx(nic, MODEL_VIRTIO_RX, (uint16_t)(used + 1));
		deliver(nic, seq + 1);
		receive_in_order(dev, seq, 2, 8);
		seq += 2;
	}
	char* text = model_test_capture_end();
	CHECK_EQ(count_of(text, "ixy: warning"), 1);
	CHECK_EQ(count_of(text, "the device returned"), 1);
	free(text);
	struct device_stats stats = read_stats(dev);
	CHECK_EQ(stats.rx_dropped, bad);
	CHECK_EQ(stats.rx_pkts, seq + 1);
	model_test_capture_start();
	ixy_close(dev);
	text = model_test_capture_end();
	// 8 entries, and (split) the jump seen twice
	CHECK(strstr(text, layout->packed ? "8 bad used ring entries ignored" : "10 bad used ring entries ignored") !=
	      NULL);
	free(text);
	check_left_reset(nic);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// After entries with ids that are no chain, the device still holds every chain: when it fills all of them at once
// (a busy link), all are delivered.
static void test_rx_full_ring_after_bad_ids(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_packet_nic(&nic);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	model_test_capture_start();
	uint32_t chains = chains_of_64();
	model_virtio_put_used(nic, MODEL_VIRTIO_RX, not_a_head(0), 100);
	model_virtio_put_used(nic, MODEL_VIRTIO_RX, 999, 100);
	struct pkt_buf* bufs[64];
	CHECK_EQ(ixy_rx_batch(dev, 0, bufs, 64), 0);
	for (uint32_t seq = 0; seq < chains; seq++) {
		deliver(nic, seq);
	}
	receive_in_order(dev, 0, chains, 64);
	for (uint32_t seq = chains; seq < 2 * chains; seq++) {
		deliver(nic, seq);
	}
	receive_in_order(dev, chains, chains, 64);
	free(model_test_capture_end());
	CHECK_EQ(read_stats(dev).rx_dropped, 2);
	close_nic(nic, dev);
}

// Bad used entries in the TX queue: a chain returned twice (freed once, not twice), ids that are no chain the device
// holds, an index that jumps. No buffer is lost or freed twice, and the queue keeps sending afterwards, also when
// the device returns every chain at once.
static void test_bad_tx_entries(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_packet_nic(&nic);
	struct mempool* pool = memory_allocate_mempool(256, 0);
	if (!dev || !pool) {
		model_pci_remove_all();
		return;
	}
	model_virtio_tx_on_notify(nic, false);
	model_test_capture_start();
	struct pkt_buf* bufs[64];
	fill_packets(pool, bufs, 8, 0);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 8), 8);
	// A chain returned twice.
	uint16_t head;
	CHECK(model_virtio_take(nic, MODEL_VIRTIO_TX, &head));
	model_virtio_put_used(nic, MODEL_VIRTIO_TX, head, 0);
	model_virtio_put_used(nic, MODEL_VIRTIO_TX, head, 0);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 0), 0);
	CHECK_EQ(pool->free_stack_top, 256 - 7); // one sent and freed, seven still queued
	// Ids that are no chain the device holds: a data descriptor, beyond the queue, the chain sent already.
	model_virtio_put_used(nic, MODEL_VIRTIO_TX, not_a_head(head), 0);
	model_virtio_put_used(nic, MODEL_VIRTIO_TX, 5000, 0);
	model_virtio_put_used(nic, MODEL_VIRTIO_TX, head, 0);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 0), 0);
	CHECK_EQ(pool->free_stack_top, 256 - 7);
	// An index far ahead: ignored, nothing freed.
	uint16_t used = model_virtio_used_idx(nic, MODEL_VIRTIO_TX);
	model_virtio_set_used_idx(nic, MODEL_VIRTIO_TX, (uint16_t)(used + 40000));
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 0), 0);
	CHECK_EQ(pool->free_stack_top, 256 - 7);
	model_virtio_set_used_idx(nic, MODEL_VIRTIO_TX, used);
	char* text = model_test_capture_end();
	CHECK_EQ(count_of(text, "ixy: warning"), 1);
	free(text);
	// The device sends the seven it holds and returns them at once; then a full queue's worth.
	CHECK_EQ(model_virtio_tx_process(nic), 7);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 0), 0);
	CHECK_EQ(pool->free_stack_top, 256);
	uint32_t chains = chains_of_64();
	fill_packets(pool, bufs, chains, 8);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, chains), chains);
	CHECK_EQ(model_virtio_tx_process(nic), chains);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 0), 0);
	CHECK_EQ(pool->free_stack_top, 256);
	check_wire(nic, 0, 1, 7 + chains); // the first chain was returned without being sent
	struct device_stats stats = read_stats(dev);
	CHECK_EQ(stats.tx_pkts, 8 + chains);
	CHECK_EQ(stats.rx_dropped, 0); // TX entries are not RX drops
	ixy_close(dev);
	memory_free_mempool(pool);
	check_left_reset(nic);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// A device may return RX chains in another order than it took them (2.4.8). The driver takes the packets in the
// order of the used ring, from the first entry out of order on in any order (no entry counts as bad), and keeps
// every chain offered exactly once (the model checks that the driver never offers a chain it holds), for several
// rounds of the whole queue afterwards.
static void test_rx_out_of_order(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_packet_nic(&nic);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	model_test_capture_start();
	uint32_t hdr = model_virtio_net_hdr_len(nic), chains = chains_of_64();
	// Frames 0 .. 3 go into the first four chains; the device returns them as 2, 0, 3, 1.
	uint16_t heads[4];
	for (uint32_t seq = 0; seq < 4; seq++) {
		uint8_t chain[12 + 1514] = {0}; // the header (no offloads; num_buffers 1 where there is one), the frame
		if (hdr == 12) {
			chain[10] = 1;
		}
		model_test_frame(chain + hdr, frame_len_for(seq), nic_mac, seq);
		CHECK(model_virtio_take(nic, MODEL_VIRTIO_RX, &heads[seq]));
		CHECK(model_virtio_write_chain(nic, MODEL_VIRTIO_RX, heads[seq], chain, hdr + frame_len_for(seq)));
	}
	const uint32_t order[4] = {2, 0, 3, 1};
	for (uint32_t i = 0; i < 4; i++) {
		model_virtio_put_used(nic, MODEL_VIRTIO_RX, heads[order[i]], hdr + frame_len_for(order[i]));
	}
	struct pkt_buf* bufs[8];
	uint32_t received = ixy_rx_batch(dev, 0, bufs, 8);
	CHECK_EQ(received, 4);
	for (uint32_t i = 0; i < received; i++) {
		uint8_t frame[1514];
		model_test_frame(frame, frame_len_for(order[i]), nic_mac, order[i]);
		CHECK(bufs[i]->size == frame_len_for(order[i]) && memcmp(bufs[i]->data, frame, bufs[i]->size) == 0);
		pkt_buf_free(bufs[i]);
	}
	CHECK_EQ(model_virtio_avail_pending(nic, MODEL_VIRTIO_RX), chains);
	// Three rounds of the whole queue, in order again, after it.
	for (uint32_t seq = 4; seq < 4 + 3 * chains; seq += chains) {
		for (uint32_t i = 0; i < chains; i++) {
			deliver(nic, seq + i);
		}
		receive_in_order(dev, seq, chains, 64);
		CHECK_EQ(model_virtio_avail_pending(nic, MODEL_VIRTIO_RX), chains);
	}
	char* text = model_test_capture_end();
	CHECK_EQ(count_of(text, "ixy: warning"), 0);
	free(text);
	struct device_stats stats = read_stats(dev);
	CHECK_EQ(stats.rx_pkts, 4 + 3 * chains);
	CHECK_EQ(stats.rx_dropped, 0);
	close_nic(nic, dev);
}

// A device that takes two RX chains and returns the second first (2.4.8: any order), keeping the first for three
// rounds of the queue. The driver, now in any order, must offer the returned chain again under its own id (split:
// the available ring's entry; packed: the descriptor's id), not what the entry held before (split: the first
// chain, which the device holds: the model reports it). The kept chain comes back at the end.
static void test_rx_keep_first(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_packet_nic(&nic);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	model_test_capture_start();
	uint32_t hdr = model_virtio_net_hdr_len(nic), held = chains_of_64() - 1;
	uint8_t chain[12 + 1514] = {0}; // the header (no offloads; num_buffers 1 where there is one), the frame
	if (hdr == 12) {
		chain[10] = 1;
	}
	uint16_t kept, head;
	CHECK(model_virtio_take(nic, MODEL_VIRTIO_RX, &kept));
	CHECK(model_virtio_take(nic, MODEL_VIRTIO_RX, &head));
	model_test_frame(chain + hdr, frame_len_for(0), nic_mac, 0);
	CHECK(model_virtio_write_chain(nic, MODEL_VIRTIO_RX, head, chain, hdr + frame_len_for(0)));
	model_virtio_put_used(nic, MODEL_VIRTIO_RX, head, hdr + frame_len_for(0));
	receive_in_order(dev, 0, 1, 8);
	for (uint32_t seq = 1; seq < 1 + 3 * held; seq += held) {
		for (uint32_t i = 0; i < held; i++) {
			deliver(nic, seq + i);
		}
		receive_in_order(dev, seq, held, 64);
	}
	uint32_t last = 1 + 3 * held;
	model_test_frame(chain + hdr, frame_len_for(last), nic_mac, last);
	CHECK(model_virtio_write_chain(nic, MODEL_VIRTIO_RX, kept, chain, hdr + frame_len_for(last)));
	model_virtio_put_used(nic, MODEL_VIRTIO_RX, kept, hdr + frame_len_for(last));
	receive_in_order(dev, last, 1, 8);
	char* text = model_test_capture_end();
	CHECK_EQ(count_of(text, "ixy: warning"), 0);
	free(text);
	CHECK_EQ(read_stats(dev).rx_dropped, 0);
	close_nic(nic, dev);
}

// A device that names the same RX chain (packed: buffer id) in two used entries of one batch: the first returns
// the packet and the driver offers the chain again with a fresh buffer; the second would hand the app that fresh
// buffer, which the device now holds and may write into while the app reads it. The second is refused: dropped,
// counted and reported as a chain the device does not hold, not offered again. Packed: the device took buffers 0
// and 1 and returned both under id 0 (buffer 1 is lost to the driver, as with any bad id). The queue keeps
// delivering, twice round, afterwards.
static void test_rx_duplicate_id(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_packet_nic(&nic);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	model_test_capture_start();
	uint32_t hdr = model_virtio_net_hdr_len(nic);
	uint8_t chain[12 + 1514] = {0}; // the header (no offloads; num_buffers 1 where there is one), the frame
	if (hdr == 12) {
		chain[10] = 1;
	}
	model_test_frame(chain + hdr, frame_len_for(0), nic_mac, 0);
	uint16_t head, lost;
	CHECK(model_virtio_take(nic, MODEL_VIRTIO_RX, &head));
	CHECK(!layout->packed || model_virtio_take(nic, MODEL_VIRTIO_RX, &lost));
	CHECK(model_virtio_write_chain(nic, MODEL_VIRTIO_RX, head, chain, hdr + frame_len_for(0)));
	model_virtio_put_used(nic, MODEL_VIRTIO_RX, head, hdr + frame_len_for(0));
	model_virtio_put_used(nic, MODEL_VIRTIO_RX, head, hdr + frame_len_for(0));
	struct pkt_buf* bufs[8];
	uint32_t n = ixy_rx_batch(dev, 0, bufs, 8);
	CHECK_EQ(n, 1);
	uint8_t frame[1514];
	model_test_frame(frame, frame_len_for(0), nic_mac, 0);
	CHECK(n >= 1 && bufs[0]->size == frame_len_for(0) && memcmp(bufs[0]->data, frame, bufs[0]->size) == 0);
	pkt_buf_free_batch(bufs, n);
	char* text = model_test_capture_end();
	CHECK_EQ(count_of(text, "a chain it does not hold"), 1);
	free(text);
	struct device_stats stats = read_stats(dev);
	CHECK_EQ(stats.rx_pkts, 1);
	CHECK_EQ(stats.rx_dropped, 1);
	uint32_t held = chains_of_64() - layout->packed;
	for (uint32_t seq = 1; seq < 1 + 2 * held; seq += held) {
		for (uint32_t i = 0; i < held; i++) {
			deliver(nic, seq + i);
		}
		receive_in_order(dev, seq, held, 64);
	}
	model_test_capture_start();
	ixy_close(dev);
	free(model_test_capture_end());
	check_left_reset(nic);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// The same for TX: the device returns the chains of a batch in another order. Every buffer comes back once, and the
// queue then holds as many packets as before, sent byte for byte, for several rounds of the whole queue, and at
// close the buffers still queued go back to the pool.
static void test_tx_out_of_order(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_packet_nic(&nic);
	struct mempool* pool = memory_allocate_mempool(256, 0);
	if (!dev || !pool) {
		model_pci_remove_all();
		return;
	}
	model_virtio_tx_on_notify(nic, false);
	model_test_capture_start();
	uint32_t chains = chains_of_64();
	struct pkt_buf* bufs[64];
	fill_packets(pool, bufs, 8, 0);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 8), 8);
	uint16_t heads[8];
	for (uint32_t i = 0; i < 8; i++) {
		CHECK(model_virtio_take(nic, MODEL_VIRTIO_TX, &heads[i]));
	}
	const uint32_t order[8] = {3, 1, 0, 2, 7, 6, 5, 4};
	for (uint32_t i = 0; i < 8; i++) {
		model_virtio_put_used(nic, MODEL_VIRTIO_TX, heads[order[i]], 0); // returned unsent
	}
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 0), 0);
	CHECK_EQ(pool->free_stack_top, 256);
	CHECK_EQ(read_stats(dev).tx_pkts, 8);
	for (uint32_t round = 0; round < 3; round++) {
		fill_packets(pool, bufs, chains, round * chains);
		CHECK_EQ(ixy_tx_batch(dev, 0, bufs, chains), chains);
		CHECK_EQ(model_virtio_tx_process(nic), chains);
		check_wire(nic, 0, round * chains, chains);
		model_virtio_clear_tx(nic);
	}
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 0), 0);
	CHECK_EQ(pool->free_stack_top, 256);
	CHECK_EQ(read_stats(dev).tx_pkts, 3 * chains);
	fill_packets(pool, bufs, 10, 0);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 10), 10);
	char* text = model_test_capture_end();
	CHECK_EQ(count_of(text, "ixy: warning"), 0);
	free(text);
	ixy_close(dev);
	CHECK_EQ(pool->free_stack_top, 256);
	memory_free_mempool(pool);
	check_left_reset(nic);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// A device that does not answer control commands, or refuses them: ixy_init gives up with one message (promiscuous
// mode is part of the init) and leaves the device reset; on a running device only the command fails, and after a
// timeout no more are sent.
static void test_control_queue_failures(void) {
	model_test_begin(__func__);
	const enum model_virtio_ctrl_answer answers[] = {MODEL_VIRTIO_CTRL_SILENT, MODEL_VIRTIO_CTRL_ERR};
	const char* messages[] = {"no answer to control command", "refused control command"};
	for (int i = 0; i < 2; i++) {
		dma_before = seam_dma_live_allocations();
		struct model_virtio* nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_MODERN_ONLY);
		model_virtio_ctrl_answer(nic, answers[i]);
		model_test_capture_start();
		struct ixy_device* dev = ixy_init(NIC_ADDR, 1, 1);
		char* text = model_test_capture_end();
		CHECK(dev == NULL);
		CHECK_EQ(count_of(text, "error"), 1);
		CHECK(strstr(text, messages[i]) != NULL);
		free(text);
		check_left_reset(nic);
		CHECK_NO_NEW_VIOLATIONS();
		model_pci_remove_all();
	}
	struct model_virtio* nic;
	struct ixy_device* dev = open_nic(&nic, MODEL_VIRTIO_MODERN_ONLY, 0);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	model_virtio_ctrl_answer(nic, MODEL_VIRTIO_CTRL_SILENT);
	uint32_t notified = model_virtio_notifications(nic, MODEL_VIRTIO_CTRL);
	CHECK(ixy_set_promisc(dev, false) != 0);
	CHECK(ixy_set_promisc(dev, false) != 0);
	CHECK_EQ(model_virtio_notifications(nic, MODEL_VIRTIO_CTRL), notified + 1); // the second one was not sent
	CHECK(model_virtio_promisc(nic));
	deliver(nic, 5); // RX goes on
	receive_in_order(dev, 5, 1, 4);
	close_nic(nic, dev);
}

// A device running through its modern interface: a frame each way (one received, one sent from pool).
static void frame_each_way_modern(struct model_virtio* nic, struct ixy_device* dev, struct mempool* pool) {
	CHECK(strcmp(model_virtio_transport(nic), "modern") == 0);
	CHECK_EQ(model_virtio_status(nic), STATUS_RUNNING_MODERN);
	deliver(nic, 1);
	receive_in_order(dev, 1, 1, 32);
	struct pkt_buf* bufs[1];
	fill_packets(pool, bufs, 1, 2);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 1), 1);
	check_wire(nic, 0, 2, 1);
}

// The capability walk (4.1.4, PCI 3.0 6.7) in each layout of the model: QEMU's; structures in three BARs, listed
// backwards behind capabilities to pass over, with reserved pointer bits set and notify_off_multiplier 0; a page of
// notification address per queue; and QEMU's with the reserved bits of the first pointer set. Each works: init, a
// frame each way (each queue notified at its own address, which the model checks), close.
static void test_capability_layouts(void) {
	model_test_begin(__func__);
	for (int i = 0; i < 4; i++) {
		dma_before = seam_dma_live_allocations();
		struct model_virtio* nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_MODERN_ONLY);
		model_virtio_set_layout(nic, i == 3 ? MODEL_VIRTIO_LAYOUT_QEMU : (enum model_virtio_layout)i);
		if (i == 3) {
			model_virtio_poke_config(nic, 0x34, model_virtio_config_byte(nic, 0x34) | 3);
		}
		struct ixy_device* dev = ixy_init(NIC_ADDR, 1, 1);
		struct mempool* pool = memory_allocate_mempool(64, 0);
		CHECK(dev != NULL);
		if (!dev || !pool) {
			model_pci_remove_all();
			continue;
		}
		frame_each_way_modern(nic, dev, pool);
		uint8_t mac[6];
		CHECK(ixy_get_mac_addr(dev, mac) == 0 && memcmp(mac, nic_mac, 6) == 0);
		CHECK(model_virtio_notifications(nic, MODEL_VIRTIO_RX) > 0);
		CHECK(model_virtio_notifications(nic, MODEL_VIRTIO_CTRL) > 0); // promiscuous mode
		ixy_close(dev);
		memory_free_mempool(pool);
		check_left_reset(nic);
		CHECK_NO_NEW_VIOLATIONS();
		model_pci_remove_all();
	}
}

// A capability as the QEMU layout has it: where in configuration space (the model's layout, virtio_model.c).
#define QEMU_CAP_COMMON 0x40
#define QEMU_CAP_DEVICE 0x60
#define QEMU_CAP_NOTIFY 0x70
#define QEMU_CAP_LAST 0x84
#define CAP_BAR 4
#define CAP_OFFSET 8
#define CAP_LENGTH 12
#define CAP_MULTIPLIER 16

// Bad capabilities are device input (4.1.4): each case breaks the QEMU layout in one place. A device whose walk
// finds no usable modern interface falls back to legacy (transitional) or is refused (modern only); a structure
// that cannot be used is refused with one message. Nothing is left behind: the device reset (or never touched),
// its BARs unmapped, bus mastering off, no DMA memory.
static void test_bad_capabilities(void) {
	model_test_begin(__func__);
	struct bad_case {
		const char* what;
		enum model_virtio_kind kind;
		uint8_t offset, value; // the byte of configuration space that breaks it
		const char* message;   // the error expected, or NULL if the init works
		const char* transport; // the interface it works on
	};
	static const struct bad_case cases[] = {
	    // The first pointer at 0xff: masked to 0xfc (PCI 3.0, 6.7), where there is nothing: no modern interface.
	    {"first pointer 0xff", MODEL_VIRTIO_BOTH, 0x34, 0xff, NULL, "legacy"},
	    {"first pointer 0xff, modern only", MODEL_VIRTIO_MODERN_ONLY, 0x34, 0xff, "not an IO port BAR", NULL},
	    // A list that loops back to its start ends after at most 48 capabilities; all were seen by then.
	    {"a loop", MODEL_VIRTIO_MODERN_ONLY, QEMU_CAP_LAST + 1, QEMU_CAP_COMMON, NULL, "modern"},
	    // The common configuration in BAR 6 (reserved: the capability is ignored, 4.1.4.1), in BAR 3 (no
	    // memory BAR), beyond the end of its BAR.
	    {"BAR 6", MODEL_VIRTIO_MODERN_ONLY, QEMU_CAP_COMMON + CAP_BAR, 6, "not an IO port BAR", NULL},
	    {"BAR 3", MODEL_VIRTIO_MODERN_ONLY, QEMU_CAP_COMMON + CAP_BAR, 3, "not a memory BAR", NULL},
	    {"beyond its BAR", MODEL_VIRTIO_MODERN_ONLY, QEMU_CAP_COMMON + CAP_OFFSET + 1, 0x40, "does not fit", NULL},
	    {"length beyond its BAR", MODEL_VIRTIO_MODERN_ONLY, QEMU_CAP_DEVICE + CAP_LENGTH + 3, 0x80, "does not fit",
	     NULL},
	    // The device configuration not 4 byte aligned (4.1.4.6).
	    {"misaligned", MODEL_VIRTIO_MODERN_ONLY, QEMU_CAP_DEVICE + CAP_OFFSET, 0x02, "aligned", NULL},
	    // The notification capability too short for notify_off_multiplier: ignored, so there is none.
	    {"short notify cap", MODEL_VIRTIO_MODERN_ONLY, QEMU_CAP_NOTIFY + 2, 16, "lack the notification", NULL},
	    // An odd notify_off_multiplier (4.1.4.4: 0 or an even power of two).
	    {"odd multiplier", MODEL_VIRTIO_MODERN_ONLY, QEMU_CAP_NOTIFY + CAP_MULTIPLIER, 3, "odd", NULL},
	    // A notification structure of 4 bytes: queue 1's address (1 * 4) is outside it.
	    {"short notify structure", MODEL_VIRTIO_MODERN_ONLY, QEMU_CAP_NOTIFY + CAP_LENGTH + 1, 0,
	     "outside the notification structure", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_case* c = &cases[i];
		fprintf(stderr, "-- %s\n", c->what);
		dma_before = seam_dma_live_allocations();
		struct model_virtio* nic = model_virtio_add(NIC_ADDR, c->kind);
		model_virtio_set_layout(nic, MODEL_VIRTIO_LAYOUT_QEMU); // whatever IXY_MODEL_VIRTIO_LAYOUT says
		model_virtio_poke_config(nic, c->offset, c->value);
		if (strcmp(c->what, "short notify structure") == 0) {
			model_virtio_poke_config(nic, QEMU_CAP_NOTIFY + CAP_LENGTH, 4);
		}
		model_test_capture_start();
		struct ixy_device* dev = ixy_init(NIC_ADDR, 1, 1);
		char* text = model_test_capture_end();
		CHECK_EQ(dev != NULL, c->message == NULL);
		CHECK(!c->message || strstr(text, c->message) != NULL);
		CHECK(!c->transport || (dev && strcmp(model_virtio_transport(nic), c->transport) == 0));
		free(text);
		if (dev) {
			ixy_close(dev);
		}
		check_left_reset(nic);
		CHECK(!model_pci_bar_mapped(model_virtio_pci(nic)));
		CHECK_NO_NEW_VIOLATIONS();
		model_pci_remove_all();
	}
}

// A capability whose BAR cannot be mapped, followed by a good one of the same type: the driver takes the later one
// (4.1.4.1: the first it can support). For each structure the driver uses, in QEMU's layout: its capability points
// to BAR 3, which is no memory BAR, and a copy of it pointing to BAR4, as before, is added at the end of the list.
// The device works through the modern interface: init, a frame each way, close.
static void test_later_capability(void) {
	model_test_begin(__func__);
	static const struct {
		const char* what;
		uint8_t at, cap_len;
	} structures[] = {{"common configuration", QEMU_CAP_COMMON, 16},
			  {"device configuration", QEMU_CAP_DEVICE, 16},
			  {"notification", QEMU_CAP_NOTIFY, 20}};
	const uint8_t added = 0xa0; // free configuration space after QEMU's last capability
	for (size_t i = 0; i < sizeof(structures) / sizeof(structures[0]); i++) {
		fprintf(stderr, "-- %s in BAR 3, then in BAR 4\n", structures[i].what);
		dma_before = seam_dma_live_allocations();
		struct model_virtio* nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_MODERN_ONLY);
		model_virtio_set_layout(nic, MODEL_VIRTIO_LAYOUT_QEMU); // whatever IXY_MODEL_VIRTIO_LAYOUT says
		uint8_t at = structures[i].at;
		for (uint8_t b = 0; b < structures[i].cap_len; b++) {
			model_virtio_poke_config(nic, (uint8_t)(added + b),
						 model_virtio_config_byte(nic, (uint8_t)(at + b)));
		}
		model_virtio_poke_config(nic, added + 1, 0);               // the end of the list
		model_virtio_poke_config(nic, QEMU_CAP_LAST + 1, added);   // after QEMU's last capability
		model_virtio_poke_config(nic, (uint8_t)(at + CAP_BAR), 3); // the first one in BAR 3
		model_test_capture_start();
		struct ixy_device* dev = ixy_init(NIC_ADDR, 1, 1);
		char* text = model_test_capture_end();
		CHECK(dev != NULL);
		CHECK(strstr(text, "BAR3 is not a memory BAR") != NULL); // the walk tried the first one
		free(text);
		struct mempool* pool = memory_allocate_mempool(64, 0);
		if (!dev || !pool) {
			memory_free_mempool(pool);
			ixy_close(dev);
			model_pci_remove_all();
			continue;
		}
		frame_each_way_modern(nic, dev, pool);
		ixy_close(dev);
		memory_free_mempool(pool);
		check_left_reset(nic);
		CHECK(!model_pci_bar_mapped(model_virtio_pci(nic)));
		CHECK_NO_NEW_VIOLATIONS();
		model_pci_remove_all();
	}
}

// Every DMA allocation of the init failing in turn: refused, the device left reset, nothing allocated.
static void test_dma_allocation_failures(void) {
	model_test_begin(__func__);
	for (unsigned nth = 1; nth <= 4; nth++) {
		dma_before = seam_dma_live_allocations();
		struct model_virtio* nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_MODERN_ONLY);
		model_fail_dma_allocation(nth);
		struct ixy_device* dev = ixy_init(NIC_ADDR, 1, 1);
		CHECK(dev == NULL);
		model_fail_dma_allocation(0);
		check_left_reset(nic);
		CHECK_NO_NEW_VIOLATIONS();
		model_pci_remove_all();
	}
}

// The model's own checks, driven by hand through the operations of the real transports (src/driver), which reach the
// model's registers: each mistake a driver could make is reported as a violation.
static void test_model_checks(void) {
	model_test_begin(__func__);
	struct model_virtio* nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_MODERN_ONLY);
	model_virtio_set_layout(nic, MODEL_VIRTIO_LAYOUT_QEMU); // whatever IXY_MODEL_VIRTIO_LAYOUT says
	struct pci_device* pci = pci_sysfs_access.open(NIC_ADDR);
	struct virtio_transport* t = NULL;
	CHECK(pci && virtio_modern_open(pci, &t) == 0 && t != NULL);
	if (!pci || !t) {
		model_pci_remove_all();
		return;
	}
	const struct virtio_transport_ops* ops = t->ops;
	// The registers themselves (QEMU's layout: everything in BAR4): a field read with the wrong width, a queue
	// notified at another queue's address (and before DRIVER_OK), a load where no structure is.
	volatile uint8_t* bar4 = model_pci_bar(model_virtio_pci(nic), 4);
	CHECK(bar4 != NULL);
	if (bar4) {
		ixy_seam_mmio_read(bar4 + 0x14, 4); // device_status is 8 bits
		CHECK_VIOLATION("common configuration at 0x14 accessed with 4 bytes");
		ixy_seam_mmio_write(bar4 + 0x3000 + 4, 2, 0); // queue 0's address is 0x3000
		CHECK_VIOLATION("virtqueue 0 notified at offset 0x4");
		CHECK_VIOLATION("virtqueue 0 notified before DRIVER_OK");
		ixy_seam_mmio_read(bar4 + 0x3000, 2);
		CHECK_VIOLATION("no VirtIO structure takes it");
		CHECK_NO_NEW_VIOLATIONS();
	}
	ops->set_status(t, VIRTIO_STATUS_ACKNOWLEDGE);
	CHECK_VIOLATION("ACKNOWLEDGE before the device was reset");
	ops->set_status(t, 0);
	ops->set_status(t, VIRTIO_STATUS_ACKNOWLEDGE);
	uint64_t offered;
	ops->get_features(t, &offered);
	CHECK_VIOLATION("features read before DRIVER"); // once per 32 bit half
	CHECK_VIOLATION("features read before DRIVER");
	ops->set_status(t, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER_OK);
	CHECK_VIOLATION("DRIVER_OK before the features were negotiated");
	CHECK_VIOLATION("DRIVER_OK before the RX and TX queues");
	ops->set_status(t, VIRTIO_STATUS_ACKNOWLEDGE);
	CHECK_VIOLATION("bits cleared without a reset");
	CHECK_NO_NEW_VIOLATIONS();

	ops->set_status(t, 0);
	ops->set_status(t, VIRTIO_STATUS_ACKNOWLEDGE);
	ops->set_status(t, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER);
	uint16_t size;
	ops->queue_size(t, 0, 0, &size);
	CHECK_VIOLATION("virtqueue 0 set up in status 0x03");
	ops->get_features(t, &offered);
	CHECK_EQ(offered, MODEL_VIRTIO_DEFAULT_FEATURES);
	CHECK_EQ(ops->set_features(t, VIRTIO_NET_F_MAC | (1ull << 40)), 0);
	CHECK_VIOLATION("does not offer");
	CHECK_VIOLATION("VIRTIO_F_VERSION_1 offered and not accepted");
	CHECK_EQ(ops->queue_size(t, 0, 100, &size), 0);
	CHECK_VIOLATION("size 100 is not a power of two");
	CHECK_EQ(ops->queue_size(t, 0, 64, &size), 0);
	CHECK_EQ(size, 64);
	struct dma_memory mem;
	CHECK_EQ(memory_allocate_dma(IXY_HUGE_PAGE_SIZE, true, &mem), 0);
	uint64_t base = mem.phy;
	CHECK_EQ(ops->enable_queue(t, 0, 64, base + 8, base + 1024, base + 4096), 0); // the device does not say no
	CHECK_VIOLATION("misaligned or not DMA memory");
	CHECK(!model_virtio_queue_ready(nic, 0));
	CHECK(ops->enable_queue(t, 0, 32, base, base + 1024, base + 4096) != 0); // the transport reads the size 64
	CHECK(!model_virtio_queue_ready(nic, 0));
	CHECK_EQ(ops->enable_queue(t, 0, 64, base, base + 1024, base + 4096), 0);
	ops->notify(t, 0);
	CHECK_VIOLATION("notified before DRIVER_OK");
	CHECK_NO_NEW_VIOLATIONS();
	memory_free_dma(&mem);
	CHECK_VIOLATION("DMA memory of virtqueue 0 freed while the device can reach it");
	CHECK_EQ(model_virtio_status(nic), 0x0b);
	CHECK(model_virtio_queue_ready(nic, 0));
	ops->close(t);
	CHECK_NO_NEW_VIOLATIONS();
	pci_close(pci); // the transport unmapped the BARs: the driver gives the modern interface up
	CHECK_VIOLATION("transport closed in status 0x0b");
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();

	// The legacy interface: no FEATURES_OK, and the rings where 2.4.2 puts them (the device computes them from the
	// page number).
	nic = model_virtio_add(NIC_ADDR, MODEL_VIRTIO_LEGACY_ONLY);
	pci = pci_sysfs_access.open(NIC_ADDR);
	CHECK(pci && virtio_modern_open(pci, &t) == 0 && t == NULL);
	t = pci ? virtio_legacy_open(pci) : NULL;
	CHECK(t != NULL && strcmp(t->ops->name, "legacy") == 0);
	if (!pci || !t) {
		model_pci_remove_all();
		return;
	}
	ops = t->ops;
	const uint32_t features = 0;
	CHECK_EQ(ixy_seam_io_pwrite(3, &features, sizeof(features), 0), -1); // no handle 3 is open
	CHECK_VIOLATION("IO BAR handle 3 is not open");
	CHECK_EQ(ixy_seam_io_pwrite(0, &features, sizeof(features), 0), 4); // host features: read-only
	CHECK_VIOLATION("legacy register at 0x00 written: it is read-only");
	ops->set_status(t, 0);
	ops->set_status(t, VIRTIO_STATUS_ACKNOWLEDGE);
	ops->set_status(t, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER);
	ops->get_features(t, &offered);
	CHECK_EQ(offered, MODEL_VIRTIO_DEFAULT_FEATURES & 0xffffffffu);
	CHECK_EQ(ops->set_features(t, VIRTIO_NET_F_MAC), 0);
	ops->set_status(t, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER | VIRTIO_STATUS_FEATURES_OK);
	CHECK_VIOLATION("FEATURES_OK through the legacy interface");
	CHECK_EQ(ops->queue_size(t, 0, 64, &size), 0);
	CHECK_EQ(size, 256); // the legacy size is the device's
	CHECK_EQ(memory_allocate_dma(IXY_HUGE_PAGE_SIZE, true, &mem), 0);
	base = mem.phy;
	CHECK_EQ(ops->enable_queue(t, 0, 256, base, base + 4096, base + 8192), 0);
	CHECK(model_virtio_queue_ready(nic, 0));
	ops->set_status(t, 0);
	CHECK(!model_virtio_queue_ready(nic, 0)); // a reset forgets the queues
	ops->close(t);
	memory_free_dma(&mem);
	CHECK_NO_NEW_VIOLATIONS();
	pci_close(pci);
	model_pci_remove_all();
}

// A queue number beyond the device's queues (issue 34) reaches no driver: ixy_rx_batch and ixy_tx_batch return 0, the
// caller keeps its buffer, one error line says so (once per process), and queue 0 works on. (The driver itself
// aborted the process here before the check moved into the wrappers.)
static void test_queue_out_of_range(void) {
	model_test_begin(__func__);
	struct model_virtio* nic;
	struct ixy_device* dev = open_packet_nic(&nic);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	deliver(nic, 0);
	struct mempool* pool = memory_allocate_mempool(8, 0);
	struct pkt_buf* bufs[4];
	CHECK_EQ(pkt_buf_alloc_batch(pool, bufs, 1), 1);
	model_test_capture_start();
	CHECK_EQ(ixy_rx_batch(dev, 1, bufs + 1, 3), 0);
	CHECK_EQ(ixy_tx_batch(dev, 1, bufs, 1), 0);
	CHECK_EQ(ixy_tx_batch(dev, UINT16_MAX, bufs, 1), 0);
	char* text = model_test_capture_end();
	CHECK(
	    strstr(text, "ixy: error: " NIC_ADDR ": RX queue 1 does not exist (the device has 1 RX and 1 TX queues)"));
	CHECK_EQ(count_of(text, "does not exist"), 1); // once per process
	free(text);
	CHECK_EQ(pool->free_stack_top, 7); // the caller still owns the buffer it offered
	pkt_buf_free(bufs[0]);
	memory_free_mempool(pool);
	receive_in_order(dev, 0, 1, 4);
	close_nic(nic, dev);
}

int main(void) {
	test_queue_out_of_range();
	test_model_checks();
	test_init_modern();
	test_init_without_control_queue();
	test_init_legacy();
	test_transport_choice();
	test_any_layout_negotiation();
	test_features_refused();
	test_config_changes_during_read();
	test_capability_layouts();
	test_bad_capabilities();
	test_later_capability();
	test_modern_without_version_1();
	test_ring_sizes();
	test_control_queue();
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		layout = &layouts[i];
		fprintf(stderr, "-- packet tests, %s\n", layout->name);
		test_rx();
		test_rx_pool_empty();
		test_tx();
		test_bad_rx_entries();
		if (!layout->packed) { // split's used index; test_virtio_packed.c has packed's bad descriptors
			test_rx_full_ring_after_bad_ids();
			test_bad_tx_entries();
		}
		test_rx_out_of_order();
		test_rx_duplicate_id();
		test_rx_keep_first();
		test_tx_out_of_order();
	}
	test_control_queue_failures();
	test_dma_allocation_failures();
	return model_test_summary();
}
