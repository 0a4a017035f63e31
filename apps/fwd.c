// The forwarding step of ixy-fwd (see fwd.h). The paper's forwarder, one call away from the driver's rings.
#include "fwd.h"

uint32_t forward(struct ixy_device* rx_dev, uint16_t rx_queue, struct ixy_device* tx_dev, uint16_t tx_queue,
		 struct fwd_counters* counters) {
	struct pkt_buf* bufs[FWD_BATCH_SIZE];
	uint32_t num_rx = ixy_rx_batch(rx_dev, rx_queue, bufs, FWD_BATCH_SIZE);
	if (num_rx == 0) {
		return 0;
	}
	for (uint32_t i = 0; i < num_rx; i++) {
		if (bufs[i]->size > FWD_MODIFIED_BYTE) {
			bufs[i]->data[FWD_MODIFIED_BYTE]++;
		}
	}
	uint32_t num_tx = ixy_tx_batch(tx_dev, tx_queue, bufs, num_rx);
	// The TX queue is full (the output link is slower than the input): drop the rest. Holding them back would
	// only stall reception, and the RX ring would drop packets instead.
	for (uint32_t i = num_tx; i < num_rx; i++) {
		pkt_buf_free(bufs[i]);
	}
	counters->forwarded += num_tx;
	counters->dropped_tx_full += num_rx - num_tx;
	return num_rx;
}
