// PLACEHOLDER: replaced by the real ixgbe driver.
#include "driver.h"
#include "../log.h"

static const uint16_t ixgbe_ids[] = {0};

static struct ixy_device* ixgbe_init(const struct ixy_config* config) {
	ixy_error("%s: the ixgbe driver is not written yet", config->pci_addr);
	return NULL;
}

const struct ixy_driver ixgbe_driver = {"ixgbe", 0xffff, ixgbe_ids, 0, ixgbe_init};
