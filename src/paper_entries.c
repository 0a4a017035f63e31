// The paper-only build's entries (entries.h): the 82599's driver, reached through sysfs, and no feature.
#include "entries.h"

static const struct driver_entry drivers[] = {{&ixgbe_driver, NULL}, {NULL, NULL}};

const struct ixy_entries ixy_entries = {.drivers = drivers, .take = NULL};
