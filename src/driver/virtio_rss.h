// More than one queue pair and receive side scaling for the VirtIO driver (virtio_rss.c): what the device offers for
// them, and the data of the two control commands that switch them on.
#ifndef IXY_VIRTIO_RSS_H
#define IXY_VIRTIO_RSS_H

#include <stddef.h>
#include <stdint.h>

#include <ixy/rss.h>

#include "driver.h"
#include "virtio_transport.h"

// The largest RSS_CONFIG command data ixy sends: hash types, mask, unclassified queue, the 128 entry table,
// max_tx_vq, key length and the 40 byte key.
#define VIRTIO_RSS_CONFIG_LEN (4 + 2 + 2 + 2 * IXY_RSS_TABLE_SIZE + 2 + 1 + IXY_RSS_KEY_SIZE)

// What the device configuration says about queue pairs and RSS, bounded.
struct virtio_mq {
	uint16_t pairs;     // queue pairs ixy uses: max(rx_queues, tx_queues)
	uint16_t max_pairs; // the device's max_virtqueue_pairs: the control queue is virtqueue 2 * max_pairs
	bool rss; // VIRTIO_NET_F_RSS negotiated, and more than one RX queue or no VIRTIO_NET_F_MQ: send RSS_CONFIG
};

// The multiqueue features to accept of those offered (VIRTIO_NET_F_MQ, VIRTIO_NET_F_RSS): none for one queue pair.
uint64_t virtio_mq_features(const struct ixy_config* config, uint64_t offered);

// After the features are negotiated: reads max_virtqueue_pairs (and with RSS the key size, table length and hash
// types) and checks that the device can do what config asks. -1 with one message if not; *mq is then one pair
// without RSS.
int virtio_mq_setup(const struct ixy_config* config, struct virtio_transport* t, uint64_t features,
		    struct virtio_mq* mq);

// The data of VIRTIO_NET_CTRL_MQ_RSS_CONFIG for config->rss (NULL: the default for rx_queues; one RX queue: every
// entry 0, no hash types), into buf of at least VIRTIO_RSS_CONFIG_LEN bytes. Returns its length. virtio_mq_setup
// checked config before.
size_t virtio_rss_config_data(const struct ixy_config* config, const struct virtio_mq* mq, uint8_t* buf);

#endif
