// The ixgbe driver's receive and transmit paths against the 82599 model: byte-exact delivery, ring wrap-around for
// every ring size and several batch sizes, full rings, an empty buffer pool, statistics, promiscuous mode, several
// queues, and close (after which the device must not touch memory any more).
#include <stdlib.h>
#include <string.h>

#include <ixy/ixy.h>
#include <ixy/settings.h>

#include "../check.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "seam.h"
#include "test_regs.h"

#define NIC_ADDR "0000:06:00.0"
static const uint8_t nic_mac[6] = {0x02, 0x00, 0x00, 0x06, 0x00, 0x00}; // the model's EEPROM MAC for 06:00.0
static const uint8_t foreign_mac[6] = {0x02, 0x00, 0x00, 0x99, 0x99, 0x99};

#define MAX_HELD 65536
static struct pkt_buf* held[MAX_HELD];

static struct ixy_device* open_device(uint16_t rx_queues, uint16_t tx_queues, uint32_t ring_size) {
	struct ixy_config config = {
	    .pci_addr = NIC_ADDR, .rx_queues = rx_queues, .tx_queues = tx_queues, .ring_size = ring_size};
	struct ixy_device* dev = ixy_init_config(&config);
	CHECK(dev != NULL);
	model_advance_us(1000000); // whatever the driver waited, the link is up now
	return dev;
}

static uint32_t frame_len_for(uint32_t seq) {
	return 60 + seq % 69;
}

// Receives up to `want` packets from a queue into bufs, calling rx_batch up to `tries` times.
static uint32_t receive(struct ixy_device* dev, uint16_t queue, struct pkt_buf** bufs, uint32_t want, uint32_t batch,
			int tries) {
	uint32_t got = 0;
	for (int i = 0; i < tries && got < want; i++) {
		uint32_t n = want - got < batch ? want - got : batch;
		got += ixy_rx_batch(dev, queue, bufs + got, n);
	}
	return got;
}

// Queues all n buffers for sending, calling tx_batch until it took them all (at most `tries` calls).
static uint32_t transmit(struct ixy_device* dev, uint16_t queue, struct pkt_buf** bufs, uint32_t n, int tries) {
	uint32_t sent = 0;
	for (int i = 0; i < tries && sent < n; i++) {
		sent += ixy_tx_batch(dev, queue, bufs + sent, n - sent);
	}
	return sent;
}

static void fill_packet(struct pkt_buf* buf, uint32_t len, const uint8_t dst[6], uint32_t seq) {
	model_test_frame(buf->data, len, dst, seq);
	buf->size = len;
}

// Takes n buffers from the pool (checking that it has them) and fills each with a len byte frame to foreign_mac
// carrying sequence number i.
static void alloc_packets(struct mempool* pool, struct pkt_buf** bufs, uint32_t n, uint32_t len) {
	CHECK_EQ(pkt_buf_alloc_batch(pool, bufs, n), n);
	for (uint32_t i = 0; i < n; i++) {
		fill_packet(bufs[i], len, foreign_mac, i);
	}
}

// Frames of many lengths arrive byte for byte, with the right length.
static void test_rx_delivery(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_device* dev = open_device(1, 1, 0);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	const uint32_t lens[] = {60, 61, 64, 100, 128, 511, 1000, 1500, 1514};
	const uint32_t count = sizeof(lens) / sizeof(lens[0]);
	uint8_t frames[9][1514];
	for (uint32_t i = 0; i < count; i++) {
		model_test_frame(frames[i], lens[i], nic_mac, i);
		CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frames[i], lens[i]), MODEL_RX_DELIVERED);
	}
	struct pkt_buf* bufs[16];
	uint32_t got = receive(dev, 0, bufs, count, 16, 100);
	CHECK_EQ(got, count);
	for (uint32_t i = 0; i < got; i++) {
		CHECK_EQ(bufs[i]->size, lens[i]);
		CHECK(memcmp(bufs[i]->data, frames[i], lens[i]) == 0);
		pkt_buf_free(bufs[i]);
	}
	CHECK_EQ(ixy_rx_batch(dev, 0, bufs, 16), 0); // nothing more
	ixy_close(dev);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// Frames are sent byte for byte and in order; after close every buffer is back in the app's pool.
