// Tests of the VirtIO model's packed virtqueues and event suppression, without the driver: a tiny hand-written
// "driver" in this file sets the device up through the modern interface (common configuration, 4.1.4.3), writes
// packed descriptors as the VirtIO 1.2 specification says (2.8) and reads the used ones, and the test checks what
// the model does: both wrap counters, chains, used descriptors, out-of-order completion, event suppression and
// EVENT_IDX on split rings, and the violations a wrong driver earns. If these pass, a failure in the driver tests
// points at the driver.
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <ixy/memory.h>

#include "../check.h"
#include "model_test.h"
#include "pci.h"
#include "seam.h"
#include "seam_io.h"
#include "virtio_model.h"

#define ADDR "0000:04:00.0"
// The QEMU layout of the model (virtio_model.h): all structures in BAR4, notification at 0x3000, multiplier 4.
#define BAR 4
#define COMMON 0x0000
#define NOTIFY 0x3000
#define NOTIFY_MULTIPLIER 4
// struct virtio_pci_common_cfg (4.1.4.3), the test's own offsets.
#define DEVICE_FEATURE_SELECT 0x00
#define DEVICE_FEATURE 0x04
#define DRIVER_FEATURE_SELECT 0x08
#define DRIVER_FEATURE 0x0c
#define DEVICE_STATUS 0x14
#define QUEUE_SELECT 0x16
#define QUEUE_SIZE 0x18
#define QUEUE_ENABLE 0x1c
#define QUEUE_DESC 0x20
#define QUEUE_DRIVER 0x28
#define QUEUE_DEVICE 0x30
// Device status (2.1), features (6, 5.1.3).
#define ACKNOWLEDGE 1
#define DRIVER 2
#define DRIVER_OK 4
#define FEATURES_OK 8
#define F_VERSION_1 (1ull << 32)
// Packed descriptors (2.8.13) and event suppression (2.8.14).
struct desc {
	uint64_t addr;
	uint32_t len;
	uint16_t id;
	uint16_t flags;
};
#define F_NEXT 1
#define F_WRITE 2
#define F_AVAIL (1u << 7)
#define F_USED (1u << 15)
#define EVENT_ENABLE 0
#define EVENT_DISABLE 1
#define EVENT_DESC 2
// Where the test puts things in a queue's DMA memory.
#define DRIVER_AREA 0x10000
#define DEVICE_AREA 0x11000
#define BUFFERS 0x20000
#define BUFFER_SIZE 2048
#define HDR_LEN 12 // the virtio-net header with VERSION_1 (5.1.6)

// The driver's side of one packed queue (2.8.1: both wrap counters start at 1).
struct hand_queue {
	struct dma_memory mem;
	uint16_t size;
	uint16_t avail, used; // next slots
	bool avail_wrap, used_wrap;
	uint8_t chain[64]; // by buffer id: descriptors of the buffer, to skip used ones (2.8.6)
};

static struct model_virtio* nic;
static struct pci_device* pci;
static uint8_t* bar;
static size_t bar_size;
#define QUEUES 3 // RX, TX and the control queue, whose chains may be of any length
#define CTRL 2
#define F_CTRL_VQ (1ull << 17)
static struct hand_queue queues[QUEUES];

static void cw(uint32_t offset, unsigned width, uint32_t value) {
	ixy_seam_mmio_write(bar + COMMON + offset, width, value);
}

static uint32_t cr(uint32_t offset, unsigned width) {
	return ixy_seam_mmio_read(bar + COMMON + offset, width);
}

static void notify(uint16_t queue) {
	ixy_seam_mmio_write(bar + NOTIFY + queue * NOTIFY_MULTIPLIER, 2, queue);
}

static void write_address(uint32_t offset, uintptr_t address) {
	cw(offset, 4, (uint32_t)address);
	cw(offset + 4, 4, (uint32_t)((uint64_t)address >> 32));
}

static volatile struct desc* ring(struct hand_queue* q) {
	return (volatile struct desc*)q->mem.virt;
}

