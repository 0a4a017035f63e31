// PLACEHOLDER: replaced by the real virtio driver.
#include "driver.h"
#include "../log.h"

static const uint16_t virtio_ids[] = {0};

static struct ixy_device* virtio_init(const struct ixy_config* config) {
	ixy_error("%s: the virtio driver is not written yet", config->pci_addr);
	return NULL;
}

const struct ixy_driver virtio_driver = {"virtio", 0xffff, virtio_ids, 0, virtio_init};
