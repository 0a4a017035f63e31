// The VirtIO network device model (virtio_model.h) below the real transports of src/driver: its PCI configuration
// space with the VirtIO capabilities and the structures in its memory BARs (modern, 4.1.4; model.c passes every
// config read and BAR access on), and the registers of its IO-port BAR0 (legacy, 4.1.4.8; test/seam/seam_io.h).
// Section numbers refer to the VirtIO 1.0 specification (OASIS).
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "driver/virtio_spec.h"
#include "seam.h"
#include "seam_io.h"
#include "virtio_model.h"

// Queue sizes the model accepts: up to this (2.4: at most 32768; one huge page of ring is ixy's limit anyway); a
// power of two for split queues (2.7), any size for packed ones (VirtIO 1.2, 2.8).
#define MAX_QUEUE_SIZE 4096
#define DEFAULT_QUEUE_MAX 256
// The network device's configuration (5.1.4): mac[6], status u16, max_virtqueue_pairs u16, mtu u16, speed u32 (at
// 12), duplex u8 (at 16); VirtIO 1.2 adds rss_max_key_size u8 (17), rss_max_indirection_table_length u16 (18) and
// supported_hash_types u32 (20).
#define CONFIG_LEN 24
#define CONFIG_STATUS 6
#define CONFIG_MAX_PAIRS 8
#define CONFIG_SPEED 12
#define CONFIG_DUPLEX 16
#define CONFIG_RSS_MAX_KEY 17
#define CONFIG_RSS_MAX_TABLE 18
#define CONFIG_HASH_TYPES 20
// Multiqueue (VirtIO 1.2): the feature bits (5.1.3), the class and commands of the control queue (5.1.6.5.5), the
// hash types (5.1.6.4.3.1). Written down here from the specification, apart from the driver's definitions.
#define F_MQ (1ull << 22)
#define F_RSS (1ull << 60)
#define CTRL_MQ 4
#define CTRL_MQ_VQ_PAIRS_SET 0
#define CTRL_MQ_RSS_CONFIG 1
#define HASH_IPV4 (1u << 0)
#define HASH_TCPV4 (1u << 1)
#define HASH_UDPV4 (1u << 2)
#define LARGEST_RX_WRITE (65535 + VIRTIO_NET_HDR_LEN_V1)
// A control command: class, command and at most this much data (5.1.6.5): an RSS_CONFIG with the largest table.
#define MAX_CTRL_COMMAND (2 + 10 + 2 * MODEL_VIRTIO_MAX_RSS_TABLE + 3 + 255)

// Event indices and packed virtqueues (VirtIO 1.2, 6 reserved feature bits; 2.7.7, 2.7.10; 2.8), written down here
// from the specification, apart from the driver's definitions.
#define F_EVENT_IDX (1ull << 29)
#define F_RING_PACKED (1ull << 34)
// 2.8.13 struct pvirtq_desc: le64 addr, le32 len, le16 id, le16 flags; the flags of 2.8.1 and 2.8.6.
struct packed_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t id;
	uint16_t flags;
};
_Static_assert(sizeof(struct packed_desc) == 16, "2.8.13: a packed descriptor is 16 bytes");
#define PACKED_F_NEXT 1
#define PACKED_F_WRITE 2
#define PACKED_F_INDIRECT 4
#define PACKED_F_AVAIL (1u << 7)
#define PACKED_F_USED (1u << 15)
// 2.8.14 struct pvirtq_event_suppress: le16 desc (bits 0-14 offset, bit 15 wrap counter), le16 flags (bits 0-1).
struct event_suppress {
	uint16_t off_wrap;
	uint16_t flags;
};
#define EVENT_ENABLE 0
#define EVENT_DISABLE 1
#define EVENT_DESC 2
#define EVENT_FLAGS_MASK 3 // 2.8.14: desc_event_flags is bits 0-1 of flags, bits 2-15 are reserved
#define EVENT_WRAP (1u << 15)
// The longest packed chain the model keeps a copy of (ixy: one descriptor per packet, three per control command).
#define PACKED_MAX_CHAIN 8

struct model_queue {
	uint16_t size; // chosen by the driver (modern) or fixed (legacy); 0: not chosen yet
	bool ready;    // enable_queue done since the last reset
	uint64_t desc, avail, used;
	uint16_t next_avail; // the next available ring entry the device takes
	uint16_t used_idx;   // the device's used index
	bool held[MAX_QUEUE_SIZE];
	uint32_t notifications;
	// Packed (2.8): desc is the descriptor ring, avail the driver's event suppression area, used the device's.
	// Positions are counted from 0 to 2 * size - 1: slot = position % size, wrap counter 1 in the first half
	// (2.8.1: both counters start at 1).
	bool packed;
	bool broken;                          // the driver broke the ring: the device takes nothing more
	uint32_t avail_pos, used_pos;         // the device's next available and next used position
	uint32_t published;                   // the end of the available descriptors the device last found
	uint32_t held_descriptors;            // descriptors of the buffers the device holds
	uint8_t chain_length[MAX_QUEUE_SIZE]; // by buffer id: descriptors of the held buffer
	struct segment* chains;               // by buffer id: PACKED_MAX_CHAIN copies of its descriptors
	uint16_t seen_flags[MAX_QUEUE_SIZE];  // by slot: the flags the device last read or wrote there
	// Notifications (2.7.10, 2.8.10): where the device asks to be notified, and the driver's progress as the
	// device saw it at its last notification or when it last changed its request, whichever came later: split, the
	// available index; packed, the position after the last available descriptor.
	bool kick_at;
	uint16_t kick_event;
	uint32_t kick_mark;
	uint32_t needless_notifications; // notifications when none was owed (model_virtio_kick_owed false)
	uint32_t looked; // used index (split) or position (packed) when the device last looked whether to interrupt
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
	uint16_t queue; // the TX queue (pair) it came from
};

// PCI configuration space (PCI Local Bus 3.0, 6.1, 6.7) and the VirtIO capability types (4.1.4).
#define CS_STATUS 0x06
#define CS_STATUS_CAP_LIST 0x10
#define CS_CAP_POINTER 0x34
#define CAP_ID_VENDOR 0x09
#define CAP_COMMON 1
#define CAP_NOTIFY 2
#define CAP_ISR 3
#define CAP_DEVICE 4
#define CAP_PCI_CFG 5
#define PCI_BARS 6
#define NO_VECTOR 0xffff // VIRTIO_MSI_NO_VECTOR (4.1.4.3.1)

// Where a structure of the modern interface is: BAR, offset, length (0: absent).
struct model_region {
	uint8_t bar;
	uint32_t offset, length;
};
enum { REGION_COMMON, REGION_NOTIFY, REGION_ISR, REGION_DEVICE, NUM_REGIONS };

enum model_interface { INTERFACE_NONE, INTERFACE_MODERN, INTERFACE_LEGACY };

