// Receive side scaling for the ixgbe driver (ixgbe_rss.c): spreading received packets over the RX queues.
#ifndef IXY_IXGBE_RSS_H
#define IXY_IXGBE_RSS_H

#include "driver.h"

// With more than one RX queue: programs the key, the redirection table and the hash types of config->rss (NULL: the
// default of ixy/rss.h), in 82599 datasheet 4.6.7's order, while the receiver is off. With one queue: nothing (RSS
// stays off, as after reset). False with a message if config->rss names a queue the device does not have.
bool ixgbe_setup_rss(uint8_t* bar, const struct ixy_config* config);

#endif
