// The modern VirtIO PCI transport (VirtIO 1.0, 4.1.4): vendor-specific capabilities in the PCI configuration space
// say in which memory BAR, and where in it, the device keeps its structures (4.1.4.1):
//   common configuration (4.1.4.3): status, features, and the queue registers of the selected queue
//   notifications (4.1.4.4): one 16 bit address per queue; writing the queue's index there notifies the device
//   device configuration (4.1.4.6): for a NIC its MAC address, link status and speed (5.1.4)
// (the ISR status, 4.1.4.5, only matters with interrupts, which ixy does not use). Every register is a plain load or
// store in the mapped BAR: a notification costs no system call. See virtio_transport.h.
// Read it after virtio.c: start at virtio_modern_open() at the bottom, then modern_ops and the functions it names.
#include <errno.h>
#include <linux/pci_regs.h> // PCI_STATUS, PCI_CAPABILITY_LIST, PCI_CAP_ID_VNDR (PCI Local Bus 3.0, 6.7)
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <ixy/ixy.h> // IXY_MAX_QUEUES

#include "../log.h"
#include "../trace.h"
#include "virtio_regs.h"
#include "virtio_transport.h"

// 4.1.4 struct virtio_pci_cap: after the generic capability header (ID, next pointer, length) its type, the BAR,
// and the structure's offset and length in that BAR. The notification capability adds notify_off_multiplier.
#define CAP_LEN 2
#define CAP_CFG_TYPE 3
#define CAP_BAR 4
#define CAP_OFFSET 8
#define CAP_LENGTH 12
#define CAP_NOTIFY_OFF_MULTIPLIER 16
#define CAP_TYPE_COMMON 1
#define CAP_TYPE_NOTIFY 2
#define CAP_TYPE_DEVICE 4
#define CAP_MIN_LENGTH 16        // struct virtio_pci_cap
#define NOTIFY_CAP_MIN_LENGTH 20 // struct virtio_pci_notify_cap
#define MAX_CAPABILITIES 48      // a capability is at least 4 bytes of the 192 after the header: ends a looping list
#define NUM_BARS 6               // BARs 0 to 5 (PCI 3.0, 6.2.5.1); a capability naming another is ignored (4.1.4.1)

#define COMMON_CFG_MIN_LENGTH 0x38
// RX and TX queues 0 .. MAX_QUEUES - 1 (IXY_MAX_QUEUES pairs, 5.1.2), and one queue beyond: the control queue, which
// comes after the device's last pair (2 * max_virtqueue_pairs, up to 0xfffe).
#define MAX_QUEUES (2 * IXY_MAX_QUEUES)
// How often read_config retries while the device changes its configuration.
#define CONFIG_READ_TRIES 10

struct modern_transport {
	struct virtio_transport transport;
	uint8_t* bars[NUM_BARS]; // the BARs the structures lie in, each mapped once (map_structure)
	size_t bar_sizes[NUM_BARS];
	volatile uint8_t* common;        // struct virtio_pci_common_cfg
	volatile uint8_t* device_config; // the network device's configuration (5.1.4)
	size_t device_config_len;
	volatile uint8_t* notify_base; // the notification structure
	size_t notify_len;
	uint32_t notify_off_multiplier;
	volatile uint16_t* queue_notify[MAX_QUEUES + 1]; // each enabled queue's notification address, see slot()
	uint16_t beyond;                                 // the index of the one queue at or beyond MAX_QUEUES
	bool has_beyond;
};

// The queue's place in queue_notify: its index, or MAX_QUEUES for the one queue beyond.
static inline uint32_t slot(uint16_t index) {
	return index < MAX_QUEUES ? index : MAX_QUEUES;
}

