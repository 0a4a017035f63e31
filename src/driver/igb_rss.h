// Receive side scaling for the igb driver (igb_rss.c): spreading received packets over the RX queues.
#ifndef IXY_IGB_RSS_H
#define IXY_IGB_RSS_H

#include "driver.h"

// With more than one RX queue: programs the key, the redirection table and the hash types of config->rss (NULL: the
// default of ixy/rss.h), then MRQC, while the receiver is off (82576 datasheet 4.5.9). With one queue: nothing (RSS
// stays off, as after reset). False with a message if config->rss names a queue the device does not have.
bool igb_setup_rss(uint8_t* bar, const struct ixy_config* config);

#endif
