// ixy_init(): from a PCI address to a running device. Finds the driver by PCI vendor and device ID, takes the device
// (unbinds its kernel driver, opens it through sysfs, maps its registers, lets it master the bus) and starts the
// driver. The drivers and the features that join here (fail safety, VFIO, AF_XDP) come from ixy_entries (entries.h).
#include <ixy/ixy.h>

#include "entries.h"

struct ixy_device* ixy_init_config(const struct ixy_config* app_config) {
	struct ixy_config config = *app_config;
	struct take_plan plan = {.drivers = ixy_entries.drivers, .access = &pci_sysfs_access};
	const struct take_entry* take = ixy_entries.take; // NULL in the paper-only build
	if (take) {
		take->configure(&config);
	}
	if (!check_request(&config, plan.drivers) || find_driver(config.pci_addr, &plan) != 0 ||
	    (take && !take->check_device(&config, &plan))) {
		return NULL;
	}
	if (!plan.entry) {
		ixy_error("PCI device %s (%04x:%04x): no ixy driver drives it", config.pci_addr, plan.ids.vendor_id,
			  plan.ids.device_id);
		return NULL;
	}
	const struct ixy_driver* driver = plan.entry->driver;
	if (!driver->num_device_ids) { // a kernel interface (AF_XDP): nothing to take, it stays the kernel's
		// cppcheck-suppress returnDanglingLifetime ; init copies what it keeps of config (driver.h)
		return driver->init(&config, NULL, plan.entry->features);
	}
	if (plan.kernel_driver[0] && pci_unbind_driver(config.pci_addr) != 0) {
		return NULL;
	}
	struct pci_device* pci = plan.access->open(config.pci_addr);
	if (pci && (pci_map_bar0(pci) != 0 || pci_set_bus_master(pci, true) != 0)) {
		pci_close(pci);
		pci = NULL;
	}
	// The driver owns pci now.
	struct ixy_device* dev = pci ? driver->init(&config, pci, plan.entry->features) : NULL;
	if (dev) {
		ixy_info("%s: %s driver, device reached through %s", dev->pci_addr, driver->name, plan.access->name);
		snprintf(dev->kernel_driver, sizeof(dev->kernel_driver), "%s", plan.kernel_driver);
	} else if (take) {
		take->give_back(config.pci_addr, plan.kernel_driver); // nothing if it had none
	}
	return dev;
}

struct ixy_device* ixy_init(const char* pci_addr, uint16_t rx_queues, uint16_t tx_queues) {
	struct ixy_config config = {.pci_addr = pci_addr, .rx_queues = rx_queues, .tx_queues = tx_queues};
	return ixy_init_config(&config);
}
