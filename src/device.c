// ixy_init(): from a PCI address to a running device. Picks the driver by PCI vendor and device ID, takes the device
// and starts the driver. A name "xdp:<ifname>" instead is a kernel interface, driven through AF_XDP sockets
// (driver/xdp.c).
#include <ixy/checks.h>
#include <ixy/ixy.h>

#include "checks.h"
#include "driver/driver.h"
#include "failsafe.h"
#include "trace.h"

static const struct ixy_driver* const drivers[] = {&ixgbe_driver, &igb_driver, &e1000_driver, &virtio_driver, NULL};

// Reads the device's IDs into plan->ids and finds its driver, plan->driver: the first whose ID list has its vendor and
// device ID (NULL if none). Fails with a message if the IDs cannot be read. Reads nothing of "xdp:<ifname>": a kernel
// interface, driven by the AF_XDP driver.
static int find_driver(const char* pci_addr, struct check_plan* plan) {
	plan->driver = check_xdp_name(pci_addr) ? &xdp_driver : NULL;
	if (plan->driver) {
		return 0;
	}
	if (pci_read_ids(pci_addr, &plan->ids) != 0) {
		return -1;
	}
	for (const struct ixy_driver* const* d = drivers; *d; d++) {
		for (size_t i = 0; i < (*d)->num_device_ids; i++) {
			if ((*d)->vendor_id == plan->ids.vendor_id && (*d)->device_ids[i] == plan->ids.device_id) {
				plan->driver = *d;
				return 0;
			}
		}
	}
	return 0;
}

bool ixy_check_configs(const struct ixy_config configs[], size_t num_configs, uint32_t app_huge_pages) {
	struct check_plan plan = {.drivers = drivers, .app_huge_pages = app_huge_pages, .whole_app = true};
	for (size_t i = 0; i < num_configs; i++) {
		struct ixy_config config;
		if (!check_config(&configs[i], &config) || find_driver(config.pci_addr, &plan) != 0 ||
		    !check_taking(&config, &plan)) {
			return false;
		}
	}
	return check_memory(&plan) && check_mixed(&plan);
}

struct ixy_device* ixy_init_config(const struct ixy_config* app_config) {
	struct ixy_config config;
	struct check_plan plan = {.drivers = drivers};
	// Looks before touching (checks.c): decides whether and how to take the device, or says why not.
	if (!check_config(app_config, &config) || find_driver(config.pci_addr, &plan) != 0 ||
	    !check_init(&config, &plan)) {
		return NULL;
	}
	if (plan.driver == &xdp_driver) { // AF_XDP (driver/xdp.c): nothing to take, the interface stays the kernel's
		// cppcheck-suppress returnDanglingLifetime ; init copies what it keeps of config (driver.h)
		return xdp_driver.init(&config, NULL);
	}
	// Takes the device: unbinds its kernel driver, if it has one (through VFIO it has none to unbind: it stays
	// bound to vfio-pci), opens it, maps its registers and lets it master the bus, so that the driver can start its
	// DMA.
	if (plan.kernel_driver[0] && pci_unbind_driver(config.pci_addr) != 0) {
		return NULL;
	}
	struct pci_device* pci = plan.access->open(config.pci_addr);
	if (pci && (pci_map_bar0(pci) != 0 || pci_set_bus_master(pci, true) != 0)) {
		pci_close(pci);
		pci = NULL;
	}
	ixy_trace_request(config.trace);
	struct ixy_device* dev = pci ? plan.driver->init(&config, pci) : NULL; // the driver owns pci now
	if (dev) {
		ixy_info("%s: %s driver, device reached through %s", dev->pci_addr, plan.driver->name,
			 plan.access->name);
		snprintf(dev->kernel_driver, sizeof(dev->kernel_driver), "%s", plan.kernel_driver); // ixy_give_back
	} else {
		failsafe_give_back(config.pci_addr, plan.kernel_driver); // nothing if it had none
	}
	return dev;
}

struct ixy_device* ixy_init(const char* pci_addr, uint16_t rx_queues, uint16_t tx_queues) {
	struct ixy_config config = {.pci_addr = pci_addr, .rx_queues = rx_queues, .tx_queues = tx_queues};
	return ixy_init_config(&config);
}
