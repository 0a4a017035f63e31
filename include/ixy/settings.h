// A NIC's own settings beside the packet path: promiscuous mode, link speed, MAC address. ixy's apps never change
// them (every driver opens its NIC in promiscuous mode, ixy.h); a program built on libixy may. Each driver has a table
// of them (struct ixy_device.settings; ixgbe's joins its init as a feature, src/driver/ixgbe_settings.c); a device
// without one (the paper-only build's 82599) answers -1, or link speed 0.
#ifndef IXY_SETTINGS_H
#define IXY_SETTINGS_H

#include "ixy.h"

struct ixy_settings {
	int (*set_promisc)(struct ixy_device* dev, bool enabled);
	// Link speed in Mbit/s, 0 when the link is down.
	uint32_t (*get_link_speed)(const struct ixy_device* dev);
	int (*get_mac_addr)(const struct ixy_device* dev, uint8_t mac[6]);
	int (*set_mac_addr)(struct ixy_device* dev, const uint8_t mac[6]);
};

static inline int ixy_set_promisc(struct ixy_device* dev, bool enabled) {
	return dev->settings ? dev->settings->set_promisc(dev, enabled) : -1;
}

static inline uint32_t ixy_get_link_speed(const struct ixy_device* dev) {
	return dev->settings ? dev->settings->get_link_speed(dev) : 0;
}

static inline int ixy_get_mac_addr(const struct ixy_device* dev, uint8_t mac[6]) {
	return dev->settings ? dev->settings->get_mac_addr(dev, mac) : -1;
}

static inline int ixy_set_mac_addr(struct ixy_device* dev, const uint8_t mac[6]) {
	return dev->settings ? dev->settings->set_mac_addr(dev, mac) : -1;
}

#endif