// Registers are little endian (4.1.3), like x86: plain volatile loads and stores of the field's width (4.1.3.1).
// Each access is also one line of the register trace in builds with it (IXY_TRACE_FIELD, src/trace.h). Test builds
// (IXY_SEAM) hand every access to the device model instead (test/seam/seam_io.h), which decodes the registers.
#ifdef IXY_SEAM
#include "seam_io.h"
#define LOAD(type, address) ((type)ixy_seam_mmio_read((address), sizeof(type)))
#define STORE(type, address, value) ixy_seam_mmio_write((address), sizeof(type), (value))
#else
#define LOAD(type, address) (*(volatile type*)(address))
#define STORE(type, address, value) (*(volatile type*)(address) = (value))
#endif
static uint8_t read8(volatile uint8_t* base, uint32_t offset) {
	uint8_t value = LOAD(uint8_t, base + offset);
	IXY_TRACE_FIELD(base, offset, value, false);
	return value;
}
static uint16_t read16(volatile uint8_t* base, uint32_t offset) {
	uint16_t value = LOAD(uint16_t, base + offset);
	IXY_TRACE_FIELD(base, offset, value, false);
	return value;
}
static uint32_t read32(volatile uint8_t* base, uint32_t offset) {
	uint32_t value = LOAD(uint32_t, base + offset);
	IXY_TRACE_FIELD(base, offset, value, false);
	return value;
}
static void write8(volatile uint8_t* base, uint32_t offset, uint8_t value) {
	IXY_TRACE_FIELD(base, offset, value, true);
	STORE(uint8_t, base + offset, value);
}
static void write16(volatile uint8_t* base, uint32_t offset, uint16_t value) {
	IXY_TRACE_FIELD(base, offset, value, true);
	STORE(uint16_t, base + offset, value);
}
static void write32(volatile uint8_t* base, uint32_t offset, uint32_t value) {
	IXY_TRACE_FIELD(base, offset, value, true);
	STORE(uint32_t, base + offset, value);
}
// 64 bit fields as two 32 bit halves, low first, which the driver may do (4.1.3.1).
static void write64(volatile uint8_t* base, uint32_t offset, uint64_t value) {
	write32(base, offset, (uint32_t)value);
	write32(base, offset + 4, (uint32_t)(value >> 32));
}

static struct modern_transport* modern(struct virtio_transport* t) {
	return (struct modern_transport*)t;
}

static int get_status(struct virtio_transport* t, uint8_t* status) {
	*status = read8(modern(t)->common, COMMON_DEVICE_STATUS);
	return 0;
}

static int set_status(struct virtio_transport* t, uint8_t status) {
	write8(modern(t)->common, COMMON_DEVICE_STATUS, status);
	return 0;
}

static int get_features(struct virtio_transport* t, uint64_t* offered) {
	volatile uint8_t* common = modern(t)->common;
	write32(common, COMMON_DEVICE_FEATURE_SELECT, 0);
	uint64_t low = read32(common, COMMON_DEVICE_FEATURE);
	write32(common, COMMON_DEVICE_FEATURE_SELECT, 1);
	*offered = low | (uint64_t)read32(common, COMMON_DEVICE_FEATURE) << 32;
	return 0;
}

// 3.1.1 steps 4 to 6: write the accepted features, set FEATURES_OK, and read the status again: a device that does
// not support this combination of features clears FEATURES_OK.
static int set_features(struct virtio_transport* t, uint64_t accepted) {
	volatile uint8_t* common = modern(t)->common;
	write32(common, COMMON_DRIVER_FEATURE_SELECT, 0);
	write32(common, COMMON_DRIVER_FEATURE, (uint32_t)accepted);
	write32(common, COMMON_DRIVER_FEATURE_SELECT, 1);
	write32(common, COMMON_DRIVER_FEATURE, (uint32_t)(accepted >> 32));
	uint8_t status = read8(common, COMMON_DEVICE_STATUS);
	write8(common, COMMON_DEVICE_STATUS, status | VIRTIO_STATUS_FEATURES_OK);
	status = read8(common, COMMON_DEVICE_STATUS);
	if (!(status & VIRTIO_STATUS_FEATURES_OK)) {
		ixy_error("%s: the device does not accept the features 0x%llx (FEATURES_OK cleared, status 0x%02x)",
			  t->pci->addr, (unsigned long long)accepted, status);
		return -1;
	}
	return 0;
}

// 4.1.5.1.3: select the queue and read its size, the device's maximum. The driver may write a smaller power of two
// (4.1.4.3.2); the caller passes one.
static int queue_size(struct virtio_transport* t, uint16_t index, uint16_t wanted, uint16_t* size) {
	volatile uint8_t* common = modern(t)->common;
	write16(common, COMMON_QUEUE_SELECT, index);
	*size = read16(common, COMMON_QUEUE_SIZE);
	if (*size != 0 && wanted != 0 && wanted < *size) {
		write16(common, COMMON_QUEUE_SIZE, wanted);
		*size = read16(common, COMMON_QUEUE_SIZE);
	}
	return 0;
}

