// ixy_init(): from a PCI address to a running device. Picks the driver by PCI vendor and device ID, and decides how
// this process reaches its devices (access.h).
#include <stdlib.h>
#include <string.h>

#include <ixy/ixy.h>

#include "access.h"
#include "checks.h"
#include "driver/driver.h"
#include "failsafe.h"
#include "trace.h"
#include "vfio.h"

static const struct ixy_driver* const drivers[] = {&ixgbe_driver, &igb_driver, &virtio_driver};
#define NUM_DRIVERS (sizeof(drivers) / sizeof(drivers[0]))

// The driver whose ID list has this vendor and device, or NULL.
static const struct ixy_driver* driver_for_ids(const struct pci_ids* ids) {
	for (size_t d = 0; d < NUM_DRIVERS; d++) {
		for (size_t i = 0; i < drivers[d]->num_device_ids; i++) {
			if (drivers[d]->vendor_id == ids->vendor_id && drivers[d]->device_ids[i] == ids->device_id) {
				return drivers[d];
			}
		}
	}
	return NULL;
}

// The configuration from the environment, read here and nowhere else: each variable set to 1 switches its field on.
static struct ixy_config with_environment(const struct ixy_config* config) {
	const char* force = getenv("IXY_FORCE");
	const char* legacy = getenv("IXY_VIRTIO_LEGACY");
	const char* trace = getenv("IXY_TRACE");
	struct ixy_config c = *config;
	c.force |= force && strcmp(force, "1") == 0;
	c.virtio_legacy |= legacy && strcmp(legacy, "1") == 0;
	c.trace |= trace && strcmp(trace, "1") == 0;
	return c;
}

// The checks of ixy_init before it touches anything (checks.c, failsafe.c): returns the driver and sets *access to
// the way the device is reached, which must be that of other (the app's first device) or, if other is NULL, the
// process's. NULL with a message. Only reads.
static const struct ixy_driver* check_config(const struct ixy_config* config, const struct pci_access* other,
					     const struct pci_access** access, char kernel_driver[]) {
	struct pci_ids ids;
	if (!check_request(config) || pci_read_ids(config->pci_addr, &ids) != 0) {
		return NULL;
	}
	// Look before touching: only the IDs and class are read until we know this is a NIC we drive.
	const struct ixy_driver* driver = driver_for_ids(&ids);
	if (!check_device(config, &ids, driver, drivers, NUM_DRIVERS) ||
	    failsafe_check_device(config, kernel_driver) != 0) {
		return NULL;
	}
	// A device the administrator bound to vfio-pci (scripts/setup-vfio.sh) is reached through VFIO, any other one
	// through sysfs after ixy_init unbinds its kernel driver.
	*access = strcmp(kernel_driver, VFIO_PCI_DRIVER) == 0 ? &vfio_access : &pci_sysfs_access;
	return access_check(config->pci_addr, *access, other) == 0 ? driver : NULL;
}

bool ixy_check_configs(const struct ixy_config configs[], size_t num_configs, uint32_t app_huge_pages) {
	const struct pci_access *first = NULL, *access = NULL;
	char kernel_driver[FAILSAFE_DRIVER_NAME_MAX];
	uint64_t pages = app_huge_pages;
	for (size_t i = 0; i < num_configs; i++) {
		struct ixy_config config = with_environment(&configs[i]);
		const struct ixy_driver* driver = check_config(&config, first, &access, kernel_driver);
		if (!driver) {
			return false;
		}
		first = first ? first : access;
		pages += driver->huge_pages_needed(&config);
	}
	char who[128];
	snprintf(who, sizeof(who), "the app (%zu device(s), and %u huge page(s) for its own pools)", num_configs,
		 app_huge_pages);
	return failsafe_check_memory(who, pages, access && access->iommu) == 0;
}

struct ixy_device* ixy_init_config(const struct ixy_config* app_config) {
	struct ixy_config config = with_environment(app_config);
	const struct pci_access* access = NULL;
	char kernel_driver[FAILSAFE_DRIVER_NAME_MAX], who[128];
	const struct ixy_driver* driver = check_config(&config, NULL, &access, kernel_driver);
	if (!driver) {
		return NULL;
	}
	snprintf(who, sizeof(who), "PCI device %s (%s driver)", config.pci_addr, driver->name);
	// Here, at the first device, the process chooses its way to all its devices (access.h).
	if (failsafe_check_memory(who, driver->huge_pages_needed(&config), access->iommu) != 0 ||
	    access_choose(config.pci_addr, access) != 0 ||
	    (access == &pci_sysfs_access && pci_unbind_driver(config.pci_addr) != 0)) {
		return NULL;
	}
	struct pci_device* pci = access->open(config.pci_addr);
	if (pci && pci_set_bus_master(pci, true) != 0) {
		pci_close(pci);
		pci = NULL;
	}
	ixy_trace_request(config.trace);
	struct ixy_device* dev = pci ? driver->init(&config, pci) : NULL; // the driver owns pci now
	if (dev) {
		ixy_info("%s: %s driver, device reached through %s", dev->pci_addr, driver->name, access->name);
	} else if (access == &pci_sysfs_access) {
		failsafe_give_back(config.pci_addr, kernel_driver); // "" if it had none
	}
	return dev;
}

struct ixy_device* ixy_init(const char* pci_addr, uint16_t rx_queues, uint16_t tx_queues) {
	struct ixy_config config = {.pci_addr = pci_addr, .rx_queues = rx_queues, .tx_queues = tx_queues};
	return ixy_init_config(&config);
}
