// The e1000 driver (src/driver/e1000.c) against e1000_model.c, an 82540EM written from the 8254x SDM alone: frames
// round-trip byte for byte over several laps of the rings; hostile descriptors (length 0, longer than the buffer, DD
// without EOP, DD beyond the tail, TX DD never offered) are refused, counted and never handed to the app; the
// statistics registers reach ixy_read_stats; a TX buffer over 16288 bytes (SDM 3.3.3) is refused.
#include <stdlib.h>
#include <string.h>

#include <ixy/ixy.h>
#include <ixy/settings.h>

#include "../check.h"
#include "e1000_model.h"
#include "model_test.h"

#define NIC_ADDR "0000:07:00.3" // MAC address in its EEPROM: 02:00:00:00:00:03
#define RING 64
#define FRAME_LEN 124

static const uint8_t dst_mac[6] = {0x02, 0, 0, 0, 0, 0};

static struct model_e1000* nic;
static bool as_82574; // the device the tests open: an 82540EM, or (for the round trip again) an 82574L

static struct ixy_device* open_nic(void) {
	nic = as_82574 ? model_e1000_add_82574(NIC_ADDR) : model_e1000_add(NIC_ADDR);
	struct ixy_device* dev = model_test_open(NIC_ADDR, RING);
	if (dev) {
		CHECK(model_e1000_reg(nic, M_E1000_RCTL) & 0x2);
		CHECK(model_e1000_reg(nic, M_E1000_TCTL) & 0x2);
		CHECK_EQ(model_e1000_reg(nic, M_E1000_RDLEN), RING * 16);
		CHECK_EQ(model_e1000_reg(nic, M_E1000_TDLEN), RING * 16);
		uint8_t mac[6] = {0};
		static const uint8_t eeprom_mac[6] = {0x02, 0, 0, 0, 0, 0x03};
		CHECK_EQ(ixy_get_mac_addr(dev, mac), 0);
		CHECK(memcmp(mac, eeprom_mac, 6) == 0);
	}
	return dev;
}

static void close_nic(struct ixy_device* dev) {
	if (dev) {
		ixy_stop(dev);
		ixy_close(dev);
	}
	model_pci_remove_all();
	nic = NULL;
}

// Receives up to n frames in one batch; each must be a test frame of FRAME_LEN bytes with the next sequence number.
static uint32_t rx_expect(struct ixy_device* dev, struct pkt_buf** bufs, uint32_t n, uint32_t* seq) {
	uint32_t got = ixy_rx_batch(dev, 0, bufs, n);
	uint8_t want[FRAME_LEN];
	for (uint32_t i = 0; i < got; i++) {
		model_test_frame(want, FRAME_LEN, dst_mac, *seq);
		CHECK_EQ(bufs[i]->size, FRAME_LEN);
		CHECK(bufs[i]->size == FRAME_LEN && memcmp(bufs[i]->data, want, FRAME_LEN) == 0);
		(*seq)++;
	}
	return got;
}

static void inject(uint32_t seq) {
	uint8_t frame[FRAME_LEN];
	model_test_frame(frame, FRAME_LEN, dst_mac, seq);
	CHECK(model_e1000_receive(nic, frame, FRAME_LEN));
}

// (a) and (c): 30 batches of 8 frames (240: over 3 laps of a 64 descriptor ring) in, each batch sent back out.
static void test_round_trip_and_stats(void) {
	model_test_begin(__func__);
	struct ixy_device* dev = open_nic();
	if (!dev) {
		close_nic(NULL);
		return;
	}
	struct device_stats stats;
	stats_init(&stats, dev);
	ixy_read_stats(dev, &stats); // from zero
	stats_init(&stats, dev);
	uint32_t in = 0, out = 0, rx_seq = 0;
	for (uint32_t batch = 0; batch < 30; batch++) {
		for (uint32_t i = 0; i < 8; i++) {
			inject(in++);
		}
		struct pkt_buf* bufs[16];
		uint32_t got = rx_expect(dev, bufs, 16, &rx_seq);
		CHECK_EQ(got, 8);
		uint32_t sent = ixy_tx_batch(dev, 0, bufs, got);
		CHECK_EQ(sent, got);
		for (uint32_t i = sent; i < got; i++) {
			pkt_buf_free(bufs[i]);
		}
		out += sent;
	}
	CHECK_EQ(model_e1000_tx_count(nic), out);
	uint8_t want[FRAME_LEN];
	for (uint32_t i = 0; i < model_e1000_tx_count(nic); i++) {
		uint32_t len = 0;
		const uint8_t* p = model_e1000_tx_packet(nic, i, &len);
		model_test_frame(want, FRAME_LEN, dst_mac, i);
		CHECK_EQ(len, FRAME_LEN);
		CHECK(len == FRAME_LEN && memcmp(p, want, FRAME_LEN) == 0);
	}
	// (c) the counters: packets and bytes (with CRC) both ways, and frames missed for want of descriptors.
	ixy_read_stats(dev, &stats);
	CHECK_EQ(stats.rx_pkts, 240);
	CHECK_EQ(stats.tx_pkts, 240);
	CHECK_EQ(stats.rx_bytes, 240 * (FRAME_LEN + 4));
	CHECK_EQ(stats.tx_bytes, 240 * (FRAME_LEN + 4));
	CHECK_EQ(stats.rx_dropped, 0);
	uint32_t accepted = 0;
	for (uint32_t i = 0; i < RING + 5; i++) {
		uint8_t frame[FRAME_LEN];
		model_test_frame(frame, FRAME_LEN, dst_mac, 1000 + i);
		accepted += model_e1000_receive(nic, frame, FRAME_LEN);
	}
	CHECK(accepted < RING);
	ixy_read_stats(dev, &stats);
	CHECK_EQ(stats.rx_pkts, 240 + accepted);
	CHECK_EQ(stats.rx_dropped, RING + 5 - accepted);
	CHECK_EQ(model_e1000_unknown(nic), 0);
	close_nic(dev);
	CHECK_NO_NEW_VIOLATIONS();
}

