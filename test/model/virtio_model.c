// The VirtIO network device model (virtio_model.h), and the two VirtIO transports of test builds: virtio.c opens
// them through virtio_modern_open() and virtio_legacy_open() like the real ones in src/driver, and every operation
// acts on the model. Section numbers refer to the VirtIO 1.0 specification (OASIS).
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "driver/virtio_spec.h"
#include "driver/virtio_transport.h"
#include "log.h"
#include "seam.h"
#include "virtio_model.h"

// Queue sizes the model accepts: a power of two up to this (2.4: at most 32768; one huge page of ring is ixy's
// limit anyway).
#define MAX_QUEUE_SIZE 4096
#define DEFAULT_QUEUE_MAX 256
// The network device's configuration (5.1.4): mac[6], status u16, max_virtqueue_pairs u16, mtu u16, speed u32 (at
// 12), duplex u8 (at 16).
#define CONFIG_LEN 17
#define CONFIG_STATUS 6
#define CONFIG_SPEED 12
#define CONFIG_DUPLEX 16
#define LARGEST_RX_WRITE (65535 + VIRTIO_NET_HDR_LEN_V1)
// A control command: class, command and at most this much data (5.1.6.5).
#define MAX_CTRL_COMMAND 64

struct model_queue {
	uint16_t size; // chosen by the driver (modern) or fixed (legacy); 0: not chosen yet
	bool ready;    // enable_queue done since the last reset
	uint64_t desc, avail, used;
	uint16_t next_avail; // the next available ring entry the device takes
	uint16_t used_idx;   // the device's used index
	bool held[MAX_QUEUE_SIZE];
	uint32_t notifications;
};

// One descriptor of a chain, as the device reads it.
struct segment {
	uint64_t addr;
	uint32_t len;
	bool device_writes;
};

struct tx_frame {
	uint8_t* data;
	uint32_t len;
};

struct model_transport {
	struct virtio_transport transport; // first member: virtio.c's pointer is ours
	struct model_virtio* nic;
	bool legacy;
};

struct model_virtio {
	char addr[16];
	enum model_virtio_kind kind;
	struct model_pci_device* pci;
	// knobs
	uint64_t offered;
	uint16_t queue_max;
	bool refuse_features;
	bool suppress_notify;
	bool tx_on_notify;
	enum model_virtio_ctrl_answer ctrl_answer;
	uint8_t config[CONFIG_LEN];
	// state
	struct model_transport* transport; // the open transport, or NULL
	uint8_t status;
	bool reset_since_open;
	bool features_read;
	bool features_written;
	uint64_t driver_features;
	struct model_queue queues[MODEL_VIRTIO_QUEUES];
	bool promisc;
	bool misbehaved;
	struct segment segments[MAX_QUEUE_SIZE];
	uint8_t rx_write[LARGEST_RX_WRITE];
	// frames sent
	struct tx_frame* tx;
	uint32_t tx_count, tx_capacity;
};

static const struct model_pci_ops virtio_pci_ops;

// ---- memory shared with the driver (device address == virtual address in test builds) ----

static bool ranges_overlap(uint64_t a, uint64_t a_len, uint64_t b, uint64_t b_len) {
	return a < b + b_len && b < a + a_len;
}

static uint64_t avail_bytes(uint16_t size) {
	return 6 + 2u * size; // flags, idx, ring[size], used_event
}

static uint64_t used_bytes(uint16_t size) {
	return 6 + 8u * size; // flags, idx, ring[size], avail_event
}

static volatile struct vring_avail* avail_ring(const struct model_queue* q) {
	return (volatile struct vring_avail*)seam_dma_virt(q->avail);
}

static volatile struct vring_used* used_ring(const struct model_queue* q) {
	return (volatile struct vring_used*)seam_dma_virt(q->used);
}

static volatile struct vring_desc* descriptor(const struct model_queue* q, uint16_t index) {
	return &((volatile struct vring_desc*)seam_dma_virt(q->desc))[index];
}

// The queue the test or driver names, or a usage error.
static struct model_queue* queue_of(struct model_virtio* nic, uint16_t queue) {
	if (queue >= MODEL_VIRTIO_QUEUES) {
		model_usage_error("virtqueue %u: the model has %u", queue, MODEL_VIRTIO_QUEUES);
	}
	return &nic->queues[queue];
}

// The device may use its queues: DRIVER_OK (3.1.1) and no reset since; its DMA needs bus mastering.
static bool queue_live(struct model_virtio* nic, const struct model_queue* q) {
	if (!q->ready || !(nic->status & VIRTIO_STATUS_DRIVER_OK)) {
		return false;
	}
	if (!model_pci_bus_master(nic->pci)) {
		model_violation(nic->addr, "DRIVER_OK, but bus mastering is off: the device cannot reach its queues");
		return false;
	}
	return true;
}

