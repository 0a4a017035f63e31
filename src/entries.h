// Where the features join the paper's library: one table, ixy_entries, defined once per build in a file CMake
// chooses: src/paper_entries.c in the paper-only build (cmake -DIXY_PAPER_ONLY=ON: the 82599 through sysfs and
// nothing else, book chapter 1), src/feature_entries.c in the full build (every driver and feature). The paper's
// files read the table; they name no feature.
#ifndef IXY_ENTRIES_H
#define IXY_ENTRIES_H

#include "driver/driver.h"

// A driver, and what features add to its init (NULL: nothing).
struct driver_entry {
	const struct ixy_driver* driver;
	const struct driver_features* features;
};

// How ixy_init takes the device it was asked for (device.c): its driver and the way to it.
struct take_plan {
	const struct driver_entry* drivers;      // the build's, ending in {NULL}
	const struct driver_entry* entry;        // the device's driver; NULL: none drives it
	struct pci_ids ids;                      // from its config space
	char kernel_driver[IXY_DRIVER_NAME_MAX]; // unbound before the device is taken, "" if none
	const struct pci_access* access;         // the paper's: sysfs
};

// Taking a device beyond the paper's way: fail safety, VFIO and AF_XDP (checks.c).
struct take_entry {
	// Before ixy_init looks at the request: switches config's features on from the environment.
	void (*configure)(struct ixy_config* config);
	// Before ixy_init touches the device: may refuse it (false, with a message) or choose another way to it.
	bool (*check_device)(const struct ixy_config* config, struct take_plan* plan);
	// After a failed init: gives the device back to its kernel driver.
	void (*give_back)(const char* pci_addr, const char* kernel_driver);
};

struct ixy_entries {
	const struct driver_entry* drivers; // ending in {NULL}
	const struct take_entry* take;      // NULL: the paper's way (sysfs, nothing checked)
};
extern const struct ixy_entries ixy_entries;

// The driver that claims name (AF_XDP: "xdp:<ifname>"), or NULL: one of a PCI device.
static inline const struct driver_entry* claimant(const struct driver_entry drivers[], const char* name) {
	for (const struct driver_entry* e = drivers; e->driver && name; e++) {
		if (e->driver->claims && e->driver->claims(name)) {
			return e;
		}
	}
	return NULL;
}

// Fails with a message unless the request can be taken as it is: config->pci_addr has the shape of a PCI address
// (or a driver claims it), and the queue counts and the ring size are in range (ixy.h). Only then does ixy_init read
// the device: the address becomes a path in sysfs, the counts index the driver's arrays.
static inline bool check_request(const struct ixy_config* config, const struct driver_entry drivers[]) {
	const char* addr = config->pci_addr;
	if (!claimant(drivers, addr) && !pci_addr_shape(addr)) {
		ixy_error("malformed PCI address '%s': expected domain:bus:device.function, e.g. 0000:03:00.0 (or "
			  "xdp:<interface>, with AF_XDP)",
			  addr ? addr : "(null)");
		return false;
	}
	uint32_t ring = config->ring_size;
	if (config->rx_queues > IXY_MAX_QUEUES || config->tx_queues > IXY_MAX_QUEUES ||
	    (ring != 0 && (ring < 64 || ring > 4096 || (ring & (ring - 1)) != 0))) {
		ixy_error(
		    "%s: %u RX / %u TX queues of %u descriptors requested: at most %d queues each, with a ring size "
		    "that is a power of two from 64 to 4096 (0: the default)",
		    addr, config->rx_queues, config->tx_queues, ring, IXY_MAX_QUEUES);
		return false;
	}
	return true;
}

// Finds the driver of the device called name into plan->entry: the first that claims the name (AF_XDP:
// "xdp:<ifname>", no PCI device), else the first whose ID list has the device's IDs, which it reads into plan->ids
// with the name of its kernel driver. NULL if none. Fails with a message if it cannot read them.
static inline int find_driver(const char* name, struct take_plan* plan) {
	plan->ids = (struct pci_ids){0};
	plan->kernel_driver[0] = '\0';
	if ((plan->entry = claimant(plan->drivers, name)) != NULL) {
		return 0;
	}
	if (pci_read_ids(name, &plan->ids) != 0 || pci_read_kernel_driver(name, plan->kernel_driver) != 0) {
		return -1;
	}
	for (plan->entry = plan->drivers; plan->entry->driver; plan->entry++) {
		const struct ixy_driver* d = plan->entry->driver;
		for (size_t i = 0; i < d->num_device_ids; i++) {
			if (d->vendor_id == plan->ids.vendor_id && d->device_ids[i] == plan->ids.device_id) {
				return 0;
			}
		}
	}
	plan->entry = NULL;
	return 0;
}

#endif
