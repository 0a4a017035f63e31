// The paper's overload result (Table 2), without an emulator: when packets arrive faster than the forwarder can
// handle them, the RX ring stays full, the NIC drops the excess, and every forwarded packet has waited for the whole
// ring ahead of it. Its wait is then ring size / service rate: latency grows linearly with the ring size.
//
// Everything runs in the model's virtual time (model.h), so the result is exact and repeatable:
// - the line: one 60 byte frame arrives on port A every ARRIVAL_US microseconds (model_ixgbe_inject_rx);
// - the forwarder: the real forwarding step of ixy-fwd (apps/fwd.h), A -> B. It costs SERVICE_US microseconds per
//   packet it forwards (the test lets that much virtual time pass after each batch) and POLL_US per empty poll;
//   its service rate is 1 / SERVICE_US, below the line rate;
// - the clock: the model stamps each frame when it writes it back into an RX descriptor of A and when B fetches the
//   TX descriptor that sends it (model_stamp_*); the difference is the frame's wait.
// For each ring size, the median wait of the frames forwarded once the ring has filled is the ring's turnover,
// ring size * SERVICE_US, less an offset: the forwarder takes packets, and frees descriptors, a batch at a time, so
// a frame waits less than the turnover by up to a batch's service time (FWD_BATCH_SIZE * SERVICE_US), depending on
// where in the batch it came; at the median by at most half of that. The offset depends on the batch, not on the
// ring size: it must be in [0, FWD_BATCH_SIZE / 2 * SERVICE_US] and the same, to the microsecond, for every ring size
// (17 us here). The slope of the median against the ring size must be SERVICE_US per descriptor within 1 %.
#include <stdlib.h>

#include <ixy/ixy.h>

#include "../check.h"
#include "fwd.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "seam.h"

#define PORT_A "0000:08:00.0"
#define PORT_B "0000:08:00.1"
static const uint8_t mac_a[6] = {0x02, 0x00, 0x00, 0x08, 0x00, 0x00};

#define ARRIVAL_US 1u // line rate: 1 Mpps
#define SERVICE_US 2u // forwarder: 0.5 Mpps, half the line rate
#define POLL_US 1u    // an rx_batch that finds nothing

static const uint32_t ring_sizes[] = {64, 256, 512, 1024, 4096};
#define NUM_RING_SIZES (sizeof(ring_sizes) / sizeof(ring_sizes[0]))

static int compare_u64(const void* a, const void* b) {
	uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
	return (x > y) - (x < y);
}