// Reads the chain at head into nic->segments. Returns the number of descriptors, or -1 (with a violation) if the
// chain is broken: a descriptor index beyond the queue, a loop, a buffer outside live DMA memory (2.4.5).
static int read_chain(struct model_virtio* nic, struct model_queue* q, uint16_t head) {
	uint16_t index = head;
	for (int n = 0; n < q->size; n++) {
		if (index >= q->size) {
			model_violation(nic->addr, "chain at %u: descriptor %u, the queue has %u", head, index,
					q->size);
			return -1;
		}
		volatile struct vring_desc* d = descriptor(q, index);
		struct segment s = {d->addr, d->len, d->flags & VRING_DESC_F_WRITE};
		if (!model_dma_ok((uintptr_t)s.addr, s.len)) {
			model_violation(nic->addr,
					"chain at %u: descriptor %u points at 0x%llx (%u bytes), not DMA memory", head,
					index, (unsigned long long)s.addr, s.len);
			return -1;
		}
		nic->segments[n] = s;
		if (!(d->flags & VRING_DESC_F_NEXT)) {
			return n + 1;
		}
		index = d->next;
	}
	model_violation(nic->addr, "chain at %u is longer than the queue (%u descriptors): a loop", head, q->size);
	return -1;
}

// ---- the device status (2.1) and the initialisation order (3.1.1; legacy 3.1.2) ----

static void reset(struct model_virtio* nic) {
	nic->status = 0;
	nic->reset_since_open = true;
	nic->features_read = nic->features_written = false;
	nic->driver_features = 0;
	nic->promisc = false;
	memset(nic->queues, 0, sizeof(nic->queues)); // the device forgets the queues and stops all DMA (2.1.2)
}

static bool is_legacy(const struct model_virtio* nic) {
	return nic->transport && nic->transport->legacy;
}

// Checks that the bits newly set come in the order of 3.1.1, each after the ones before it.
static void check_status_step(struct model_virtio* nic, uint8_t old, uint8_t added) {
	const char* addr = nic->addr;
	if ((added & VIRTIO_STATUS_ACKNOWLEDGE) && !nic->reset_since_open) {
		model_violation(addr, "ACKNOWLEDGE before the device was reset (3.1.1 step 1)");
	}
	if ((added & VIRTIO_STATUS_DRIVER) && !(old & VIRTIO_STATUS_ACKNOWLEDGE)) {
		model_violation(addr, "DRIVER set without ACKNOWLEDGE set before (3.1.1 steps 2, 3)");
	}
	if (added & VIRTIO_STATUS_FEATURES_OK) {
		if (is_legacy(nic)) {
			model_violation(addr,
					"FEATURES_OK through the legacy interface, which has no such bit (3.1.2)");
		} else if (!(old & VIRTIO_STATUS_DRIVER) || !nic->features_written) {
			model_violation(addr, "FEATURES_OK before DRIVER and the driver's features (3.1.1 steps 4, 5)");
		}
	}
	if (added & VIRTIO_STATUS_DRIVER_OK) {
		bool features_done = is_legacy(nic) ? nic->features_written : (old & VIRTIO_STATUS_FEATURES_OK) != 0;
		if (!(old & VIRTIO_STATUS_DRIVER) || !features_done) {
			model_violation(addr, "DRIVER_OK before the features were negotiated (3.1.1 step 8)");
		}
		if (!nic->queues[MODEL_VIRTIO_RX].ready || !nic->queues[MODEL_VIRTIO_TX].ready) {
			model_violation(addr,
					"DRIVER_OK before the RX and TX queues were set up (3.1.1 step 7, 5.1.5)");
		}
	}
	if (added & VIRTIO_STATUS_NEEDS_RESET) {
		model_violation(addr, "the driver set DEVICE_NEEDS_RESET, which only the device sets (2.1.1)");
	}
}

static int set_status(struct virtio_transport* t, uint8_t status) {
	struct model_virtio* nic = ((struct model_transport*)t)->nic;
	if (status == 0) {
		reset(nic);
		return 0;
	}
	uint8_t old = nic->status;
	if (old & ~status) {
		model_violation(nic->addr, "status 0x%02x written over 0x%02x: bits cleared without a reset (2.1.1)",
				status, old);
	}
	check_status_step(nic, old, (uint8_t)(status & ~old));
	if ((status & ~old & VIRTIO_STATUS_FEATURES_OK) && nic->refuse_features) {
		status &= (uint8_t)~VIRTIO_STATUS_FEATURES_OK; // 3.1.1 step 6: the device does not take them
	}
	nic->status = status;
	return 0;
}

static int get_status(struct virtio_transport* t, uint8_t* status) {
	*status = ((struct model_transport*)t)->nic->status;
	return 0;
}

// The features the transport shows: 32 bits through the legacy interface (4.1.4.8).
static uint64_t visible_features(const struct model_virtio* nic) {
	return is_legacy(nic) ? nic->offered & 0xffffffffu : nic->offered;
}

static int get_features(struct virtio_transport* t, uint64_t* offered) {
	struct model_virtio* nic = ((struct model_transport*)t)->nic;
	if (!(nic->status & VIRTIO_STATUS_DRIVER)) {
		model_violation(nic->addr, "features read before DRIVER was set (3.1.1 step 4)");
	}
	nic->features_read = true;
	*offered = visible_features(nic);
	return 0;
}

