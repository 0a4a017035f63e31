// The legacy VirtIO PCI transport (VirtIO 1.0, 4.1.4.8): a block of registers in the IO-port BAR0, read and written
// with pread/pwrite on the BAR's sysfs file (one system call per access). See virtio_transport.h.
// Read it after virtio.c: start at virtio_legacy_open() at the bottom, then legacy_ops and the functions it names.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../log.h"
#include "../trace.h"
#include "virtio_regs.h"
#include "virtio_transport.h"

// The IO-port BAR: its sysfs resource file, read and written with pread/pwrite. Test builds (IXY_SEAM) reach the
// device model's registers instead (test/seam/seam_io.h).
#ifdef IXY_SEAM
#include "seam_io.h"
#define io_bar_open ixy_seam_io_open
#define io_pread ixy_seam_io_pread
#define io_pwrite ixy_seam_io_pwrite
#define io_close ixy_seam_io_close
#else
static int io_bar_open(const char* pci_addr) {
	char path[64];
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource0", pci_addr);
	return open(path, O_RDWR);
}
#define io_pread pread
#define io_pwrite pwrite
#define io_close close
#endif

// How often read_config reads a field before it gives up waiting for two equal reads.
#define CONFIG_READ_TRIES 10

struct legacy_transport {
	struct virtio_transport transport;
	int io_fd; // BAR0's sysfs file
};

// A field of 1, 2 or 4 bytes as a number, for the register trace.
static inline uint32_t field_value(const void* value, size_t len) {
	uint32_t number = 0;
	memcpy(&number, value, len < sizeof(number) ? len : sizeof(number));
	return number;
}

static int io_read(struct virtio_transport* t, uint32_t offset, void* value, size_t len) {
	ssize_t got = io_pread(((struct legacy_transport*)t)->io_fd, value, len, offset);
	if (got != (ssize_t)len) {
		ixy_error("%s: reading %zu byte(s) at IO offset 0x%02x failed: %s", t->pci->addr, len, offset,
			  got < 0 ? strerror(errno) : "short read");
		return -1;
	}
	IXY_TRACE_FIELD(t, offset, field_value(value, len), false);
	return 0;
}

static int io_write(struct virtio_transport* t, uint32_t offset, const void* value, size_t len) {
	ssize_t put = io_pwrite(((struct legacy_transport*)t)->io_fd, value, len, offset);
	if (put != (ssize_t)len) {
		ixy_error("%s: writing %zu byte(s) at IO offset 0x%02x failed: %s", t->pci->addr, len, offset,
			  put < 0 ? strerror(errno) : "short write");
		return -1;
	}
	IXY_TRACE_FIELD(t, offset, field_value(value, len), true);
	return 0;
}

static int get_status(struct virtio_transport* t, uint8_t* status) {
	return io_read(t, REG_STATUS, status, 1);
}

static int set_status(struct virtio_transport* t, uint8_t status) {
	return io_write(t, REG_STATUS, &status, 1);
}

static int get_features(struct virtio_transport* t, uint64_t* offered) {
	uint32_t low = 0;
	int rc = io_read(t, REG_HOST_FEATURES, &low, sizeof(low));
	*offered = low;
	return rc;
}

static int set_features(struct virtio_transport* t, uint64_t accepted) {
	uint32_t low = (uint32_t)accepted; // the driver only accepts what was offered: bits 0-31
	return io_write(t, REG_GUEST_FEATURES, &low, sizeof(low));
}

// 4.1.5.1.3 (legacy): the queue size is the device's; the driver cannot choose it.
static int queue_size(struct virtio_transport* t, uint16_t index, uint16_t wanted, uint16_t* size) {
	(void)wanted;
	if (io_write(t, REG_QUEUE_SELECT, &index, sizeof(index)) != 0) {
		return -1;
	}
	return io_read(t, REG_QUEUE_SIZE, size, sizeof(*size));
}

