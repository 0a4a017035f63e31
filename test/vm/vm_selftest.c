// Self test of the VirtIO, igb and e1000 drivers inside the QEMU test guest (test/vm/guest-init.sh runs it).
//
//   vm_selftest <pci_a> <pci_b> <mac_a> <mac_b>
//
// NIC A and NIC B are NICs of one kind (VirtIO, igb or e1000) joined by QEMU, so what A sends, B receives. The test
// checks what the driver promises through struct ixy_device: the MAC addresses QEMU was given, link status, setting a
// MAC, promiscuous mode (VirtIO: through the control queue; QEMU drops unicast frames for other addresses unless it is
// on), frames of many sizes arriving byte-exact and in order, the counters, TX buffers going back to their pool
// (all of them once the device is stopped), and closing and opening a device again. Needs root, hugetlbfs and the
// NICs; prints "N passed, N failed".
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <ixy/ixy.h>
#include <ixy/settings.h>

#include "../check.h"

#define BATCH 32
#define BULK_FRAMES 3000
#define MAX_FRAME 1514
#define POOL_ENTRIES 1024
// QEMU delivers within microseconds, but its e1000 model holds received frames for 1 s of its clock after every write
// to RCTL (its flush_queue_timer), which promiscuous mode is: this bounds a test that fails, or waits that out.
#define WAIT_MS 1500

static const uint8_t other_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x99}; // neither NIC's address