// The driver's features, then (modern) FEATURES_OK and the check that the device kept it, as
// src/driver/virtio_modern.c does it (3.1.1 steps 4 to 6).
static int set_features(struct virtio_transport* t, uint64_t accepted) {
	struct model_transport* mt = (struct model_transport*)t;
	struct model_virtio* nic = mt->nic;
	if (!(nic->status & VIRTIO_STATUS_DRIVER) || !nic->features_read ||
	    (nic->status & (VIRTIO_STATUS_FEATURES_OK | VIRTIO_STATUS_DRIVER_OK))) {
		model_violation(nic->addr, "features written in status 0x%02x, %s (3.1.1 steps 4, 5)", nic->status,
				nic->features_read ? "after they were read" : "without reading the device's first");
	}
	if (accepted & ~visible_features(nic)) {
		model_violation(nic->addr, "the driver accepted features 0x%llx that the device does not offer (2.2.1)",
				(unsigned long long)(accepted & ~visible_features(nic)));
	}
	if (!mt->legacy && (nic->offered & VIRTIO_F_VERSION_1) && !(accepted & VIRTIO_F_VERSION_1)) {
		model_violation(nic->addr, "VIRTIO_F_VERSION_1 offered and not accepted through the modern interface "
					   "(6.1)");
	}
	nic->driver_features = accepted;
	nic->features_written = true;
	if (mt->legacy) {
		return 0;
	}
	set_status(t, nic->status | VIRTIO_STATUS_FEATURES_OK);
	if (!(nic->status & VIRTIO_STATUS_FEATURES_OK)) {
		ixy_error("%s: the device does not accept the features 0x%llx (FEATURES_OK cleared, status 0x%02x)",
			  t->pci->addr, (unsigned long long)accepted, nic->status);
		return -1;
	}
	return 0;
}

// Queue setup is step 7 of 3.1.1: after the features (FEATURES_OK on the modern interface), before DRIVER_OK.
static void check_queue_setup_allowed(struct model_virtio* nic, uint16_t index) {
	bool features_done = is_legacy(nic) ? nic->features_written : (nic->status & VIRTIO_STATUS_FEATURES_OK) != 0;
	if (!features_done || (nic->status & VIRTIO_STATUS_DRIVER_OK)) {
		model_violation(nic->addr, "virtqueue %u set up in status 0x%02x (3.1.1 step 7)", index, nic->status);
	}
}

static bool queue_exists(const struct model_virtio* nic, uint16_t index) {
	return index < MODEL_VIRTIO_CTRL || (index == MODEL_VIRTIO_CTRL && (nic->offered & VIRTIO_NET_F_CTRL_VQ));
}

static int queue_size(struct virtio_transport* t, uint16_t index, uint16_t wanted, uint16_t* size) {
	struct model_transport* mt = (struct model_transport*)t;
	struct model_virtio* nic = mt->nic;
	check_queue_setup_allowed(nic, index);
	*size = 0;
	if (!queue_exists(nic, index)) {
		return 0;
	}
	struct model_queue* q = &nic->queues[index];
	q->size = nic->queue_max;
	// 4.1.4.3.2: the driver may write a smaller queue size, a power of two (2.4).
	if (!mt->legacy && wanted != 0 && wanted < nic->queue_max) {
		if ((wanted & (wanted - 1)) != 0) {
			model_violation(nic->addr, "virtqueue %u: size %u is not a power of two (2.4)", index, wanted);
		}
		q->size = wanted;
	}
	*size = q->size;
	return 0;
}

static int enable_queue(struct virtio_transport* t, uint16_t index, uint16_t size, uint64_t desc, uint64_t avail,
			uint64_t used) {
	struct model_transport* mt = (struct model_transport*)t;
	struct model_virtio* nic = mt->nic;
	const char* addr = nic->addr;
	check_queue_setup_allowed(nic, index);
	if (!queue_exists(nic, index) || nic->queues[index].size == 0 || size != nic->queues[index].size) {
		model_violation(addr, "virtqueue %u enabled with %u descriptors, its size is %u", index, size,
				queue_exists(nic, index) ? nic->queues[index].size : 0);
		return -1;
	}
	struct model_queue* q = &nic->queues[index];
	if (q->ready) {
		model_violation(addr, "virtqueue %u enabled twice without a reset", index);
	}
	// 2.4: alignment 16 (descriptor table), 2 (available ring), 4 (used ring); all in memory the device can reach.
	if (desc % 16 || avail % 2 || used % 4 || !model_dma_ok((uintptr_t)desc, 16u * size) ||
	    !model_dma_ok((uintptr_t)avail, avail_bytes(size)) || !model_dma_ok((uintptr_t)used, used_bytes(size))) {
		model_violation(addr, "virtqueue %u: rings at 0x%llx, 0x%llx, 0x%llx are misaligned or not DMA memory",
				index, (unsigned long long)desc, (unsigned long long)avail, (unsigned long long)used);
		return -1;
	}
	if (ranges_overlap(desc, 16u * size, avail, avail_bytes(size)) ||
	    ranges_overlap(desc, 16u * size, used, used_bytes(size)) ||
	    ranges_overlap(avail, avail_bytes(size), used, used_bytes(size))) {
		model_violation(addr, "virtqueue %u: its rings overlap", index);
	}
	// 2.4.2: the legacy interface takes one page number; the rings follow at fixed places.
	uint64_t legacy_used = (desc + 16u * size + avail_bytes(size) + 4095) / 4096 * 4096;
	if (mt->legacy && (desc % 4096 || avail != desc + 16u * size || used != legacy_used)) {
		model_violation(addr,
				"virtqueue %u: not the legacy layout of 2.4.2 (the device only gets the page of "
				"the descriptor table)",
				index);
	}
	*q = (struct model_queue){.size = size, .ready = true, .desc = desc, .avail = avail, .used = used};
	used_ring(q)->flags = nic->suppress_notify ? VRING_USED_F_NO_NOTIFY : 0;
	used_ring(q)->idx = 0;
	return 0;
}

