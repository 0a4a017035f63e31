// Refusals before anything is touched: a malformed PCI address, queue counts or a ring size out of range, a device
// that is not a network controller or not one of ixy's NICs, IXY_VIRTIO_LEGACY=1 for a NIC without the legacy
// interface, a device reached another way than the process's others, too little DMA memory. ixy_init (device.c,
// through the take entry, checked_taking) and ixy_check_configs (feature_entries.c) ask these; failsafe.c answers
// what they ask of the machine (in use, root, huge pages).
// At the end, the way back: ixy_give_back, for an app that gives up after it took a device.
#include <ctype.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include <ixy/checks.h>

#include "access.h"
#include "checks.h"
#include "driver/virtio_spec.h"
#include "driver/xdp.h"
#include "trace.h"
#include "vfio.h"

#define PCI_BASE_CLASS_NETWORK 0x02 // the class code's base class of a network controller (PCI 3.0, appendix D)

bool ixy_valid_pci_addr(const char* s) {
	return xdp_claims(s) || pci_addr_shape(s);
}

// Every environment variable ixy reads, read here and nowhere else: each is a switch, on when its value is 1, but
// IXY_TEST_FAIL_INIT=<pci addr>:<step> (ixy_config.test_fail_step).
struct environment {
	bool force, virtio_legacy, virtio_split, trace, sandbox_probe;
	const char* fail_init;
};

static bool switch_on(const char* name) {
	const char* value = getenv(name);
	return value && strcmp(value, "1") == 0;
}

static struct environment read_environment(void) {
	return (struct environment){.force = switch_on("IXY_FORCE"),
				    .virtio_legacy = switch_on("IXY_VIRTIO_LEGACY"),
				    .virtio_split = switch_on("IXY_VIRTIO_SPLIT"),
				    .trace = switch_on("IXY_TRACE"),
				    .sandbox_probe = switch_on("IXY_TEST_SANDBOX_PROBE"),
				    .fail_init = getenv("IXY_TEST_FAIL_INIT")};
}

bool check_sandbox_probe(void) {
	return read_environment().sandbox_probe;
}

void check_config(const struct ixy_config* app_config, struct ixy_config* config) {
	struct environment env = read_environment();
	*config = *app_config;
	config->force |= env.force;
	config->virtio_legacy |= env.virtio_legacy;
	config->virtio_split |= env.virtio_split;
	config->trace |= env.trace;
	const char* pci_addr = config->pci_addr;
	size_t len = pci_addr ? strlen(pci_addr) : 0;
	const char* fail = env.fail_init;
	config->test_fail_step =
	    len && fail && strncmp(fail, pci_addr, len) == 0 && fail[len] == ':' ? fail + len + 1 : NULL;
}

// The device is a network controller and driver drives it.
static bool check_device(const struct ixy_config* config, const struct check_plan* plan) {
	const char* pci_addr = config->pci_addr;
	const struct pci_ids* ids = &plan->take.ids;
	if (ids->class_code >> 16 != PCI_BASE_CLASS_NETWORK) {
		ixy_error("PCI device %s (%04x:%04x) is not a network controller (class 0x%06x): refusing to touch it",
			  pci_addr, ids->vendor_id, ids->device_id, ids->class_code);
		return false;
	}
	if (!plan->driver) {
		ixy_error("PCI device %s is a NIC (%04x:%04x) that no ixy driver supports. Supported:", pci_addr,
			  ids->vendor_id, ids->device_id);
		for (const struct driver_entry* e = plan->take.drivers; e->driver; e++) {
			for (size_t i = 0; i < e->driver->num_device_ids; i++) {
				fprintf(stderr, " %04x:%04x", e->driver->vendor_id, e->driver->device_ids[i]);
			}
			fprintf(stderr, " (%s)\n", e->driver->name);
		}
		return false;
	}
	// A modern-only VirtIO NIC (device ID 0x1040 + type, VirtIO 1.1, 4.1.2.1) has no legacy interface to force.
	if (ids->vendor_id == VIRTIO_PCI_VENDOR_ID && ids->device_id == VIRTIO_PCI_DEVICE_ID_NET_MODERN &&
	    config->virtio_legacy) {
		ixy_error("PCI device %s (%04x:%04x) is a modern-only VirtIO NIC: it has no legacy interface for "
			  "IXY_VIRTIO_LEGACY=1. Unset it",
			  pci_addr, ids->vendor_id, ids->device_id);
		return false;
	}
	return true;
}

// AF_XDP: its own refusals. With AF_XDP devices only, a process needs no memory with device addresses
// (xdp_memory_access); beside PCI devices its UMEM is their DMA memory, so that a PCI NIC can send its frames.
static bool check_xdp_taking(const struct ixy_config* config, struct check_plan* plan) {
	if (!xdp_check(config, &plan->xdp_plan)) {
		return false;
	}
	const struct pci_access* way = plan->access ? plan->access : access_of_process();
	plan->access = way ? way : &xdp_memory_access;
	plan->umem_huge_pages = xdp_umem_huge_pages(&plan->xdp_plan); // one UMEM per process
	plan->xdp = true;
	return true;
}

