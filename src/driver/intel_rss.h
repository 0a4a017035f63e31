// Receive side scaling (RSS) of the Intel NICs ixy drives, the 82576 (igb) and the 82599 (ixgbe), in intel_rss.c:
// spreading received packets over the RX queues. One function for both: they have the key (RSSRK), the redirection
// table (RETA) and MRQC's hash type bits at the same offsets and with the same layout, and differ only in what
// struct intel_rss_nic says.
#ifndef IXY_INTEL_RSS_H
#define IXY_INTEL_RSS_H

#include "driver.h"

struct intel_rss_nic {
	uint16_t max_queues; // the queues the redirection table reaches (without DCB or virtualisation)
	uint32_t mrqc_mode;  // MRQC's mode field for "RSS only"
	uint32_t
	    rxcsum_pcsd; // RXCSUM.PCSD to set before RSS, or 0 (the 82576's descriptor field carries the hash then)
};
extern const struct intel_rss_nic intel_rss_82576, intel_rss_82599;

// With more than one RX queue: programs the key, the redirection table and the hash types of config->rss (NULL: the
// default of ixy/rss.h over at most nic->max_queues queues), while the receiver is off (82599 datasheet 4.6.7, 82576
// 4.5.9). With one queue: nothing (RSS stays off, as after reset). False with a message if config->rss names a queue
// the device does not have or the table cannot reach, or a hash type ixy does not know.
bool intel_setup_rss(uint8_t* bar, const struct ixy_config* config, const struct intel_rss_nic* nic);

#endif