// 4.1.5.1.3: the three addresses, then queue_enable. The queue's notification address is
// notify base + queue_notify_off * notify_off_multiplier (4.1.4.4), and must lie inside the notification structure.
static int enable_queue(struct virtio_transport* t, uint16_t index, uint16_t size, uint64_t desc, uint64_t avail,
			uint64_t used) {
	struct modern_transport* m = modern(t);
	write16(m->common, COMMON_QUEUE_SELECT, index);
	if ((index >= MAX_QUEUES && m->has_beyond && m->beyond != index) ||
	    read16(m->common, COMMON_QUEUE_SIZE) != size) {
		ixy_error("%s: virtqueue %u cannot be set up with %u descriptors", t->pci->addr, index, size);
		return -1;
	}
	uint64_t notify_at = (uint64_t)read16(m->common, COMMON_QUEUE_NOTIFY_OFF) * m->notify_off_multiplier;
	if (notify_at + sizeof(uint16_t) > m->notify_len) {
		ixy_error("%s: the notification address of virtqueue %u lies outside the notification structure",
			  t->pci->addr, index);
		return -1;
	}
	m->queue_notify[slot(index)] = (volatile uint16_t*)(m->notify_base + notify_at);
	if (index >= MAX_QUEUES) {
		m->beyond = index;
		m->has_beyond = true;
	}
	write64(m->common, COMMON_QUEUE_DESC, desc);
	write64(m->common, COMMON_QUEUE_AVAIL, avail);
	write64(m->common, COMMON_QUEUE_USED, used);
	write16(m->common, COMMON_QUEUE_ENABLE, 1);
	return 0;
}

// 4.1.5.1.3: write the vector, then read it back: the device returns VIRTIO_MSI_NO_VECTOR (0xffff) if it cannot map
// the queue to it (4.1.4.3.1, 4.1.5.1.2).
static int set_queue_vector(struct virtio_transport* t, uint16_t index, uint16_t vector) {
	volatile uint8_t* common = modern(t)->common;
	write16(common, COMMON_QUEUE_SELECT, index);
	write16(common, COMMON_QUEUE_MSIX_VECTOR, vector);
	if (read16(common, COMMON_QUEUE_MSIX_VECTOR) != vector) {
		ixy_error("%s: the device does not map virtqueue %u to MSI-X vector %u", t->pci->addr, index, vector);
		return -1;
	}
	return 0;
}

// 4.1.5.2: the queue's index, written to its notification address. One store, no system call.
static void notify(struct virtio_transport* t, uint16_t index) {
	struct modern_transport* m = modern(t);
	volatile uint16_t* at = m->queue_notify[slot(index)];
	IXY_TRACE_FIELD(m->notify_base, (volatile uint8_t*)at - m->notify_base, index, true);
	STORE(uint16_t, (volatile uint8_t*)at, index);
}

// 4.1.4.3.1: read config_generation before and after; if it changed, the device changed its configuration while we
// read, and we read again. Fields of 2 and 4 bytes are read with one access of their width, others byte by byte.
static int read_config(struct virtio_transport* t, uint32_t offset, void* buf, size_t len) {
	struct modern_transport* m = modern(t);
	if (offset + len > m->device_config_len) {
		ixy_error("%s: device configuration bytes %u..%zu requested, the device has %zu", t->pci->addr, offset,
			  offset + len - 1, m->device_config_len);
		return -1;
	}
	for (int tries = 0; tries < CONFIG_READ_TRIES; tries++) {
		uint8_t generation = read8(m->common, COMMON_CONFIG_GENERATION);
		if (len == 2 && offset % 2 == 0) {
			uint16_t value = read16(m->device_config, offset);
			memcpy(buf, &value, 2);
		} else if (len == 4 && offset % 4 == 0) {
			uint32_t value = read32(m->device_config, offset);
			memcpy(buf, &value, 4);
		} else {
			for (size_t i = 0; i < len; i++) {
				((uint8_t*)buf)[i] = read8(m->device_config, offset + (uint32_t)i);
			}
		}
		if (read8(m->common, COMMON_CONFIG_GENERATION) == generation) {
			return 0;
		}
	}
	ixy_error("%s: the device configuration keeps changing (config_generation)", t->pci->addr);
	return -1;
}

