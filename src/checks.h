// Refusals before anything is touched (checks.c): what ixy_init and ixy_check_configs check of the request, of the
// device's IDs, of the way the device is reached and of the DMA memory. Each prints one message naming what is wrong
// and how to do it right. None changes anything but the check_plan it is given, except check_mixed and check_init
// (below): they choose the process's way to its devices.
#ifndef IXY_CHECKS_H
#define IXY_CHECKS_H

#include <ixy/ixy.h>

#include "driver/xdp.h"
#include "entries.h"
#include "failsafe.h"

// The configuration ixy_init works with: app_config with the switches of ixy_config whose environment variable is 1
// (IXY_FORCE, IXY_VIRTIO_LEGACY, IXY_TRACE; the environment is read here and nowhere else) switched on, and
// test_fail_step from IXY_TEST_FAIL_INIT. (The request's shape and ranges: check_request, entries.h.)
void check_config(const struct ixy_config* app_config, struct ixy_config* config);
// IXY_TEST_SANDBOX_PROBE=1 (read with the others above), for tests only: ixy_sandbox_enter (sandbox.c) then tries
// calls its filter forbids.
bool check_sandbox_probe(void);

// The devices an app will take, as checked so far: the way they are reached and the huge pages they need.
struct check_plan {
	// The device checked last: its IDs, driver and kernel driver, which ixy_init unbinds ("" if none, and through
	// VFIO: the device stays bound to vfio-pci); and all drivers, named when none drives a NIC.
	struct take_plan take;
	const struct ixy_driver* driver; // take.entry's (NULL if none drives it)
	uint32_t app_huge_pages;         // the app's own pools (ixy_check_configs)
	bool whole_app;                  // ixy_check_configs: messages name the app, not the one device
	const struct pci_access* access; // NULL before the first device
	uint64_t huge_pages;             // the devices' so far
	bool xdp;                        // an AF_XDP device is among them
	struct xdp_plan xdp_plan;        // what the AF_XDP devices need together (driver/xdp.h)
	uint32_t umem_huge_pages;        // their UMEM's, if the process has none yet: huge pages unless AF_XDP only
	size_t num_devices;
	const char* pci_addr; // the device checked last
};
// Fails with a message unless this process may take the device of plan->take (its IDs and driver): it is a network
// controller that driver drives (for a VirtIO NIC without the legacy interface, config->virtio_legacy is off; the
// message for a NIC no driver drives lists the IDs of all drivers), the machine lets this process take it
// (failsafe.c), and it is reached the same way as the plan's other devices or, for the first, the process's
// (access.c). Then adds the device to plan.
bool check_taking(const struct ixy_config* config, struct check_plan* plan);
// Fails with a message unless the huge pages of the plan's devices and the app can be had (failsafe.c).
bool check_memory(const struct check_plan* plan);
// For ixy_check_configs: the process's UMEM, if it has none yet, is made for all the app's AF_XDP devices
// (xdp_adopt_plan). And an app with AF_XDP and PCI devices reaches all of them the PCI way, whichever it takes
// first, so that its UMEM is DMA memory a PCI NIC can reach. This chooses that way for the process (access.h) if
// none is chosen yet; it changes nothing for other apps. Fails with a message if it cannot.
bool check_mixed(const struct check_plan* plan);
// ixy_check_configs (feature_entries.c gives it the build's drivers): check_config and check_taking for each, then
// check_memory and check_mixed for all.
bool check_configs(const struct ixy_config configs[], size_t num_configs, uint32_t app_huge_pages,
		   const struct driver_entry drivers[]);
// ixy_init's checks (entries.h): check_config, then check_taking and check_memory, before it touches the device; then
// the device's way becomes the process's way to its devices (access.h).
extern const struct take_entry checked_taking;

#endif