static void test_tx_content(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_device* dev = open_device(1, 1, 0);
	struct mempool* pool = memory_allocate_mempool(256, 0);
	CHECK(pool != NULL);
	if (!dev || !pool) {
		model_pci_remove_all();
		return;
	}
	const uint32_t lens[] = {60, 61, 64, 100, 128, 511, 1000, 1500, 1514};
	const uint32_t count = sizeof(lens) / sizeof(lens[0]);
	struct pkt_buf* bufs[9];
	CHECK_EQ(pkt_buf_alloc_batch(pool, bufs, count), count);
	for (uint32_t i = 0; i < count; i++) {
		fill_packet(bufs[i], lens[i], foreign_mac, 100 + i);
	}
	CHECK_EQ(transmit(dev, 0, bufs, count, 10), count);
	CHECK_EQ(model_ixgbe_tx_frame_count(nic), count);
	for (uint32_t i = 0; i < count && i < model_ixgbe_tx_frame_count(nic); i++) {
		uint32_t len;
		uint16_t queue;
		const uint8_t* frame = model_ixgbe_tx_frame(nic, i, &len, &queue);
		uint8_t expected[1514];
		model_test_frame(expected, lens[i], foreign_mac, 100 + i);
		CHECK_EQ(len, lens[i]);
		CHECK_EQ(queue, 0);
		CHECK(memcmp(frame, expected, lens[i]) == 0);
	}
	ixy_close(dev);
	CHECK_EQ(pool->free_stack_top, 256);
	memory_free_mempool(pool);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// Many thousands of packets through one RX and one TX ring of `ring_size` descriptors, `batch` at a time: every
// packet arrives once, in order and intact, is sent in order and intact; no buffer is leaked or used twice.
static void run_wrap_around(uint32_t ring_size, uint32_t batch) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_device* dev = open_device(1, 1, ring_size);
	uint32_t pool_size = 2 * ring_size + batch;
	struct mempool* tx_pool = memory_allocate_mempool(pool_size, 0);
	CHECK(tx_pool != NULL);
	if (!dev || !tx_pool) {
		model_pci_remove_all();
		return;
	}
	uint32_t total = 4 * ring_size > 5000 ? 4 * ring_size : 5000;
	uint32_t injected = 0, received = 0, sent = 0, checked = 0;
	struct mempool* rx_pool = NULL;
	int64_t rx_balance = -1; // free RX buffers + descriptors the device owns, while the test holds none
	uint32_t balance_errors = 0, content_errors = 0, stalls = 0;
	struct pkt_buf** bufs = held;
	uint8_t expected[128];
	while (received < total && stalls < 100) {
		uint32_t available = model_ixgbe_rx_descriptors_available(nic, 0);
		uint32_t k = batch < available ? batch : available;
		if (k > total - injected) {
			k = total - injected;
		}
		for (uint32_t i = 0; i < k; i++, injected++) {
			model_test_frame(expected, frame_len_for(injected), nic_mac, injected);
			if (model_ixgbe_inject_rx(nic, 0, expected, frame_len_for(injected)) != MODEL_RX_DELIVERED) {
				content_errors++;
			}
		}
		uint32_t n = ixy_rx_batch(dev, 0, bufs, batch);
		stalls = n == 0 && k == 0 ? stalls + 1 : 0;
		for (uint32_t i = 0; i < n; i++, received++) {
			if (!rx_pool) {
				rx_pool = bufs[i]->mempool;
			}
			uint32_t len = frame_len_for(received);
			model_test_frame(expected, len, nic_mac, received);
			if (bufs[i]->size != len || memcmp(bufs[i]->data, expected, len) != 0) {
				if (content_errors++ < 5) {
					fprintf(stderr,
						"ring %u batch %u: packet %u arrived wrong (%u bytes, seq %u)\n",
						ring_size, batch, received, bufs[i]->size,
						model_test_frame_seq(bufs[i]->data, bufs[i]->size));
				}
			}
			for (uint32_t j = 0; j < i; j++) {
				content_errors += bufs[j] == bufs[i]; // the same buffer twice in one batch
			}
		}
		for (uint32_t i = 0; i < n; i++) {
			pkt_buf_free(bufs[i]);
		}
		if (rx_pool && received == injected) {
			int64_t balance = rx_pool->free_stack_top + model_ixgbe_rx_descriptors_available(nic, 0);
			if (rx_balance < 0) {
				rx_balance = balance;
			} else if (balance != rx_balance && balance_errors++ < 5) {
				fprintf(stderr,
					"ring %u batch %u: RX buffers free + owned by the device %lld, was %lld\n",
					ring_size, batch, (long long)balance, (long long)rx_balance);
			}
		}
		// send as many packets as were received, from the test's own pool
		struct pkt_buf* tx[256];
		uint32_t to_send = n;
		while (to_send > 0) {
			uint32_t m = to_send < 256 ? to_send : 256;
			uint32_t allocated = pkt_buf_alloc_batch(tx_pool, tx, m);
			if (allocated < m) {
				content_errors++;
				fprintf(stderr, "ring %u batch %u: TX pool exhausted (leak?)\n", ring_size, batch);
				for (uint32_t i = 0; i < allocated; i++) {
					pkt_buf_free(tx[i]);
				}
				break;
			}
			for (uint32_t i = 0; i < m; i++) {
				fill_packet(tx[i], frame_len_for(sent + i), foreign_mac, sent + i);
			}
			uint32_t taken = transmit(dev, 0, tx, m, 100);
			for (uint32_t i = taken; i < m; i++) {
				pkt_buf_free(tx[i]);
			}
			if (taken < m) {
				content_errors++;
				fprintf(stderr, "ring %u batch %u: tx_batch took %u of %u\n", ring_size, batch, taken,
					m);
				to_send = 0;
			} else {
				to_send -= m;
			}
			sent += taken;
		}
		// check what left the wire
		uint32_t frames = model_ixgbe_tx_frame_count(nic);
		for (uint32_t i = 0; i < frames; i++, checked++) {
			uint32_t len;
			const uint8_t* frame = model_ixgbe_tx_frame(nic, i, &len, NULL);
			model_test_frame(expected, frame_len_for(checked), foreign_mac, checked);
			if (len != frame_len_for(checked) || memcmp(frame, expected, len) != 0) {
				if (content_errors++ < 5) {
					fprintf(stderr, "ring %u batch %u: sent frame %u wrong (%u bytes, seq %u)\n",
						ring_size, batch, checked, len, model_test_frame_seq(frame, len));
				}
			}
		}
		model_ixgbe_clear_tx_frames(nic);
	}
	CHECK_EQ(received, total);
	CHECK_EQ(sent, total);
	CHECK_EQ(checked, total);
	CHECK_EQ(content_errors, 0);
	CHECK_EQ(balance_errors, 0);
	CHECK(rx_balance >= 0);
	CHECK_EQ(model_ixgbe_rx_dropped(nic), 0);
	CHECK_EQ(model_ixgbe_counters(nic).tx_frames, total);
	// The driver holds at most a ring's worth of sent buffers it has not freed yet, and gives them back at stop.
	CHECK(tx_pool->free_stack_top + ring_size >= pool_size);
	ixy_stop(dev);
	CHECK_EQ(tx_pool->free_stack_top, pool_size);
	CHECK_EQ(rx_pool->free_stack_top, rx_pool->num_entries);
	ixy_close(dev);
	memory_free_mempool(tx_pool);
	CHECK_EQ(seam_dma_live_allocations(), 0);
	int failures_before = check_failures;
	CHECK_NO_NEW_VIOLATIONS();
	if (check_failures > failures_before) {
		fprintf(stderr, "... in the wrap-around test with ring size %u, batch size %u\n", ring_size, batch);
	}
	model_pci_remove_all();
}