static bool check_pci_taking(const struct ixy_config* config, struct check_plan* plan) {
	if (!check_device(config, plan) || failsafe_check_device(config, plan->take.kernel_driver) != 0) {
		return false;
	}
	if (access_of_process() == &xdp_memory_access) {
		ixy_error("PCI device %s: this process opened its AF_XDP devices on ordinary memory, which a PCI NIC "
			  "cannot reach. Check all devices together first (ixy_check_configs, as the apps do) or take "
			  "the PCI devices first: then the UMEM is DMA memory",
			  config->pci_addr);
		return false;
	}
	// A device the administrator bound to vfio-pci (scripts/setup-vfio.sh) is reached through VFIO, and stays bound
	// to it (no kernel driver to unbind); any other one through sysfs after ixy_init unbinds its kernel driver. An
	// AF_XDP device checked before it takes its way.
	const struct pci_access* access = &pci_sysfs_access;
	if (strcmp(plan->take.kernel_driver, VFIO_PCI_DRIVER) == 0) {
		access = &vfio_access;
		plan->take.kernel_driver[0] = '\0';
	}
	if (access_check(config->pci_addr, access, plan->access == &xdp_memory_access ? NULL : plan->access) != 0) {
		return false;
	}
	plan->access = access;
	plan->huge_pages += plan->driver->huge_pages_needed(config);
	return true;
}

bool check_taking(const struct ixy_config* config, struct check_plan* plan) {
	plan->driver = plan->take.entry ? plan->take.entry->driver : NULL;
	if (plan->driver == &xdp_driver ? !check_xdp_taking(config, plan) : !check_pci_taking(config, plan)) {
		return false;
	}
	plan->num_devices++;
	plan->pci_addr = config->pci_addr;
	return true;
}

bool check_memory(const struct check_plan* plan) {
	char who[128];
	if (plan->whole_app) {
		snprintf(who, sizeof(who), "the app (%zu device(s), and %u huge page(s) for its own pools)",
			 plan->num_devices, plan->app_huge_pages);
	} else {
		snprintf(who, sizeof(who), "PCI device %s (%s driver)", plan->pci_addr, plan->driver->name);
	}
	if (plan->access == &xdp_memory_access) {
		return true; // ordinary memory: no huge pages, nothing locked but the UMEM the kernel pins
	}
	uint64_t pages = plan->huge_pages + plan->umem_huge_pages + plan->app_huge_pages;
	bool iommu = plan->access && plan->access->dma && plan->access->dma->iommu;
	return failsafe_check_memory(who, pages, iommu) == 0;
}

bool check_mixed(const struct check_plan* plan) {
	if (plan->xdp) {
		xdp_adopt_plan(&plan->xdp_plan);
	}
	if (!plan->xdp || plan->access == &xdp_memory_access || access_of_process()) {
		return true; // no AF_XDP device, AF_XDP devices only, or the way is chosen already
	}
	return access_choose(plan->pci_addr, plan->access) == 0;
}

bool check_configs(const struct ixy_config configs[], size_t num_configs, uint32_t app_huge_pages,
		   const struct driver_entry drivers[]) {
	struct check_plan plan = {.take.drivers = drivers, .app_huge_pages = app_huge_pages, .whole_app = true};
	for (size_t i = 0; i < num_configs; i++) {
		struct ixy_config config;
		check_config(&configs[i], &config);
		if (!check_request(&config, drivers) || find_driver(config.pci_addr, &plan.take) != 0 ||
		    !check_taking(&config, &plan)) {
			return false;
		}
	}
	return check_memory(&plan) && check_mixed(&plan);
}

// ixy_init's configuration (struct take_entry, entries.h): the environment's switches, and the trace asked for.
static void configure(struct ixy_config* config) {
	struct ixy_config app_config = *config;
	check_config(&app_config, config);
	ixy_trace_request(config->trace);
}

// check_taking and check_memory; then the device's way becomes the process's way to its devices (access.h), and
// take says how to take the device: its access, and the kernel driver to unbind.
static bool check_init(const struct ixy_config* config, struct take_plan* take) {
	struct check_plan plan = {.take = *take};
	if (!check_taking(config, &plan) || !check_memory(&plan) || access_choose(config->pci_addr, plan.access) != 0) {
		return false;
	}
	*take = plan.take;
	take->access = plan.access;
	return true;
}

const struct take_entry checked_taking = {
    .configure = configure, .check_device = check_init, .give_back = failsafe_give_back};

void ixy_give_back(struct ixy_device* dev) {
	if (!dev) {
		return;
	}
	// dev and its address are gone after the close, which comes first: the driver resets the device and ends its
	// bus mastering before the kernel driver takes it.
	char pci_addr[IF_NAMESIZE + sizeof(XDP_NAME_PREFIX)], kernel_driver[IXY_DRIVER_NAME_MAX];
	snprintf(pci_addr, sizeof(pci_addr), "%s", dev->pci_addr);
	snprintf(kernel_driver, sizeof(kernel_driver), "%s", dev->kernel_driver);
	ixy_close(dev);
	failsafe_give_back(pci_addr, kernel_driver);
}
