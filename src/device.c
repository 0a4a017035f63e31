// ixy_init(): from a PCI address to a running device. Picks the driver by PCI vendor and device ID.
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <ixy/ixy.h>

#include "driver/driver.h"
#include "log.h"
#include "pci.h"

static const struct ixy_driver* const drivers[] = {&ixgbe_driver, &virtio_driver};
#define NUM_DRIVERS (sizeof(drivers) / sizeof(drivers[0]))

bool ixy_valid_pci_addr(const char* s) {
	// DDDD:BB:DD.F with hex digits; the function is a single digit 0-7
	const char* pattern = "xxxx:xx:xx.x";
	if (!s || strlen(s) != strlen(pattern)) {
		return false;
	}
	for (size_t i = 0; pattern[i]; i++) {
		if (pattern[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != pattern[i]) {
			return false;
		}
	}
	return s[11] >= '0' && s[11] <= '7';
}

static const struct ixy_driver* find_driver(const struct pci_ids* ids) {
	for (size_t d = 0; d < NUM_DRIVERS; d++) {
		if (drivers[d]->vendor_id != ids->vendor_id) {
			continue;
		}
		for (size_t i = 0; i < drivers[d]->num_device_ids; i++) {
			if (drivers[d]->device_ids[i] == ids->device_id) {
				return drivers[d];
			}
		}
	}
	return NULL;
}

struct ixy_device* ixy_init_config(const struct ixy_config* config) {
	const char* pci_addr = config->pci_addr;
	if (!ixy_valid_pci_addr(pci_addr)) {
		ixy_error("malformed PCI address '%s': expected domain:bus:device.function in hex, e.g. 0000:03:00.0 "
			  "(lspci -D lists them)",
			  pci_addr ? pci_addr : "(null)");
		return NULL;
	}
	if (config->rx_queues > IXY_MAX_QUEUES || config->tx_queues > IXY_MAX_QUEUES) {
		ixy_error("%s: %u RX / %u TX queues requested, at most %d each are supported", pci_addr,
			  config->rx_queues, config->tx_queues, IXY_MAX_QUEUES);
		return NULL;
	}
	// Look before touching: only the IDs and class are read until we know this is a NIC we drive.
	struct pci_ids ids;
	if (pci_read_ids(pci_addr, &ids) != 0) {
		return NULL;
	}
	if (ids.class_code >> 16 != PCI_BASE_CLASS_NETWORK) {
		ixy_error("PCI device %s (%04x:%04x) is not a network controller (class 0x%06x): refusing to touch it",
			  pci_addr, ids.vendor_id, ids.device_id, ids.class_code);
		return NULL;
	}
	const struct ixy_driver* driver = find_driver(&ids);
	if (!driver) {
		ixy_error("PCI device %s is a NIC (%04x:%04x) that no ixy driver supports. Supported:", pci_addr,
			  ids.vendor_id, ids.device_id);
		for (size_t d = 0; d < NUM_DRIVERS; d++) {
			for (size_t i = 0; i < drivers[d]->num_device_ids; i++) {
				fprintf(stderr, " %04x:%04x (%s)", drivers[d]->vendor_id, drivers[d]->device_ids[i],
					drivers[d]->name);
			}
		}
		fputc('\n', stderr);
		return NULL;
	}
	if (pci_check_permissions(pci_addr) != 0) {
		return NULL;
	}
	const char* force_env = getenv("IXY_FORCE");
	bool force = config->force_unbind || (force_env && strcmp(force_env, "1") == 0);
	if (pci_unbind_driver(pci_addr, force) != 0) {
		return NULL;
	}
	if (pci_set_bus_master(pci_addr, true) != 0) {
		return NULL;
	}
	struct ixy_device* dev = driver->init(config);
	if (!dev) {
		pci_set_bus_master(pci_addr, false);
	}
	return dev;
}

struct ixy_device* ixy_init(const char* pci_addr, uint16_t rx_queues, uint16_t tx_queues) {
	struct ixy_config config = {.pci_addr = pci_addr, .rx_queues = rx_queues, .tx_queues = tx_queues};
	return ixy_init_config(&config);
}