// Frames the driver dropped itself (bad descriptors): rx_dropped as read_stats reports it (no MPC in these tests).
static uint64_t dropped(struct ixy_device* dev) {
	struct device_stats stats;
	stats_init(&stats, dev);
	ixy_read_stats(dev, &stats);
	return stats.rx_dropped;
}

// (b) one hostile descriptor (or two, for DD without EOP) written at RDH, then a good frame: the app gets exactly
// the good frame, and the driver counts one dropped frame.
static void hostile_rx(const char* what, uint16_t length, bool split) {
	model_test_begin(what);
	struct ixy_device* dev = open_nic();
	if (!dev) {
		close_nic(NULL);
		return;
	}
	dropped(dev);
	uint32_t seq = 0, rx_seq = 0;
	struct pkt_buf* bufs[8];
	for (int round = 0; round < 3; round++) { // at ring positions 0, 2 and 4 (after a good frame each)
		uint8_t frame[FRAME_LEN];
		model_test_frame(frame, FRAME_LEN, dst_mac, 9999);
		uint32_t head = model_e1000_reg(nic, M_E1000_RDH);
		if (split) {
			model_e1000_rx_write(nic, head, frame, 60, 60, M_E1000_RXD_DD, true);
			model_e1000_rx_write(nic, (head + 1) % RING, frame + 60, FRAME_LEN - 60, FRAME_LEN - 60,
					     M_E1000_RXD_DD | M_E1000_RXD_EOP, true);
		} else {
			model_e1000_rx_write(nic, head, frame, FRAME_LEN, length, M_E1000_RXD_DD | M_E1000_RXD_EOP,
					     true);
		}
		inject(seq++);
		uint32_t got = rx_expect(dev, bufs, 8, &rx_seq);
		if (got != 1) {
			fprintf(stderr, "%s: round %d: %u frames handed to the app, 1 expected\n", what, round, got);
		}
		CHECK_EQ(got, 1);
		for (uint32_t i = 0; i < got; i++) {
			pkt_buf_free(bufs[i]);
		}
		CHECK_EQ(dropped(dev), 1);
	}
	close_nic(dev);
	CHECK_NO_NEW_VIOLATIONS();
}

// (b) the device fills every descriptor it was given, then writes DD|EOP into the one at RDT too, which it was not
// given: one batch hands RING - 1 frames to the app, not RING.
static void test_rx_beyond_tail(void) {
	model_test_begin(__func__);
	struct ixy_device* dev = open_nic();
	if (!dev) {
		close_nic(NULL);
		return;
	}
	uint32_t seq = 0, rx_seq = 0;
	while (model_e1000_reg(nic, M_E1000_RDH) != model_e1000_reg(nic, M_E1000_RDT)) {
		inject(seq++);
	}
	uint32_t tail = model_e1000_reg(nic, M_E1000_RDT);
	uint8_t frame[FRAME_LEN];
	model_test_frame(frame, FRAME_LEN, dst_mac, seq); // would pass for the next good frame
	model_e1000_rx_write(nic, tail, frame, FRAME_LEN, FRAME_LEN, M_E1000_RXD_DD | M_E1000_RXD_EOP, false);
	struct pkt_buf* bufs[2 * RING];
	uint32_t got = rx_expect(dev, bufs, 2 * RING, &rx_seq);
	CHECK_EQ(got, seq);
	CHECK_EQ(seq, RING - 1);
	for (uint32_t i = 0; i < got; i++) {
		pkt_buf_free(bufs[i]);
	}
	close_nic(dev);
	CHECK_NO_NEW_VIOLATIONS();
}