static uint8_t* buffer(struct hand_queue* q, uint16_t id, unsigned part) {
	return (uint8_t*)q->mem.virt + BUFFERS + (id * 4u + part) * BUFFER_SIZE;
}

static volatile uint16_t* area(struct hand_queue* q, uint32_t at, unsigned field) {
	return (volatile uint16_t*)((uint8_t*)q->mem.virt + at) + field;
}

// Sets up a modern device with RX, TX and control queues of `size` and the features `accepted` (3.1.1), the event areas
// at driver_area_at (misaligned on purpose in one test); DRIVER_OK.
static void hand_open(uint16_t size, uint64_t accepted, uint32_t driver_area_at) {
	nic = model_virtio_add(ADDR, MODEL_VIRTIO_MODERN_ONLY);
	model_virtio_offer(nic, MODEL_VIRTIO_DEFAULT_FEATURES | MODEL_VIRTIO_F_RING_PACKED | MODEL_VIRTIO_F_EVENT_IDX);
	pci = pci_sysfs_access.open(ADDR);
	if (!pci) {
		model_usage_error("the model cannot open %s", ADDR);
	}
	CHECK_EQ(pci_set_bus_master(pci, true), 0);
	bar = pci->access->map_bar(pci, BAR, &bar_size);
	if (!bar) {
		model_usage_error("the model cannot map BAR%u of %s", BAR, ADDR);
	}
	cw(DEVICE_STATUS, 1, 0);
	cw(DEVICE_STATUS, 1, ACKNOWLEDGE);
	cw(DEVICE_STATUS, 1, ACKNOWLEDGE | DRIVER);
	uint64_t offered = 0;
	for (uint32_t select = 0; select < 2; select++) {
		cw(DEVICE_FEATURE_SELECT, 4, select);
		offered |= (uint64_t)cr(DEVICE_FEATURE, 4) << (32 * select);
	}
	accepted |= F_CTRL_VQ;
	CHECK_EQ(offered & accepted, accepted);
	for (uint32_t select = 0; select < 2; select++) {
		cw(DRIVER_FEATURE_SELECT, 4, select);
		cw(DRIVER_FEATURE, 4, (uint32_t)(accepted >> (32 * select)));
	}
	cw(DEVICE_STATUS, 1, ACKNOWLEDGE | DRIVER | FEATURES_OK);
	for (uint16_t i = 0; i < QUEUES; i++) {
		struct hand_queue* q = &queues[i];
		*q = (struct hand_queue){.size = size, .avail_wrap = true, .used_wrap = true};
		CHECK_EQ(memory_allocate_dma(BUFFERS + 4u * size * BUFFER_SIZE, true, &q->mem), 0);
		cw(QUEUE_SELECT, 2, i);
		CHECK(cr(QUEUE_SIZE, 2) >= size);
		cw(QUEUE_SIZE, 2, size);
		write_address(QUEUE_DESC, q->mem.phy);
		write_address(QUEUE_DRIVER, q->mem.phy + driver_area_at);
		write_address(QUEUE_DEVICE, q->mem.phy + DEVICE_AREA);
		cw(QUEUE_ENABLE, 2, 1);
	}
	cw(DEVICE_STATUS, 1, ACKNOWLEDGE | DRIVER | FEATURES_OK | DRIVER_OK);
}

static void hand_close(void) {
	cw(DEVICE_STATUS, 1, 0);
	CHECK_EQ(munmap(bar, bar_size), 0);
	pci_close(pci);
	for (int i = 0; i < QUEUES; i++) {
		memory_free_dma(&queues[i].mem);
	}
	model_pci_remove_all();
}

// The flags that make a descriptor available in the driver's current lap (2.8.1).
static uint16_t avail_flags(bool wrap) {
	return wrap ? F_AVAIL : F_USED;
}