static void answer_control_queue(struct model_virtio* nic);

static void notify(struct virtio_transport* t, uint16_t index) {
	struct model_virtio* nic = ((struct model_transport*)t)->nic;
	if (!(nic->status & VIRTIO_STATUS_DRIVER_OK)) {
		model_violation(nic->addr, "virtqueue %u notified before DRIVER_OK (3.1.1)", index);
		return;
	}
	if (index >= MODEL_VIRTIO_QUEUES || !nic->queues[index].ready) {
		model_violation(nic->addr, "virtqueue %u notified, it is not set up", index);
		return;
	}
	nic->queues[index].notifications++;
	if (index == MODEL_VIRTIO_CTRL) {
		answer_control_queue(nic);
	} else if (index == MODEL_VIRTIO_TX && nic->tx_on_notify) {
		model_virtio_tx_process(nic);
	}
}

// The network device's configuration (5.1.4), read as src/driver/virtio_modern.c and virtio_legacy.c do.
static int read_config(struct virtio_transport* t, uint32_t offset, void* buf, size_t len) {
	struct model_virtio* nic = ((struct model_transport*)t)->nic;
	if (offset > CONFIG_LEN || len > CONFIG_LEN - offset) {
		ixy_error("%s: device configuration bytes %u..%zu requested, the device has %u", t->pci->addr, offset,
			  offset + len - 1, CONFIG_LEN);
		return -1;
	}
	memcpy(buf, nic->config + offset, len);
	return 0;
}

// Only the legacy interface lets the driver write the MAC address (5.1.4).
static int write_config(struct virtio_transport* t, uint32_t offset, const void* buf, size_t len) {
	struct model_transport* mt = (struct model_transport*)t;
	if (!mt->legacy) {
		ixy_error("%s: the modern interface does not let the driver write the device configuration (5.1.4)",
			  t->pci->addr);
		return -1;
	}
	if (offset + len > 6) {
		model_violation(mt->nic->addr, "device configuration written at %u (%zu bytes): only mac is writable",
				offset, len);
		return -1;
	}
	memcpy(mt->nic->config + offset, buf, len);
	return 0;
}

static void close_transport(struct virtio_transport* t) {
	struct model_transport* mt = (struct model_transport*)t;
	if (mt->nic->status != 0) {
		model_violation(mt->nic->addr, "transport closed in status 0x%02x: the device was not reset",
				mt->nic->status);
	}
	mt->nic->transport = NULL;
	free(mt);
}

static const struct virtio_transport_ops model_modern_ops = {
    .name = "modern",
    .get_status = get_status,
    .set_status = set_status,
    .get_features = get_features,
    .set_features = set_features,
    .queue_size = queue_size,
    .enable_queue = enable_queue,
    .notify = notify,
    .read_config = read_config,
    .write_config = write_config,
    .close = close_transport,
};

static const struct virtio_transport_ops model_legacy_ops = {
    .name = "legacy",
    .get_status = get_status,
    .set_status = set_status,
    .get_features = get_features,
    .set_features = set_features,
    .queue_size = queue_size,
    .enable_queue = enable_queue,
    .notify = notify,
    .read_config = read_config,
    .write_config = write_config,
    .close = close_transport,
};

static struct virtio_transport* open_transport(struct model_virtio* nic, struct pci_device* pci, bool legacy) {
	if (nic->transport) {
		model_violation(nic->addr, "VirtIO transport opened twice");
		return NULL;
	}
	struct model_transport* mt = calloc(1, sizeof(*mt));
	if (!mt) {
		model_usage_error("out of memory");
	}
	mt->transport = (struct virtio_transport){.ops = legacy ? &model_legacy_ops : &model_modern_ops,
						  .pci = pci,
						  .required_features = legacy ? 0 : VIRTIO_F_VERSION_1};
	mt->nic = nic;
	mt->legacy = legacy;
	nic->transport = mt;
	nic->reset_since_open = false;
	return &mt->transport;
}

// ---- src/driver/virtio_transport.h, implemented for the model ----

int virtio_modern_open(struct pci_device* pci, struct virtio_transport** transport) {
	struct model_virtio* nic = model_pci_model(pci->addr, &virtio_pci_ops);
	*transport = NULL;
	if (!nic || nic->kind == MODEL_VIRTIO_LEGACY_ONLY) {
		return 0; // no VirtIO capabilities
	}
	*transport = open_transport(nic, pci, false);
	return *transport ? 0 : -1;
}

struct virtio_transport* virtio_legacy_open(struct pci_device* pci) {
	struct model_virtio* nic = model_pci_model(pci->addr, &virtio_pci_ops);
	if (!nic || nic->kind == MODEL_VIRTIO_MODERN_ONLY) {
		fprintf(stderr, "pci: %s: BAR0 is not an IO port BAR (model)\n", pci->addr);
		return NULL;
	}
	return open_transport(nic, pci, true);
}

// ---- the PCI side ----