static void test_wrap_around(void) {
	const uint32_t batches[] = {1, 32, 64, 256};
	for (uint32_t ring_size = 64; ring_size <= 4096; ring_size *= 2) {
		for (size_t b = 0; b < sizeof(batches) / sizeof(batches[0]); b++) {
			run_wrap_around(ring_size, batches[b]);
		}
	}
}

// The link partner stops us (pause frames): the TX ring fills up, tx_batch takes fewer, the rest stays ours.
static void test_tx_ring_full(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_device* dev = open_device(1, 1, 64);
	struct mempool* pool = memory_allocate_mempool(512, 0);
	if (!dev || !pool) {
		CHECK(false);
		model_pci_remove_all();
		return;
	}
	model_ixgbe_pause_tx(nic, true);
	struct pkt_buf* bufs[200];
	alloc_packets(pool, bufs, 200, 60);
	uint32_t taken = ixy_tx_batch(dev, 0, bufs, 200);
	CHECK(taken > 0);
	CHECK(taken < 64); // a ring of 64 holds at most 63 packets
	uint32_t more = 0;
	for (int i = 0; i < 10; i++) {
		more += ixy_tx_batch(dev, 0, bufs + taken + more, 200 - taken - more);
	}
	CHECK_EQ(more, 0); // nothing moves while paused
	CHECK_EQ(model_ixgbe_tx_pending(nic, 0), taken);
	CHECK_EQ(model_ixgbe_tx_frame_count(nic), 0);
	for (uint32_t i = taken; i < 200; i++) {
		pkt_buf_free(bufs[i]); // still ours
	}
	model_ixgbe_pause_tx(nic, false);
	CHECK_EQ(model_ixgbe_tx_frame_count(nic), taken);
	for (uint32_t i = 0; i < taken && i < model_ixgbe_tx_frame_count(nic); i++) {
		uint32_t len;
		const uint8_t* frame = model_ixgbe_tx_frame(nic, i, &len, NULL);
		CHECK_EQ(model_test_frame_seq(frame, len), i);
	}
	// and sending goes on
	model_ixgbe_clear_tx_frames(nic);
	for (uint32_t round = 0; round < 50; round++) {
		struct pkt_buf* b[10];
		CHECK_EQ(pkt_buf_alloc_batch(pool, b, 10), 10);
		for (uint32_t i = 0; i < 10; i++) {
			fill_packet(b[i], 60, foreign_mac, 1000 + round * 10 + i);
		}
		CHECK_EQ(transmit(dev, 0, b, 10, 10), 10);
	}
	CHECK_EQ(model_ixgbe_tx_frame_count(nic), 500);
	CHECK(pool->free_stack_top + 64 >= 512);
	ixy_close(dev);
	CHECK_EQ(pool->free_stack_top, 512);
	memory_free_mempool(pool);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// The app keeps every received buffer until the driver's pool runs dry: the driver must survive, drop (not crash),
// and receive again once buffers come back.
static void test_rx_pool_empty(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_device* dev = open_device(1, 1, 512);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	uint8_t frame[60];
	uint32_t count = 0, stalls = 0, seq = 0;
	struct mempool* rx_pool = NULL;
	while (count < MAX_HELD - 64 && stalls < 5) {
		uint32_t available = model_ixgbe_rx_descriptors_available(nic, 0);
		for (uint32_t i = 0; i < 32 && i < available; i++) {
			model_test_frame(frame, 60, nic_mac, seq++);
			model_ixgbe_inject_rx(nic, 0, frame, 60);
		}
		uint32_t n = ixy_rx_batch(dev, 0, held + count, 32);
		if (n > 0 && !rx_pool) {
			rx_pool = held[0]->mempool;
		}
		count += n;
		stalls = n == 0 && available == 0 ? stalls + 1 : 0;
	}
	fprintf(stderr,
		"RX pool empty: the app holds %u buffers, the pool has %u free, the device owns %u descriptors\n",
		count, rx_pool ? rx_pool->free_stack_top : 0, model_ixgbe_rx_descriptors_available(nic, 0));
	CHECK(stalls >= 5); // reception stopped: no buffers left
	CHECK(rx_pool != NULL);
	CHECK_NO_NEW_VIOLATIONS();
	// frames arriving now are dropped by the device, not delivered into buffers the app holds
	uint64_t delivered = model_ixgbe_counters(nic).rx_delivered;
	model_test_frame(frame, 60, nic_mac, seq++);
	CHECK(model_ixgbe_inject_rx(nic, 0, frame, 60) != MODEL_RX_DELIVERED);
	CHECK_EQ(model_ixgbe_counters(nic).rx_delivered, delivered);
	// give everything back: reception must resume
	for (uint32_t i = 0; i < count; i++) {
		pkt_buf_free(held[i]);
	}
	uint32_t after = 0;
	for (int round = 0; round < 200 && after < 3 * 512; round++) {
		uint32_t available = model_ixgbe_rx_descriptors_available(nic, 0);
		for (uint32_t i = 0; i < 32 && i < available; i++) {
			model_test_frame(frame, 60, nic_mac, seq++);
			model_ixgbe_inject_rx(nic, 0, frame, 60);
		}
		uint32_t n = ixy_rx_batch(dev, 0, held, 32);
		for (uint32_t i = 0; i < n; i++) {
			pkt_buf_free(held[i]);
		}
		after += n;
	}
	if (after == 0) {
		fprintf(stderr, "RX pool empty: reception did not resume after the buffers came back\n");
	}
	CHECK(after >= 3 * 512);
	ixy_close(dev);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// read_stats adds what the hardware counters counted since the last call, CRC included; drops are counted too.
static void test_statistics(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_device* dev = open_device(1, 1, 256);
	struct mempool* pool = memory_allocate_mempool(256, 0);
	if (!dev || !pool) {
		CHECK(false);
		model_pci_remove_all();
		return;
	}
	struct device_stats stats;
	stats_init(&stats, dev);
	ixy_read_stats(dev, &stats);
	CHECK_EQ(stats.rx_pkts + stats.tx_pkts + stats.rx_bytes + stats.tx_bytes + stats.rx_dropped, 0);
	uint8_t frame[200];
	model_test_frame(frame, 100, nic_mac, 1);
	CHECK_EQ(model_ixgbe_inject_rx_burst(nic, 0, frame, 100, 100), 100);
	struct pkt_buf* bufs[100];
	CHECK_EQ(receive(dev, 0, bufs, 100, 32, 100), 100);
	for (uint32_t i = 0; i < 100; i++) {
		pkt_buf_free(bufs[i]);
	}
	alloc_packets(pool, bufs, 50, 200);
	CHECK_EQ(transmit(dev, 0, bufs, 50, 10), 50);
	ixy_read_stats(dev, &stats);
	CHECK_EQ(stats.rx_pkts, 100);
	CHECK_EQ(stats.rx_bytes, 100 * 104);
	CHECK_EQ(stats.tx_pkts, 50);
	CHECK_EQ(stats.tx_bytes, 50 * 204);
	CHECK_EQ(stats.rx_dropped, 0);
	ixy_read_stats(dev, &stats); // nothing new happened: nothing is added
	CHECK_EQ(stats.rx_pkts, 100);
	CHECK_EQ(stats.tx_pkts, 50);
	// overflow the RX ring without receiving
	uint32_t available = model_ixgbe_rx_descriptors_available(nic, 0);
	CHECK_EQ(model_ixgbe_inject_rx_burst(nic, 0, frame, 100, available + 25), available);
	ixy_read_stats(dev, &stats);
	CHECK_EQ(stats.rx_dropped, model_ixgbe_rx_dropped(nic));
	CHECK_EQ(stats.rx_dropped, 25);
	CHECK_EQ(stats.rx_pkts, model_ixgbe_counters(nic).rx_good);
	CHECK_EQ(stats.rx_bytes, model_ixgbe_counters(nic).rx_good_octets);
	CHECK_EQ(stats.tx_bytes, model_ixgbe_counters(nic).tx_octets);
	uint32_t got;
	do {
		got = ixy_rx_batch(dev, 0, bufs, 64);
		for (uint32_t i = 0; i < got; i++) {
			pkt_buf_free(bufs[i]);
		}
	} while (got > 0);
	ixy_close(dev);
	memory_free_mempool(pool);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// Promiscuous mode and the MAC address decide which frames the device accepts (FCTRL.UPE/MPE, RAL/RAH); the driver
// must change FCTRL only while the receiver is off (8.2.3.7.1), which the model checks.
static void test_promisc_and_mac(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_device* dev = open_device(1, 1, 0);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	uint8_t frame[60];
	struct pkt_buf* bufs[4];
	CHECK_EQ(ixy_set_promisc(dev, false), 0);
	CHECK_EQ(model_ixgbe_peek(nic, R_FCTRL) & (FCTRL_UPE | FCTRL_MPE), 0);
	model_test_frame(frame, 60, foreign_mac, 1);
	CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frame, 60), MODEL_RX_FILTERED);
	model_test_frame(frame, 60, nic_mac, 2);
	CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frame, 60), MODEL_RX_DELIVERED);
	CHECK_EQ(ixy_set_promisc(dev, true), 0);
	CHECK_EQ(model_ixgbe_peek(nic, R_FCTRL) & (FCTRL_UPE | FCTRL_MPE), FCTRL_UPE | FCTRL_MPE);
	model_test_frame(frame, 60, foreign_mac, 3);
	CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frame, 60), MODEL_RX_DELIVERED);
	const uint8_t multicast[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x01};
	model_test_frame(frame, 60, multicast, 4);
	CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frame, 60), MODEL_RX_DELIVERED);
	CHECK_EQ(receive(dev, 0, bufs, 3, 4, 10), 3);
	for (uint32_t i = 0; i < 3; i++) {
		CHECK_EQ(model_test_frame_seq(bufs[i]->data, bufs[i]->size), i + 2);
		pkt_buf_free(bufs[i]);
	}
	CHECK_EQ(ixy_set_promisc(dev, false), 0);
	model_test_frame(frame, 60, foreign_mac, 5);
	CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frame, 60), MODEL_RX_FILTERED);
	// a new MAC address: frames to it are accepted, to the old one not
	const uint8_t new_mac[6] = {0x02, 0xab, 0xcd, 0xef, 0x01, 0x23};
	CHECK_EQ(ixy_set_mac_addr(dev, new_mac), 0);
	model_test_frame(frame, 60, new_mac, 6);
	CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frame, 60), MODEL_RX_DELIVERED);
	model_test_frame(frame, 60, nic_mac, 7);
	CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frame, 60), MODEL_RX_FILTERED);
	CHECK_EQ(receive(dev, 0, bufs, 1, 4, 10), 1);
	CHECK_EQ(model_test_frame_seq(bufs[0]->data, bufs[0]->size), 6);
	pkt_buf_free(bufs[0]);
	ixy_close(dev);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// Four queues each way: every queue gets its own frames, none of another queue's (the original ixy's per-queue