// (b) TX: with the device paused, the driver offers OFFERED packets; the device sets DD in every descriptor it was
// never offered (the rest of the ring). The driver must not take any as sent until the device really sends: no
// buffer comes back to the pool. Then the device sends the OFFERED: the driver frees what it can vouch for by DD on
// offered descriptors only (whole batches of its own, at most OFFERED), never a buffer of a descriptor not offered.
#define OFFERED 40
static void test_tx_dd_never_offered(void) {
	model_test_begin(__func__);
	struct ixy_device* dev = open_nic();
	struct mempool* pool = memory_allocate_mempool(64, 0);
	CHECK(pool != NULL);
	if (!dev || !pool) {
		memory_free_mempool(pool);
		close_nic(dev);
		return;
	}
	model_e1000_pause_tx(nic, true);
	struct pkt_buf* bufs[OFFERED];
	CHECK_EQ(pkt_buf_alloc_batch(pool, bufs, OFFERED), OFFERED);
	for (uint32_t i = 0; i < OFFERED; i++) {
		bufs[i]->size = FRAME_LEN;
		model_test_frame(bufs[i]->data, FRAME_LEN, dst_mac, i);
	}
	uint32_t first = model_e1000_reg(nic, M_E1000_TDT);
	CHECK_EQ(ixy_tx_batch(dev, 0, bufs, OFFERED), OFFERED);
	uint32_t free_after_offer = pool->free_stack_top;
	CHECK_EQ(free_after_offer, 64 - OFFERED);
	for (uint32_t i = OFFERED; i < RING; i++) {
		uint8_t* d = model_e1000_tx_descriptor(nic, (first + i) % RING);
		if (d) {
			d[12] |= M_E1000_TXD_DD;
		}
	}
	for (int call = 0; call < 3; call++) {
		CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 0), 0);
	}
	CHECK_EQ(pool->free_stack_top, free_after_offer); // nothing sent yet: nothing freed
	CHECK_EQ(model_e1000_tx_count(nic), 0);
	model_e1000_pause_tx(nic, false);
	CHECK_EQ(model_e1000_tx_count(nic), OFFERED);
	for (int call = 0; call < 3; call++) {
		CHECK_EQ(ixy_tx_batch(dev, 0, bufs, 0), 0);
	}
	uint32_t freed = pool->free_stack_top - free_after_offer;
	CHECK(freed > 0 && freed <= OFFERED);
	close_nic(dev); // the driver's close frees what it still holds
	CHECK_EQ(pool->free_stack_top, 64);
	memory_free_mempool(pool);
	CHECK_NO_NEW_VIOLATIONS();
}

// A TX buffer of 16289 bytes is refused (it would spill into CSO/CMD of the legacy descriptor, SDM 3.3.3), one of
// 16288 is sent whole.
static void test_tx_length_limit(void) {
	model_test_begin(__func__);
	struct ixy_device* dev = open_nic();
	struct mempool* pool = memory_allocate_mempool(4, 16384 + 64);
	CHECK(pool != NULL);
	if (!dev || !pool) {
		memory_free_mempool(pool);
		close_nic(dev);
		return;
	}
	struct pkt_buf* buf = pkt_buf_alloc(pool);
	buf->size = 16289;
	memset(buf->data, 0xab, buf->size);
	CHECK_EQ(ixy_tx_batch(dev, 0, &buf, 1), 0);
	CHECK_EQ(model_e1000_tx_count(nic), 0);
	buf->size = 16288;
	CHECK_EQ(ixy_tx_batch(dev, 0, &buf, 1), 1);
	CHECK_EQ(model_e1000_tx_count(nic), 1);
	uint32_t len = 0;
	const uint8_t* p = model_e1000_tx_packet(nic, 0, &len);
	CHECK_EQ(len, 16288);
	CHECK(p && len == 16288 && p[0] == 0xab && p[16287] == 0xab);
	close_nic(dev);
	memory_free_mempool(pool);
	CHECK_NO_NEW_VIOLATIONS();
}

int main(void) {
	test_round_trip_and_stats();
	as_82574 = true;
	test_round_trip_and_stats();
	as_82574 = false;
	hostile_rx("rx length 0", 0, false);
	hostile_rx("rx length beyond the buffer", 4000, false);
	hostile_rx("rx length one beyond a 2048 byte buffer", 2049, false);
	hostile_rx("rx length 0xffff", 0xFFFF, false);
	hostile_rx("rx DD without EOP", 0, true);
	test_rx_beyond_tail();
	test_tx_dd_never_offered();
	test_tx_length_limit();
	return model_test_summary();
}