// Memory the device can still reach is about to be freed: its rings, or a buffer of a chain it may use.
static void dma_freed(void* model, uintptr_t start, size_t size) {
	struct model_virtio* nic = model;
	for (uint16_t i = 0; i < MODEL_VIRTIO_QUEUES; i++) {
		struct model_queue* q = &nic->queues[i];
		if (!q->ready) {
			continue;
		}
		if (ranges_overlap(q->desc, 16u * q->size, start, size) ||
		    ranges_overlap(q->avail, avail_bytes(q->size), start, size) ||
		    ranges_overlap(q->used, used_bytes(q->size), start, size)) {
			model_violation(nic->addr,
					"DMA memory of virtqueue %u freed while the device can reach it (no "
					"reset)",
					i);
			continue;
		}
		for (uint16_t head = 0; head < q->size && (nic->status & VIRTIO_STATUS_DRIVER_OK); head++) {
			int n = q->held[head] ? read_chain(nic, q, head) : 0;
			for (int s = 0; s < n; s++) {
				if (ranges_overlap(nic->segments[s].addr, nic->segments[s].len, start, size)) {
					model_violation(nic->addr,
							"virtqueue %u: a buffer of chain %u, which the device "
							"holds, freed (no reset)",
							i, head);
				}
			}
		}
	}
}

static void destroy(void* model) {
	struct model_virtio* nic = model;
	if (nic->transport) {
		model_violation(nic->addr, "the VirtIO transport is still open when the test ends");
		nic->transport->nic = NULL;
	}
	model_virtio_clear_tx(nic);
	free(nic->tx);
	free(nic);
}

static const struct model_pci_ops virtio_pci_ops = {.dma_freed = dma_freed, .destroy = destroy};

struct model_virtio* model_virtio_add(const char* pci_addr, enum model_virtio_kind kind) {
	struct model_virtio* nic = calloc(1, sizeof(*nic));
	if (!nic || strlen(pci_addr) >= sizeof(nic->addr)) {
		model_usage_error("cannot add VirtIO device %s", pci_addr);
	}
	strcpy(nic->addr, pci_addr);
	nic->kind = kind;
	nic->offered = MODEL_VIRTIO_DEFAULT_FEATURES;
	nic->queue_max = DEFAULT_QUEUE_MAX;
	nic->tx_on_notify = true;
	unsigned bus = 0, function = 0;
	sscanf(pci_addr, "%*x:%x:%*x.%x", &bus, &function);
	const uint8_t mac[6] = {0x02, 0x00, 0x00, 0x01, (uint8_t)bus, (uint8_t)function};
	memcpy(nic->config, mac, sizeof(mac));
	model_virtio_set_link(nic, true, VIRTIO_NET_SPEED_UNKNOWN);
	uint16_t device_id = kind == MODEL_VIRTIO_MODERN_ONLY ? MODEL_VIRTIO_NET_MODERN : MODEL_VIRTIO_NET_TRANSITIONAL;
	nic->pci = model_pci_add(pci_addr, MODEL_VIRTIO_VENDOR_ID, device_id, 0x020000, &virtio_pci_ops, nic);
	return nic;
}

struct model_pci_device* model_virtio_pci(const struct model_virtio* nic) {
	return nic->pci;
}

// ---- knobs ----

void model_virtio_offer(struct model_virtio* nic, uint64_t features) {
	nic->offered = features;
}

void model_virtio_set_queue_max(struct model_virtio* nic, uint16_t size) {
	if (size == 0 || size > MAX_QUEUE_SIZE || (size & (size - 1)) != 0) {
		model_usage_error("queue size %u: a power of two up to %u", size, MAX_QUEUE_SIZE);
	}
	nic->queue_max = size;
}

void model_virtio_refuse_features(struct model_virtio* nic, bool refuse) {
	nic->refuse_features = refuse;
}

void model_virtio_set_link(struct model_virtio* nic, bool up, uint32_t speed_mbit) {
	uint16_t status = up ? VIRTIO_NET_S_LINK_UP : 0;
	memcpy(nic->config + CONFIG_STATUS, &status, sizeof(status));
	memcpy(nic->config + CONFIG_SPEED, &speed_mbit, sizeof(speed_mbit));
	nic->config[CONFIG_DUPLEX] = 1; // full
}

void model_virtio_suppress_notify(struct model_virtio* nic, bool suppress) {
	nic->suppress_notify = suppress;
	for (uint16_t i = 0; i < MODEL_VIRTIO_QUEUES; i++) {
		if (nic->queues[i].ready) {
			used_ring(&nic->queues[i])->flags = suppress ? VRING_USED_F_NO_NOTIFY : 0;
		}
	}
}

void model_virtio_ctrl_answer(struct model_virtio* nic, enum model_virtio_ctrl_answer answer) {
	nic->ctrl_answer = answer;
}

void model_virtio_tx_on_notify(struct model_virtio* nic, bool on_notify) {
	nic->tx_on_notify = on_notify;
}

// ---- state ----

uint8_t model_virtio_status(const struct model_virtio* nic) {
	return nic->status;
}

uint64_t model_virtio_driver_features(const struct model_virtio* nic) {
	return nic->driver_features;
}

const char* model_virtio_transport(const struct model_virtio* nic) {
	return nic->transport ? nic->transport->transport.ops->name : NULL;
}

