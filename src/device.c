// ixy_init(): from a PCI address to a running device. Picks the driver by PCI vendor and device ID.
#include <string.h>

#include <ixy/ixy.h>

#include "checks.h"
#include "driver/driver.h"
#include "failsafe.h"
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

const struct ixy_driver* ixy_find_driver(const struct ixy_config* config) {
	// Look before touching (checks.c): only the IDs and class are read until we know this is a NIC we drive.
	struct pci_ids ids;
	if (!check_request(config) || pci_read_ids(config->pci_addr, &ids) != 0) {
		return NULL;
	}
	const struct ixy_driver* driver = driver_for_ids(&ids);
	return check_device(config->pci_addr, &ids, driver, drivers, NUM_DRIVERS) ? driver : NULL;
}

struct ixy_device* ixy_init_config(const struct ixy_config* config) {
	const struct ixy_driver* driver = ixy_find_driver(config);
	// failsafe.c: refuse a device someone uses, and remember the kernel driver to give it back if init fails.
	char kernel_driver[FAILSAFE_DRIVER_NAME_MAX];
	if (!driver || failsafe_check(config, driver, kernel_driver) != 0) {
		return NULL;
	}
	// Take the device: through VFIO if the administrator bound it to vfio-pci (scripts/setup-vfio.sh), else through
	// sysfs after unbinding its kernel driver (failsafe.c checked that this process reaches all devices one way).
	bool vfio = strcmp(kernel_driver, VFIO_PCI_DRIVER) == 0;
	if (!vfio && pci_unbind_driver(config->pci_addr) != 0) {
		return NULL;
	}
	struct pci_device* pci = vfio ? vfio_open(config->pci_addr) : pci_open_sysfs(config->pci_addr);
	if (pci && pci_set_bus_master(pci, true) != 0) {
		pci_close(pci);
		pci = NULL;
	}
	struct ixy_device* dev = pci ? driver->init(config, pci) : NULL; // the driver owns pci now
	if (dev) {
		ixy_info("%s: %s driver, device reached through %s", dev->pci_addr, driver->name,
			 vfio ? "VFIO" : "sysfs");
	} else if (!vfio) {
		failsafe_give_back(config->pci_addr, kernel_driver);
	}
	return dev;
}

struct ixy_device* ixy_init(const char* pci_addr, uint16_t rx_queues, uint16_t tx_queues) {
	struct ixy_config config = {.pci_addr = pci_addr, .rx_queues = rx_queues, .tx_queues = tx_queues};
	return ixy_init_config(&config);
}