struct model_virtio {
	char addr[16];
	enum model_virtio_kind kind;
	struct model_pci_device* pci;
	// knobs
	uint64_t offered;
	uint16_t queue_max;
	bool refuse_features;
	bool suppress_notify;
	uint16_t event_flags_extra; // model_virtio_event_flags_extra
	bool tx_on_notify;
	enum model_virtio_ctrl_answer ctrl_answer;
	uint8_t config[CONFIG_LEN];
	uint8_t next_mac[6]; // model_virtio_change_mac_during_read
	unsigned mac_changes;
	// the PCI side: configuration space and memory BARs
	enum model_virtio_layout layout;
	uint8_t config_space[256];
	size_t bar_sizes[PCI_BARS];
	struct model_region regions[NUM_REGIONS];
	uint32_t notify_off_multiplier;
	// registers
	enum model_interface interface; // the one the driver uses
	bool io_open;
	uint32_t device_feature_select, driver_feature_select;
	uint16_t queue_select;
	uint16_t queue_vector[MODEL_VIRTIO_MAX_QUEUES];
	uint8_t config_generation;
	bool driver_failed;
	// state
	uint8_t status;
	bool reset_since_open;
	bool features_read;
	bool features_written;
	uint64_t driver_features;
	struct model_queue queues[MODEL_VIRTIO_MAX_QUEUES];
	bool promisc;
	uint16_t pairs;              // queue pairs in use: 1 after reset, then VQ_PAIRS_SET or RSS_CONFIG
	struct model_virtio_rss rss; // the last RSS_CONFIG; rss.enabled false after reset and VQ_PAIRS_SET
	uint16_t last_rx_pair;       // the RX queue of the last frame model_virtio_rx delivered
	uint32_t mq_commands;        // VQ_PAIRS_SET and RSS_CONFIG commands received, in order: mq_log
	uint8_t mq_log[8];
	uint32_t queue_enables; // since model_virtio_add, resets included
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

static volatile struct packed_desc* packed_desc(const struct model_queue* q, uint16_t slot) {
	return &((volatile struct packed_desc*)seam_dma_virt(q->desc))[slot];
}

// Packed: the driver's event suppression area (its queue_driver address) and the device's (queue_device), 2.8.10.
static volatile struct event_suppress* driver_area(const struct model_queue* q) {
	return (volatile struct event_suppress*)seam_dma_virt(q->avail);
}

static volatile struct event_suppress* device_area(const struct model_queue* q) {
	return (volatile struct event_suppress*)seam_dma_virt(q->used);
}

// Split with VIRTIO_F_EVENT_IDX (2.7.7, 2.7.10): used_event follows the available ring, avail_event the used ring.
static volatile uint16_t* used_event(const struct model_queue* q) {
	return &avail_ring(q)->ring[q->size];
}

static volatile uint16_t* avail_event(const struct model_queue* q) {
	return (volatile uint16_t*)&used_ring(q)->ring[q->size];
}

// Packed positions (see struct model_queue): the slot, the wrap counter, and the distance from a to b.
static uint16_t slot_of(const struct model_queue* q, uint32_t pos) {
	return (uint16_t)(pos % q->size);
}

static bool wrap_of(const struct model_queue* q, uint32_t pos) {
	return pos < q->size;
}

static uint32_t advance(const struct model_queue* q, uint32_t pos, uint32_t n) {
	return (pos + n) % (2u * q->size);
}

static uint32_t distance(const struct model_queue* q, uint32_t a, uint32_t b) {
	return (b + 2u * q->size - a) % (2u * q->size);
}

// 2.8.14: an event's offset and wrap counter as a position.
static uint32_t event_position(const struct model_queue* q, uint16_t off_wrap) {
	uint32_t off = (off_wrap & ~EVENT_WRAP) % q->size;
	return (off_wrap & EVENT_WRAP) ? off : off + q->size;
}

// 2.8.1: a descriptor is available when its AVAIL flag equals the wrap counter of its position and USED does not.
static bool packed_available(const struct model_queue* q, uint32_t pos, uint16_t flags) {
	bool wrap = wrap_of(q, pos);
	return ((flags & PACKED_F_AVAIL) != 0) == wrap && ((flags & PACKED_F_USED) != 0) != wrap;
}

// The position after the driver's available descriptors that follow the device's next one, looked for from pos
// (the device's next position, or a position the driver published up to before).
static uint32_t scan_published(const struct model_queue* q, uint32_t pos) {
	for (uint32_t n = q->held_descriptors + distance(q, q->avail_pos, pos);
	     n < q->size && packed_available(q, pos, packed_desc(q, slot_of(q, pos))->flags); n++) {
		pos = advance(q, pos, 1);
	}
	return pos;
}

static uint32_t packed_published(const struct model_queue* q) {
	return scan_published(q, q->avail_pos);
}

// The same, from where the device last found the end (descriptors stay available until the device takes them): a
// notification after each batch does not scan a full ring again.
static uint32_t packed_published_since(struct model_queue* q) {
	bool still_ahead = distance(q, q->avail_pos, q->published) <= q->size - q->held_descriptors;
	q->published = scan_published(q, still_ahead ? q->published : q->avail_pos);
	return q->published;
}

// The queue the test or driver names, or a usage error.
static struct model_queue* queue_of(struct model_virtio* nic, uint16_t queue) {
	if (queue >= MODEL_VIRTIO_MAX_QUEUES) {
		model_usage_error("virtqueue %u: the model has %u", queue, MODEL_VIRTIO_MAX_QUEUES);
	}
	return &nic->queues[queue];
}

// The queue for reading its rings from the test, or a usage error if it is not set up.
static const struct model_queue* ready_queue(const struct model_virtio* nic, uint16_t queue) {
	if (queue >= MODEL_VIRTIO_MAX_QUEUES || !nic->queues[queue].ready) {
		model_usage_error("virtqueue %u is not set up", queue);
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
// Packed: the copy the device made of the buffer with id head when it took it (0 descriptors if it holds none).
static int read_chain(struct model_virtio* nic, struct model_queue* q, uint16_t head) {
	if (q->packed) {
		int n = head < q->size && q->held[head] ? q->chain_length[head] : 0;
		memcpy(nic->segments, q->chains + (size_t)head * PACKED_MAX_CHAIN, (size_t)n * sizeof(struct segment));
		return n;
	}
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
	nic->pairs = 1;
	nic->mq_commands = 0;
	memset(&nic->rss, 0, sizeof(nic->rss));
	for (int i = 0; i < MODEL_VIRTIO_MAX_QUEUES; i++) {
		free(nic->queues[i].chains);
	}
	memset(nic->queues, 0, sizeof(nic->queues)); // the device forgets the queues and stops all DMA (2.1.2)
	for (int i = 0; i < MODEL_VIRTIO_MAX_QUEUES; i++) {
		nic->queue_vector[i] = NO_VECTOR;
	}
}

static bool is_legacy(const struct model_virtio* nic) {
	return nic->interface == INTERFACE_LEGACY;
}

// The features the transport shows: 32 bits through the legacy interface (4.1.4.8).
static uint64_t visible_features(const struct model_virtio* nic) {
	return is_legacy(nic) ? nic->offered & 0xffffffffu : nic->offered;
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
		uint64_t accepted = nic->driver_features;
		if (is_legacy(nic)) {
			model_violation(addr,
					"FEATURES_OK through the legacy interface, which has no such bit (3.1.2)");
		} else if (!(old & VIRTIO_STATUS_DRIVER) || !nic->features_written) {
			model_violation(addr, "FEATURES_OK before DRIVER and the driver's features (3.1.1 steps 4, 5)");
		} else if (accepted & ~visible_features(nic)) {
			model_violation(addr,
					"the driver accepted features 0x%llx that the device does not offer (2.2.1)",
					(unsigned long long)(accepted & ~visible_features(nic)));
		}
		if (!is_legacy(nic) && (nic->offered & VIRTIO_F_VERSION_1) && !(accepted & VIRTIO_F_VERSION_1)) {
			model_violation(addr,
					"VIRTIO_F_VERSION_1 offered and not accepted through the modern interface "
					"(6.1)");
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

static void set_status(struct model_virtio* nic, uint8_t status) {
	if (status == 0) {
		reset(nic);
		return;
	}
	uint8_t old = nic->status;
	if (old & ~status) {
		model_violation(nic->addr, "status 0x%02x written over 0x%02x: bits cleared without a reset (2.1.1)",
				status, old);
	}
	check_status_step(nic, old, (uint8_t)(status & ~old));
	nic->driver_failed |= (status & VIRTIO_STATUS_FAILED) != 0;
	if ((status & ~old & VIRTIO_STATUS_FEATURES_OK) && nic->refuse_features) {
		status &= (uint8_t)~VIRTIO_STATUS_FEATURES_OK; // 3.1.1 step 6: the device does not take them
	}
	nic->status = status;
}

// The device's features, read by the driver (3.1.1 step 4): 32 bits at a time.
static uint32_t read_features(struct model_virtio* nic, uint32_t select) {
	if (!(nic->status & VIRTIO_STATUS_DRIVER)) {
		model_violation(nic->addr, "features read before DRIVER was set (3.1.1 step 4)");
	}
	nic->features_read = true;
	return select < 2 ? (uint32_t)(visible_features(nic) >> (32 * select)) : 0;
}

// The driver's features, 32 bits at a time (3.1.1 step 5).
static void write_features(struct model_virtio* nic, uint32_t select, uint32_t value) {
	if (!(nic->status & VIRTIO_STATUS_DRIVER) || !nic->features_read ||
	    (nic->status & (VIRTIO_STATUS_FEATURES_OK | VIRTIO_STATUS_DRIVER_OK))) {
		model_violation(nic->addr, "features written in status 0x%02x, %s (3.1.1 steps 4, 5)", nic->status,
				nic->features_read ? "after they were read" : "without reading the device's first");
	}
	if (select >= 2) {
		model_violation(nic->addr, "driver features written with select %u: there are 64 bits", select);
		return;
	}
	uint64_t mask = 0xffffffffull << (32 * select);
	nic->driver_features = (nic->driver_features & ~mask) | ((uint64_t)value << (32 * select));
	nic->features_written = true;
	if (is_legacy(nic) && (nic->driver_features & ~visible_features(nic))) {
		model_violation(nic->addr, "the driver accepted features 0x%llx that the device does not offer (2.2.1)",
				(unsigned long long)(nic->driver_features & ~visible_features(nic)));
	}
}

// Queue setup is step 7 of 3.1.1: after the features (FEATURES_OK on the modern interface), before DRIVER_OK.
static void check_queue_setup_allowed(struct model_virtio* nic, uint16_t index) {
	bool features_done = is_legacy(nic) ? nic->features_written : (nic->status & VIRTIO_STATUS_FEATURES_OK) != 0;
	if (!features_done || (nic->status & VIRTIO_STATUS_DRIVER_OK)) {
		model_violation(nic->addr, "virtqueue %u set up in status 0x%02x (3.1.1 step 7)", index, nic->status);
	}
}

// 5.1.2: N pairs, then the control queue at 2N; N is max_virtqueue_pairs once MQ or RSS is negotiated, else 1.
static uint32_t device_pairs(const struct model_virtio* nic) {
	uint16_t max_pairs;
	memcpy(&max_pairs, nic->config + CONFIG_MAX_PAIRS, 2);
	return (nic->driver_features & (F_MQ | F_RSS)) ? max_pairs : 1;
}

uint16_t model_virtio_ctrl_queue(const struct model_virtio* nic) {
	return (uint16_t)(2 * device_pairs(nic));
}

// A queue the model has room for (MODEL_VIRTIO_MAX_PAIRS); a device that claims more pairs has no more of them.
static bool queue_exists(const struct model_virtio* nic, uint16_t index) {
	uint32_t ctrl = 2 * device_pairs(nic);
	return index < MODEL_VIRTIO_MAX_QUEUES &&
	       (index < ctrl || (index == ctrl && (nic->offered & VIRTIO_NET_F_CTRL_VQ)));
}

// The size of the selected queue as the driver reads it during setup: the device's maximum until the driver
// writes a smaller one (modern, 4.1.4.3.2); legacy: the one size there is. 0: the queue does not exist.
static uint16_t read_queue_size(struct model_virtio* nic) {
	uint16_t index = nic->queue_select;
	check_queue_setup_allowed(nic, index);
	if (!queue_exists(nic, index)) {
		return 0;
	}
	if (nic->queues[index].size == 0) {
		nic->queues[index].size = nic->queue_max;
	}
	return nic->queues[index].size;
}

// 4.1.4.3.2: the driver may write a smaller queue size, a power of two (2.4) for split queues, any for packed ones
// (VirtIO 1.2, 2.8).
static void write_queue_size(struct model_virtio* nic, uint16_t size) {
	uint16_t index = nic->queue_select;
	check_queue_setup_allowed(nic, index);
	if (!queue_exists(nic, index) || nic->queues[index].ready) {
		model_violation(nic->addr, "virtqueue %u: size written, the queue does not exist or is enabled", index);
		return;
	}
	bool packed = nic->driver_features & F_RING_PACKED;
	if (size == 0 || size > nic->queue_max || (!packed && (size & (size - 1)) != 0)) {
		model_violation(nic->addr, "virtqueue %u: size %u is not %s up to %u (2.4, 2.8, 4.1.4.3.2)", index,
				size, packed ? "a size" : "a power of two", nic->queue_max);
	}
	nic->queues[index].size = size;
}

// Where the device asks the driver to notify it (2.7.10; 2.8.10, 2.8.14): split, VRING_USED_F_NO_NOTIFY or with
// EVENT_IDX avail_event (from the knobs, else at the next entry the device will take: "notify me when you add
// something after what I have"); packed, the device's event suppression area (ENABLE, DISABLE, or DESC at the
// knob's offset and wrap counter).
static void ask_for_notifications(struct model_virtio* nic, struct model_queue* q) {
	if (q->packed) {
		volatile struct event_suppress* area = device_area(q);
		area->off_wrap = q->kick_event;
		bool desc = q->kick_at && (nic->driver_features & F_EVENT_IDX); // DESC only with EVENT_IDX (2.8.10)
		uint16_t request = nic->suppress_notify ? EVENT_DISABLE : desc ? EVENT_DESC : EVENT_ENABLE;
		area->flags = (uint16_t)(request | nic->event_flags_extra);
		atomic_thread_fence(memory_order_seq_cst); // the request before the driver's progress it is measured by
		q->kick_mark = packed_published_since(q);
	} else if (nic->driver_features & F_EVENT_IDX) {
		*avail_event(q) = nic->suppress_notify ? (uint16_t)(q->next_avail - 1)
				  : q->kick_at         ? q->kick_event
						       : q->next_avail;
		atomic_thread_fence(memory_order_seq_cst);
		q->kick_mark = avail_ring(q)->idx;
	} else {
		used_ring(q)->flags = nic->suppress_notify ? VRING_USED_F_NO_NOTIFY : 0;
		q->kick_mark = avail_ring(q)->idx;
	}
}

// A packed virtqueue goes live (2.8): a descriptor ring aligned to 16, the two event suppression areas to 4
// (2.8.10.1), in memory the device can reach.
static void enable_packed_queue(struct model_virtio* nic, uint16_t index) {
	struct model_queue* q = &nic->queues[index];
	uint16_t size = q->size;
	uint64_t ring = q->desc, driver = q->avail, device = q->used;
	if (ring % 16 || driver % 4 || device % 4 || !model_dma_ok((uintptr_t)ring, 16u * size) ||
	    !model_dma_ok((uintptr_t)driver, 4) || !model_dma_ok((uintptr_t)device, 4)) {
		model_violation(nic->addr,
				"virtqueue %u (packed): descriptor ring at 0x%llx, event suppression at 0x%llx and "
				"0x%llx are misaligned or not DMA memory (2.8.10.1)",
				index, (unsigned long long)ring, (unsigned long long)driver,
				(unsigned long long)device);
		return;
	}
	if (ranges_overlap(ring, 16u * size, driver, 4) || ranges_overlap(ring, 16u * size, device, 4) ||
	    ranges_overlap(driver, 4, device, 4)) {
		model_violation(nic->addr, "virtqueue %u (packed): its ring and event areas overlap", index);
	}
	bool kick_at = q->kick_at;
	uint16_t kick_event = q->kick_event;
	*q = (struct model_queue){.size = size,
				  .ready = true,
				  .desc = ring,
				  .avail = driver,
				  .used = device,
				  .packed = true,
				  .kick_at = kick_at,
				  .kick_event = kick_event};
	q->chains = calloc((size_t)size * PACKED_MAX_CHAIN, sizeof(struct segment));
	if (!q->chains) {
		model_usage_error("out of memory for virtqueue %u", index);
	}
	for (uint16_t slot = 0; slot < size; slot++) {
		q->seen_flags[slot] = packed_desc(q, slot)->flags;
	}
	nic->queue_enables++;
	ask_for_notifications(nic, q);
}

// The selected queue goes live with the addresses the driver wrote (modern: queue_enable; legacy: the page number).
static void enable_queue(struct model_virtio* nic) {
	uint16_t index = nic->queue_select;
	const char* addr = nic->addr;
	check_queue_setup_allowed(nic, index);
	if (!queue_exists(nic, index) || nic->queues[index].size == 0) {
		model_violation(addr, "virtqueue %u enabled, it does not exist or its size was never read", index);
		return;
	}
	struct model_queue* q = &nic->queues[index];
	uint16_t size = q->size;
	uint64_t desc = q->desc, avail = q->avail, used = q->used;
	if (q->ready) {
		model_violation(addr, "virtqueue %u enabled twice without a reset", index);
	}
	if (nic->driver_features & F_RING_PACKED) {
		enable_packed_queue(nic, index);
		return;
	}
	if (size & (size - 1)) { // a device that offers it means packed queues (model_virtio_set_queue_max)
		model_violation(addr, "virtqueue %u: a split queue of %u descriptors, no power of two (2.7)", index,
				size);
	}
	// 2.4: alignment 16 (descriptor table), 2 (available ring), 4 (used ring); all in memory the device can reach.
	if (desc % 16 || avail % 2 || used % 4 || !model_dma_ok((uintptr_t)desc, 16u * size) ||
	    !model_dma_ok((uintptr_t)avail, avail_bytes(size)) || !model_dma_ok((uintptr_t)used, used_bytes(size))) {
		model_violation(addr, "virtqueue %u: rings at 0x%llx, 0x%llx, 0x%llx are misaligned or not DMA memory",
				index, (unsigned long long)desc, (unsigned long long)avail, (unsigned long long)used);
		return;
	}
	if (ranges_overlap(desc, 16u * size, avail, avail_bytes(size)) ||
	    ranges_overlap(desc, 16u * size, used, used_bytes(size)) ||
	    ranges_overlap(avail, avail_bytes(size), used, used_bytes(size))) {
		model_violation(addr, "virtqueue %u: its rings overlap", index);
	}
	*q = (struct model_queue){.size = size,
				  .ready = true,
				  .desc = desc,
				  .avail = avail,
				  .used = used,
				  .kick_at = q->kick_at,
				  .kick_event = q->kick_event};
	nic->queue_enables++;
	used_ring(q)->idx = 0;
	ask_for_notifications(nic, q);
}

// One half of a queue address (modern: queue_desc, queue_driver, queue_device, 64 bits written as two 32 bit halves).
static void write_queue_address(struct model_virtio* nic, uint64_t* field, bool high, uint32_t value) {
	uint16_t index = nic->queue_select;
	check_queue_setup_allowed(nic, index);
	if (index >= MODEL_VIRTIO_MAX_QUEUES || nic->queues[index].ready) {
		model_violation(nic->addr, "virtqueue %u: ring address written, the queue does not exist or is enabled",
				index);
		return;
	}
	*field = high ? (*field & 0xffffffffull) | (uint64_t)value << 32 : (*field & ~0xffffffffull) | value;
}

static void answer_control_queue(struct model_virtio* nic);

static void notify(struct model_virtio* nic, uint16_t index) {
	if (!(nic->status & VIRTIO_STATUS_DRIVER_OK)) {
		model_violation(nic->addr, "virtqueue %u notified before DRIVER_OK (3.1.1)", index);
		return;
	}
	if (index >= MODEL_VIRTIO_MAX_QUEUES || !nic->queues[index].ready) {
		model_violation(nic->addr, "virtqueue %u notified, it is not set up", index);
		return;
	}
	struct model_queue* q = &nic->queues[index];
	q->notifications++;
	q->needless_notifications += !model_virtio_kick_owed(nic, index);
	q->kick_mark = q->packed ? packed_published_since(q) : avail_ring(q)->idx;
	if (index == model_virtio_ctrl_queue(nic)) {
		answer_control_queue(nic);
	} else if (index % 2 == 1 && nic->tx_on_notify) {
		model_virtio_tx_process(nic);
	}
}

// `width` bytes of the network device's configuration (5.1.4) at offset, little endian; 0 beyond it. A change the
// test asked for (model_virtio_change_mac_during_read) happens right after a read that includes mac[2]: the MAC
// changes, and so does config_generation (4.1.4.3.1).
static uint32_t read_device_config(struct model_virtio* nic, uint32_t offset, unsigned width) {
	uint32_t value = 0;
	if (offset < CONFIG_LEN) {
		memcpy(&value, nic->config + offset, offset + width <= CONFIG_LEN ? width : CONFIG_LEN - offset);
	}
	if (nic->mac_changes > 0 && offset <= 2 && offset + width > 2) {
		uint8_t old[6];
		memcpy(old, nic->config, 6);
		memcpy(nic->config, nic->next_mac, 6);
		memcpy(nic->next_mac, old, 6);
		nic->mac_changes--;
		nic->config_generation++;
	}
	return value;
}

// Only the legacy interface lets the driver write the MAC address (5.1.4).
static void write_device_config(struct model_virtio* nic, uint32_t offset, unsigned width, uint32_t value) {
	if (!is_legacy(nic) || offset + width > 6) {
		model_violation(nic->addr,
				"device configuration written at %u (%u bytes): only mac is writable, and "
				"only through the legacy interface (5.1.4)",
				offset, width);
		return;
	}
	memcpy(nic->config + offset, &value, width);
}

// The driver starts using an interface (its first access); a device is driven through one at a time.
static void interface_used(struct model_virtio* nic, enum model_interface interface) {
	if (nic->interface == interface) {
		return;
	}
	if (nic->interface != INTERFACE_NONE) {
		model_violation(nic->addr, "the %s interface used while the other one is in use",
				interface == INTERFACE_LEGACY ? "legacy" : "modern");
	}
	nic->interface = interface;
	nic->reset_since_open = false;
	nic->driver_failed = false;
}

// The driver gives up the interface (legacy: closes the IO BAR; modern: unmaps the BARs).
static void interface_closed(struct model_virtio* nic) {
	if (nic->interface != INTERFACE_NONE && nic->status != 0) {
		model_violation(nic->addr, "transport closed in status 0x%02x: the device was not reset", nic->status);
	}
	nic->interface = INTERFACE_NONE;
}

// ---- the modern interface (4.1.4): capabilities in configuration space, structures in memory BARs ----

// The model's own register offsets, from the specification (4.1.4.3 struct virtio_pci_common_cfg).
#define CC_DEVICE_FEATURE_SELECT 0x00
#define CC_DEVICE_FEATURE 0x04
#define CC_DRIVER_FEATURE_SELECT 0x08
#define CC_DRIVER_FEATURE 0x0c
#define CC_MSIX_CONFIG 0x10
#define CC_NUM_QUEUES 0x12
#define CC_DEVICE_STATUS 0x14
#define CC_CONFIG_GENERATION 0x15
#define CC_QUEUE_SELECT 0x16
#define CC_QUEUE_SIZE 0x18
#define CC_QUEUE_MSIX_VECTOR 0x1a
#define CC_QUEUE_ENABLE 0x1c
#define CC_QUEUE_NOTIFY_OFF 0x1e
#define CC_QUEUE_DESC 0x20
#define CC_QUEUE_DRIVER 0x28
#define CC_QUEUE_DEVICE 0x30
#define CC_LENGTH 0x38

// The width of the common configuration field at offset (64 bit fields: their 32 bit halves, 4.1.3.1), 0 if no
// field starts there.
static unsigned common_field_width(uint32_t offset) {
	if (offset >= CC_QUEUE_DESC && offset < CC_LENGTH) {
		return offset % 4 == 0 ? 4 : 0;
	}
	switch (offset) {
		case CC_DEVICE_FEATURE_SELECT:
		case CC_DEVICE_FEATURE:
		case CC_DRIVER_FEATURE_SELECT:
		case CC_DRIVER_FEATURE:
			return 4;
		case CC_DEVICE_STATUS:
		case CC_CONFIG_GENERATION:
			return 1;
		case CC_MSIX_CONFIG:
		case CC_NUM_QUEUES:
		case CC_QUEUE_SELECT:
		case CC_QUEUE_SIZE:
		case CC_QUEUE_MSIX_VECTOR:
		case CC_QUEUE_ENABLE:
		case CC_QUEUE_NOTIFY_OFF:
			return 2;
		default:
			return 0;
	}
}

static uint64_t* queue_address_field(struct model_virtio* nic, uint32_t offset) {
	struct model_queue* q = &nic->queues[nic->queue_select < MODEL_VIRTIO_MAX_QUEUES ? nic->queue_select : 0];
	return offset < CC_QUEUE_DRIVER ? &q->desc : offset < CC_QUEUE_DEVICE ? &q->avail : &q->used;
}

static uint32_t common_read(struct model_virtio* nic, uint32_t offset) {
	uint16_t index = nic->queue_select;
	bool queue = index < MODEL_VIRTIO_MAX_QUEUES;
	switch (offset) {
		case CC_DEVICE_FEATURE_SELECT:
			return nic->device_feature_select;
		case CC_DEVICE_FEATURE:
			return read_features(nic, nic->device_feature_select);
		case CC_DRIVER_FEATURE_SELECT:
			return nic->driver_feature_select;
		case CC_DRIVER_FEATURE:
			return nic->driver_feature_select < 2
				   ? (uint32_t)(nic->driver_features >> 32 * nic->driver_feature_select)
				   : 0;
		case CC_MSIX_CONFIG:
			return NO_VECTOR;
		case CC_NUM_QUEUES: { // 4.1.4.3: the queues the device has, whatever the driver negotiates
			uint16_t max_pairs;
			memcpy(&max_pairs, nic->config + CONFIG_MAX_PAIRS, 2);
			uint32_t pairs = (nic->offered & (F_MQ | F_RSS)) ? max_pairs : 1;
			return 2 * pairs + ((nic->offered & VIRTIO_NET_F_CTRL_VQ) ? 1 : 0);
		}
		case CC_DEVICE_STATUS:
			return nic->status;
		case CC_CONFIG_GENERATION:
			return nic->config_generation;
		case CC_QUEUE_SELECT:
			return index;
		case CC_QUEUE_SIZE:
			return read_queue_size(nic);
		case CC_QUEUE_MSIX_VECTOR:
			return queue ? nic->queue_vector[index] : NO_VECTOR;
		case CC_QUEUE_ENABLE:
			return queue && nic->queues[index].ready;
		case CC_QUEUE_NOTIFY_OFF:
			return index; // the queue's notification address: index * notify_off_multiplier (4.1.4.4)
		default: {
			uint64_t address = queue ? *queue_address_field(nic, offset) : 0;
			return offset % 8 ? (uint32_t)(address >> 32) : (uint32_t)address;
		}
	}
}

static void common_write(struct model_virtio* nic, uint32_t offset, uint32_t value) {
	switch (offset) {
		case CC_DEVICE_FEATURE_SELECT:
			nic->device_feature_select = value;
			return;
		case CC_DRIVER_FEATURE_SELECT:
			nic->driver_feature_select = value;
			return;
		case CC_DRIVER_FEATURE:
			write_features(nic, nic->driver_feature_select, value);
			return;
		case CC_MSIX_CONFIG:
			return; // ixy's queues need no configuration change interrupt; the model raises none
		case CC_DEVICE_STATUS:
			set_status(nic, (uint8_t)value);
			return;
		case CC_QUEUE_SELECT:
			nic->queue_select = (uint16_t)value;
			return;
		case CC_QUEUE_SIZE:
			write_queue_size(nic, (uint16_t)value);
			return;
		case CC_QUEUE_MSIX_VECTOR:
			// The model has no MSI-X table of its own: it maps any of the first MODEL_MAX_VECTORS vectors.
			if (nic->queue_select < MODEL_VIRTIO_MAX_QUEUES) {
				nic->queue_vector[nic->queue_select] =
				    value < MODEL_MAX_VECTORS ? (uint16_t)value : NO_VECTOR;
			}
			return;
		case CC_QUEUE_ENABLE:
			if (value != 1) {
				model_violation(nic->addr,
						"queue_enable written with %u: the driver writes only 1 (4.1.4.3.2)",
						value);
				return;
			}
			enable_queue(nic);
			return;
		case CC_QUEUE_DESC:
		case CC_QUEUE_DESC + 4:
		case CC_QUEUE_DRIVER:
		case CC_QUEUE_DRIVER + 4:
		case CC_QUEUE_DEVICE:
		case CC_QUEUE_DEVICE + 4:
			write_queue_address(nic, queue_address_field(nic, offset), offset % 8 != 0, value);
			return;
		default:
			model_violation(nic->addr, "common configuration field at 0x%02x written: it is read-only",
					offset);
	}
}

// Which structure [offset, offset + width) of BAR `bar` lies in, and the offset inside it.
static const struct model_region* region_at(const struct model_virtio* nic, unsigned bar, uint32_t* offset,
					    unsigned width) {
	for (int r = 0; r < NUM_REGIONS; r++) {
		const struct model_region* region = &nic->regions[r];
		if (region->length > 0 && region->bar == bar && *offset >= region->offset &&
		    *offset - region->offset + width <= region->length) {
			*offset -= region->offset;
			return region;
		}
	}
	return NULL;
}

// A load or store of the driver in one of the device's memory BARs (model.c: ixy_seam_mmio_read/write).
static uint32_t mmio_access(struct model_virtio* nic, unsigned bar, uint32_t offset, unsigned width, bool write,
			    uint32_t value) {
	interface_used(nic, INTERFACE_MODERN);
	uint32_t at = offset;
	const struct model_region* region = region_at(nic, bar, &at, width);
	int type = region ? (int)(region - nic->regions) : -1;
	if (type == REGION_COMMON && at < CC_LENGTH && common_field_width(at) != width) {
		model_violation(nic->addr,
				"common configuration at 0x%02x accessed with %u bytes: not a field of that "
				"width (4.1.3.1)",
				at, width);
	} else if (type == REGION_COMMON && at < CC_LENGTH) {
		if (!write) {
			return common_read(nic, at);
		}
		common_write(nic, at, value);
	} else if (type == REGION_COMMON) {
		return 0; // beyond the fields: reserved, reads as 0
	} else if (type == REGION_NOTIFY && write && width == 2) {
		// 4.1.4.4, 4.1.5.2: the queue's index, written at its own notification address.
		if (at != (uint32_t)value * nic->notify_off_multiplier) {
			model_violation(nic->addr,
					"virtqueue %u notified at offset 0x%x of the notification structure, "
					"its address is 0x%x (4.1.4.4)",
					value, at, value * nic->notify_off_multiplier);
		}
		notify(nic, (uint16_t)value);
	} else if (type == REGION_NOTIFY && write && width == 4) {
		// 4.1.5.2: 32 bits of notification data only with VIRTIO_F_NOTIFICATION_DATA, which the model never
		// offers.
		model_violation(
		    nic->addr,
		    "notification of 4 bytes (data 0x%x): VIRTIO_F_NOTIFICATION_DATA was not negotiated, the "
		    "driver writes the queue index in 16 bits (4.1.5.2)",
		    value);
	} else if (type == REGION_DEVICE) {
		if (!write) {
			return read_device_config(nic, at, width);
		}
		write_device_config(nic, at, width, value);
	} else if (type == REGION_ISR && !write && width == 1) {
		return 0; // no interrupts, so no causes (4.1.4.5)
	} else {
		model_violation(nic->addr, "%s of %u bytes at offset 0x%x of BAR%u: no VirtIO structure takes it",
				write ? "store" : "load", width, offset, bar);
	}
	return 0;
}

static uint32_t mmio_read(void* model, unsigned bar, uint32_t offset, unsigned width) {
	return mmio_access(model, bar, offset, width, false, 0);
}

static void mmio_write(void* model, unsigned bar, uint32_t offset, unsigned width, uint32_t value) {
	mmio_access(model, bar, offset, width, true, value);
}

static size_t bar_size(void* model, unsigned bar) {
	const struct model_virtio* nic = model;
	return bar < PCI_BARS ? nic->bar_sizes[bar] : 0;
}

static void config_space(void* model, uint8_t config[256]) {
	memcpy(config, ((struct model_virtio*)model)->config_space, 256);
}

// The driver unmapped the BARs (pci_close): it gave up the modern interface.
static void unmapped(void* model) {
	struct model_virtio* nic = model;
	if (nic->interface == INTERFACE_MODERN) {
		interface_closed(nic);
	}
}

// Writes a VirtIO vendor capability (4.1.4 struct virtio_pci_cap; the notification one 4.1.4.4) at `at`.
static void put_cap(uint8_t* space, uint8_t at, uint8_t next, uint8_t type, uint8_t bar, uint32_t offset,
		    uint32_t length, uint32_t notify_off_multiplier) {
	uint8_t cap_len = type == CAP_NOTIFY || type == CAP_PCI_CFG ? 20 : 16;
	uint8_t cap[20] = {CAP_ID_VENDOR, next, cap_len, type, bar};
	memcpy(cap + 8, &offset, 4);
	memcpy(cap + 12, &length, 4);
	memcpy(cap + 16, &notify_off_multiplier, 4);
	memcpy(space + at, cap, cap_len);
}

// Lays out configuration space and BARs (model_virtio_set_layout).
static void build_layout(struct model_virtio* nic) {
	uint8_t* space = nic->config_space;
	memset(space, 0, sizeof(nic->config_space));
	memset(nic->regions, 0, sizeof(nic->regions));
	memset(nic->bar_sizes, 0, sizeof(nic->bar_sizes));
	uint16_t device_id =
	    nic->kind == MODEL_VIRTIO_MODERN_ONLY ? MODEL_VIRTIO_NET_MODERN : MODEL_VIRTIO_NET_TRANSITIONAL;
	const uint8_t ids[] = {0xf4, 0x1a, (uint8_t)device_id, (uint8_t)(device_id >> 8)};
	memcpy(space, ids, sizeof(ids));
	space[0x0b] = 0x02; // class: network controller
	space[0x2e] = 1;    // subsystem ID: device type 1, network (4.1.2.1)
	if (nic->kind == MODEL_VIRTIO_LEGACY_ONLY) {
		return; // no capabilities
	}
	space[CS_STATUS] = CS_STATUS_CAP_LIST;
	struct model_region* r = nic->regions;
	switch (nic->layout) {
		case MODEL_VIRTIO_LAYOUT_QEMU: // QEMU's: one BAR, one page per structure (hw/virtio/virtio-pci.c's
					       // order)
			nic->bar_sizes[4] = 0x4000;
			r[REGION_COMMON] = (struct model_region){4, 0x0000, 0x1000};
			r[REGION_ISR] = (struct model_region){4, 0x1000, 0x1000};
			r[REGION_DEVICE] = (struct model_region){4, 0x2000, 0x1000};
			r[REGION_NOTIFY] = (struct model_region){4, 0x3000, 0x1000};
			nic->notify_off_multiplier = 4;
			space[CS_CAP_POINTER] = 0x40;
			put_cap(space, 0x40, 0x50, CAP_COMMON, 4, 0x0000, 0x1000, 0);
			put_cap(space, 0x50, 0x60, CAP_ISR, 4, 0x1000, 0x1000, 0);
			put_cap(space, 0x60, 0x70, CAP_DEVICE, 4, 0x2000, 0x1000, 0);
			put_cap(space, 0x70, 0x84, CAP_NOTIFY, 4, 0x3000, 0x1000, 4);
			put_cap(space, 0x84, 0x00, CAP_PCI_CFG, 0, 0, 0, 0);
			break;
		case MODEL_VIRTIO_LAYOUT_SPLIT:
			// Each structure in a BAR of its own, the smallest each may be, listed backwards behind
			// capabilities the driver must pass over: another capability ID, the PCI configuration access
			// one, one with a reserved BAR, one too short for its type (4.1.4.1); pointers with their
			// reserved bits set (PCI 3.0, 6.7); after the ones to use, a second common configuration that
			// must not be used (the first counts); notify_off_multiplier 0: every queue is notified at the
			// same address (4.1.4.4).
			nic->bar_sizes[1] = 0x1000;
			nic->bar_sizes[2] = 0x1000;
			nic->bar_sizes[5] = 0x1000;
			r[REGION_COMMON] = (struct model_region){5, 0x800, CC_LENGTH};
			r[REGION_ISR] = (struct model_region){1, 0x0, 1};
			r[REGION_DEVICE] = (struct model_region){1, 0x100, 0x40};
			r[REGION_NOTIFY] = (struct model_region){2, 0x0, 2};
			nic->notify_off_multiplier = 0;
			space[CS_CAP_POINTER] = 0xb1;
			space[0xb0] = 0x11; // MSI-X (PCI 3.0, 6.8.2)
			space[0xb1] = 0x8e;
			put_cap(space, 0x8c, 0xa3, CAP_PCI_CFG, 0, 0, 0, 0);
			put_cap(space, 0xa0, 0x79, CAP_COMMON, 7, 0, CC_LENGTH, 0);
			put_cap(space, 0x78, 0x65, CAP_NOTIFY, 2, 0x400, 2, 0);
			space[0x7a] = 16; // cap_len without notify_off_multiplier
			put_cap(space, 0x64, 0x50, CAP_DEVICE, 1, 0x100, 0x40, 0);
			put_cap(space, 0x50, 0x40, CAP_NOTIFY, 2, 0x0, 2, 0);
			put_cap(space, 0x40, 0xc2, CAP_COMMON, 5, 0x800, CC_LENGTH, 0);
			put_cap(space, 0xc0, 0xd0, CAP_COMMON, 5, 0x0, CC_LENGTH, 0);
			put_cap(space, 0xd0, 0x00, CAP_ISR, 1, 0x0, 1, 0);
			break;
		case MODEL_VIRTIO_LAYOUT_PAGE_PER_QUEUE:
			// QEMU's page-per-vq=on: a page of notification address per queue (notify_off_multiplier 4096),
			// all in BAR2, the notification structure listed first.
			nic->bar_sizes[2] = 0x20000; // room for a page per queue of MODEL_VIRTIO_MAX_PAIRS pairs
			r[REGION_COMMON] = (struct model_region){2, 0x0, 0x100};
			r[REGION_ISR] = (struct model_region){2, 0x100, 4};
			r[REGION_DEVICE] = (struct model_region){2, 0x200, 0x100};
			r[REGION_NOTIFY] = (struct model_region){2, 0x1000, 0x1000 * MODEL_VIRTIO_MAX_QUEUES};
			nic->notify_off_multiplier = 0x1000;
			space[CS_CAP_POINTER] = 0x40;
			put_cap(space, 0x40, 0x54, CAP_NOTIFY, 2, 0x1000, 0x1000 * MODEL_VIRTIO_MAX_QUEUES, 0x1000);
			put_cap(space, 0x54, 0x64, CAP_DEVICE, 2, 0x200, 0x100, 0);
			put_cap(space, 0x64, 0x74, CAP_ISR, 2, 0x100, 4, 0);
			put_cap(space, 0x74, 0x00, CAP_COMMON, 2, 0x0, 0x100, 0);
			break;
	}
}

// ---- the legacy interface (4.1.4.8): registers in the IO-port BAR0 (test/seam/seam_io.h) ----

// The model's own register offsets (4.1.4.8, without MSI-X).
#define LEGACY_HOST_FEATURES 0x00
#define LEGACY_GUEST_FEATURES 0x04
#define LEGACY_QUEUE_ADDRESS 0x08
#define LEGACY_QUEUE_SIZE 0x0c
#define LEGACY_QUEUE_SELECT 0x0e
#define LEGACY_QUEUE_NOTIFY 0x10
#define LEGACY_DEVICE_STATUS 0x12
#define LEGACY_ISR_STATUS 0x13
#define LEGACY_DEVICE_CONFIG 0x14
#define LEGACY_BAR_SIZE (LEGACY_DEVICE_CONFIG + CONFIG_LEN)

// The IO BARs the driver opened (ixy_seam_io_open): the handle is the index.
static struct model_virtio* io_handles[16];

static struct model_virtio* io_nic(int handle) {
	if (handle < 0 || handle >= (int)(sizeof(io_handles) / sizeof(io_handles[0])) || !io_handles[handle]) {
		model_violation(NULL, "IO BAR handle %d is not open", handle);
		return NULL;
	}
	return io_handles[handle];
}

int ixy_seam_io_open(const char* pci_addr) {
	struct model_virtio* nic = model_pci_model(pci_addr, &virtio_pci_ops);
	if (!nic || nic->kind == MODEL_VIRTIO_MODERN_ONLY) {
		fprintf(stderr, "pci: %s: BAR0 is not an IO port BAR (model)\n", pci_addr);
		errno = ENXIO;
		return -1;
	}
	for (int i = 0; i < (int)(sizeof(io_handles) / sizeof(io_handles[0])); i++) {
		if (!io_handles[i]) {
			if (nic->io_open) {
				model_violation(nic->addr, "the IO BAR opened twice");
			}
			io_handles[i] = nic;
			nic->io_open = true;
			interface_used(nic, INTERFACE_LEGACY);
			return i;
		}
	}
	model_usage_error("too many IO BARs open");
}

int ixy_seam_io_close(int handle) {
	struct model_virtio* nic = io_nic(handle);
	if (!nic) {
		errno = EBADF;
		return -1;
	}
	io_handles[handle] = NULL;
	nic->io_open = false;
	interface_closed(nic);
	return 0;
}

// The width of the legacy register at offset, 0 if none starts there.
static unsigned legacy_field_width(uint32_t offset) {
	switch (offset) {
		case LEGACY_HOST_FEATURES:
		case LEGACY_GUEST_FEATURES:
		case LEGACY_QUEUE_ADDRESS:
			return 4;
		case LEGACY_QUEUE_SIZE:
		case LEGACY_QUEUE_SELECT:
		case LEGACY_QUEUE_NOTIFY:
			return 2;
		case LEGACY_DEVICE_STATUS:
		case LEGACY_ISR_STATUS:
			return 1;
		default:
			return 0;
	}
}

// 2.4.2: the legacy interface takes the page number of the descriptor table; the rings follow at fixed places.
static void write_queue_pfn(struct model_virtio* nic, uint32_t pfn) {
	uint16_t index = nic->queue_select;
	if (pfn == 0 || index >= MODEL_VIRTIO_MAX_QUEUES) {
		model_violation(nic->addr, "virtqueue %u: page number %u written (ixy never disables a queue)", index,
				pfn);
		return;
	}
	struct model_queue* q = &nic->queues[index];
	uint16_t size = q->size ? q->size : nic->queue_max;
	q->desc = (uint64_t)pfn * 4096;
	q->avail = q->desc + 16u * size;
	q->used = (q->avail + avail_bytes(size) + 4095) / 4096 * 4096;
	enable_queue(nic);
}

static ssize_t io_access(int handle, void* buf, size_t len, off_t offset, bool write) {
	struct model_virtio* nic = io_nic(handle);
	if (!nic) {
		errno = EBADF;
		return -1;
	}
	if (offset < 0 || (size_t)offset >= LEGACY_BAR_SIZE || len > 4) {
		return 0; // beyond the BAR: as a read past the end of the resource file
	}
	uint32_t at = (uint32_t)offset, value = 0;
	unsigned width = (unsigned)len;
	if (write) {
		memcpy(&value, buf, len);
	}
	if (at >= LEGACY_DEVICE_CONFIG) {
		if (write) {
			write_device_config(nic, at - LEGACY_DEVICE_CONFIG, width, value);
		} else {
			value = read_device_config(nic, at - LEGACY_DEVICE_CONFIG, width);
		}
	} else if (legacy_field_width(at) != width) {
		model_violation(nic->addr,
				"legacy register at 0x%02x accessed with %u bytes: not a register of that "
				"width (4.1.4.8)",
				at, width);
	} else if (!write) {
		switch (at) {
			case LEGACY_HOST_FEATURES:
				value = read_features(nic, 0);
				break;
			case LEGACY_GUEST_FEATURES:
				value = (uint32_t)nic->driver_features;
				break;
			case LEGACY_QUEUE_ADDRESS:
				value =
				    nic->queue_select < MODEL_VIRTIO_MAX_QUEUES && nic->queues[nic->queue_select].ready
					? (uint32_t)(nic->queues[nic->queue_select].desc / 4096)
					: 0;
				break;
			case LEGACY_QUEUE_SIZE:
				value = read_queue_size(nic);
				break;
			case LEGACY_QUEUE_SELECT:
				value = nic->queue_select;
				break;
			case LEGACY_DEVICE_STATUS:
				value = nic->status;
				break;
			default:
				value = 0; // QUEUE_NOTIFY, ISR (no interrupts)
		}
	} else {
		switch (at) {
			case LEGACY_GUEST_FEATURES:
				write_features(nic, 0, value);
				break;
			case LEGACY_QUEUE_ADDRESS:
				write_queue_pfn(nic, value);
				break;
			case LEGACY_QUEUE_SELECT:
				nic->queue_select = (uint16_t)value;
				break;
			case LEGACY_QUEUE_NOTIFY:
				notify(nic, (uint16_t)value);
				break;
			case LEGACY_DEVICE_STATUS:
				set_status(nic, (uint8_t)value);
				break;
			default:
				model_violation(nic->addr, "legacy register at 0x%02x written: it is read-only", at);
		}
	}
	if (!write) {
		memcpy(buf, &value, len);
	}
	return (ssize_t)len;
}

ssize_t ixy_seam_io_pread(int handle, void* buf, size_t len, off_t offset) {
	return io_access(handle, buf, len, offset, false);
}

ssize_t ixy_seam_io_pwrite(int handle, const void* buf, size_t len, off_t offset) {
	return io_access(handle, (void*)(uintptr_t)buf, len, offset, true);
}

// ---- the PCI side ----

// Memory the device can still reach is about to be freed: its rings, or a buffer of a chain it may use.
static void dma_freed(void* model, uintptr_t start, size_t size) {
	struct model_virtio* nic = model;
	for (uint16_t i = 0; i < MODEL_VIRTIO_MAX_QUEUES; i++) {
		struct model_queue* q = &nic->queues[i];
		if (!q->ready) {
			continue;
		}
		uint64_t driver_bytes = q->packed ? 4 : avail_bytes(q->size);
		uint64_t device_bytes = q->packed ? 4 : used_bytes(q->size);
		if (ranges_overlap(q->desc, 16u * q->size, start, size) ||
		    ranges_overlap(q->avail, driver_bytes, start, size) ||
		    ranges_overlap(q->used, device_bytes, start, size)) {
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
	if (nic->interface != INTERFACE_NONE) {
		model_violation(nic->addr, "the VirtIO transport is still open when the test ends");
	}
	for (size_t i = 0; i < sizeof(io_handles) / sizeof(io_handles[0]); i++) {
		io_handles[i] = io_handles[i] == nic ? NULL : io_handles[i];
	}
	model_virtio_clear_tx(nic);
	free(nic->tx);
	for (int i = 0; i < MODEL_VIRTIO_MAX_QUEUES; i++) {
		free(nic->queues[i].chains);
	}
	free(nic);
}

static const struct model_pci_ops virtio_pci_ops = {.unmapped = unmapped,
						    .dma_freed = dma_freed,
						    .destroy = destroy,
						    .bar_size = bar_size,
						    .mmio_read = mmio_read,
						    .mmio_write = mmio_write,
						    .config_space = config_space};

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
	model_virtio_set_max_pairs(nic, 1);
	// QEMU's: a 40 byte key, 128 entries, all nine hash types (used only when RSS is offered).
	model_virtio_set_rss_caps(nic, 40, 128, 0x1ff);
	reset(nic);
	const char* layout = getenv("IXY_MODEL_VIRTIO_LAYOUT");
	nic->layout = layout && strcmp(layout, "split") == 0            ? MODEL_VIRTIO_LAYOUT_SPLIT
		      : layout && strcmp(layout, "page-per-queue") == 0 ? MODEL_VIRTIO_LAYOUT_PAGE_PER_QUEUE
									: MODEL_VIRTIO_LAYOUT_QEMU;
	build_layout(nic);
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
	if (size == 0 || size > MAX_QUEUE_SIZE) {
		model_usage_error("queue size %u: 1 up to %u", size, MAX_QUEUE_SIZE);
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

void model_virtio_set_max_pairs(struct model_virtio* nic, uint16_t max_pairs) {
	memcpy(nic->config + CONFIG_MAX_PAIRS, &max_pairs, 2);
}

void model_virtio_set_rss_caps(struct model_virtio* nic, uint8_t max_key_size, uint16_t max_table_length,
			       uint32_t hash_types) {
	nic->config[CONFIG_RSS_MAX_KEY] = max_key_size;
	memcpy(nic->config + CONFIG_RSS_MAX_TABLE, &max_table_length, 2);
	memcpy(nic->config + CONFIG_HASH_TYPES, &hash_types, 4);
}

uint32_t model_virtio_queue_enables(const struct model_virtio* nic) {
	return nic->queue_enables;
}

uint16_t model_virtio_pairs(const struct model_virtio* nic) {
	return nic->pairs;
}

const struct model_virtio_rss* model_virtio_rss(const struct model_virtio* nic) {
	return &nic->rss;
}

uint32_t model_virtio_mq_commands(const struct model_virtio* nic, uint8_t order[8]) {
	memcpy(order, nic->mq_log, sizeof(nic->mq_log));
	return nic->mq_commands;
}

void model_virtio_suppress_notify(struct model_virtio* nic, bool suppress) {
	nic->suppress_notify = suppress;
	for (uint16_t i = 0; i < MODEL_VIRTIO_MAX_QUEUES; i++) {
		if (nic->queues[i].ready) {
			ask_for_notifications(nic, &nic->queues[i]);
		}
	}
}

void model_virtio_event_flags_extra(struct model_virtio* nic, uint16_t bits) {
	nic->event_flags_extra = bits;
	for (uint16_t i = 0; i < MODEL_VIRTIO_MAX_QUEUES; i++) {
		if (nic->queues[i].ready && nic->queues[i].packed) {
			ask_for_notifications(nic, &nic->queues[i]);
		}
	}
}

void model_virtio_kick_at(struct model_virtio* nic, uint16_t queue, bool at, uint16_t event) {
	struct model_queue* q = queue_of(nic, queue);
	if (at && q->ready && !(nic->driver_features & F_EVENT_IDX)) {
		// 2.7.10: avail_event needs EVENT_IDX; 2.8.10: so does RING_EVENT_FLAGS_DESC
		model_usage_error("virtqueue %u: a kick at an event needs VIRTIO_RING_F_EVENT_IDX negotiated", queue);
	}
	q->kick_at = at;
	q->kick_event = event;
	if (q->ready) {
		ask_for_notifications(nic, q);
	}
}

bool model_virtio_kick_owed(const struct model_virtio* nic, uint16_t queue) {
	const struct model_queue* q = ready_queue(nic, queue);
	if (q->packed) { // the 2-bit field only (2.8.14); its reserved value 3 as ENABLE
			 // (model_virtio_event_flags_extra)
		uint32_t now = packed_published(q), since = q->kick_mark;
		uint16_t flags = device_area(q)->flags & EVENT_FLAGS_MASK;
		if (flags == EVENT_DISABLE) {
			return false;
		}
		if (flags == EVENT_DESC) { // 2.8.10: the driver notifies when it passes the offset
			return distance(q, since, event_position(q, q->kick_event)) < distance(q, since, now);
		}
		return now != since;
	}
	if (nic->suppress_notify) {
		return false;
	}
	uint16_t now = avail_ring(q)->idx;
	uint16_t since = (uint16_t)q->kick_mark;
	if (nic->driver_features & F_EVENT_IDX) { // 2.7.10: the entry at avail_event was made available since
		return (uint16_t)(*avail_event(q) - since) < (uint16_t)(now - since);
	}
	return now != since;
}

// Would the device's next used buffer interrupt the driver (2.7.7, 2.8.10, as the driver's area or ring says)?
bool model_virtio_interrupt_armed(const struct model_virtio* nic, uint16_t queue) {
	const struct model_queue* q = ready_queue(nic, queue);
	if (q->packed) {
		volatile struct event_suppress* area = driver_area(q);
		uint16_t flags = area->flags & 3;
		return flags == EVENT_ENABLE ||
		       (flags == EVENT_DESC && event_position(q, area->off_wrap) == q->used_pos);
	}
	if (nic->driver_features & F_EVENT_IDX) {
		return *used_event(q) == q->used_idx;
	}
	return !(avail_ring(q)->flags & VRING_AVAIL_F_NO_INTERRUPT);
}

bool model_virtio_signal(struct model_virtio* nic, uint16_t queue) {
	struct model_queue* q = queue_of(nic, queue);
	if (!queue_live(nic, q)) {
		return false;
	}
	bool due;
	uint32_t now = q->packed ? q->used_pos : q->used_idx;
	// The used buffers since the device last looked, each judged by what the driver says now (QEMU looks after
	// every batch it marks used): an event the driver moved behind them is not crossed later.
	if (now == q->looked) {
		due = false;
	} else if (q->packed) { // 2.8.10: ENABLE, or DESC with the event among the used descriptors since
		volatile struct event_suppress* area = driver_area(q);
		uint16_t flags = area->flags & 3;
		due = flags == EVENT_ENABLE ||
		      (flags == EVENT_DESC &&
		       distance(q, q->looked, event_position(q, area->off_wrap)) < distance(q, q->looked, now));
	} else if (nic->driver_features & F_EVENT_IDX) { // 2.7.10's "used_event crossed"
		due = (uint16_t)(*used_event(q) - q->looked) < (uint16_t)(now - q->looked);
	} else {
		due = !(avail_ring(q)->flags & VRING_AVAIL_F_NO_INTERRUPT);
	}
	q->looked = now;
	if (due) {
		if (queue < MODEL_VIRTIO_MAX_QUEUES && nic->queue_vector[queue] != NO_VECTOR) {
			model_pci_raise_msix(nic->pci, nic->queue_vector[queue]);
		}
	}
	return due;
}

bool model_virtio_packed(const struct model_virtio* nic, uint16_t queue) {
	return queue < MODEL_VIRTIO_MAX_QUEUES && nic->queues[queue].ready && nic->queues[queue].packed;
}

static struct model_queue* packed_queue(struct model_virtio* nic, uint16_t queue) {
	struct model_queue* q = queue_of(nic, queue);
	if (!q->ready || !q->packed) {
		model_usage_error("virtqueue %u is not a packed queue that is set up", queue);
	}
	return q;
}

void model_virtio_used_position(struct model_virtio* nic, uint16_t queue, uint16_t* slot, bool* wrap) {
	const struct model_queue* q = packed_queue(nic, queue);
	*slot = slot_of(q, q->used_pos);
	*wrap = wrap_of(q, q->used_pos);
}

void model_virtio_put_used_raw(struct model_virtio* nic, uint16_t queue, uint16_t slot, uint16_t id, uint32_t len,
			       uint16_t flags) {
	struct model_queue* q = packed_queue(nic, queue);
	volatile struct packed_desc* d = packed_desc(q, slot % q->size);
	d->id = id;
	d->len = len;
	atomic_thread_fence(memory_order_release);
	d->flags = flags;
	q->seen_flags[slot % q->size] = flags;
	nic->misbehaved = true;
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
	return nic->interface == INTERFACE_MODERN ? "modern" : nic->interface == INTERFACE_LEGACY ? "legacy" : NULL;
}

void model_virtio_set_layout(struct model_virtio* nic, enum model_virtio_layout layout) {
	nic->layout = layout;
	build_layout(nic);
}

uint8_t model_virtio_config_byte(const struct model_virtio* nic, uint8_t offset) {
	return nic->config_space[offset];
}

void model_virtio_poke_config(struct model_virtio* nic, uint8_t offset, uint8_t value) {
	nic->config_space[offset] = value;
}

void model_virtio_change_mac_during_read(struct model_virtio* nic, const uint8_t mac[6], unsigned times) {
	memcpy(nic->next_mac, mac, 6);
	nic->mac_changes = times;
}

bool model_virtio_driver_failed(const struct model_virtio* nic) {
	return nic->driver_failed;
}

uint8_t model_virtio_config_generation(const struct model_virtio* nic) {
	return nic->config_generation;
}

bool model_virtio_queue_ready(const struct model_virtio* nic, uint16_t queue) {
	return queue < MODEL_VIRTIO_MAX_QUEUES && nic->queues[queue].ready;
}

uint16_t model_virtio_queue_size(const struct model_virtio* nic, uint16_t queue) {
	return queue < MODEL_VIRTIO_MAX_QUEUES ? nic->queues[queue].size : 0;
}

uint32_t model_virtio_notifications(const struct model_virtio* nic, uint16_t queue) {
	return queue < MODEL_VIRTIO_MAX_QUEUES ? nic->queues[queue].notifications : 0;
}

uint32_t model_virtio_needless_notifications(const struct model_virtio* nic, uint16_t queue) {
	return queue < MODEL_VIRTIO_MAX_QUEUES ? nic->queues[queue].needless_notifications : 0;
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
	const struct model_queue* q = &nic->queues[queue < MODEL_VIRTIO_MAX_QUEUES ? queue : 0];
	if (queue >= MODEL_VIRTIO_MAX_QUEUES || !q->ready) {
		return 0;
	}
	if (q->packed) { // the chains among the available descriptors (the last one of each has no NEXT flag)
		uint16_t chains = 0;
		for (uint32_t pos = q->avail_pos; pos != packed_published(q); pos = advance(q, pos, 1)) {
			chains += !(packed_desc(q, slot_of(q, pos))->flags & PACKED_F_NEXT);
		}
		return chains;
	}
	return (uint16_t)(avail_ring(q)->idx - q->next_avail);
}

// 2.6.4: without VERSION_1 or ANY_LAYOUT (legacy) the device may expect the net header in a descriptor of its own,
// then the frame. With either, ixy puts both into one descriptor; a second one would halve the queue for nothing.
static void check_layout(struct model_virtio* nic, uint16_t queue, struct model_queue* q, uint16_t head) {
	if (queue == model_virtio_ctrl_queue(nic) || (q->packed && nic->misbehaved)) {
		return; // packed: once the test wrote descriptors of its own, the chain may be its bytes
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

// The queue for reading its split rings from the test, or a usage error.
static const struct model_queue* split_queue(const struct model_virtio* nic, uint16_t queue) {
	const struct model_queue* q = ready_queue(nic, queue);
	if (q->packed) {
		model_usage_error("virtqueue %u is packed: it has no available or used ring of its own", queue);
	}
	return q;
}

uint16_t model_virtio_avail_idx(const struct model_virtio* nic, uint16_t queue) {
	return avail_ring(split_queue(nic, queue))->idx;
}

uint16_t model_virtio_avail_entry(const struct model_virtio* nic, uint16_t queue, uint16_t i) {
	const struct model_queue* q = split_queue(nic, queue);
	return avail_ring(q)->ring[i % q->size];
}

// The descriptor at the device's next position is not available. If the driver wrote its flags, they are wrong
// (2.8.1): AVAIL and USED both equal to the wrap counter, or flags written over a used descriptor (where the device
// last saw AVAIL == USED) that still do not make it available: the driver's wrap counter is not the device's.
static void check_not_available(struct model_virtio* nic, uint16_t queue, struct model_queue* q, uint16_t flags) {
	uint16_t slot = slot_of(q, q->avail_pos);
	bool wrap = wrap_of(q, q->avail_pos), avail = flags & PACKED_F_AVAIL, used = flags & PACKED_F_USED;
	uint16_t seen = q->seen_flags[slot];
	bool seen_used = ((seen & PACKED_F_AVAIL) != 0) == ((seen & PACKED_F_USED) != 0);
	if (avail == wrap && used == wrap) {
		model_violation(nic->addr,
				"virtqueue %u (packed): descriptor %u has AVAIL and USED both %u, the wrap counter: "
				"neither available nor used (2.8.1)",
				queue, slot, wrap);
		q->broken = true;
	} else if (flags != seen && seen_used && avail != used) {
		model_violation(
		    nic->addr,
		    "virtqueue %u (packed): descriptor %u written with AVAIL %u, USED %u; the device's wrap "
		    "counter is %u: the driver's wrap counter is wrong (2.8.1)",
		    queue, slot, avail, used, wrap);
		q->broken = true;
	}
}

// 2.8.4 (the device reads the descriptors in ring order), 2.8.6 (a chain: NEXT on all but the last, whose id is the
// buffer's), 2.8.21: takes the buffer at the device's next position, keeps a copy of its descriptors (the driver
// may reuse the slots once the device wrote used descriptors over them) and returns its id.
static bool packed_take(struct model_virtio* nic, uint16_t queue, struct model_queue* q, uint16_t* head) {
	uint16_t flags = packed_desc(q, slot_of(q, q->avail_pos))->flags;
	if (q->broken || !packed_available(q, q->avail_pos, flags)) {
		if (!q->broken && !nic->misbehaved) {
			check_not_available(nic, queue, q, flags);
		}
		return false;
	}
	atomic_thread_fence(memory_order_acquire); // the flags before the descriptor they make available (2.8.21.1)
	const char* wrong = NULL;
	uint32_t n = 0;
	uint16_t id = 0;
	for (uint32_t pos = q->avail_pos; !wrong; pos = advance(q, pos, 1)) {
		volatile struct packed_desc* d = packed_desc(q, slot_of(q, pos));
		flags = d->flags;
		if (n > 0 && !packed_available(q, pos, flags)) {
			wrong = "continues into a descriptor that is not available (2.8.6)";
		} else if (n == PACKED_MAX_CHAIN || n == q->size) {
			wrong = "is longer than the model takes (PACKED_MAX_CHAIN) or than the ring";
		} else if (flags & PACKED_F_INDIRECT) {
			wrong = "has an indirect descriptor, VIRTIO_F_INDIRECT_DESC was not negotiated (2.8.7)";
		} else {
			struct segment s = {d->addr, d->len, (flags & PACKED_F_WRITE) != 0};
			nic->segments[n++] = s;
			id = d->id;
			if (!model_dma_ok((uintptr_t)s.addr, s.len)) {
				wrong = "has a buffer outside DMA memory";
			} else if (!(flags & PACKED_F_NEXT)) {
				break;
			}
		}
	}
	if (!wrong && id >= q->size) {
		wrong = "has a buffer id beyond the queue size (the model takes ids below it, as ixy uses them)";
	} else if (!wrong && q->held[id] && !nic->misbehaved) {
		wrong = "has the buffer id of a buffer the device still holds (2.8.21.1)";
	} else if (!wrong && q->held_descriptors + n > q->size && !nic->misbehaved) {
		wrong = "makes more descriptors available than the ring has: the driver wrote over descriptors the "
			"device holds";
	}
	if (wrong) {
		// After the test wrote descriptors of its own (model_virtio_put_used_raw), these may be its bytes
		if (!nic->misbehaved) {
			model_violation(nic->addr, "virtqueue %u (packed): the buffer at descriptor %u %s", queue,
					slot_of(q, q->avail_pos), wrong);
		}
		q->broken = true;
		return false;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint16_t slot = slot_of(q, advance(q, q->avail_pos, i));
		q->seen_flags[slot] = packed_desc(q, slot)->flags;
	}
	memcpy(q->chains + (size_t)id * PACKED_MAX_CHAIN, nic->segments, n * sizeof(struct segment));
	q->chain_length[id] = (uint8_t)n;
	q->held[id] = true;
	q->held_descriptors += n;
	q->avail_pos = advance(q, q->avail_pos, n);
	*head = id;
	return true;
}

// Gives back the buffer just taken (packed) or the entry just read (split): it stays available.
static void untake(struct model_queue* q, uint16_t head) {
	q->held[head] = false;
	if (q->packed) {
		q->held_descriptors -= q->chain_length[head];
		q->avail_pos = advance(q, q->avail_pos, 2u * q->size - q->chain_length[head]);
	} else {
		q->next_avail--;
	}
}

bool model_virtio_take(struct model_virtio* nic, uint16_t queue, uint16_t* head) {
	struct model_queue* q = queue_of(nic, queue);
	if (!queue_live(nic, q)) {
		return false;
	}
	if (q->packed) {
		bool taken = packed_take(nic, queue, q, head);
		if (taken) {
			check_layout(nic, queue, q, *head);
		}
		return taken;
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
	if ((nic->driver_features & F_EVENT_IDX) && !q->kick_at) {
		ask_for_notifications(nic, q); // avail_event follows the device (2.7.10)
	}
	return true;
}

uint32_t model_virtio_chain_capacity(struct model_virtio* nic, uint16_t queue, uint16_t head) {
	struct model_queue* q = queue_of(nic, queue);
	int n = q->ready && head < q->size ? read_chain(nic, q, head) : 0;
	uint32_t capacity = 0;
	for (int i = 0; i < n; i++) {
		capacity += nic->segments[i].device_writes == (queue % 2 == 0) ? nic->segments[i].len : 0;
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
			// After the test wrote descriptors of its own (a misbehaving device) the chain may hold one of
			// them: then not the driver's fault.
			if (!nic->misbehaved) {
				model_violation(nic->addr,
						"virtqueue %u: chain %u has a device-readable descriptor among those "
						"the device writes",
						queue, head);
			}
			return false;
		}
		uint32_t part = len < nic->segments[i].len ? len : nic->segments[i].len;
		memcpy(seam_dma_virt(nic->segments[i].addr), bytes, part);
		bytes += part;
		len -= part;
	}
	return true;
}

// 2.8.5, 2.8.6, 2.8.22: a used descriptor {id, len, AVAIL = USED = the used wrap counter} at the device's used
// position, which then skips the buffer's descriptors (one for an id the device does not hold).
static void put_used_packed(struct model_virtio* nic, struct model_queue* q, uint32_t id, uint32_t len) {
	uint32_t step = 1;
	if (id < q->size && q->held[id]) {
		step = q->chain_length[id];
		q->held[id] = false;
		q->held_descriptors -= step;
	} else {
		nic->misbehaved = true;
	}
	uint16_t slot = slot_of(q, q->used_pos);
	uint16_t flags = wrap_of(q, q->used_pos) ? PACKED_F_AVAIL | PACKED_F_USED : 0;
	volatile struct packed_desc* d = packed_desc(q, slot);
	d->id = (uint16_t)id;
	d->len = len;
	atomic_thread_fence(memory_order_release); // id and length before the flags that make them used (2.8.22)
	d->flags = flags;
	q->seen_flags[slot] = flags;
	q->used_pos = advance(q, q->used_pos, step);
}

void model_virtio_put_used(struct model_virtio* nic, uint16_t queue, uint32_t id, uint32_t len) {
	struct model_queue* q = queue_of(nic, queue);
	if (!q->ready) {
		model_usage_error("used entry put on virtqueue %u, which is not set up", queue);
	}
	if (q->packed) {
		put_used_packed(nic, q, id, len);
		return;
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
	if (!q->ready || q->packed) {
		model_usage_error("used index set on virtqueue %u, which is not set up or packed", queue);
	}
	nic->misbehaved |= idx != q->used_idx;
	q->used_idx = idx;
	used_ring(q)->idx = idx;
}

uint16_t model_virtio_used_idx(const struct model_virtio* nic, uint16_t queue) {
	const struct model_queue* q = &nic->queues[queue < MODEL_VIRTIO_MAX_QUEUES ? queue : 0];
	return queue >= MODEL_VIRTIO_MAX_QUEUES ? 0 : q->packed ? (uint16_t)q->used_pos : q->used_idx;
}

void model_virtio_used_entry(const struct model_virtio* nic, uint16_t queue, uint16_t slot, uint32_t* id,
			     uint32_t* len) {
	const struct model_queue* q = split_queue(nic, queue);
	*id = used_ring(q)->ring[slot % q->size].id;
	*len = used_ring(q)->ring[slot % q->size].len;
}

void model_virtio_write_used_entry(struct model_virtio* nic, uint16_t queue, uint16_t slot, uint32_t id, uint32_t len) {
	struct model_queue* q = queue_of(nic, queue);
	if (!q->ready || q->packed) {
		model_usage_error("used entry written on virtqueue %u, which is not set up or packed", queue);
	}
	used_ring(q)->ring[slot % q->size].id = id;
	used_ring(q)->ring[slot % q->size].len = len;
	nic->misbehaved = true; // the slot may hold an entry the driver has not read yet
}

// ---- receive, transmit and control as a correct device does them ----

// ---- receive side scaling (VirtIO 1.2, 5.1.6.4.3 hash calculation, 5.1.6.5.7 RSS processing) ----

// Bit `pos` of the key, counting from the most significant bit of key[0]; 0 beyond the key.
static uint32_t key_bit(const uint8_t* key, uint32_t key_len, uint32_t pos) {
	return pos / 8 < key_len ? (key[pos / 8] >> (7 - pos % 8)) & 1u : 0;
}

// The Toeplitz hash, the model's own way: for each set input bit i, the 32 key bits from bit i on, gathered one by
// one, are XORed into the result.
uint32_t model_virtio_toeplitz(const uint8_t* key, uint32_t key_len, const uint8_t* input, uint32_t len) {
	uint32_t hash = 0;
	for (uint32_t i = 0; i < 8 * len; i++) {
		if (!((input[i / 8] >> (7 - i % 8)) & 1u)) {
			continue;
		}
		uint32_t bits = 0;
		for (uint32_t k = 0; k < 32; k++) {
			bits = bits << 1 | key_bit(key, key_len, i + k);
		}
		hash ^= bits;
	}
	return hash;
}

// What the device hashes in a frame under the enabled types (5.1.6.4.3.1, IPv4 only): source and destination
// address, with TCPV4 or UDPV4 for such a packet that is no fragment also source and destination port. Returns the
// input's length, 0 if the frame is not hashed (then it is "unclassified").
static uint32_t hash_input(const uint8_t* f, uint32_t len, uint32_t types, uint8_t input[12]) {
	if (len < 34 || f[12] != 0x08 || f[13] != 0x00 || (f[14] >> 4) != 4) {
		return 0;
	}
	uint32_t ihl = (f[14] & 0x0fu) * 4u;
	if (ihl < 20 || len < 14 + ihl) {
		return 0;
	}
	memcpy(input, f + 14 + 12, 8);
	bool fragment = (f[14 + 6] & 0x3f) != 0 || f[14 + 7] != 0; // More Fragments or an offset
	uint8_t proto = f[14 + 9];
	uint32_t l4_type = proto == 6 ? HASH_TCPV4 : proto == 17 ? HASH_UDPV4 : 0;
	if (l4_type && (types & l4_type) && !fragment && len >= 14 + ihl + 4) {
		memcpy(input + 8, f + 14 + ihl, 4);
		return 12;
	}
	return (types & HASH_IPV4) ? 8 : 0;
}

bool model_virtio_rss_hash(const struct model_virtio* nic, const void* frame, uint32_t len, uint32_t* hash) {
	uint8_t input[12];
	uint32_t n = hash_input(frame, len, nic->rss.hash_types, input);
	if (n == 0) {
		return false;
	}
	*hash = model_virtio_toeplitz(nic->rss.key, nic->rss.key_length, input, n);
	return true;
}

// 5.1.6.5.7 "RSS processing": the hash, masked, indexes the indirection table; a frame not hashed goes to the
// unclassified queue. Without RSS everything goes to receiveq1 (automatic steering, 5.1.6.5.6, may pick any queue
// for a flow the driver has sent nothing on: the model picks the first).
uint16_t model_virtio_steer(const struct model_virtio* nic, const void* frame, uint32_t len) {
	uint32_t hash;
	if (!nic->rss.enabled) {
		return 0;
	}
	if (!model_virtio_rss_hash(nic, frame, len, &hash)) {
		return nic->rss.unclassified;
	}
	return nic->rss.table[hash & nic->rss.table_mask];
}

enum model_virtio_rx_result model_virtio_rx(struct model_virtio* nic, const void* frame, uint32_t len) {
	return model_virtio_rx_on(nic, model_virtio_steer(nic, frame, len), frame, len);
}

uint16_t model_virtio_last_rx_queue(const struct model_virtio* nic) {
	return nic->last_rx_pair;
}

enum model_virtio_rx_result model_virtio_rx_on(struct model_virtio* nic, uint16_t pair, const void* frame,
					       uint32_t len) {
	if (pair >= MODEL_VIRTIO_MAX_PAIRS) {
		model_usage_error("RX queue %u: the model has %u", pair, MODEL_VIRTIO_MAX_PAIRS);
	}
	uint16_t queue = (uint16_t)(2 * pair);
	struct model_queue* q = &nic->queues[queue];
	uint32_t hdr_len = model_virtio_net_hdr_len(nic);
	if (len > LARGEST_RX_WRITE - hdr_len) {
		model_usage_error("RX frame of %u bytes", len);
	}
	if (!queue_live(nic, q) || pair >= nic->pairs) {
		return MODEL_VIRTIO_RX_OFF; // 5.1.6.5.6: only receiveq1 .. receiveq<pairs>
	}
	uint16_t head;
	if (!model_virtio_take(nic, queue, &head)) {
		return MODEL_VIRTIO_RX_NO_BUFFER;
	}
	// 5.1.6.4: no offloads, so flags 0 and GSO_NONE; num_buffers 1 (VERSION_1 only).
	struct virtio_net_hdr header = {.num_buffers = 1};
	memcpy(nic->rx_write, &header, hdr_len);
	memcpy(nic->rx_write + hdr_len, frame, len);
	if (!model_virtio_write_chain(nic, queue, head, nic->rx_write, hdr_len + len)) {
		untake(q, head); // too short: the chain stays available
		return MODEL_VIRTIO_RX_TOO_LONG;
	}
	model_virtio_put_used(nic, queue, head, hdr_len + len);
	nic->last_rx_pair = pair;
	return MODEL_VIRTIO_RX_DELIVERED;
}

static void record_tx(struct model_virtio* nic, uint16_t queue, const uint8_t* frame, uint32_t len) {
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
	nic->tx[nic->tx_count].queue = queue / 2;
	nic->tx[nic->tx_count++].len = len;
}

uint32_t model_virtio_tx_process(struct model_virtio* nic) {
	return model_virtio_tx_process_up_to(nic, UINT32_MAX);
}

// A violation in a chain's contents, unless the chain cannot be trusted to be the driver's (packed, after the test
// wrote descriptors of its own: model_virtio_put_used_raw).
static void chain_violation(struct model_virtio* nic, bool trusted, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void chain_violation(struct model_virtio* nic, bool trusted, const char* fmt, ...) {
	if (!trusted) {
		return;
	}
	char text[256];
	va_list args;
	va_start(args, fmt);
	vsnprintf(text, sizeof(text), fmt, args);
	va_end(args);
	model_violation(nic->addr, "%s", text);
}

// The TX chains of virtqueue `queue`, at most max of them.
static uint32_t tx_process_queue(struct model_virtio* nic, uint16_t queue, uint32_t max) {
	struct model_queue* q = &nic->queues[queue];
	uint32_t hdr_len = model_virtio_net_hdr_len(nic);
	uint32_t sent = 0;
	uint16_t head;
	bool trusted = !(q->packed && nic->misbehaved); // else the chain may hold the test's own bytes
	for (uint32_t taken = 0; taken < max && model_virtio_take(nic, queue, &head); taken++) {
		if (queue / 2 >= nic->pairs) {
			model_violation(nic->addr, "a packet on transmitq%u, %u queue pair(s) are enabled (5.1.6.5.6)",
					queue / 2 + 1, nic->pairs);
		}
		int n = read_chain(nic, q, head);
		uint32_t total = 0;
		for (int i = 0; i < n; i++) {
			struct segment s = nic->segments[i];
			if (s.device_writes) {
				chain_violation(nic, trusted, "TX chain %u has a device-writable descriptor (5.1.6.2)",
						head);
			} else if (total + s.len <= sizeof(nic->rx_write)) {
				memcpy(nic->rx_write + total, seam_dma_virt(s.addr), s.len);
				total += s.len;
			} else {
				chain_violation(nic, trusted, "TX chain %u is longer than %zu bytes", head,
						sizeof(nic->rx_write));
			}
		}
		struct virtio_net_hdr header = {0};
		memcpy(&header, nic->rx_write, total < hdr_len ? total : hdr_len);
		if (n > 0 && total < hdr_len) {
			chain_violation(nic, trusted, "TX chain %u has %u bytes, less than the header (5.1.6.2)", head,
					total);
		} else if (n > 0 && (header.flags != 0 || header.gso_type != 0)) {
			// 5.1.6.2.1: no checksum or segmentation offload without the features for them.
			chain_violation(nic, trusted, "TX chain %u: header flags 0x%x, gso_type %u without offloads",
					head, header.flags, header.gso_type);
		} else if (n > 0) {
			record_tx(nic, queue, nic->rx_write + hdr_len, total - hdr_len);
			sent++;
		}
		model_virtio_put_used(nic, queue, head, 0);
	}
	return sent;
}

uint32_t model_virtio_tx_process_up_to(struct model_virtio* nic, uint32_t max) {
	uint32_t sent = 0;
	for (uint16_t queue = 1; queue < MODEL_VIRTIO_MAX_QUEUES && sent < max; queue += 2) {
		sent += tx_process_queue(nic, queue, max - sent);
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

uint16_t model_virtio_tx_frame_queue(const struct model_virtio* nic, uint32_t i) {
	if (i >= nic->tx_count) {
		model_usage_error("TX frame %u of %u", i, nic->tx_count);
	}
	return nic->tx[i].queue;
}

void model_virtio_clear_tx(struct model_virtio* nic) {
	for (uint32_t i = 0; i < nic->tx_count; i++) {
		free(nic->tx[i].data);
	}
	nic->tx_count = 0;
}

static uint16_t le16(const uint8_t* p) {
	return (uint16_t)(p[0] | p[1] << 8);
}

// VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET (VirtIO 1.2, 5.1.6.5.6): le16 virtqueue_pairs, 1..max_virtqueue_pairs; it ends
// RSS (the last multiqueue command decides, 5.1.6.5.5). A bad command is the driver's mistake (a violation).
static bool mq_pairs_set(struct model_virtio* nic, const uint8_t* data, uint32_t len) {
	uint16_t max_pairs;
	memcpy(&max_pairs, nic->config + CONFIG_MAX_PAIRS, 2);
	uint16_t pairs = len == 2 ? le16(data) : 0;
	if (!(nic->driver_features & F_MQ) || len != 2 || pairs < 1 || pairs > max_pairs ||
	    pairs > MODEL_VIRTIO_MAX_PAIRS) {
		model_violation(nic->addr,
				"VQ_PAIRS_SET with %u data bytes, %u pairs (max_virtqueue_pairs %u, MQ %s) (5.1.6.5.6)",
				len, pairs, max_pairs, (nic->driver_features & F_MQ) ? "negotiated" : "not negotiated");
		return false;
	}
	nic->pairs = pairs;
	nic->rss.enabled = false;
	return true;
}

// VIRTIO_NET_CTRL_MQ_RSS_CONFIG (VirtIO 1.2, 5.1.6.5.7): struct virtio_net_rss_config, checked field by field
// against the driver requirements there.
static bool mq_rss_config(struct model_virtio* nic, const uint8_t* d, uint32_t len) {
	struct model_virtio_rss rss = {0};
	uint16_t max_pairs, max_table;
	memcpy(&max_pairs, nic->config + CONFIG_MAX_PAIRS, 2);
	memcpy(&max_table, nic->config + CONFIG_RSS_MAX_TABLE, 2);
	uint32_t supported;
	memcpy(&supported, nic->config + CONFIG_HASH_TYPES, 4);
	const char* wrong = NULL;
	uint32_t entries = len >= 8 ? le16(d + 4) + 1u : 0;
	if (!(nic->driver_features & F_RSS)) {
		wrong = "VIRTIO_NET_F_RSS not negotiated";
	} else if (len < 8 || len < 8 + 2 * entries + 3) {
		wrong = "shorter than its table";
	} else if ((entries & (entries - 1)) != 0 || entries - 1 >= max_table || entries > MODEL_VIRTIO_MAX_RSS_TABLE) {
		wrong = "indirection_table_mask + 1 is no power of two or not below rss_max_indirection_table_length";
	}
	if (!wrong) {
		rss.hash_types = (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
		rss.table_mask = (uint16_t)(entries - 1);
		rss.unclassified = le16(d + 6);
		for (uint32_t i = 0; i < entries; i++) {
			rss.table[i] = le16(d + 8 + 2 * i);
		}
		const uint8_t* tail = d + 8 + 2 * entries;
		rss.max_tx_vq = le16(tail);
		rss.key_length = tail[2];
		memcpy(rss.key, tail + 3,
		       len - (8 + 2 * entries + 3) < sizeof(rss.key) ? len - (8 + 2 * entries + 3) : sizeof(rss.key));
		uint16_t highest = rss.unclassified;
		for (uint32_t i = 0; i < entries; i++) {
			highest = rss.table[i] > highest ? rss.table[i] : highest;
		}
		if (len != 8 + 2 * entries + 3 + rss.key_length) {
			wrong = "its length does not match hash_key_length";
		} else if (rss.key_length > nic->config[CONFIG_RSS_MAX_KEY]) {
			wrong = "hash_key_length beyond rss_max_key_size";
		} else if (rss.hash_types & ~supported) {
			wrong = "hash types the device does not support";
		} else if (rss.max_tx_vq < 1 || rss.max_tx_vq > max_pairs || rss.max_tx_vq > MODEL_VIRTIO_MAX_PAIRS) {
			wrong = "max_tx_vq not within 1..max_virtqueue_pairs";
		} else if (highest >= rss.max_tx_vq) {
			wrong = "a receive queue beyond the enabled ones (max_tx_vq)";
		}
	}
	if (wrong) {
		model_violation(nic->addr, "RSS_CONFIG of %u data bytes: %s (5.1.6.5.7)", len, wrong);
		return false;
	}
	rss.enabled = true;
	nic->rss = rss;
	nic->pairs = rss.max_tx_vq;
	return true;
}

// 5.1.6.5: every chain is class and command, data (device-readable), then the ack byte (device-writable).
static void answer_control_queue(struct model_virtio* nic) {
	uint16_t ctrl = model_virtio_ctrl_queue(nic);
	struct model_queue* q = &nic->queues[ctrl];
	uint16_t head;
	while (nic->ctrl_answer != MODEL_VIRTIO_CTRL_SILENT && model_virtio_take(nic, ctrl, &head)) {
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
		bool mq = len >= 2 && command[0] == CTRL_MQ;
		if (nic->ctrl_answer == MODEL_VIRTIO_CTRL_ERR) {
			result = VIRTIO_NET_ERR;
		} else if (mq && command[1] == CTRL_MQ_VQ_PAIRS_SET) {
			nic->mq_log[nic->mq_commands++ % 8] = CTRL_MQ_VQ_PAIRS_SET;
			result = mq_pairs_set(nic, command + 2, len - 2) ? VIRTIO_NET_OK : VIRTIO_NET_ERR;
		} else if (mq && command[1] == CTRL_MQ_RSS_CONFIG) {
			nic->mq_log[nic->mq_commands++ % 8] = CTRL_MQ_RSS_CONFIG;
			result = mq_rss_config(nic, command + 2, len - 2) ? VIRTIO_NET_OK : VIRTIO_NET_ERR;
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
		model_virtio_put_used(nic, ctrl, head, ack ? 1 : 0);
	}
}