bool model_virtio_queue_ready(const struct model_virtio* nic, uint16_t queue) {
	return queue < MODEL_VIRTIO_QUEUES && nic->queues[queue].ready;
}

uint16_t model_virtio_queue_size(const struct model_virtio* nic, uint16_t queue) {
	return queue < MODEL_VIRTIO_QUEUES ? nic->queues[queue].size : 0;
}

uint32_t model_virtio_notifications(const struct model_virtio* nic, uint16_t queue) {
	return queue < MODEL_VIRTIO_QUEUES ? nic->queues[queue].notifications : 0;
}

bool model_virtio_promisc(const struct model_virtio* nic) {
	return nic->promisc;
}

uint32_t model_virtio_net_hdr_len(const struct model_virtio* nic) {
	return (nic->driver_features & VIRTIO_F_VERSION_1) ? VIRTIO_NET_HDR_LEN_V1 : VIRTIO_NET_HDR_LEN_LEGACY;
}

bool model_virtio_misbehaved(const struct model_virtio* nic) {
	return nic->misbehaved;
}

// ---- the device side of a virtqueue ----

uint16_t model_virtio_avail_pending(const struct model_virtio* nic, uint16_t queue) {
	const struct model_queue* q = &nic->queues[queue < MODEL_VIRTIO_QUEUES ? queue : 0];
	if (queue >= MODEL_VIRTIO_QUEUES || !q->ready) {
		return 0;
	}
	return (uint16_t)(avail_ring(q)->idx - q->next_avail);
}

// The queue for reading its rings from the test, or a usage error if it is not set up.
// 2.6.4: without VERSION_1 or ANY_LAYOUT (legacy) the device may expect the net header in a descriptor of its own,
// then the frame. With either, ixy puts both into one descriptor; a second one would halve the queue for nothing.
static void check_layout(struct model_virtio* nic, uint16_t queue, struct model_queue* q, uint16_t head) {
	if (queue == MODEL_VIRTIO_CTRL) {
		return;
	}
	int n = read_chain(nic, q, head);
	bool one_descriptor = nic->driver_features & (VIRTIO_F_VERSION_1 | MODEL_VIRTIO_F_ANY_LAYOUT);
	if (one_descriptor && n != 1) {
		model_violation(nic->addr,
				"virtqueue %u: chain %u has %d descriptors, VERSION_1 or ANY_LAYOUT was "
				"negotiated: ixy uses one (2.6.4)",
				queue, head, n);
	} else if (!one_descriptor && n > 0 && (n != 2 || nic->segments[0].len != model_virtio_net_hdr_len(nic))) {
		model_violation(nic->addr,
				"virtqueue %u: chain %u is %d descriptors (the first of %u bytes), without "
				"ANY_LAYOUT the header needs a descriptor of its own (2.6.4)",
				queue, head, n, nic->segments[0].len);
	}
}

static const struct model_queue* ready_queue(const struct model_virtio* nic, uint16_t queue) {
	if (queue >= MODEL_VIRTIO_QUEUES || !nic->queues[queue].ready) {
		model_usage_error("virtqueue %u is not set up", queue);
	}
	return &nic->queues[queue];
}

uint16_t model_virtio_avail_idx(const struct model_virtio* nic, uint16_t queue) {
	return avail_ring(ready_queue(nic, queue))->idx;
}

uint16_t model_virtio_avail_entry(const struct model_virtio* nic, uint16_t queue, uint16_t i) {
	const struct model_queue* q = ready_queue(nic, queue);
	return avail_ring(q)->ring[i % q->size];
}

bool model_virtio_take(struct model_virtio* nic, uint16_t queue, uint16_t* head) {
	struct model_queue* q = queue_of(nic, queue);
	if (!queue_live(nic, q)) {
		return false;
	}
	uint16_t pending = (uint16_t)(avail_ring(q)->idx - q->next_avail);
	if (pending == 0) {
		return false;
	}
	atomic_thread_fence(memory_order_acquire); // the index before the entries it covers (2.4.6)
	if (pending > q->size && !nic->misbehaved) {
		model_violation(nic->addr,
				"virtqueue %u: the available index is %u entries ahead of the device, the "
				"ring has %u (2.4.6)",
				queue, pending, q->size);
	}
	*head = avail_ring(q)->ring[q->next_avail++ % q->size];
	if (*head >= q->size) {
		model_violation(nic->addr, "virtqueue %u: available ring names descriptor %u, the queue has %u", queue,
				*head, q->size);
		return false;
	}
	if (q->held[*head] && !nic->misbehaved) {
		model_violation(nic->addr, "virtqueue %u: chain %u made available again while the device holds it",
				queue, *head);
	}
	q->held[*head] = true;
	check_layout(nic, queue, q, *head);
	return true;
}

uint32_t model_virtio_chain_capacity(struct model_virtio* nic, uint16_t queue, uint16_t head) {
	struct model_queue* q = queue_of(nic, queue);
	int n = q->ready && head < q->size ? read_chain(nic, q, head) : 0;
	uint32_t capacity = 0;
	for (int i = 0; i < n; i++) {
		capacity += nic->segments[i].device_writes == (queue != MODEL_VIRTIO_TX) ? nic->segments[i].len : 0;
	}
	return capacity;
}

