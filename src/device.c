// ixy_init(): from a PCI address to a running device. Picks the driver by PCI vendor and device ID, and decides how
// this process reaches its devices (access.h). A name "xdp:<ifname>" instead is a kernel interface, driven through
// AF_XDP sockets (driver/xdp.c).
#include <ixy/ixy.h>

#include "access.h"
#include "checks.h"
#include "driver/driver.h"
#include "failsafe.h"
#include "trace.h"

static const struct ixy_driver* const drivers[] = {&ixgbe_driver, &igb_driver, &virtio_driver};
#define NUM_DRIVERS (sizeof(drivers) / sizeof(drivers[0]))

// Looks before touching (checks.c): only the IDs and class are read until we know this is a NIC we drive. Returns
// its driver, or NULL with a message.
static const struct ixy_driver* find_driver(const struct ixy_config* config) {
	struct pci_ids ids;
	bool xdp = check_xdp_name(config->pci_addr), valid = check_request(config);
	if (!valid || xdp || pci_read_ids(config->pci_addr, &ids) != 0) {
		return valid && xdp ? &xdp_driver : NULL; // "xdp:<ifname>": a kernel interface, no PCI IDs to read
	}
	const struct ixy_driver* driver = NULL; // the one whose ID list has this vendor and device
	for (size_t d = 0; d < NUM_DRIVERS; d++) {
		for (size_t i = 0; i < drivers[d]->num_device_ids; i++) {
			if (drivers[d]->vendor_id == ids.vendor_id && drivers[d]->device_ids[i] == ids.device_id) {
				driver = drivers[d];
			}
		}
	}
	return check_device(config, &ids, driver, drivers, NUM_DRIVERS) ? driver : NULL;
}

bool ixy_check_configs(const struct ixy_config configs[], size_t num_configs, uint32_t app_huge_pages) {
	struct check_plan plan = {.app_huge_pages = app_huge_pages, .whole_app = true};
	for (size_t i = 0; i < num_configs; i++) {
		struct ixy_config config = check_environment(&configs[i]);
		if (!check_taking(&config, find_driver(&config), &plan)) {
			return false;
		}
	}
	return check_memory(&plan) && check_mixed(&plan);
}

struct ixy_device* ixy_init_config(const struct ixy_config* app_config) {
	struct ixy_config config = check_environment(app_config);
	struct check_plan plan = {0};
	// Here, at the first device it takes, the process chooses its way to all its devices (access.h). Through sysfs
	// ixy unbinds the kernel driver, if the device has one; through VFIO the device stays bound to vfio-pci.
	if (!check_taking(&config, find_driver(&config), &plan) || !check_memory(&plan) ||
	    access_choose(config.pci_addr, plan.access) != 0 ||
	    (plan.access == &pci_sysfs_access && plan.kernel_driver[0] && pci_unbind_driver(config.pci_addr) != 0)) {
		return NULL;
	}
	if (plan.driver == &xdp_driver) { // AF_XDP (driver/xdp.c): nothing to take, the interface stays the kernel's
		// cppcheck-suppress returnDanglingLifetime ; init copies what it keeps of config (driver.h)
		return plan.driver->init(&config, NULL);
	}
	struct pci_device* pci = plan.access->open(config.pci_addr);
	if (pci && pci_set_bus_master(pci, true) != 0) {
		pci_close(pci);
		pci = NULL;
	}
	ixy_trace_request(config.trace);
	struct ixy_device* dev = pci ? plan.driver->init(&config, pci) : NULL; // the driver owns pci now
	if (dev) {
		ixy_info("%s: %s driver, device reached through %s", dev->pci_addr, plan.driver->name,
			 plan.access->name);
	} else if (plan.access == &pci_sysfs_access) {
		failsafe_give_back(config.pci_addr, plan.kernel_driver); // "" if it had none
	}
	return dev;
}

struct ixy_device* ixy_init(const char* pci_addr, uint16_t rx_queues, uint16_t tx_queues) {
	struct ixy_config config = {.pci_addr = pci_addr, .rx_queues = rx_queues, .tx_queues = tx_queues};
	return ixy_init_config(&config);
}