static int parse_mac(const char* text, uint8_t mac[6]) {
	unsigned int b[6];
	if (sscanf(text, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6) {
		return -1;
	}
	for (int i = 0; i < 6; i++) {
		mac[i] = (uint8_t)b[i];
	}
	return 0;
}

static void sleep_ms(long ms) {
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

// Frame number seq: destination, source, EtherType 0x88b5 (IEEE local experimental), seq, then a pattern.
static uint32_t build_frame(uint8_t* data, uint32_t seq, const uint8_t dst[6], const uint8_t src[6]) {
	uint32_t len = 60 + (seq * 97) % (MAX_FRAME - 60 + 1);
	memcpy(data, dst, 6);
	memcpy(data + 6, src, 6);
	data[12] = 0x88;
	data[13] = 0xb5;
	memcpy(data + 14, &seq, sizeof(seq));
	for (uint32_t i = 18; i < len; i++) {
		data[i] = (uint8_t)(i * 7 + seq);
	}
	return len;
}

// Sends frames first .. first+count-1 from tx, taking sent buffers back; returns the bytes including CRCs.
static uint64_t send_frames(struct ixy_device* tx, struct mempool* pool, uint32_t first, uint32_t count,
			    const uint8_t dst[6], const uint8_t src[6]) {
	uint64_t bytes = 0;
	for (uint32_t seq = first; seq < first + count;) {
		struct pkt_buf* bufs[BATCH];
		uint32_t n = pkt_buf_alloc_batch(pool, bufs, first + count - seq < BATCH ? first + count - seq : BATCH);
		for (uint32_t i = 0; i < n; i++) {
			bufs[i]->size = build_frame(bufs[i]->data, seq + i, dst, src);
		}
		uint32_t sent = ixy_tx_batch(tx, 0, bufs, n);
		for (uint32_t i = 0; i < sent; i++) {
			bytes += bufs[i]->size + IXY_ETHER_CRC_BYTES;
		}
		for (uint32_t i = sent; i < n; i++) {
			pkt_buf_free(bufs[i]);
		}
		seq += sent;
	}
	return bytes;
}

// Receives on rx until `expected` frames arrived or WAIT_MS passed without one; checks each against build_frame.
// Returns the number received, adds their bytes (with CRC) to *bytes.
static uint32_t receive_frames(struct ixy_device* rx, struct ixy_device* tx, uint32_t first, uint32_t expected,
			       const uint8_t dst[6], const uint8_t src[6], uint64_t* bytes) {
	static uint8_t want[MAX_FRAME];
	uint32_t received = 0, mismatches = 0;
	for (int idle_ms = 0; received < expected && idle_ms < WAIT_MS;) {
		struct pkt_buf* bufs[BATCH];
		ixy_tx_batch(tx, 0, NULL, 0); // lets the sender take back sent buffers
		uint32_t n = ixy_rx_batch(rx, 0, bufs, BATCH);
		if (n == 0) {
			sleep_ms(1);
			idle_ms++;
			continue;
		}
		idle_ms = 0;
		for (uint32_t i = 0; i < n; i++, received++) {
			uint32_t len = build_frame(want, first + received, dst, src);
			if (bufs[i]->size != len || memcmp(bufs[i]->data, want, len) != 0) {
				if (mismatches++ < 5) {
					fprintf(stderr,
						"frame %u: %u bytes received, %u expected, or contents differ\n",
						first + received, bufs[i]->size, len);
				}
			}
			*bytes += bufs[i]->size + IXY_ETHER_CRC_BYTES;
			pkt_buf_free(bufs[i]);
		}
	}
	CHECK_EQ(mismatches, 0);
	return received;
}

static void test_mac_and_link(struct ixy_device* a, struct ixy_device* b, const uint8_t mac_a[6],
			      const uint8_t mac_b[6]) {
	uint8_t mac[6];
	CHECK(ixy_get_mac_addr(a, mac) == 0 && memcmp(mac, mac_a, 6) == 0);
	CHECK(ixy_get_mac_addr(b, mac) == 0 && memcmp(mac, mac_b, 6) == 0);
	CHECK(ixy_get_link_speed(a) > 0); // QEMU's link is up
	const uint8_t changed[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
	CHECK_EQ(ixy_set_mac_addr(a, changed), 0);
	CHECK(ixy_get_mac_addr(a, mac) == 0 && memcmp(mac, changed, 6) == 0);
	CHECK_EQ(ixy_set_mac_addr(a, mac_a), 0);
	CHECK(ixy_get_mac_addr(a, mac) == 0 && memcmp(mac, mac_a, 6) == 0);
}

static void test_promisc(struct ixy_device* a, struct ixy_device* b, struct mempool* pool, const uint8_t mac_a[6],
			 const uint8_t mac_b[6]) {
	uint64_t bytes = 0;
	CHECK_EQ(ixy_set_promisc(b, false), 0);
	send_frames(a, pool, 0, 8, other_mac, mac_a);
	CHECK_EQ(receive_frames(b, a, 0, 8, other_mac, mac_a, &bytes), 0); // filtered: not for B
	send_frames(a, pool, 100, 8, mac_b, mac_a);
	CHECK_EQ(receive_frames(b, a, 100, 8, mac_b, mac_a, &bytes), 8); // B's own address passes
	CHECK_EQ(ixy_set_promisc(b, true), 0);
	send_frames(a, pool, 200, 8, other_mac, mac_a);
	CHECK_EQ(receive_frames(b, a, 200, 8, other_mac, mac_a, &bytes), 8); // promiscuous: everything
}

static void test_bulk_and_stats(struct ixy_device* a, struct ixy_device* b, struct mempool* pool,
				const uint8_t mac_a[6]) {
	struct device_stats stats_a, stats_b;
	stats_init(&stats_a, a);
	stats_init(&stats_b, b);
	ixy_read_stats(a, NULL); // start counting from here
	ixy_read_stats(b, NULL);
	uint64_t sent_bytes = 0, received_bytes = 0;
	uint32_t received = 0;
	// Send in chunks smaller than the rings so that nothing is dropped while this one thread is sending.
	for (uint32_t first = 1000; first < 1000 + BULK_FRAMES; first += 100) {
		sent_bytes += send_frames(a, pool, first, 100, other_mac, mac_a);
		received += receive_frames(b, a, first, 100, other_mac, mac_a, &received_bytes);
	}
	CHECK_EQ(received, BULK_FRAMES);
	sleep_ms(50);
	ixy_tx_batch(a, 0, NULL, 0); // take back the last sent buffers
	// VirtIO takes back every sent buffer; igb (like ixgbe) cleans in batches of 32 and keeps the rest until stop.
	CHECK(POOL_ENTRIES - pool->free_stack_top < 32);
	ixy_read_stats(a, &stats_a);
	ixy_read_stats(b, &stats_b);
	CHECK_EQ(stats_a.tx_pkts, BULK_FRAMES);
	CHECK_EQ(stats_a.tx_bytes, sent_bytes);
	CHECK_EQ(stats_b.rx_pkts, BULK_FRAMES);
	CHECK_EQ(stats_b.rx_bytes, received_bytes);
	CHECK_EQ(stats_a.rx_pkts + stats_b.tx_pkts, 0);
	// read_stats adds and resets: nothing happened since.
	ixy_read_stats(a, &stats_a);
	CHECK_EQ(stats_a.tx_pkts, BULK_FRAMES);
	printf("selftest: %d frames of 60..1514 bytes from %s to %s, %llu bytes counted on each side\n", BULK_FRAMES,
	       a->pci_addr, b->pci_addr, (unsigned long long)stats_b.rx_bytes);
}

int main(int argc, char* argv[]) {
	uint8_t mac_a[6], mac_b[6];
	if (argc != 5 || parse_mac(argv[3], mac_a) != 0 || parse_mac(argv[4], mac_b) != 0) {
		fprintf(stderr, "usage: %s <pci_a> <pci_b> <mac_a> <mac_b>\n", argv[0]);
		return 2;
	}
	struct ixy_device* a = ixy_init(argv[1], 1, 1);
	struct ixy_device* b = ixy_init(argv[2], 1, 1);
	struct mempool* pool = memory_allocate_mempool(POOL_ENTRIES, 0);
	CHECK(a != NULL && b != NULL && pool != NULL);
	if (a && b && pool) {
		CHECK(strcmp(a->driver_name, "virtio") == 0 || strcmp(a->driver_name, "igb") == 0 ||
		      strcmp(a->driver_name, "e1000") == 0);
		test_mac_and_link(a, b, mac_a, mac_b);
		test_promisc(a, b, pool, mac_a, mac_b);
		test_bulk_and_stats(a, b, pool, mac_a);
		ixy_stop(a); // gives back the buffers still in the TX ring
		CHECK_EQ(pool->free_stack_top, POOL_ENTRIES);
	}
	ixy_close(a);
	ixy_close(b);
	memory_free_mempool(pool);
	// Closing reset the device; it must come up again from that state.
	a = ixy_init(argv[1], 1, 1);
	CHECK(a != NULL);
	uint8_t mac[6];
	CHECK(a && ixy_get_mac_addr(a, mac) == 0 && memcmp(mac, mac_a, 6) == 0);
	bool one_queue = a && strcmp(a->driver_name, "e1000") == 0;
	ixy_close(a);
	if (one_queue) { // the e1000 driver has one queue each way: it refuses two with a message, and the NIC still
			 // opens
		CHECK(ixy_init(argv[1], 2, 1) == NULL);
		a = ixy_init(argv[1], 1, 1);
		CHECK(a != NULL);
		ixy_close(a);
	}
	return check_summary();
}