bool model_virtio_write_chain(struct model_virtio* nic, uint16_t queue, uint16_t head, const void* data, uint32_t len) {
	struct model_queue* q = queue_of(nic, queue);
	if (!queue_live(nic, q) || head >= q->size || model_virtio_chain_capacity(nic, queue, head) < len) {
		return false;
	}
	int n = read_chain(nic, q, head);
	const uint8_t* bytes = data;
	for (int i = 0; i < n && len > 0; i++) {
		if (!nic->segments[i].device_writes) {
			model_violation(nic->addr,
					"virtqueue %u: chain %u has a device-readable descriptor among those "
					"the device writes",
					queue, head);
			return false;
		}
		uint32_t part = len < nic->segments[i].len ? len : nic->segments[i].len;
		memcpy(seam_dma_virt(nic->segments[i].addr), bytes, part);
		bytes += part;
		len -= part;
	}
	return true;
}

void model_virtio_put_used(struct model_virtio* nic, uint16_t queue, uint32_t id, uint32_t len) {
	struct model_queue* q = queue_of(nic, queue);
	if (!q->ready) {
		model_usage_error("used entry put on virtqueue %u, which is not set up", queue);
	}
	if (id < q->size && q->held[id]) {
		q->held[id] = false;
	} else {
		nic->misbehaved = true;
	}
	volatile struct vring_used_elem* entry = &used_ring(q)->ring[q->used_idx % q->size];
	entry->id = id;
	entry->len = len;
	atomic_thread_fence(memory_order_release); // the entry before the index that shows it (2.4.8)
	used_ring(q)->idx = ++q->used_idx;
}

void model_virtio_set_used_idx(struct model_virtio* nic, uint16_t queue, uint16_t idx) {
	struct model_queue* q = queue_of(nic, queue);
	if (!q->ready) {
		model_usage_error("used index set on virtqueue %u, which is not set up", queue);
	}
	nic->misbehaved |= idx != q->used_idx;
	q->used_idx = idx;
	used_ring(q)->idx = idx;
}

uint16_t model_virtio_used_idx(const struct model_virtio* nic, uint16_t queue) {
	return queue < MODEL_VIRTIO_QUEUES ? nic->queues[queue].used_idx : 0;
}

void model_virtio_used_entry(const struct model_virtio* nic, uint16_t queue, uint16_t slot, uint32_t* id,
			     uint32_t* len) {
	const struct model_queue* q = ready_queue(nic, queue);
	*id = used_ring(q)->ring[slot % q->size].id;
	*len = used_ring(q)->ring[slot % q->size].len;
}

void model_virtio_write_used_entry(struct model_virtio* nic, uint16_t queue, uint16_t slot, uint32_t id, uint32_t len) {
	struct model_queue* q = queue_of(nic, queue);
	if (!q->ready) {
		model_usage_error("used entry written on virtqueue %u, which is not set up", queue);
	}
	used_ring(q)->ring[slot % q->size].id = id;
	used_ring(q)->ring[slot % q->size].len = len;
	nic->misbehaved = true; // the slot may hold an entry the driver has not read yet
}

// ---- receive, transmit and control as a correct device does them ----

enum model_virtio_rx_result model_virtio_rx(struct model_virtio* nic, const void* frame, uint32_t len) {
	struct model_queue* q = &nic->queues[MODEL_VIRTIO_RX];
	uint32_t hdr_len = model_virtio_net_hdr_len(nic);
	if (len > LARGEST_RX_WRITE - hdr_len) {
		model_usage_error("RX frame of %u bytes", len);
	}
	if (!queue_live(nic, q)) {
		return MODEL_VIRTIO_RX_OFF;
	}
	uint16_t head;
	if (!model_virtio_take(nic, MODEL_VIRTIO_RX, &head)) {
		return MODEL_VIRTIO_RX_NO_BUFFER;
	}
	// 5.1.6.4: no offloads, so flags 0 and GSO_NONE; num_buffers 1 (VERSION_1 only).
	struct virtio_net_hdr header = {.num_buffers = 1};
	memcpy(nic->rx_write, &header, hdr_len);
	memcpy(nic->rx_write + hdr_len, frame, len);
	if (!model_virtio_write_chain(nic, MODEL_VIRTIO_RX, head, nic->rx_write, hdr_len + len)) {
		q->next_avail--; // too short: the chain stays available
		q->held[head] = false;
		return MODEL_VIRTIO_RX_TOO_LONG;
	}
	model_virtio_put_used(nic, MODEL_VIRTIO_RX, head, hdr_len + len);
	return MODEL_VIRTIO_RX_DELIVERED;
}

static void record_tx(struct model_virtio* nic, const uint8_t* frame, uint32_t len) {
	if (nic->tx_count == nic->tx_capacity) {
		uint32_t capacity = nic->tx_capacity ? 2 * nic->tx_capacity : 256;
		struct tx_frame* bigger = realloc(nic->tx, capacity * sizeof(*bigger));
		if (!bigger) {
			model_usage_error("out of memory for TX frames");
		}
		nic->tx = bigger;
		nic->tx_capacity = capacity;
	}
	uint8_t* copy = malloc(len ? len : 1);
	if (!copy) {
		model_usage_error("out of memory for a TX frame");
	}
	memcpy(copy, frame, len);
	nic->tx[nic->tx_count].data = copy;
	nic->tx[nic->tx_count++].len = len;
}

