// The 82599's settings beside the packet path (ixy/settings.h): promiscuous mode, link speed, MAC address. A feature
// of ixgbe's init (ixgbe_features.c); the paper-only build has none.
#include <ixy/settings.h>

#include "ixgbe.h"

// 8.2.3.7.1: FCTRL may only change while the receiver is off.
static int ixgbe_set_promisc(struct ixy_device* ixy, bool enabled) {
	struct ixgbe_device* dev = IXY_TO_DRIVER(struct ixgbe_device, ixy);
	bool receiving = get_reg32(dev->bar, IXGBE_RXCTRL) & IXGBE_RXCTRL_RXEN;
	clear_flags32(dev->bar, IXGBE_RXCTRL, IXGBE_RXCTRL_RXEN);
	// Promiscuous: accept all unicast (UPE) and all multicast (MPE) frames.
	uint32_t fctrl = get_reg32(dev->bar, IXGBE_FCTRL) & ~(IXGBE_FCTRL_MPE | IXGBE_FCTRL_UPE);
	set_reg32(dev->bar, IXGBE_FCTRL, enabled ? fctrl | IXGBE_FCTRL_MPE | IXGBE_FCTRL_UPE : fctrl);
	if (receiving) {
		ixgbe_enable_receiver(dev);
	}
	return 0;
}

// LINKS.SPEED (8.2.3.22.20) is 01b for 100 Mb/s, 10b for 1 Gb/s, 11b for 10 Gb/s.
static uint32_t ixgbe_get_link_speed(const struct ixy_device* ixy) {
	const struct ixgbe_device* dev = IXY_TO_DRIVER(const struct ixgbe_device, ixy);
	static const uint32_t speed_mbit[4] = {0, 100, 1000, 10000};
	uint32_t links = get_reg32(dev->bar, IXGBE_LINKS);
	return (links & IXGBE_LINKS_UP) ? speed_mbit[(links & IXGBE_LINKS_SPEED_MASK) >> IXGBE_LINKS_SPEED_SHIFT] : 0;
}

// Receive address entry 0 holds the NIC's own MAC address (8.2.3.7.9, 8.2.3.7.10), lowest byte first.
static int ixgbe_get_mac_addr(const struct ixy_device* ixy, uint8_t mac[6]) {
	const struct ixgbe_device* dev = IXY_TO_DRIVER(const struct ixgbe_device, ixy);
	uint64_t addr = get_reg32(dev->bar, IXGBE_RAL0) | (uint64_t)get_reg32(dev->bar, IXGBE_RAH0) << 32;
	for (int i = 0; i < 6; i++) {
		mac[i] = (uint8_t)(addr >> (8 * i));
	}
	return 0;
}

static int ixgbe_set_mac_addr(struct ixy_device* ixy, const uint8_t mac[6]) {
	struct ixgbe_device* dev = IXY_TO_DRIVER(struct ixgbe_device, ixy);
	set_reg32(dev->bar, IXGBE_RAL0, mac[0] | mac[1] << 8 | mac[2] << 16 | (uint32_t)mac[3] << 24);
	set_reg32(dev->bar, IXGBE_RAH0, mac[4] | mac[5] << 8 | IXGBE_RAH_AV);
	return 0;
}

const struct ixy_settings ixgbe_settings = {.set_promisc = ixgbe_set_promisc,
					    .get_link_speed = ixgbe_get_link_speed,
					    .get_mac_addr = ixgbe_get_mac_addr,
					    .set_mac_addr = ixgbe_set_mac_addr};
