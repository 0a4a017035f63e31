// The full build's entries (entries.h): every driver, and the features that join ixy_init and ixgbe's init. The
// paper-only build compiles src/paper_entries.c instead (CMakeLists.txt).
#include <ixy/checks.h>

#include "checks.h"

extern const struct ixy_driver igb_driver, e1000_driver, virtio_driver; // (driver/igb.c, e1000.c, virtio.c)
extern const struct driver_features ixgbe_features; // trace, RSS, interrupts, settings (driver/ixgbe_features.c)

static const struct driver_entry drivers[] = {{&ixgbe_driver, &ixgbe_features},
					      {&igb_driver, NULL},
					      {&e1000_driver, NULL},
					      {&virtio_driver, NULL},
					      {&xdp_driver, NULL}, // AF_XDP: claims "xdp:<ifname>", takes no PCI device
					      {NULL, NULL}};

// Fail safety, VFIO and AF_XDP: the checks of ixy_init (checks.c).
const struct ixy_entries ixy_entries = {.drivers = drivers, .take = &checked_taking};

// The apps' check of all their devices before they take the first (ixy/checks.h), with the build's drivers.
bool ixy_check_configs(const struct ixy_config configs[], size_t num_configs, uint32_t app_huge_pages) {
	return check_configs(configs, num_configs, app_huge_pages, drivers);
}