// structs overlapped from queue 1 on, ixy issue #30).
static void test_multi_queue(void) {
	model_test_begin(__func__);
	enum { QUEUES = 4, RING = 256, PER_QUEUE = 3 * RING };
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_device* dev = open_device(QUEUES, QUEUES, RING);
	struct mempool* pool = memory_allocate_mempool(1024, 0);
	if (!dev || !pool) {
		CHECK(false);
		model_pci_remove_all();
		return;
	}
	CHECK_EQ(dev->num_rx_queues, QUEUES);
	CHECK_EQ(dev->num_tx_queues, QUEUES);
	uint32_t injected[QUEUES] = {0}, received[QUEUES] = {0}, sent[QUEUES] = {0};
	uint32_t errors = 0;
	uint8_t frame[128];
	struct pkt_buf* bufs[32];
	for (int round = 0; round < 1000; round++) {
		bool done = true;
		for (uint16_t q = 0; q < QUEUES; q++) {
			// queue q gets a burst whose size depends on the queue, so the rings drift apart
			uint32_t burst = 1 + (uint32_t)(round * 7 + q * 13) % 31;
			uint32_t available = model_ixgbe_rx_descriptors_available(nic, q);
			for (uint32_t i = 0; i < burst && i < available && injected[q] < PER_QUEUE;
			     i++, injected[q]++) {
				uint32_t seq = (uint32_t)q << 24 | injected[q];
				model_test_frame(frame, frame_len_for(seq), nic_mac, seq);
				errors +=
				    model_ixgbe_inject_rx(nic, q, frame, frame_len_for(seq)) != MODEL_RX_DELIVERED;
			}
		}
		for (uint16_t q = 0; q < QUEUES; q++) {
			uint32_t n = ixy_rx_batch(dev, q, bufs, 32);
			for (uint32_t i = 0; i < n; i++, received[q]++) {
				uint32_t seq = (uint32_t)q << 24 | received[q];
				model_test_frame(frame, frame_len_for(seq), nic_mac, seq);
				if (bufs[i]->size != frame_len_for(seq) ||
				    memcmp(bufs[i]->data, frame, bufs[i]->size) != 0) {
					if (errors++ < 5) {
						fprintf(stderr, "queue %u: packet %u arrived wrong (seq 0x%08x)\n", q,
							received[q],
							model_test_frame_seq(bufs[i]->data, bufs[i]->size));
					}
				}
				// send it on the TX queue of the same number, as a new packet from our pool
				struct pkt_buf* tx = pkt_buf_alloc(pool);
				if (!tx) {
					errors++;
				} else {
					fill_packet(tx, frame_len_for(seq), foreign_mac, seq);
					if (transmit(dev, q, &tx, 1, 10) == 1) {
						sent[q]++;
					} else {
						pkt_buf_free(tx);
						errors++;
					}
				}
				pkt_buf_free(bufs[i]);
			}
			done = done && received[q] == PER_QUEUE;
		}
		if (done) {
			break;
		}
	}
	for (uint16_t q = 0; q < QUEUES; q++) {
		CHECK_EQ(received[q], PER_QUEUE);
		CHECK_EQ(sent[q], PER_QUEUE);
	}
	CHECK_EQ(errors, 0);
	// every frame left on the queue it was sent on, in order per queue
	uint32_t next[QUEUES] = {0};
	uint32_t wrong = 0;
	for (uint32_t i = 0; i < model_ixgbe_tx_frame_count(nic); i++) {
		uint32_t len;
		uint16_t queue;
		const uint8_t* f = model_ixgbe_tx_frame(nic, i, &len, &queue);
		uint32_t seq = model_test_frame_seq(f, len);
		if (queue >= QUEUES || seq >> 24 != queue || (seq & 0xFFFFFF) != next[queue]) {
			wrong++;
		} else {
			next[queue]++;
		}
	}
	CHECK_EQ(wrong, 0);
	CHECK_EQ(model_ixgbe_tx_frame_count(nic), QUEUES * PER_QUEUE);
	CHECK(pool->free_stack_top + QUEUES * RING >= 1024);
	ixy_close(dev);
	CHECK_EQ(pool->free_stack_top, 1024);
	memory_free_mempool(pool);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// After close the device must not touch memory: no frame is written, no pending packet read. The model also checks
// that close stopped the device before unmapping it and before freeing memory it could reach.
static void test_close_stops_dma(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_device* dev = open_device(2, 2, 128);
	struct mempool* pool = memory_allocate_mempool(256, 0);
	if (!dev || !pool) {
		CHECK(false);
		model_pci_remove_all();
		return;
	}
	uint8_t frame[60];
	model_test_frame(frame, 60, nic_mac, 1);
	CHECK_EQ(model_ixgbe_inject_rx_burst(nic, 1, frame, 60, 10), 10); // left in the ring, never received
	// packets pending in a TX ring at close
	model_ixgbe_pause_tx(nic, true);
	struct pkt_buf* bufs[20];
	alloc_packets(pool, bufs, 20, 60);
	CHECK_EQ(ixy_tx_batch(dev, 1, bufs, 20), 20);
	ixy_close(dev);
	struct model_ixgbe_counters before = model_ixgbe_counters(nic);
	for (uint16_t q = 0; q < 2; q++) {
		CHECK(model_ixgbe_inject_rx(nic, q, frame, 60) != MODEL_RX_DELIVERED);
	}
	model_ixgbe_pause_tx(nic, false);
	model_advance_us(1000000);
	struct model_ixgbe_counters after = model_ixgbe_counters(nic);
	CHECK_EQ(after.dma_reads, before.dma_reads);
	CHECK_EQ(after.dma_writes, before.dma_writes);
	CHECK_EQ(model_ixgbe_tx_frame_count(nic), 0);
	CHECK_EQ(pool->free_stack_top, 256); // the packets that never left are back in the app's pool
	memory_free_mempool(pool);
	CHECK_EQ(seam_dma_live_allocations(), 0);
	CHECK(!model_pci_bar_mapped(model_ixgbe_pci(nic)));
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// ixy_stop: no DMA after it returns, every buffer back in its pool (RX buffers in the driver's pool, packets in TX
// rings in the app's), the device still open until close. Stopping twice is harmless.
static void test_stop(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_device* dev = open_device(1, 1, 256);
	struct mempool* pool = memory_allocate_mempool(512, 0);
	if (!dev || !pool) {
		CHECK(false);
		model_pci_remove_all();
		return;
	}
	uint8_t frame[60];
	model_test_frame(frame, 60, nic_mac, 1);
	CHECK_EQ(model_ixgbe_inject_rx_burst(nic, 0, frame, 60, 20), 20);
	struct pkt_buf* bufs[300];
	CHECK_EQ(receive(dev, 0, bufs, 10, 10, 10), 10); // 10 more stay in the ring
	struct mempool* rx_pool = bufs[0]->mempool;
	for (uint32_t i = 0; i < 10; i++) {
		pkt_buf_free(bufs[i]);
	}
	model_ixgbe_pause_tx(nic, true); // packets stay in the TX ring
	alloc_packets(pool, bufs, 300, 60);
	uint32_t taken = ixy_tx_batch(dev, 0, bufs, 300);
	CHECK(taken > 0);
	for (uint32_t i = taken; i < 300; i++) {
		pkt_buf_free(bufs[i]);
	}
	ixy_stop(dev);
	struct model_ixgbe_counters before = model_ixgbe_counters(nic);
	CHECK(model_ixgbe_inject_rx(nic, 0, frame, 60) != MODEL_RX_DELIVERED);
	model_ixgbe_pause_tx(nic, false);
	CHECK_EQ(model_ixgbe_counters(nic).dma_writes, before.dma_writes);
	CHECK_EQ(model_ixgbe_counters(nic).dma_reads, before.dma_reads);
	CHECK_EQ(model_ixgbe_tx_frame_count(nic), 0);
	CHECK_EQ(pool->free_stack_top, 512);
	CHECK_EQ(rx_pool->free_stack_top, rx_pool->num_entries);
	ixy_stop(dev);
	CHECK_EQ(pool->free_stack_top, 512);
	CHECK_EQ(rx_pool->free_stack_top, rx_pool->num_entries);
	ixy_close(dev);
	memory_free_mempool(pool);
	CHECK_EQ(seam_dma_live_allocations(), 0);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// A queue number beyond the device's queues (issue 34) reaches no driver: ixy_rx_batch and ixy_tx_batch return 0, the
// caller keeps its buffers, one error line says so (once per process), and the device's queues work on. Before the
// check the driver took the queue's struct behind the ones it set up (RX queue 2 of 2: zeroed, no ring) or past its
// array (queue 64 and up).
static void test_queue_out_of_range(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_device* dev = open_device(2, 2, 0);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	uint8_t frame[60];
	model_test_frame(frame, sizeof(frame), nic_mac, 7);
	CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frame, sizeof(frame)), MODEL_RX_DELIVERED);
	struct mempool* pool = memory_allocate_mempool(64, 0);
	struct pkt_buf* bufs[4];
	alloc_packets(pool, bufs, 1, 60);
	uint32_t free_before = pool->free_stack_top;
	model_test_capture_start();
	CHECK_EQ(ixy_rx_batch(dev, 2, bufs + 1, 3), 0);
	CHECK_EQ(ixy_tx_batch(dev, 2, bufs, 1), 0);
	CHECK_EQ(ixy_rx_batch(dev, UINT16_MAX, bufs + 1, 3), 0);
	CHECK_EQ(ixy_tx_batch(dev, IXY_MAX_QUEUES, bufs, 1), 0);
	char* said = model_test_capture_end();
	CHECK(
	    strstr(said, "ixy: error: " NIC_ADDR ": RX queue 2 does not exist (the device has 2 RX and 2 TX queues)"));
	const char* first = strstr(said, "does not exist");
	CHECK(first && !strstr(first + 1, "does not exist")); // one line per process: the first refusal only
	free(said);
	CHECK_EQ(pool->free_stack_top, free_before); // the caller still owns the buffer it offered
	CHECK_EQ(transmit(dev, 1, bufs, 1, 100), 1); // the device's own queues work on
	CHECK_EQ(receive(dev, 0, bufs + 1, 1, 1, 100), 1);
	pkt_buf_free(bufs[1]);
	ixy_close(dev);
	memory_free_mempool(pool);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

int main(void) {
	test_queue_out_of_range();
	test_rx_delivery();
	test_tx_content();
	test_wrap_around();
	test_tx_ring_full();
	test_rx_pool_empty();
	test_statistics();
	test_promisc_and_mac();
	test_multi_queue();
	test_close_stops_dma();
	test_stop();
	return model_test_summary();
}