uint32_t model_virtio_tx_process(struct model_virtio* nic) {
	return model_virtio_tx_process_up_to(nic, UINT32_MAX);
}

uint32_t model_virtio_tx_process_up_to(struct model_virtio* nic, uint32_t max) {
	struct model_queue* q = &nic->queues[MODEL_VIRTIO_TX];
	uint32_t hdr_len = model_virtio_net_hdr_len(nic);
	uint32_t sent = 0;
	uint16_t head;
	for (uint32_t taken = 0; taken < max && model_virtio_take(nic, MODEL_VIRTIO_TX, &head); taken++) {
		int n = read_chain(nic, q, head);
		uint32_t total = 0;
		for (int i = 0; i < n; i++) {
			struct segment s = nic->segments[i];
			if (s.device_writes) {
				model_violation(nic->addr, "TX chain %u has a device-writable descriptor (5.1.6.2)",
						head);
			} else if (total + s.len <= sizeof(nic->rx_write)) {
				memcpy(nic->rx_write + total, seam_dma_virt(s.addr), s.len);
				total += s.len;
			} else {
				model_violation(nic->addr, "TX chain %u is longer than %zu bytes", head,
						sizeof(nic->rx_write));
			}
		}
		struct virtio_net_hdr header = {0};
		memcpy(&header, nic->rx_write, total < hdr_len ? total : hdr_len);
		if (n > 0 && total < hdr_len) {
			model_violation(nic->addr, "TX chain %u has %u bytes, less than the header (5.1.6.2)", head,
					total);
		} else if (n > 0 && (header.flags != 0 || header.gso_type != 0)) {
			// 5.1.6.2.1: no checksum or segmentation offload without the features for them.
			model_violation(nic->addr, "TX chain %u: header flags 0x%x, gso_type %u without offloads", head,
					header.flags, header.gso_type);
		} else if (n > 0) {
			record_tx(nic, nic->rx_write + hdr_len, total - hdr_len);
			sent++;
		}
		model_virtio_put_used(nic, MODEL_VIRTIO_TX, head, 0);
	}
	return sent;
}

uint32_t model_virtio_tx_count(const struct model_virtio* nic) {
	return nic->tx_count;
}

const uint8_t* model_virtio_tx_frame(const struct model_virtio* nic, uint32_t i, uint32_t* len) {
	if (i >= nic->tx_count) {
		model_usage_error("TX frame %u of %u", i, nic->tx_count);
	}
	*len = nic->tx[i].len;
	return nic->tx[i].data;
}

void model_virtio_clear_tx(struct model_virtio* nic) {
	for (uint32_t i = 0; i < nic->tx_count; i++) {
		free(nic->tx[i].data);
	}
	nic->tx_count = 0;
}

// 5.1.6.5: every chain is class and command, data (device-readable), then the ack byte (device-writable).
static void answer_control_queue(struct model_virtio* nic) {
	struct model_queue* q = &nic->queues[MODEL_VIRTIO_CTRL];
	uint16_t head;
	while (nic->ctrl_answer != MODEL_VIRTIO_CTRL_SILENT && model_virtio_take(nic, MODEL_VIRTIO_CTRL, &head)) {
		int n = read_chain(nic, q, head);
		uint8_t command[MAX_CTRL_COMMAND];
		uint32_t len = 0;
		volatile uint8_t* ack = NULL;
		for (int i = 0; i < n; i++) {
			struct segment s = nic->segments[i];
			if (s.device_writes && s.len >= 1 && !ack) {
				ack = (volatile uint8_t*)seam_dma_virt(s.addr);
			} else if (!s.device_writes && !ack && len + s.len <= sizeof(command)) {
				memcpy(command + len, seam_dma_virt(s.addr), s.len);
				len += s.len;
			} else {
				model_violation(nic->addr,
						"control command chain %u is not class+command, data, ack "
						"(5.1.6.5)",
						head);
			}
		}
		uint8_t result = VIRTIO_NET_ERR;
		bool promisc = len == 3 && command[0] == VIRTIO_NET_CTRL_RX && command[1] == VIRTIO_NET_CTRL_RX_PROMISC;
		bool mac = len == 8 && command[0] == VIRTIO_NET_CTRL_MAC && command[1] == VIRTIO_NET_CTRL_MAC_ADDR_SET;
		if (nic->ctrl_answer == MODEL_VIRTIO_CTRL_ERR) {
			result = VIRTIO_NET_ERR;
		} else if (promisc && (nic->driver_features & VIRTIO_NET_F_CTRL_RX)) {
			nic->promisc = command[2] != 0;
			result = VIRTIO_NET_OK;
		} else if (mac && (nic->driver_features & VIRTIO_NET_F_CTRL_MAC_ADDR)) {
			memcpy(nic->config, command + 2, 6);
			result = VIRTIO_NET_OK;
		} else if (n > 0) {
			model_violation(nic->addr, "control command %u/%u (%u bytes) without its feature (5.1.6.5)",
					len > 0 ? command[0] : 0, len > 1 ? command[1] : 0, len);
		}
		if (ack) {
			*ack = result;
		}
		model_virtio_put_used(nic, MODEL_VIRTIO_CTRL, head, ack ? 1 : 0);
	}
}
