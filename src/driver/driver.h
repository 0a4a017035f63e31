// What a driver gives the device layer: the PCI IDs it handles and its init function.
// A driver's device struct embeds struct ixy_device as its first member `ixy`; IXY_TO_DRIVER gets it back.
#ifndef IXY_DRIVER_H
#define IXY_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include <ixy/ixy.h>

struct ixy_driver {
	const char* name;
	uint16_t vendor_id;
	const uint16_t* device_ids;
	size_t num_device_ids;
	// Called after the kernel driver was unbound and bus mastering enabled, with a config ixy_init checked.
	// Returns NULL with a message, leaving nothing allocated.
	struct ixy_device* (*init)(const struct ixy_config* config);
};

extern const struct ixy_driver ixgbe_driver;
extern const struct ixy_driver virtio_driver;

#define IXY_TO_DRIVER(type, dev) ((type*)((char*)(dev)-offsetof(type, ixy)))

#endif
