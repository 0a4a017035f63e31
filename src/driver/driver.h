// What a driver gets from the core and gives it.
//
// Gets: register access and delays (reg_io.h), the PCI device it drives (pci.h), DMA memory and packet buffers
// (ixy/memory.h), and messages (log.h). Production builds compile register accesses to plain volatile loads and stores
// (one instruction each). In test builds register accesses and delays go to a software device model (test/model),
// which checks what the driver does against the datasheet and keeps a virtual clock.
//
// Gives: a struct ixy_driver with the PCI IDs it handles and its init function. A driver's device struct embeds
// struct ixy_device as its first member `ixy`; IXY_TO_DRIVER gets it back.
#ifndef IXY_DRIVER_H
#define IXY_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <ixy/ixy.h>

#include "../log.h"
#include "../pci.h"

// set_reg32, get_reg32 and ixy_usleep: the build's, from the folder CMake puts on the include path: plain/ (one
// volatile load or store), traced/ (cmake -DIXY_TRACE=ON: they print each access while IXY_TRACE=1, src/trace.h), or
// test/seam/ in test builds (a software device model behind the tracing accessors).
#include "reg_io.h"

static inline void set_flags32(uint8_t* bar, uint32_t reg, uint32_t flags) {
	set_reg32(bar, reg, get_reg32(bar, reg) | flags);
}

static inline void clear_flags32(uint8_t* bar, uint32_t reg, uint32_t flags) {
	set_reg32(bar, reg, get_reg32(bar, reg) & ~flags);
}

// What features add to a driver's init (ixgbe's: src/feature_entries.c), NULL in the paper-only build.
struct driver_features {
	// The register trace (src/trace.h): told where the registers are.
	void (*trace)(const char* pci_addr, uint8_t* bar, size_t bar_size);
	// Receive side scaling over config->rx_queues queues, after the RX queues are set up. False with a message.
	bool (*setup_rss)(uint8_t* bar, const struct ixy_config* config);
	// An interrupt per RX queue (through VFIO, ixy/interrupts.h), before RX starts; *interrupts stays NULL where
	// the device polls. 0, or -1 with a message.
	int (*setup_interrupts)(uint8_t* bar, struct pci_device* pci, const struct ixy_config* config,
				struct ixy_interrupts** interrupts);
	// Promiscuous mode, link speed, MAC address (ixy/settings.h).
	const struct ixy_settings* settings;
};

struct ixy_driver {
	const char* name;
	uint16_t vendor_id;
	const uint16_t* device_ids;
	size_t num_device_ids; // 0: it drives a kernel interface, not a PCI device (AF_XDP), and claims its name
	// Called with a config ixy_init checked and the device taken (through sysfs or VFIO), bus mastering enabled.
	// The driver owns pci from then on: its close() (or a failing init) ends bus mastering and closes it. Returns
	// NULL with a message, leaving nothing allocated.
	struct ixy_device* (*init)(const struct ixy_config* config, struct pci_device* pci,
				   const struct driver_features* features);
	// At most how many huge pages init allocates: ixy_init checks that they are free before it touches the device.
	uint32_t (*huge_pages_needed)(const struct ixy_config* config);
	// For a driver without PCI IDs: whether a name is one of its devices (AF_XDP: "xdp:<ifname>").
	bool (*claims)(const char* name);
};

extern const struct ixy_driver ixgbe_driver; // the paper's; the others: src/feature_entries.c

#define IXY_TO_DRIVER(type, dev) ((type*)((char*)(dev)-offsetof(type, ixy)))

// A cache line (64 bytes on x86 and on most ARM cores). Each queue's state is aligned to it (_Alignas), so that two
// queues forwarded by two threads never write the same line: every such write would take the line away from the
// other core's cache (false sharing), and the threads would slow each other down without sharing any data. A device
// struct with such members is allocated with aligned_alloc (calloc aligns to 16 bytes only).
#define IXY_CACHE_LINE 64

#endif