// 2.8.21: makes buffer `id` available as a chain of n descriptors of len bytes each (device-writable on RX), the
// first descriptor's flags written last; `flags_xor` spoils the head's flags for the tests of wrong drivers.
static void make_available(uint16_t queue, uint16_t id, unsigned n, uint32_t len, uint16_t flags_xor) {
	struct hand_queue* q = &queues[queue];
	uint16_t head = q->avail;
	uint16_t head_flags = 0;
	for (unsigned k = 0; k < n; k++) {
		volatile struct desc* d = &ring(q)[q->avail];
		d->addr = q->mem.phy + (uintptr_t)(buffer(q, id, k) - (uint8_t*)q->mem.virt);
		d->len = len;
		d->id = id;
		uint16_t flags =
		    (uint16_t)((k + 1 < n ? F_NEXT : 0) | (queue % 2 == 0 ? F_WRITE : 0) | avail_flags(q->avail_wrap));
		if (k == 0) {
			head_flags = flags;
		} else {
			d->flags = flags;
		}
		if (++q->avail == q->size) {
			q->avail = 0;
			q->avail_wrap = !q->avail_wrap;
		}
	}
	q->chain[id] = (uint8_t)n;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	ring(q)[head].flags = head_flags ^ flags_xor;
}

// 2.8.22: the next used descriptor, if the device wrote one (AVAIL == USED == the driver's used wrap counter).
static bool next_used(uint16_t queue, uint16_t* id, uint32_t* len) {
	struct hand_queue* q = &queues[queue];
	volatile struct desc* d = &ring(q)[q->used];
	uint16_t flags = d->flags;
	bool avail = flags & F_AVAIL, used = flags & F_USED;
	if (avail != used || used != q->used_wrap) {
		return false;
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	*id = d->id;
	*len = d->len;
	q->used += q->chain[*id];
	if (q->used >= q->size) {
		q->used -= q->size;
		q->used_wrap = !q->used_wrap;
	}
	return true;
}

static uint16_t take(uint16_t queue) {
	uint16_t id = 0xffff;
	CHECK(model_virtio_take(nic, queue, &id));
	return id;
}

// Three laps of an 8-descriptor ring with chains of one and three descriptors (some across the end of the ring),
// completed partly out of order: ids, lengths, both wrap counters and the skipped descriptors. On the control queue,
// where chains may be of any length (RX and TX chains are one descriptor with VERSION_1, 2.6.4).
static void test_packed_wrap_and_chains(void) {
	model_test_begin(__func__);
	hand_open(8, F_VERSION_1 | MODEL_VIRTIO_F_RING_PACKED, DRIVER_AREA);
	CHECK(model_virtio_packed(nic, 0));
	CHECK(model_virtio_packed(nic, 1));
	uint16_t slot;
	bool wrap;
	unsigned descriptors = 0;
	for (unsigned round = 0; round < 8; round++) {
		// two buffers: ids 2*round % 8 with 3 descriptors, and the next with 1
		uint16_t a = (uint16_t)(2 * round % 8), b = (uint16_t)(a + 1);
		make_available(CTRL, a, 3, 100, 0);
		make_available(CTRL, b, 1, 200, 0);
		CHECK_EQ(model_virtio_avail_pending(nic, CTRL), 2);
		CHECK_EQ(take(CTRL), a);
		CHECK_EQ(model_virtio_chain_capacity(nic, CTRL, a), 300);
		CHECK_EQ(take(CTRL), b);
		CHECK_EQ(model_virtio_chain_capacity(nic, CTRL, b), 200);
		CHECK_EQ(model_virtio_avail_pending(nic, CTRL), 0);
		uint8_t data[300];
		for (unsigned i = 0; i < sizeof(data); i++) {
			data[i] = (uint8_t)(i + round);
		}
		CHECK(model_virtio_write_chain(nic, CTRL, a, data, 300));
		CHECK(!model_virtio_write_chain(nic, CTRL, b, data, 201)); // too long: nothing written
		CHECK(model_virtio_write_chain(nic, CTRL, b, data, 150));
		// odd rounds complete b first: its used descriptor goes where a's chain began
		model_virtio_put_used(nic, CTRL, round % 2 ? b : a, round % 2 ? 150 : 300);
		model_virtio_put_used(nic, CTRL, round % 2 ? a : b, round % 2 ? 300 : 150);
		uint16_t id;
		uint32_t len;
		CHECK(next_used(CTRL, &id, &len));
		CHECK_EQ(id, round % 2 ? b : a);
		CHECK_EQ(len, round % 2 ? 150u : 300u);
		CHECK(next_used(CTRL, &id, &len));
		CHECK_EQ(id, round % 2 ? a : b);
		CHECK(!next_used(CTRL, &id, &len));
		CHECK_EQ(memcmp(buffer(&queues[CTRL], a, 0), data, 100), 0);
		CHECK_EQ(memcmp(buffer(&queues[CTRL], a, 2), data + 200, 100), 0);
		CHECK_EQ(memcmp(buffer(&queues[CTRL], b, 0), data, 150), 0);
		descriptors += 4;
		model_virtio_used_position(nic, CTRL, &slot, &wrap);
		CHECK_EQ(slot, descriptors % 8);
		CHECK_EQ(wrap, (descriptors / 8) % 2 == 0); // flips every 8 descriptors, starting at 1
		CHECK_EQ(queues[CTRL].used_wrap, wrap);
		CHECK_EQ(queues[CTRL].avail_wrap, wrap);
	}
	CHECK_NO_NEW_VIOLATIONS();
	hand_close();
}

// The model's own engines on packed queues: a frame received into the next RX buffer, a TX chain sent on notify.
static void test_packed_rx_tx(void) {
	model_test_begin(__func__);
	hand_open(4, F_VERSION_1 | MODEL_VIRTIO_F_RING_PACKED, DRIVER_AREA);
	uint8_t frame[60];
	for (unsigned i = 0; i < sizeof(frame); i++) {
		frame[i] = (uint8_t)(0xa0 + i);
	}
	CHECK_EQ(model_virtio_rx(nic, frame, sizeof(frame)), MODEL_VIRTIO_RX_NO_BUFFER);
	for (unsigned lap = 0; lap < 3; lap++) {
		for (uint16_t id = 0; id < 4; id++) {
			make_available(0, id, 1, BUFFER_SIZE, 0);
			make_available(1, id, 1, HDR_LEN + sizeof(frame), 0);
			memset(buffer(&queues[1], id, 0), 0, HDR_LEN);
			memcpy(buffer(&queues[1], id, 0) + HDR_LEN, frame, sizeof(frame));
		}
		for (uint16_t id = 0; id < 4; id++) {
			CHECK_EQ(model_virtio_rx(nic, frame, sizeof(frame)), MODEL_VIRTIO_RX_DELIVERED);
			uint16_t used_id;
			uint32_t len;
			CHECK(next_used(0, &used_id, &len));
			CHECK_EQ(used_id, id);
			CHECK_EQ(len, HDR_LEN + sizeof(frame));
			CHECK_EQ(memcmp(buffer(&queues[0], id, 0) + HDR_LEN, frame, sizeof(frame)), 0);
		}
		CHECK(model_virtio_kick_owed(nic, 1)); // ENABLE: every new buffer asks for a notification
		notify(1);
		CHECK(!model_virtio_kick_owed(nic, 1));
		CHECK_EQ(model_virtio_tx_count(nic), 4 * (lap + 1));
		for (uint16_t id = 0; id < 4; id++) {
			uint16_t used_id;
			uint32_t len;
			CHECK(next_used(1, &used_id, &len));
			CHECK_EQ(used_id, id);
		}
	}
	uint32_t len;
	const uint8_t* sent = model_virtio_tx_frame(nic, 11, &len);
	CHECK_EQ(len, sizeof(frame));
	CHECK_EQ(memcmp(sent, frame, sizeof(frame)), 0);
	CHECK_NO_NEW_VIOLATIONS();
	hand_close();
}

// Event suppression (2.8.10, 2.8.14): the device's area as the knobs set it, the driver's area as the model reads
// it, and a driver that does not notify when the device asked: the kick is owed and the frame stays unsent.
static void test_packed_event_suppression(void) {
	model_test_begin(__func__);
	hand_open(4, F_VERSION_1 | MODEL_VIRTIO_F_RING_PACKED | MODEL_VIRTIO_F_EVENT_IDX, DRIVER_AREA);
	struct hand_queue* tx = &queues[1];
	CHECK_EQ(*area(tx, DEVICE_AREA, 1), EVENT_ENABLE);
	model_virtio_suppress_notify(nic, true);
	CHECK_EQ(*area(tx, DEVICE_AREA, 1), EVENT_DISABLE);
	make_available(1, 0, 1, HDR_LEN + 60, 0);
	CHECK(!model_virtio_kick_owed(nic, 1));
	model_virtio_suppress_notify(nic, false);
	CHECK_EQ(*area(tx, DEVICE_AREA, 1), EVENT_ENABLE);
	CHECK(!model_virtio_kick_owed(nic, 1)); // made available before the device asked
	CHECK_EQ(model_virtio_tx_process(nic), 1);
	// DESC at slot 2 of the first lap: buffers in slots 1 and 2 ask for a notification at the second
	model_virtio_kick_at(nic, 1, true, 2 | 0x8000);
	CHECK_EQ(*area(tx, DEVICE_AREA, 0), 2 | 0x8000);
	CHECK_EQ(*area(tx, DEVICE_AREA, 1), EVENT_DESC);
	make_available(1, 1, 1, HDR_LEN + 60, 0);
	CHECK(!model_virtio_kick_owed(nic, 1));
	make_available(1, 2, 1, HDR_LEN + 60, 0);
	CHECK(model_virtio_kick_owed(nic, 1)); // the driver "forgets" the notification: the frames stay
	CHECK_EQ(model_virtio_tx_count(nic), 1);
	notify(1);
	CHECK(!model_virtio_kick_owed(nic, 1));
	CHECK_EQ(model_virtio_tx_count(nic), 3);
	// the driver's area: ENABLE, DISABLE, DESC at the device's used position (slot 3 of lap 1 after 3 TX buffers)
	CHECK(model_virtio_interrupt_armed(nic, 1));
	*area(tx, DRIVER_AREA, 1) = EVENT_DISABLE;
	CHECK(!model_virtio_interrupt_armed(nic, 1));
	*area(tx, DRIVER_AREA, 0) = 3 | 0x8000;
	*area(tx, DRIVER_AREA, 1) = EVENT_DESC;
	CHECK(model_virtio_interrupt_armed(nic, 1));
	*area(tx, DRIVER_AREA, 0) = 3; // the wrong lap
	CHECK(!model_virtio_interrupt_armed(nic, 1));
	// signalling: DESC at slot 0 of the second lap; the used buffer in slot 3 does not reach it, the next one does
	CHECK(!model_virtio_signal(nic, 1)); // used buffers since the device last looked: none asked (DESC 3 lap 0)
	*area(tx, DRIVER_AREA, 0) = 0;
	make_available(1, 3, 1, HDR_LEN + 60, 0);
	model_virtio_kick_at(nic, 1, false, 0);
	notify(1);
	CHECK(!model_virtio_signal(nic, 1));
	make_available(1, 0, 1, HDR_LEN + 60, 0);
	notify(1);
	CHECK(model_virtio_signal(nic, 1));
	CHECK(!model_virtio_signal(nic, 1)); // nothing new since
	CHECK_EQ(model_virtio_tx_count(nic), 5);
	CHECK_NO_NEW_VIOLATIONS();
	hand_close();
}

// What a wrong driver earns, each on a fresh device: the device takes nothing after a violation.
static void test_packed_violations(void) {
	model_test_begin(__func__);
	uint16_t id;
	// a wrap counter that starts at 0: AVAIL 0, USED 1 in the first lap
	hand_open(8, F_VERSION_1 | MODEL_VIRTIO_F_RING_PACKED, DRIVER_AREA);
	make_available(0, 0, 1, 100, F_AVAIL | F_USED);
	CHECK(!model_virtio_take(nic, 0, &id));
	CHECK_VIOLATION("the driver's wrap counter is wrong");
	CHECK(!model_virtio_take(nic, 0, &id));
	CHECK_NO_NEW_VIOLATIONS();
	hand_close();
	// AVAIL and USED both 1
	hand_open(8, F_VERSION_1 | MODEL_VIRTIO_F_RING_PACKED, DRIVER_AREA);
	make_available(0, 0, 1, 100, F_USED);
	CHECK(!model_virtio_take(nic, 0, &id));
	CHECK_VIOLATION("neither available nor used");
	hand_close();
	// a buffer id the device still holds
	hand_open(8, F_VERSION_1 | MODEL_VIRTIO_F_RING_PACKED, DRIVER_AREA);
	make_available(0, 5, 1, 100, 0);
	make_available(0, 5, 1, 100, 0);
	CHECK_EQ(take(0), 5);
	CHECK(!model_virtio_take(nic, 0, &id));
	CHECK_VIOLATION("a buffer the device still holds");
	hand_close();
	// more descriptors than the ring has: four chains of two, then one more over the first
	hand_open(8, F_VERSION_1 | MODEL_VIRTIO_F_RING_PACKED, DRIVER_AREA);
	for (uint16_t i = 0; i < 4; i++) {
		make_available(CTRL, i, 2, 100, 0);
		CHECK_EQ(take(CTRL), i);
	}
	make_available(CTRL, 4, 1, 100, 0);
	CHECK(!model_virtio_take(nic, CTRL, &id));
	CHECK_VIOLATION("more descriptors available than the ring has");
	hand_close();
	// a chain that runs into a descriptor not made available: NEXT on the last one the driver wrote
	hand_open(8, F_VERSION_1 | MODEL_VIRTIO_F_RING_PACKED, DRIVER_AREA);
	make_available(0, 0, 1, 100, F_NEXT);
	CHECK(!model_virtio_take(nic, 0, &id));
	CHECK_VIOLATION("continues into a descriptor that is not available");
	hand_close();
	// notification data without VIRTIO_F_NOTIFICATION_DATA
	hand_open(8, F_VERSION_1 | MODEL_VIRTIO_F_RING_PACKED, DRIVER_AREA);
	ixy_seam_mmio_write(bar + NOTIFY + NOTIFY_MULTIPLIER, 4, 1 | 5u << 16);
	CHECK_VIOLATION("VIRTIO_F_NOTIFICATION_DATA was not negotiated");
	hand_close();
	// event areas aligned to 2, not 4
	hand_open(8, F_VERSION_1 | MODEL_VIRTIO_F_RING_PACKED, DRIVER_AREA + 2);
	CHECK_VIOLATION("(2.8.10.1)");
	CHECK_VIOLATION("(2.8.10.1)");
	CHECK_VIOLATION("(2.8.10.1)");
	CHECK_VIOLATION("DRIVER_OK before the RX and TX queues were set up");
	CHECK(!model_virtio_queue_ready(nic, 0));
	hand_close();
	CHECK_NO_NEW_VIOLATIONS();
}

// A hostile device on a packed ring: used descriptors the driver reads as the raw knobs wrote them.
static void test_packed_hostile_device(void) {
	model_test_begin(__func__);
	hand_open(8, F_VERSION_1 | MODEL_VIRTIO_F_RING_PACKED, DRIVER_AREA);
	make_available(0, 3, 1, 100, 0);
	CHECK_EQ(take(0), 3);
	// the wrong wrap bits: the driver sees nothing
	model_virtio_put_used_raw(nic, 0, 0, 3, 100, 0);
	uint16_t id;
	uint32_t len;
	CHECK(!next_used(0, &id, &len));
	CHECK(model_virtio_misbehaved(nic));
	// an id never offered and a length beyond the buffer, as the device writes them
	model_virtio_put_used(nic, 0, 7, 99999);
	CHECK(next_used(0, &id, &len));
	CHECK_EQ(id, 7);
	CHECK_EQ(len, 99999u);
	// written ahead of the used position, with this lap's flags
	model_virtio_put_used_raw(nic, 0, 4, 3, 10, F_AVAIL | F_USED);
	CHECK_EQ(ring(&queues[0])[4].id, 3);
	CHECK_EQ(ring(&queues[0])[4].flags, F_AVAIL | F_USED);
	CHECK_NO_NEW_VIOLATIONS();
	hand_close();
}

// Split rings with VIRTIO_F_EVENT_IDX (2.7.7, 2.7.10): avail_event follows the device or sits where the knob puts
// it, used_event arms the driver's interrupts, a missed notification is owed.
static void test_split_event_idx(void) {
	model_test_begin(__func__);
	hand_open(8, F_VERSION_1 | MODEL_VIRTIO_F_EVENT_IDX, DRIVER_AREA);
	CHECK(!model_virtio_packed(nic, 1));
	struct hand_queue* tx = &queues[1];
	// split layout: descriptor table at 0, available ring at DRIVER_AREA, used ring at DEVICE_AREA
	volatile struct {
		uint64_t addr;
		uint32_t len;
		uint16_t flags, next;
	}* table = tx->mem.virt;
	volatile uint16_t* avail = area(tx, DRIVER_AREA, 0); // flags, idx, ring[8], used_event
	volatile uint16_t* avail_event = (volatile uint16_t*)((uint8_t*)tx->mem.virt + DEVICE_AREA + 4 + 8 * 8);
	CHECK_EQ(*avail_event, 0);
	for (uint16_t i = 0; i < 3; i++) {
		table[i].addr = tx->mem.phy + BUFFERS + i * BUFFER_SIZE;
		table[i].len = HDR_LEN + 60;
		table[i].flags = 0;
		memset(buffer(tx, i, 0), 0, HDR_LEN + 60);
		avail[2 + i] = i;
	}
	avail[1] = 1;
	CHECK(model_virtio_kick_owed(nic, 1)); // avail_event 0 was made available
	notify(1);
	CHECK(!model_virtio_kick_owed(nic, 1));
	CHECK_EQ(model_virtio_tx_count(nic), 1);
	CHECK_EQ(*avail_event, 1); // the device follows: notify me at the next entry
	// the device asks for entry 2: making entry 1 available owes nothing, entry 2 does
	model_virtio_kick_at(nic, 1, true, 2);
	CHECK_EQ(*avail_event, 2);
	avail[1] = 2;
	CHECK(!model_virtio_kick_owed(nic, 1));
	avail[1] = 3;
	CHECK(model_virtio_kick_owed(nic, 1));
	CHECK_EQ(model_virtio_tx_count(nic), 1); // a driver that skips this kick leaves the frames unsent
	notify(1);
	CHECK_EQ(model_virtio_tx_count(nic), 3);
	// used_event: the device interrupts when the used index passes it (2.7.10)
	volatile uint16_t* used_event = avail + 2 + 8;
	*used_event = 2;
	CHECK(model_virtio_signal(nic, 1)); // used 0..2 since it last looked, used_event 2 among them
	CHECK(!model_virtio_signal(nic, 1));
	*used_event = 3;
	CHECK(model_virtio_interrupt_armed(nic, 1)); // the next used entry is 3
	*used_event = 5;
	CHECK(!model_virtio_interrupt_armed(nic, 1));
	CHECK_NO_NEW_VIOLATIONS();
	hand_close();
}

int main(void) {
	test_packed_wrap_and_chains();
	test_packed_rx_tx();
	test_packed_event_suppression();
	test_packed_violations();
	test_packed_hostile_device();
	test_split_event_idx();
	return model_test_summary();
}
