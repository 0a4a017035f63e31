// Fuzz target: the VirtIO transports (src/driver/virtio_modern.c, virtio_legacy.c) facing a device that says
// anything: arbitrary PCI configuration space (the capability walk, 4.1.4 and PCI 3.0 6.7), arbitrary BAR sizes, and
// arbitrary answers to every register load (the common configuration, config_generation, queue sizes and
// notification offsets, the device configuration; legacy: every IO register).
//
// Input: a flags byte (bit 0: open the legacy transport if the modern one finds no capabilities), the 256 bytes of
// configuration space, one size byte per BAR 0..5 (0: no memory BAR; else 1 << (byte % 17) bytes), a little endian
// u16 n, then n bytes of operations, then the device's answers: each load of the driver takes the next bytes (its
// width; legacy: the bytes it reads), 0 once they are used up (a legacy read then comes back short). An operation
// is an op byte and an argument byte a (the queue a % 4, or the status a % 4), then: get_status; set_status;
// get_features; set_features (u64); queue_size (wanted u16); enable_queue (size u16, three u64 addresses);
// set_queue_vector (vector u16); notify (only a queue whose enable_queue succeeded, as virtio.c does); read_config
// (offset a % 4 + 4 * (u8 % 8), length u8 % 9); write_config (offset a % 4, length u8 % 7).
//
// Invariants: every load and store lies inside a BAR that the transport mapped, with the natural alignment of its
// width (4.1.3.1); every IO access lies inside the legacy register block (20 bytes, then the configuration bytes
// the operation asked for); no operation makes more than MAX_ACCESSES accesses (read_config gives up on a device
// that keeps changing). ASan and UBSan (run.sh builds with both) catch reads outside the configuration space buffer.
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "driver/virtio_transport.h"
#include "fuzz_input.h"
#include "pci.h"
#include "seam_io.h"

#define MAX_ACCESSES 256
#define NUM_BARS 6
// The legacy register block (20 bytes) and the device configuration bytes read_config may be asked for here.
#define LEGACY_REGISTERS (20 + 32 + 8)

struct fuzz_device {
	struct pci_device pci;
	uint8_t config[256];
	size_t bar_sizes[NUM_BARS];
	uint8_t* bars[NUM_BARS]; // where the transport mapped them; it unmaps them when it closes
	struct fuzz_input answers;
	unsigned accesses; // in the current operation
	bool io_open;
};

static struct fuzz_device device;

static int fuzz_config(struct pci_device* pci, void* buf, size_t len, uint32_t offset, bool write) {
	(void)pci;
	FUZZ_CHECK(offset <= sizeof(device.config) && len <= sizeof(device.config) - offset);
	if (!write) {
		memcpy(buf, device.config + offset, len);
	}
	return 0;
}

static uint8_t* fuzz_map_bar(struct pci_device* pci, unsigned bar, size_t* size) {
	(void)pci;
	FUZZ_CHECK(bar < NUM_BARS && !device.bars[bar]); // each BAR mapped once
	*size = device.bar_sizes[bar];
	if (*size == 0) {
		return NULL; // not a memory BAR: the transport must cope
	}
	// Never dereferenced by the transport in this build: only the seam sees it.
	void* memory = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	FUZZ_CHECK(memory != MAP_FAILED);
	device.bars[bar] = memory;
	return memory;
}

static void fuzz_close(struct pci_device* pci) {
	(void)pci;
}

static const struct pci_access fuzz_access = {
    .name = "fuzz", .config = fuzz_config, .map_bar = fuzz_map_bar, .close = fuzz_close};

// The mapped BAR [address, address + width) lies in, checked.
static void check_mmio(const volatile uint8_t* address, size_t width) {
	FUZZ_CHECK(++device.accesses <= MAX_ACCESSES);
	FUZZ_CHECK(width == 1 || width == 2 || width == 4);
	FUZZ_CHECK((uintptr_t)address % width == 0);
	for (unsigned bar = 0; bar < NUM_BARS; bar++) {
		const uint8_t* base = device.bars[bar];
		if (base && address >= base && (size_t)(address - base) + width <= device.bar_sizes[bar]) {
			return;
		}
	}
	FUZZ_CHECK(!"a load or store outside every mapped BAR");
}

uint32_t ixy_seam_mmio_read(const volatile uint8_t* address, size_t width) {
	check_mmio(address, width);
	uint32_t value = 0;
	for (size_t i = 0; i < width; i++) {
		value |= (uint32_t)fuzz_u8(&device.answers) << (8 * i);
	}
	return value;
}

void ixy_seam_mmio_write(volatile uint8_t* address, size_t width, uint32_t value) {
	(void)value;
	check_mmio(address, width);
}

int ixy_seam_io_open(const char* pci_addr) {
	(void)pci_addr;
	FUZZ_CHECK(!device.io_open);
	device.io_open = true;
	return 3;
}

static void check_io(int handle, size_t len, off_t offset) {
	FUZZ_CHECK(handle == 3 && device.io_open);
	FUZZ_CHECK(++device.accesses <= MAX_ACCESSES);
	FUZZ_CHECK(offset >= 0 && len <= 4 && (size_t)offset + len <= LEGACY_REGISTERS);
}

