// The refusal of a queue number the device does not have (ixy_rx_batch and ixy_tx_batch in ixy/ixy.h check it, for
// every driver): an app's bug, which would otherwise have the driver read past its queues. Nothing but a message,
// so that every user of the inline wrappers links it without the rest of the library.
#include <ixy/ixy.h>

#include "log.h"

uint32_t ixy_no_queue(const struct ixy_device* dev, uint16_t queue, const char* way) {
	static bool said; // one line per process: the app calls again and again
	if (!__atomic_exchange_n(&said, true, __ATOMIC_RELAXED)) {
		ixy_error(
		    "%s: %s queue %u does not exist (the device has %u RX and %u TX queues): no packet %s (said once)",
		    dev->pci_addr, way, queue, dev->num_rx_queues, dev->num_tx_queues,
		    way[0] == 'R' ? "received" : "taken");
	}
	return 0;
}
