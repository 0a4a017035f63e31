// ixy_init(): from a PCI address to a running device. Picks the driver by PCI vendor and device ID.
#include <ctype.h>
#include <string.h>

#include <ixy/ixy.h>

#include "driver/driver.h"
#include "failsafe.h"
#include "vfio.h"

static const struct ixy_driver* const drivers[] = {&ixgbe_driver, &igb_driver, &virtio_driver};
#define NUM_DRIVERS (sizeof(drivers) / sizeof(drivers[0]))

bool ixy_valid_pci_addr(const char* s) {
	// domain:bus:device.function, e.g. 0000:03:00.0: x stands for a hex digit
	const char* pattern = "xxxx:xx:xx.x";
	for (size_t i = 0; s && i <= strlen(pattern); i++) {
		if (pattern[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != pattern[i]) {
			return false;
		}
	}
	return s && s[11] <= '7'; // the function number is 0..7
}

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
	const char* pci_addr = config->pci_addr;
	if (!ixy_valid_pci_addr(pci_addr)) {
		ixy_error("malformed PCI address '%s': expected domain:bus:device.function, e.g. 0000:03:00.0",
			  pci_addr ? pci_addr : "(null)");
		return NULL;
	}
	uint32_t ring = config->ring_size;
	if (config->rx_queues > IXY_MAX_QUEUES || config->tx_queues > IXY_MAX_QUEUES ||
	    (ring != 0 && (ring < 64 || ring > 4096 || (ring & (ring - 1)) != 0))) {
		ixy_error(
		    "%s: %u RX / %u TX queues of %u descriptors requested: at most %d queues each, with a ring size "
		    "that is a power of two from 64 to 4096 (0: the default)",
		    pci_addr, config->rx_queues, config->tx_queues, ring, IXY_MAX_QUEUES);
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
	const struct ixy_driver* driver = driver_for_ids(&ids);
	if (!driver) {
		ixy_error("PCI device %s is a NIC (%04x:%04x) that no ixy driver supports. Supported:", pci_addr,
			  ids.vendor_id, ids.device_id);
		for (size_t d = 0; d < NUM_DRIVERS; d++) {
			for (size_t i = 0; i < drivers[d]->num_device_ids; i++) {
				fprintf(stderr, " %04x:%04x", drivers[d]->vendor_id, drivers[d]->device_ids[i]);
			}
			fprintf(stderr, " (%s)\n", drivers[d]->name);
		}
		return NULL;
	}
	return driver;
}

// Takes the device: through VFIO if the administrator bound it to vfio-pci (scripts/setup-vfio.sh), else through
// sysfs after unbinding its kernel driver. DMA memory must then come from the matching place (memory.c).
static struct pci_device* take_device(const char* pci_addr, bool vfio) {
	if (memory_select_provider(vfio ? &vfio_dma : NULL) != 0) {
		return NULL;
	}
	return vfio ? vfio_open(pci_addr) : pci_unbind_driver(pci_addr) == 0 ? pci_open_sysfs(pci_addr) : NULL;
}

struct ixy_device* ixy_init_config(const struct ixy_config* config) {
	const struct ixy_driver* driver = ixy_find_driver(config);
	// failsafe.c: refuse a device someone uses, and remember the kernel driver to give it back if init fails.
	char kernel_driver[FAILSAFE_DRIVER_NAME_MAX];
	if (!driver || failsafe_check(config, driver, kernel_driver) != 0) {
		return NULL;
	}
	bool vfio = strcmp(kernel_driver, VFIO_PCI_DRIVER) == 0;
	struct pci_device* pci = take_device(config->pci_addr, vfio);
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