ssize_t ixy_seam_io_pread(int handle, void* buf, size_t len, off_t offset) {
	check_io(handle, len, offset);
	if (fuzz_remaining(&device.answers) < len) {
		return 0; // short
	}
	for (size_t i = 0; i < len; i++) {
		((uint8_t*)buf)[i] = fuzz_u8(&device.answers);
	}
	return (ssize_t)len;
}

ssize_t ixy_seam_io_pwrite(int handle, const void* buf, size_t len, off_t offset) {
	(void)buf;
	check_io(handle, len, offset);
	return (ssize_t)len;
}

int ixy_seam_io_close(int handle) {
	FUZZ_CHECK(handle == 3 && device.io_open);
	device.io_open = false;
	return 0;
}

enum op {
	OP_GET_STATUS,
	OP_SET_STATUS,
	OP_GET_FEATURES,
	OP_SET_FEATURES,
	OP_QUEUE_SIZE,
	OP_ENABLE_QUEUE,
	OP_SET_QUEUE_VECTOR,
	OP_NOTIFY,
	OP_READ_CONFIG,
	OP_WRITE_CONFIG,
	NUM_OPS
};

static void run_operations(struct virtio_transport* t, struct fuzz_input* ops) {
	const struct virtio_transport_ops* o = t->ops;
	bool enabled[4] = {false};
	while (fuzz_remaining(ops) > 0) {
		device.accesses = 0;
		uint8_t op = fuzz_u8(ops) % NUM_OPS, status;
		uint16_t index = fuzz_u8(ops) % 4, size;
		uint64_t features;
		uint8_t buf[8];
		switch (op) {
			case OP_GET_STATUS:
				o->get_status(t, &status);
				break;
			case OP_SET_STATUS:
				o->set_status(t, (uint8_t)index);
				break;
			case OP_GET_FEATURES:
				o->get_features(t, &features);
				break;
			case OP_SET_FEATURES:
				o->set_features(t, fuzz_u64(ops));
				break;
			case OP_QUEUE_SIZE:
				o->queue_size(t, index, fuzz_u16(ops), &size);
				break;
			case OP_ENABLE_QUEUE: {
				uint16_t queue_size = fuzz_u16(ops);
				uint64_t desc = fuzz_u64(ops), avail = fuzz_u64(ops), used = fuzz_u64(ops);
				enabled[index] |= o->enable_queue(t, index, queue_size, desc, avail, used) == 0;
				break;
			}
			case OP_SET_QUEUE_VECTOR:
				if (o->set_queue_vector) {
					o->set_queue_vector(t, index, fuzz_u16(ops));
				}
				break;
			case OP_NOTIFY:
				if (enabled[index]) {
					o->notify(t, index);
				}
				break;
			case OP_READ_CONFIG: {
				uint32_t offset = index + 4u * (fuzz_u8(ops) % 8); // 0 .. 31
				size_t len = fuzz_u8(ops) % 9;
				int rc = o->read_config(t, offset, buf, len);
				FUZZ_CHECK(rc == 0 || rc == -1);
				break;
			}
			case OP_WRITE_CONFIG: {
				size_t len = fuzz_u8(ops) % 7;
				memset(buf, 0x5a, sizeof(buf));
				o->write_config(t, index, buf, len);
				break;
			}
			default:
				break;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
	struct fuzz_input in = fuzz_input(data, size);
	memset(&device, 0, sizeof(device));
	uint8_t flags = fuzz_u8(&in);
	for (size_t i = 0; i < sizeof(device.config); i++) {
		device.config[i] = fuzz_u8(&in);
	}
	for (unsigned bar = 0; bar < NUM_BARS; bar++) {
		uint8_t selector = fuzz_u8(&in);
		device.bar_sizes[bar] = selector ? (size_t)1 << (selector % 17) : 0;
	}
	size_t ops_len = fuzz_u16(&in);
	ops_len = ops_len < fuzz_remaining(&in) ? ops_len : fuzz_remaining(&in);
	struct fuzz_input ops = fuzz_input(in.data + in.pos, ops_len);
	device.answers = fuzz_input(in.data + in.pos + ops_len, fuzz_remaining(&in) - ops_len);
	strcpy(device.pci.addr, "0000:00:05.0");
	device.pci.access = &fuzz_access;

	struct virtio_transport* t = NULL;
	int rc = virtio_modern_open(&device.pci, &t);
	FUZZ_CHECK(rc == 0 || (rc == -1 && t == NULL));
	if (rc == 0 && !t && (flags & 1)) {
		t = virtio_legacy_open(&device.pci);
	}
	if (t) {
		FUZZ_CHECK(t->pci == &device.pci);
		run_operations(t, &ops);
		t->ops->close(t);
	}
	FUZZ_CHECK(!device.io_open);
	// The transport unmapped what it mapped: mincore says ENOMEM for an address no mapping holds (and valgrind does
	// not take the unmapped address for a read, as it does msync's).
	for (unsigned bar = 0; bar < NUM_BARS; bar++) {
		unsigned char resident;
		FUZZ_CHECK(!device.bars[bar] || (mincore(device.bars[bar], 1, &resident) != 0 && errno == ENOMEM));
	}
	return 0;
}