// 4.1.5.1.3 (legacy): the queue's page frame number; the device finds the rings by the fixed layout (2.4.2).
static int enable_queue(struct virtio_transport* t, uint16_t index, uint16_t size, uint64_t desc, uint64_t avail,
			uint64_t used) {
	(void)size;
	(void)avail;
	(void)used;
	if (desc % VIRTIO_LEGACY_QUEUE_ALIGN != 0 || (desc >> VIRTIO_LEGACY_PFN_SHIFT) > UINT32_MAX) {
		ixy_error(
		    "%s: ring memory at 0x%llx is not a page the legacy interface can address (32 bit page number)",
		    t->pci->addr, (unsigned long long)desc);
		return -1;
	}
	uint32_t pfn = (uint32_t)(desc >> VIRTIO_LEGACY_PFN_SHIFT);
	if (io_write(t, REG_QUEUE_SELECT, &index, sizeof(index)) != 0) {
		return -1;
	}
	return io_write(t, REG_QUEUE_PFN, &pfn, sizeof(pfn));
}

static void notify(struct virtio_transport* t, uint16_t index) {
	io_write(t, REG_QUEUE_NOTIFY, &index, sizeof(index)); // prints on failure
}

// A field of 1, 2 or 4 bytes is read with one access of its size (sysfs passes it on as one IO access); others
// (the 6 byte MAC address) byte by byte. Legacy devices have no generation counter: read until two reads agree
// (2.3.4), in case the device changes the field meanwhile.
static int read_config(struct virtio_transport* t, uint32_t offset, void* buf, size_t len) {
	uint8_t first[8], second[8];
	size_t access = (len == 1 || len == 2 || len == 4) ? len : 1;
	if (len > sizeof(first)) {
		ixy_error("%s: a device configuration field of %zu bytes is larger than any ixy reads", t->pci->addr,
			  len);
		return -1;
	}
	for (int tries = 0; tries < CONFIG_READ_TRIES; tries++) {
		for (size_t i = 0; i < len; i += access) {
			if (io_read(t, REG_DEVICE_CONFIG + offset + (uint32_t)i, &second[i], access) != 0) {
				return -1;
			}
		}
		if (tries > 0 && memcmp(first, second, len) == 0) {
			memcpy(buf, second, len);
			return 0;
		}
		memcpy(first, second, len);
	}
	ixy_error("%s: the device configuration at %u keeps changing", t->pci->addr, offset);
	return -1;
}

static int write_config(struct virtio_transport* t, uint32_t offset, const void* buf, size_t len) {
	for (size_t i = 0; i < len; i++) {
		if (io_write(t, REG_DEVICE_CONFIG + offset + (uint32_t)i, (const uint8_t*)buf + i, 1) != 0) {
			return -1;
		}
	}
	return 0;
}

static void close_transport(struct virtio_transport* t) {
	if (io_close(((struct legacy_transport*)t)->io_fd) != 0) {
		ixy_warn("%s: closing the IO BAR failed: %s", t->pci->addr, strerror(errno));
	}
	free(t);
}

static const struct virtio_transport_ops legacy_ops = {
    .name = "legacy",
    .get_status = get_status,
    .set_status = set_status,
    .get_features = get_features,
    .set_features = set_features,
    .queue_size = queue_size,
    .enable_queue = enable_queue,
    .set_queue_vector = NULL,
    .notify = notify,
    .read_config = read_config,
    .write_config = write_config,
    .close = close_transport,
};

// The legacy interface is only used through sysfs (virtio.c refuses it behind an IOMMU): BAR0's resource file.
struct virtio_transport* virtio_legacy_open(struct pci_device* pci) {
	struct legacy_transport* t = calloc(1, sizeof(*t));
	if (!t) {
		ixy_error("%s: out of memory", pci->addr);
		return NULL;
	}
	t->transport = (struct virtio_transport){.ops = &legacy_ops, .pci = pci};
	// An IO-port BAR cannot be mapped; its sysfs resource file is read and written with pread/pwrite instead.
	t->io_fd = io_bar_open(pci->addr);
	if (t->io_fd < 0) {
		ixy_error("PCI device %s: cannot open /sys/bus/pci/devices/%s/resource0: %s", pci->addr, pci->addr,
			  strerror(errno));
		free(t);
		return NULL;
	}
	// The register trace (IXY_TRACE=1, src/trace.h) knows the register block by this transport's address.
	ixy_trace_bar(pci->addr, &virtio_legacy_reg_names, (const uint8_t*)t, REG_DEVICE_CONFIG + 8);
	return &t->transport;
}
