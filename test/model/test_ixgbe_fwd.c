// The real forwarding step of ixy-fwd (apps/fwd.c) between two modelled 82599s, in both directions at once, as
// ixy-fwd runs it: every packet arriving on one port leaves the other, in order, with exactly one byte changed.
#include <stdlib.h>
#include <string.h>

#include <ixy/ixy.h>

#include "../check.h"
#include "fwd.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "seam.h"

#define PORT_A "0000:07:00.0"
#define PORT_B "0000:07:00.1"
static const uint8_t mac_a[6] = {0x02, 0x00, 0x00, 0x07, 0x00, 0x00};
static const uint8_t mac_b[6] = {0x02, 0x00, 0x00, 0x07, 0x00, 0x01};

static uint32_t frame_len_for(uint32_t seq) {
	return 60 + (seq * 37) % 1455; // 60..1514
}

struct direction {
	struct model_ixgbe* in;  // frames are injected here
	struct model_ixgbe* out; // and must leave here
	const uint8_t* dst_mac;  // the input port's address
	uint32_t seq_base;
	uint32_t injected;
	uint32_t checked;
	uint32_t errors;
};

static void inject_some(struct direction* d, uint32_t total, uint32_t burst) {
	uint8_t frame[1514];
	uint32_t available = model_ixgbe_rx_descriptors_available(d->in, 0);
	for (uint32_t i = 0; i < burst && i < available && d->injected < total; i++, d->injected++) {
		uint32_t seq = d->seq_base + d->injected;
		model_test_frame(frame, frame_len_for(seq), d->dst_mac, seq);
		d->errors += model_ixgbe_inject_rx(d->in, 0, frame, frame_len_for(seq)) != MODEL_RX_DELIVERED;
	}
}

// Checks the frames that left the output port: in order, byte FWD_MODIFIED_BYTE incremented, the rest unchanged.
static void check_output(struct direction* d, bool recorded) {
	if (!recorded) {
		return;
	}
	uint8_t expected[1514];
	uint32_t count = model_ixgbe_tx_frame_count(d->out);
	for (uint32_t i = 0; i < count; i++, d->checked++) {
		uint32_t len;
		const uint8_t* frame = model_ixgbe_tx_frame(d->out, i, &len, NULL);
		uint32_t seq = d->seq_base + d->checked;
		model_test_frame(expected, frame_len_for(seq), d->dst_mac, seq);
		expected[FWD_MODIFIED_BYTE]++;
		if (len != frame_len_for(seq) || memcmp(frame, expected, len) != 0) {
			if (d->errors++ < 5) {
				fprintf(stderr, "forwarded frame %u wrong: %u bytes, seq 0x%08x\n", d->checked, len,
					model_test_frame_seq(frame, len));
			}
		}
	}
	model_ixgbe_clear_tx_frames(d->out);
}

static void run_forwarding(uint32_t total, bool perfect) {
	model_test_begin(__func__);
	struct model_ixgbe* a = model_ixgbe_add(PORT_A);
	struct model_ixgbe* b = model_ixgbe_add(PORT_B);
	if (perfect) {
		model_ixgbe_set_perfect(a, true);
		model_ixgbe_set_perfect(b, true);
	}
	struct ixy_device* dev_a = model_test_open(PORT_A, 0);
	struct ixy_device* dev_b = model_test_open(PORT_B, 0);
	if (!dev_a || !dev_b) {
		model_test_close_pair(dev_a, dev_b);
		model_pci_remove_all();
		return;
	}
	model_advance_us(1000000);
	struct direction a_to_b = {.in = a, .out = b, .dst_mac = mac_a, .seq_base = 0};
	struct direction b_to_a = {.in = b, .out = a, .dst_mac = mac_b, .seq_base = 0x40000000};
	struct fwd_counters counters_ab = {0}, counters_ba = {0};
	int idle_rounds = 0;
	while ((a_to_b.injected < total || b_to_a.injected < total ||
		counters_ab.forwarded + counters_ab.dropped_tx_full < total ||
		counters_ba.forwarded + counters_ba.dropped_tx_full < total) &&
	       idle_rounds < 1000) {
		inject_some(&a_to_b, total, 48);
		inject_some(&b_to_a, total, 48);
		uint32_t moved = forward(dev_a, 0, dev_b, 0, &counters_ab);
		moved += forward(dev_b, 0, dev_a, 0, &counters_ba);
		idle_rounds = moved == 0 ? idle_rounds + 1 : 0;
		check_output(&a_to_b, !perfect);
		check_output(&b_to_a, !perfect);
	}
	CHECK_EQ(counters_ab.forwarded, total);
	CHECK_EQ(counters_ba.forwarded, total);
	CHECK_EQ(counters_ab.dropped_tx_full, 0);
	CHECK_EQ(counters_ba.dropped_tx_full, 0);
	CHECK_EQ(a_to_b.errors + b_to_a.errors, 0);
	if (!perfect) {
		CHECK_EQ(a_to_b.checked, total);
		CHECK_EQ(b_to_a.checked, total);
	}
	CHECK_EQ(model_ixgbe_counters(b).tx_frames, total);
	CHECK_EQ(model_ixgbe_counters(a).tx_frames, total);
	CHECK_EQ(model_ixgbe_rx_dropped(a) + model_ixgbe_rx_dropped(b), 0);
	struct device_stats stats_a, stats_b;
	stats_init(&stats_a, dev_a);
	stats_init(&stats_b, dev_b);
	ixy_read_stats(dev_a, &stats_a);
	ixy_read_stats(dev_b, &stats_b);
	// read_stats also counts the statistics read at init; the counters were zero then
	CHECK_EQ(stats_a.rx_pkts, total);
	CHECK_EQ(stats_a.tx_pkts, total);
	CHECK_EQ(stats_b.rx_pkts, total);
	CHECK_EQ(stats_b.tx_pkts, total);
	CHECK_EQ(stats_a.rx_bytes, model_ixgbe_counters(a).rx_good_octets);
	CHECK_EQ(stats_b.tx_bytes, model_ixgbe_counters(b).tx_octets);
	// as ixy-fwd does: stop both before closing either, a buffer of one port's pool may sit in the other's TX ring
	ixy_stop(dev_a);
	ixy_stop(dev_b);
	ixy_close(dev_a);
	ixy_close(dev_b);
	CHECK_EQ(seam_dma_live_allocations(), 0);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

int main(void) {
	run_forwarding(20000, false); // every frame checked byte by byte
	run_forwarding(100000, true); // the benchmark setting: perfect NICs, counts only
	return model_test_summary();
}