static int write_config(struct virtio_transport* t, uint32_t offset, const void* buf, size_t len) {
	(void)offset;
	(void)buf;
	(void)len;
	ixy_error("%s: the modern interface does not let the driver write the device configuration (5.1.4)",
		  t->pci->addr);
	return -1;
}

static void close_transport(struct virtio_transport* t) {
	struct modern_transport* m = modern(t);
	for (int bar = 0; bar < NUM_BARS; bar++) {
		if (m->bars[bar] && munmap(m->bars[bar], m->bar_sizes[bar]) != 0) {
			ixy_warn("%s: unmapping BAR %d failed: %s", t->pci->addr, bar, strerror(errno));
		}
	}
	free(m);
}

static const struct virtio_transport_ops modern_ops = {
    .name = "modern",
    .get_status = get_status,
    .set_status = set_status,
    .get_features = get_features,
    .set_features = set_features,
    .queue_size = queue_size,
    .enable_queue = enable_queue,
    .set_queue_vector = set_queue_vector,
    .notify = notify,
    .read_config = read_config,
    .write_config = write_config,
    .close = close_transport,
};

// One VirtIO structure as a capability describes it (4.1.4): found if length > 0.
struct structure_location {
	uint8_t bar;
	uint32_t offset;
	uint32_t length;
	uint32_t notify_off_multiplier; // notification capability only
};