// Forwards under overload with rings of ring_size descriptors; returns the median wait (us) of the frames forwarded
// after the first 2 * ring_size (while the ring fills, waits are shorter), or 0 if something went wrong.
static uint64_t median_wait_under_overload(uint32_t ring_size) {
	model_test_begin(__func__);
	struct model_ixgbe* a = model_ixgbe_add(PORT_A);
	struct model_ixgbe* b = model_ixgbe_add(PORT_B);
	model_ixgbe_set_perfect(a, true);
	model_ixgbe_set_perfect(b, true);
	struct ixy_device* dev_a = model_test_open(PORT_A, ring_size);
	struct ixy_device* dev_b = model_test_open(PORT_B, ring_size);
	uint64_t median = 0;
	if (dev_a && dev_b) {
		model_advance_us(1000000); // link up
		model_stamps_enable(true);
		uint8_t frame[60];
		model_test_frame(frame, sizeof(frame), mac_a, 0);
		struct fwd_counters counters = {0};
		uint32_t skip = 2 * ring_size, measure = 4 * ring_size > 4000 ? 4 * ring_size : 4000;
		uint64_t arrived = 0, delivered = 0;
		uint64_t next_arrival = model_now_us(), busy_until = model_now_us();
		while (counters.forwarded < skip + measure) {
			uint64_t now = model_now_us();
			if (now >= next_arrival) {
				arrived++;
				delivered += model_ixgbe_inject_rx(a, 0, frame, sizeof(frame)) == MODEL_RX_DELIVERED;
				next_arrival += ARRIVAL_US;
			}
			if (now >= busy_until) {
				uint32_t n = forward(dev_a, 0, dev_b, 0, &counters);
				busy_until = now + (n ? n * SERVICE_US : POLL_US);
			}
			model_advance_us(1);
		}
		const uint64_t* recorded;
		size_t num_waits = model_stamp_waits(&recorded);
		CHECK_EQ(num_waits, counters.forwarded); // every forwarded frame was stamped at both ends
		CHECK_EQ(counters.dropped_tx_full, 0);
		CHECK(arrived - delivered > arrived / 4); // overload: the NIC dropped about half of the arrivals
		CHECK_EQ(model_ixgbe_rx_dropped(a), arrived - delivered);
		if (num_waits > skip) {
			size_t n = num_waits - skip;
			uint64_t* waits = malloc(n * sizeof(*waits));
			CHECK(waits != NULL);
			if (waits) {
				memcpy(waits, recorded + skip, n * sizeof(*waits));
				qsort(waits, n, sizeof(*waits), compare_u64);
				median = waits[n / 2];
				printf("ring %4u: %6llu frames arrived, %6llu dropped, %6llu forwarded; waits of the "
				       "last %zu: "
				       "min %llu us, median %llu us, max %llu us (ring * service time: %u us)\n",
				       ring_size, (unsigned long long)arrived,
				       (unsigned long long)(arrived - delivered),
				       (unsigned long long)counters.forwarded, n, (unsigned long long)waits[0],
				       (unsigned long long)median, (unsigned long long)waits[n - 1],
				       ring_size * SERVICE_US);
				free(waits);
			}
		}
		model_stamps_enable(false);
	}
	model_test_close_pair(dev_a, dev_b);
	CHECK_EQ(seam_dma_live_allocations(), 0);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
	return median;
}

int main(void) {
	uint64_t medians[NUM_RING_SIZES];
	for (size_t i = 0; i < NUM_RING_SIZES; i++) {
		medians[i] = median_wait_under_overload(ring_sizes[i]);
		int64_t turnover = (int64_t)ring_sizes[i] * SERVICE_US, most = FWD_BATCH_SIZE / 2 * SERVICE_US;
		int64_t offset = turnover - (int64_t)medians[i];
		int64_t first_offset = (int64_t)ring_sizes[0] * SERVICE_US - (int64_t)medians[0];
		if (offset < 0 || offset > most || offset != first_offset) {
			fprintf(
			    stderr,
			    "ring %u: median wait %llu us, expected the turnover %lld us less 0 to %lld us, the same "
			    "for every ring size (ring %u: %lld us less)\n",
			    ring_sizes[i], (unsigned long long)medians[i], (long long)turnover, (long long)most,
			    ring_sizes[0], (long long)first_offset);
			CHECK(false);
		}
	}
	// least-squares slope of the median against the ring size: microseconds per descriptor, i.e. 1 / service rate
	double mean_x = 0, mean_y = 0, sxy = 0, sxx = 0;
	for (size_t i = 0; i < NUM_RING_SIZES; i++) {
		mean_x += ring_sizes[i] / (double)NUM_RING_SIZES;
		mean_y += (double)medians[i] / NUM_RING_SIZES;
	}
	for (size_t i = 0; i < NUM_RING_SIZES; i++) {
		sxy += (ring_sizes[i] - mean_x) * ((double)medians[i] - mean_y);
		sxx += (ring_sizes[i] - mean_x) * (ring_sizes[i] - mean_x);
	}
	double slope = sxy / sxx;
	printf("slope of the median wait against the ring size: %.4f us per descriptor (1 / service rate: %u us)\n",
	       slope, SERVICE_US);
	if (slope < 0.99 * SERVICE_US || slope > 1.01 * SERVICE_US) {
		fprintf(stderr, "slope %.4f us per descriptor, expected %u within 1 %%\n", slope, SERVICE_US);
		CHECK(false);
	}
	return model_test_summary();
}