static uint32_t le32_at(const uint8_t* bytes) {
	return (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
}

// BAR `bar` (< NUM_BARS) of the device, mapped once (close_transport unmaps it); NULL if it cannot be mapped (the
// access's map_bar says why).
static uint8_t* transport_bar(struct modern_transport* m, unsigned bar) {
	if (!m->bars[bar]) {
		m->bars[bar] = m->transport.pci->access->map_bar(m->transport.pci, bar, &m->bar_sizes[bar]);
	}
	return m->bars[bar];
}

// Walks the capability list of the configuration space (PCI 3.0, 6.7) for the first VirtIO capability of one type
// that the driver can use (4.1.4.1: the first it can support; a later one of the same type will do if an earlier one
// cannot be used). All of it is device input: every pointer has its lowest two bits masked (reserved, PCI 3.0 6.7),
// so that a capability header always lies inside the 256 bytes read; a capability counts only if it is whole
// (cap_len covers its structure, 4.1.4, and ends inside the configuration space), describes a structure of some
// length, and names a BAR that exists (0 to 5; the driver ignores others, 4.1.4.1) and can be mapped
// (transport_bar); MAX_CAPABILITIES ends a list that loops.
static void find_structure(struct modern_transport* m, const uint8_t config[256], unsigned type,
			   struct structure_location* found) {
	uint16_t status = (uint16_t)(config[PCI_STATUS] | config[PCI_STATUS + 1] << 8);
	unsigned at = (status & PCI_STATUS_CAP_LIST) ? config[PCI_CAPABILITY_LIST] & ~3u : 0;
	unsigned needed = type == CAP_TYPE_NOTIFY ? NOTIFY_CAP_MIN_LENGTH : CAP_MIN_LENGTH;
	for (int n = 0; at >= 0x40 && n < MAX_CAPABILITIES; n++) {
		// The header's 4 bytes lie inside the 256 (at <= 252); the rest is read once cap_len says it is there.
		unsigned cap_len = config[at + CAP_LEN];
		if (config[at] == PCI_CAP_ID_VNDR && config[at + CAP_CFG_TYPE] == type && cap_len >= needed &&
		    at + cap_len <= 256 && le32_at(&config[at + CAP_LENGTH]) != 0 && config[at + CAP_BAR] < NUM_BARS &&
		    transport_bar(m, config[at + CAP_BAR]) != NULL) {
			*found = (struct structure_location){
			    .bar = config[at + CAP_BAR],
			    .offset = le32_at(&config[at + CAP_OFFSET]),
			    .length = le32_at(&config[at + CAP_LENGTH]),
			    .notify_off_multiplier =
				type == CAP_TYPE_NOTIFY ? le32_at(&config[at + CAP_NOTIFY_OFF_MULTIPLIER]) : 0,
			};
			return;
		}
		at = config[at + 1] & ~3u; // the next pointer
	}
}

// The structures the driver uses, each from the first capability of its type it can use (find_structure). The
// common configuration first: without it there is no modern interface, and the walk maps no other BAR.
static int find_structures(struct modern_transport* m, struct structure_location found[CAP_TYPE_DEVICE + 1]) {
	struct pci_device* pci = m->transport.pci;
	uint8_t config[256];
	if (pci->access->config(pci, config, sizeof(config), 0, false) != 0) {
		return -1;
	}
	find_structure(m, config, CAP_TYPE_COMMON, &found[CAP_TYPE_COMMON]);
	if (found[CAP_TYPE_COMMON].length != 0) {
		find_structure(m, config, CAP_TYPE_NOTIFY, &found[CAP_TYPE_NOTIFY]);
		find_structure(m, config, CAP_TYPE_DEVICE, &found[CAP_TYPE_DEVICE]);
	}
	return 0;
}

// Maps the BAR a structure lives in (once per BAR) and returns the structure's address, or NULL with a message. The
// structure must lie inside the BAR and start at a multiple of `align`, so that its fields can be read with accesses
// of their width (4.1.3.1; 4.1.4.4: notifications 2 byte aligned; 4.1.4.6: device configuration 4 byte aligned).
static volatile uint8_t* map_structure(struct modern_transport* m, const struct structure_location* where,
				       uint32_t align, const char* name) {
	struct pci_device* pci = m->transport.pci;
	uint8_t* bar = transport_bar(m, where->bar); // where->bar < NUM_BARS (find_structures)
	size_t bar_size = m->bar_sizes[where->bar];
	if (bar && ((uint64_t)where->offset + where->length > bar_size || where->offset % align != 0)) {
		ixy_error("%s: the VirtIO %s structure (%u bytes at 0x%x) does not fit BAR %u (%zu bytes) or is not "
			  "%u byte aligned",
			  pci->addr, name, where->length, where->offset, where->bar, bar_size, align);
		return NULL;
	}
	return bar ? bar + where->offset : NULL;
}

int virtio_modern_open(struct pci_device* pci, struct virtio_transport** transport) {
	const char* pci_addr = pci->addr;
	*transport = NULL;
	struct modern_transport* m = calloc(1, sizeof(*m));
	if (!m) {
		ixy_error("%s: out of memory", pci_addr);
		return -1;
	}
	m->transport =
	    (struct virtio_transport){.ops = &modern_ops, .pci = pci, .required_features = VIRTIO_F_VERSION_1};
	struct structure_location found[CAP_TYPE_DEVICE + 1] = {{0}};
	const struct structure_location* common = &found[CAP_TYPE_COMMON];
	int rc = find_structures(m, found);
	if (rc != 0 || common->length == 0) {
		close_transport(&m->transport);
		return rc; // 0 without a common configuration: no modern interface (and no BAR was mapped)
	}
	// 4.1.4.4: notify_off_multiplier is 0 or an even power of two; an odd one would misalign the notifications.
	if (common->length < COMMON_CFG_MIN_LENGTH || found[CAP_TYPE_NOTIFY].length == 0 ||
	    found[CAP_TYPE_DEVICE].length == 0 || found[CAP_TYPE_NOTIFY].notify_off_multiplier % 2 != 0) {
		ixy_error("%s: the device's VirtIO capabilities lack the notification or device configuration "
			  "structure, its common configuration is too short, or notify_off_multiplier is odd",
			  pci_addr);
		close_transport(&m->transport);
		return -1;
	}
	m->common = map_structure(m, common, 4, "common configuration");
	m->notify_base = m->common ? map_structure(m, &found[CAP_TYPE_NOTIFY], 2, "notification") : NULL;
	m->device_config = m->notify_base ? map_structure(m, &found[CAP_TYPE_DEVICE], 4, "device configuration") : NULL;
	if (!m->device_config) {
		close_transport(&m->transport);
		return -1;
	}
	m->notify_len = found[CAP_TYPE_NOTIFY].length;
	m->notify_off_multiplier = found[CAP_TYPE_NOTIFY].notify_off_multiplier;
	m->device_config_len = found[CAP_TYPE_DEVICE].length;
	// The register trace (IXY_TRACE=1, src/trace.h): the three structures, each with its own names.
	ixy_trace_bar(pci_addr, &virtio_common_reg_names, (const uint8_t*)m->common, common->length);
	ixy_trace_bar(pci_addr, &virtio_notify_reg_names, (const uint8_t*)m->notify_base, m->notify_len);
	ixy_trace_bar(pci_addr, &virtio_net_config_reg_names, (const uint8_t*)m->device_config, m->device_config_len);
	*transport = &m->transport;
	return 0;
}
