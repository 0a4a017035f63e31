// The test side of the seam: fake PCI devices, the virtual clock, DMA checks and the list of violations.
// See model.h. A device model (ixgbe_model.c) registers itself with model_pci_add() and gets every register
// access the driver makes through its BAR0.
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ixy/memory.h>

#include "driver/driver.h"
#include "failsafe.h"
#include "model.h"
#include "pci.h"
#include "seam.h"

// ---- the lock of all models (model.h) ----

static pthread_mutex_t models_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

void model_lock(void) {
	if (pthread_mutex_lock(&models_lock) != 0) {
		abort(); // (a recursive mutex: only a broken program gets here)
	}
}

void model_unlock(void) {
	if (pthread_mutex_unlock(&models_lock) != 0) {
		abort();
	}
}

// ---- virtual time and the hang guard ----

// Written under the models' lock; a queue's fast path (model_pci_ops.queue_write32) reads it without: atomic loads
// and stores (plain moves on x86).
static uint64_t now_us;

// A driver that waits for something that never happens must give up: past this much virtual time the test is
// considered hung and stopped.
#define HANG_VIRTUAL_TIME_US (3600ull * 1000 * 1000)
// Reading the same register this often in a row, with the same result and neither a write nor a sleep in between,
// is a wait loop without a timeout.
#define HANG_IDENTICAL_READS 2000000u

static struct {
	const uint8_t* bar;
	uint32_t reg;
	uint32_t value;
	uint32_t repeats; // (atomic loads and stores: a queue's fast path writes it without the models' lock)
} last_read;

static uint32_t read_repeats(void) {
	return __atomic_load_n(&last_read.repeats, __ATOMIC_RELAXED);
}

static void set_repeats(uint32_t repeats) {
	__atomic_store_n(&last_read.repeats, repeats, __ATOMIC_RELAXED);
}

// A write or a sleep: the reads before it were no wait loop. (Stores only if needed: the line stays shared.)
static void forget_repeats(void) {
	if (read_repeats() != 0) {
		set_repeats(0);
	}
}

static void advance_clock(uint64_t us) { // (under the models' lock: no other writer)
	__atomic_store_n(&now_us, __atomic_load_n(&now_us, __ATOMIC_RELAXED) + us, __ATOMIC_RELAXED);
}

static void hang_detected(const char* why) {
	fprintf(stderr, "model: TEST HUNG: %s\n", why);
	model_print_violations(stderr);
	fflush(stdout);
	fflush(stderr);
	_exit(1);
}

uint64_t model_now_us(void) {
	return __atomic_load_n(&now_us, __ATOMIC_RELAXED);
}

void model_advance_us(uint64_t us) {
	advance_clock(us);
	forget_repeats();
	if (model_now_us() > HANG_VIRTUAL_TIME_US) {
		hang_detected("more than an hour of virtual time passed: is the driver waiting without a timeout?");
	}
}

// ---- frame stamps ----

// Notes by buffer address, open addressing with linear probing. An address keeps its slot forever (a mempool has
// a fixed set of buffers: at most 2 * 4096 + 1024 per ixgbe RX queue); a consumed note is marked unset.
#define STAMP_SLOTS (1u << 16)
static struct stamp_slot {
	uint64_t buffer; // 0: free slot
	uint64_t received_us;
	bool set;
} * stamp_slots;
static uint64_t* stamp_waits;
static size_t stamp_num_waits, stamp_waits_capacity;
static size_t stamp_used_slots;

void model_stamps_enable(bool on) {
	free(stamp_slots);
	free(stamp_waits);
	stamp_slots = NULL;
	stamp_waits = NULL;
	stamp_num_waits = stamp_waits_capacity = stamp_used_slots = 0;
	if (on) {
		stamp_slots = calloc(STAMP_SLOTS, sizeof(*stamp_slots));
		if (!stamp_slots) {
			model_usage_error("out of memory for frame stamps");
		}
	}
}

static struct stamp_slot* stamp_slot(uint64_t buffer, bool insert) {
	uint32_t i = (uint32_t)((buffer >> 6) * 0x9E3779B1u) & (STAMP_SLOTS - 1);
	while (stamp_slots[i].buffer != 0 && stamp_slots[i].buffer != buffer) {
		i = (i + 1) & (STAMP_SLOTS - 1);
	}
	if (stamp_slots[i].buffer == 0) {
		if (!insert) {
			return NULL;
		}
		if (++stamp_used_slots > STAMP_SLOTS / 2) {
			model_usage_error("frame stamps: more than %u buffers", STAMP_SLOTS / 2);
		}
		stamp_slots[i].buffer = buffer;
	}
	return &stamp_slots[i];
}

void model_stamp_received(uint64_t buffer) {
	if (stamp_slots && buffer != 0) {
		struct stamp_slot* slot = stamp_slot(buffer, true);
		slot->received_us = model_now_us();
		slot->set = true;
	}
}

void model_stamp_sent(uint64_t buffer) {
	struct stamp_slot* slot = stamp_slots && buffer != 0 ? stamp_slot(buffer, false) : NULL;
	if (!slot || !slot->set) {
		return;
	}
	slot->set = false;
	if (stamp_num_waits == stamp_waits_capacity) {
		size_t capacity = stamp_waits_capacity ? 2 * stamp_waits_capacity : 4096;
		uint64_t* waits = realloc(stamp_waits, capacity * sizeof(*waits));
		if (!waits) {
			model_usage_error("out of memory for frame stamps");
		}
		stamp_waits = waits;
		stamp_waits_capacity = capacity;
	}
	stamp_waits[stamp_num_waits++] = model_now_us() - slot->received_us;
}

bool model_stamps_on(void) {
	return stamp_slots != NULL;
}

size_t model_stamp_waits(const uint64_t** waits) {
	*waits = stamp_waits;
	return stamp_num_waits;
}

// ---- violations ----

#define MAX_KEPT_VIOLATIONS 256
#define MAX_PRINTED_VIOLATIONS 40
#define VIOLATION_TEXT 320

static char kept[MAX_KEPT_VIOLATIONS][VIOLATION_TEXT];
static unsigned num_kept;       // entries in kept[]
static unsigned num_unexpected; // violations recorded and not expected, including those not kept
static unsigned num_printed;
static bool exit_check_installed;
// The violations' own lock, taken last (nothing is locked while it is held): a queue's fast path records violations
// without the models' lock (model_pci_ops.queue_write32).
static pthread_mutex_t violations_lock = PTHREAD_MUTEX_INITIALIZER;

static void lock_violations(void) {
	if (pthread_mutex_lock(&violations_lock) != 0) {
		abort();
	}
}

static void unlock_violations(void) {
	if (pthread_mutex_unlock(&violations_lock) != 0) {
		abort();
	}
}

static void check_violations_at_exit(void) {
	if (num_unexpected > 0) {
		fprintf(stderr, "model: %u violation(s) the test did not expect; failing the test:\n", num_unexpected);
		model_print_violations(stderr);
		fflush(stdout);
		fflush(stderr);
		_exit(1);
	}
}

void model_violation(const char* device, const char* fmt, ...) {
	lock_violations();
	if (!exit_check_installed) {
		exit_check_installed = atexit(check_violations_at_exit) == 0;
	}
	char text[VIOLATION_TEXT];
	int prefix = snprintf(text, sizeof(text), "[%s] ", device ? device : "-");
	va_list args;
	va_start(args, fmt);
	vsnprintf(text + prefix, sizeof(text) - (size_t)prefix, fmt, args);
	va_end(args);
	num_unexpected++;
	if (num_kept < MAX_KEPT_VIOLATIONS) {
		memcpy(kept[num_kept++], text, sizeof(text));
	}
	if (num_printed < MAX_PRINTED_VIOLATIONS) {
		fprintf(stderr, "model: VIOLATION %s\n", text);
		if (++num_printed == MAX_PRINTED_VIOLATIONS) {
			fprintf(stderr, "model: (further violations are counted but not printed)\n");
		}
	}
	unlock_violations();
}

unsigned model_violation_count(void) {
	lock_violations();
	unsigned n = num_unexpected;
	unlock_violations();
	return n;
}

bool model_expect_violation(const char* substring) {
	bool found = false;
	lock_violations();
	for (unsigned i = 0; i < num_kept && !found; i++) {
		if (strstr(kept[i], substring)) {
			memmove(kept[i], kept[i + 1], (size_t)(num_kept - i - 1) * VIOLATION_TEXT);
			num_kept--;
			num_unexpected--;
			found = true;
		}
	}
	unlock_violations();
	return found;
}

unsigned model_forget_violations(void) {
	lock_violations();
	unsigned n = num_unexpected;
	num_kept = 0;
	num_unexpected = 0;
	unlock_violations();
	return n;
}

void model_print_violations(FILE* out) {
	lock_violations();
	for (unsigned i = 0; i < num_kept; i++) {
		fprintf(out, "  %s\n", kept[i]);
	}
	if (num_unexpected > num_kept) {
		fprintf(out, "  ... and %u more\n", num_unexpected - num_kept);
	}
	unlock_violations();
}

void model_usage_error(const char* fmt, ...) {
	va_list args;
	va_start(args, fmt);
	fprintf(stderr, "model: test error: ");
	vfprintf(stderr, fmt, args);
	fprintf(stderr, "\n");
	va_end(args);
	fflush(stdout);
	_exit(2);
}

// ---- DMA checks ----

// seam_dma_contains() searches every allocation. The seam allocates whole, aligned huge pages, so a page is either
// entirely live or not: remember the pages found live (a small direct-mapped cache), forget them on every free.
#define PAGE_SHIFT 21
#define PAGE_CACHE_SLOTS 64
// Page number + 1, 0 = empty. Atomic loads and stores: a queue's fast path (model_pci_ops.queue_write32) checks DMA
// without the models' lock.
static uintptr_t live_page_cache[PAGE_CACHE_SLOTS];

_Static_assert((1u << PAGE_SHIFT) == IXY_HUGE_PAGE_SIZE, "the cache works on huge pages");

bool model_dma_ok(uintptr_t addr, size_t len) {
	if (len == 0) {
		len = 1;
	}
	if (addr + len < addr) {
		return false;
	}
	uintptr_t page = addr >> PAGE_SHIFT;
	if (page != (addr + len - 1) >> PAGE_SHIFT) {
		return seam_dma_contains(addr, len);
	}
	uintptr_t* slot = &live_page_cache[page % PAGE_CACHE_SLOTS];
	if (__atomic_load_n(slot, __ATOMIC_RELAXED) == page + 1) {
		return true;
	}
	if (seam_dma_contains(page << PAGE_SHIFT, IXY_HUGE_PAGE_SIZE)) {
		__atomic_store_n(slot, page + 1, __ATOMIC_RELAXED);
		return true;
	}
	return seam_dma_contains(addr, len);
}

// ---- PCI devices ----

#define MAX_DEVICES 16

#define MODEL_BARS 6 // BARs 0 to 5 (PCI 3.0, 6.2.5.1)

struct model_pci_device {
	char addr[16];
	uint16_t vendor_id;
	uint16_t device_id;
	uint32_t class_code;
	const struct model_pci_ops* ops;
	void* model;
	bool bus_master;
	unsigned mapped;                 // a bit per BAR
	size_t mapped_sizes[MODEL_BARS]; // the sizes model_map_bar gave the driver
	bool unbound;
	unsigned touches;
	bool offers_msix;
	unsigned num_vectors; // enabled by the driver (pci_access.enable_interrupts); their eventfds:
	int vector_fds[MODEL_MAX_VECTORS];
	uint64_t vector_messages[MODEL_MAX_VECTORS];
};

static struct model_pci_device devices[MAX_DEVICES];
static void close_vectors(struct model_pci_device* dev);
static unsigned num_devices;
static bool deny_permissions;
// BAR b of device i is slice i * MODEL_BARS + b (MODEL_BAR0_SIZE bytes each) of this region. It is mapped without
// any access rights: a driver that bypasses the register seam and touches it directly crashes at once.
static uint8_t* bar_region;

static unsigned allocations;
static unsigned fail_allocation; // allocation number that fails, 0: none

void model_fail_dma_allocation(unsigned nth) {
	fail_allocation = nth ? allocations + nth : 0;
}

unsigned model_dma_allocations(void) {
	return allocations;
}

// Every DMA allocation passes here (-Wl,--wrap=memory_allocate_dma), so that a test can make the nth one fail.
int __real_memory_allocate_dma(size_t size, bool require_contiguous, struct dma_memory* mem);
int __wrap_memory_allocate_dma(size_t size, bool require_contiguous, struct dma_memory* mem);

int __wrap_memory_allocate_dma(size_t size, bool require_contiguous, struct dma_memory* mem) {
	if (++allocations == fail_allocation) {
		fail_allocation = 0;
		fprintf(stderr, "model: DMA allocation %u fails on purpose\n", allocations);
		return -1;
	}
	return __real_memory_allocate_dma(size, require_contiguous, mem);
}

// Every free of DMA memory passes here (the model is linked with -Wl,--wrap=memory_free_dma): device models check
// that they can no longer reach the memory, and the page cache forgets what it knew.
void __real_memory_free_dma(struct dma_memory* mem);
void __wrap_memory_free_dma(struct dma_memory* mem);

void __wrap_memory_free_dma(struct dma_memory* mem) {
	if (mem && mem->virt) {
		for (unsigned i = 0; i < num_devices; i++) {
			if (devices[i].ops && devices[i].ops->dma_freed) {
				devices[i].ops->dma_freed(devices[i].model, mem->phy, mem->size);
			}
		}
	}
	for (unsigned i = 0; i < PAGE_CACHE_SLOTS; i++) {
		__atomic_store_n(&live_page_cache[i], 0, __ATOMIC_RELAXED);
	}
	__real_memory_free_dma(mem);
}

struct model_pci_device* model_pci_add(const char* pci_addr, uint16_t vendor_id, uint16_t device_id,
				       uint32_t class_code, const struct model_pci_ops* ops, void* model) {
	if (num_devices == MAX_DEVICES || strlen(pci_addr) >= sizeof(devices[0].addr)) {
		model_usage_error("cannot add PCI device %s", pci_addr);
	}
	for (unsigned i = 0; i < num_devices; i++) {
		if (strcmp(devices[i].addr, pci_addr) == 0) {
			model_usage_error("PCI device %s added twice", pci_addr);
		}
	}
	struct model_pci_device* dev = &devices[num_devices++];
	*dev = (struct model_pci_device){
	    .vendor_id = vendor_id, .device_id = device_id, .class_code = class_code, .ops = ops, .model = model};
	strcpy(dev->addr, pci_addr);
	return dev;
}

void model_pci_remove_all(void) {
	for (unsigned i = 0; i < num_devices; i++) {
		if (devices[i].mapped) {
			model_violation(devices[i].addr,
					"a BAR is still mapped when the test ends: the device was not closed");
		}
		if (devices[i].ops && devices[i].ops->destroy) {
			devices[i].ops->destroy(devices[i].model);
		}
		close_vectors(&devices[i]);
	}
	memset(devices, 0, sizeof(devices));
	num_devices = 0;
}

bool model_pci_bus_master(const struct model_pci_device* dev) {
	return dev->bus_master;
}

bool model_pci_bar_mapped(const struct model_pci_device* dev) {
	return dev->mapped;
}

uint8_t* model_pci_bar(const struct model_pci_device* dev, unsigned bar) {
	bool mapped = bar < MODEL_BARS && (dev->mapped & (1u << bar));
	return mapped ? bar_region + ((size_t)(dev - devices) * MODEL_BARS + bar) * MODEL_BAR0_SIZE : NULL;
}

bool model_pci_unbound(const struct model_pci_device* dev) {
	return dev->unbound;
}

const char* model_pci_addr(const struct model_pci_device* dev) {
	return dev->addr;
}

unsigned model_pci_touches(const struct model_pci_device* dev) {
	return dev->touches;
}

void model_pci_deny_permissions(bool deny) {
	deny_permissions = deny;
}

static struct model_pci_device* find_device(const char* pci_addr) {
	for (unsigned i = 0; pci_addr && i < num_devices; i++) {
		if (strcmp(devices[i].addr, pci_addr) == 0) {
			return &devices[i];
		}
	}
	fprintf(stderr, "pci: no PCI device %s (model)\n", pci_addr ? pci_addr : "(null)");
	return NULL;
}

void* model_pci_model(const char* pci_addr, const struct model_pci_ops* ops) {
	for (unsigned i = 0; pci_addr && i < num_devices; i++) {
		if (strcmp(devices[i].addr, pci_addr) == 0) {
			return devices[i].ops == ops ? devices[i].model : NULL;
		}
	}
	return NULL;
}

#define BAR_REGION_SIZE ((size_t)MAX_DEVICES * MODEL_BARS * MODEL_BAR0_SIZE)

// The device, BAR and offset an address in bar_region belongs to; NULL if it is in no device's slices.
static struct model_pci_device* locate(const volatile uint8_t* address, unsigned* bar, uint32_t* offset) {
	if (!bar_region || address < bar_region || address >= bar_region + BAR_REGION_SIZE) {
		return NULL;
	}
	size_t at = (size_t)(address - bar_region);
	*bar = (unsigned)(at / MODEL_BAR0_SIZE % MODEL_BARS);
	*offset = (uint32_t)(at % MODEL_BAR0_SIZE);
	return at / MODEL_BAR0_SIZE / MODEL_BARS < num_devices ? &devices[at / MODEL_BAR0_SIZE / MODEL_BARS] : NULL;
}

// The device behind a BAR0 pointer handed out by pci_map_bar0, or NULL.
static struct model_pci_device* device_of_bar(const uint8_t* bar) {
	unsigned index;
	uint32_t offset;
	struct model_pci_device* dev = locate(bar, &index, &offset);
	return index == 0 && offset == 0 ? dev : NULL;
}

// ---- src/pci.h, implemented for the model ----

int pci_read_ids(const char* pci_addr, struct pci_ids* ids) {
	struct model_pci_device* dev = find_device(pci_addr);
	if (!dev) {
		return -1;
	}
	*ids =
	    (struct pci_ids){.vendor_id = dev->vendor_id, .device_id = dev->device_id, .class_code = dev->class_code};
	return 0;
}

// ---- src/failsafe.h: the checks, implemented for the model (no interface is ever in use) ----

int failsafe_check_device(const struct ixy_config* config, const char* kernel_driver) {
	(void)kernel_driver;
	struct model_pci_device* dev = find_device(config->pci_addr);
	if (!dev) {
		return -1;
	}
	dev->touches++;
	if (deny_permissions) {
		fprintf(stderr, "pci: %s: permission denied (model: not root)\n", config->pci_addr);
		return -1;
	}
	return 0;
}

static uint64_t huge_pages_free = UINT64_MAX; // failsafe_check_memory passes up to this many
static uint64_t memory_checked;               // pages of the last failsafe_check_memory

int failsafe_check_memory(const char* who, uint64_t pages, bool iommu) {
	(void)iommu;
	memory_checked = pages;
	if (huge_pages_free < pages) {
		fprintf(stderr, "pci: %s: needs %llu huge pages, %llu are free (model)\n", who,
			(unsigned long long)pages, (unsigned long long)huge_pages_free);
		return -1;
	}
	return 0;
}

uint64_t model_memory_checked(void) {
	return memory_checked;
}

void model_set_free_huge_pages(uint64_t pages) {
	huge_pages_free = pages;
}

// ---- src/pci.h (continued) ----

int pci_read_kernel_driver(const char* pci_addr, char name[IXY_DRIVER_NAME_MAX]) {
	struct model_pci_device* dev = find_device(pci_addr);
	// Every modelled device has a kernel driver until ixy unbinds it (pci_unbind_driver below).
	snprintf(name, IXY_DRIVER_NAME_MAX, "%s", dev && !dev->unbound ? "kernel-driver-model" : "");
	return dev ? 0 : -1;
}

int pci_unbind_driver(const char* pci_addr) {
	struct model_pci_device* dev = find_device(pci_addr);
	if (!dev) {
		return -1;
	}
	dev->touches++;
	if (!dev->ops) {
		model_violation(dev->addr, "kernel driver unbound from a device no ixy driver handles");
	}
	dev->unbound = true;
	return 0;
}

// A device taken by a driver (pci_open_sysfs): config space knows the command register's Bus Master Enable and what
// the device model puts there (config_space), its BARs are its slices of bar_region (pci_close unmaps them; nothing
// ever touches them anyway), IO BARs are the device model's business (test/seam/seam_io.h).
static int model_config(struct pci_device* pci, void* buf, size_t len, uint32_t offset, bool write) {
	struct model_pci_device* dev = find_device(pci->addr);
	uint16_t command = dev && dev->bus_master ? PCI_COMMAND_MASTER : 0;
	uint8_t config[256] = {0};
	if (dev && !write && dev->ops && dev->ops->config_space && offset <= sizeof(config) &&
	    len <= sizeof(config) - offset) {
		dev->touches++;
		dev->ops->config_space(dev->model, config);
		memcpy(config + PCI_COMMAND, &command, sizeof(command));
		memcpy(buf, config + offset, len);
		return 0;
	}
	// BAR 0's register (PCI 3.0, 6.2.5.1), which ixy_init reads before it maps BAR 0 (pci_map_bar0): a 32 bit
	// memory BAR for a device without configuration space of its own (the 82599's and the 82576's models).
	uint32_t bar0 = 0xfe000000;
	if (dev && dev->ops && !write && offset == PCI_BASE_ADDRESS_0 && len == sizeof(bar0)) {
		dev->touches++;
		memcpy(buf, &bar0, sizeof(bar0));
		return 0;
	}
	if (!dev || offset != PCI_COMMAND || len != sizeof(command)) {
		model_violation(pci->addr,
				"config space access at 0x%x, %zu bytes: the model has only the command register",
				offset, len);
		return -1;
	}
	dev->touches++;
	if (!write) {
		memcpy(buf, &command, sizeof(command));
		return 0;
	}
	memcpy(&command, buf, sizeof(command));
	if (!dev->ops && (command & PCI_COMMAND_MASTER)) {
		model_violation(dev->addr, "bus mastering enabled on a device no ixy driver handles");
	}
	dev->bus_master = command & PCI_COMMAND_MASTER;
	return 0;
}

static uint8_t* model_map_bar(struct pci_device* pci, unsigned bar_index, size_t* size) {
	struct model_pci_device* dev = find_device(pci->addr);
	if (!dev) {
		return NULL;
	}
	dev->touches++;
	if (!dev->ops) {
		model_violation(dev->addr, "BAR%u mapped of a device no ixy driver handles", bar_index);
		return NULL;
	}
	size_t bar_size = dev->ops->bar_size ? dev->ops->bar_size(dev->model, bar_index) : 0;
	if (!dev->ops->bar_size && bar_index != 0) {
		model_violation(dev->addr, "BAR%u mapped: the modelled device has only BAR0", bar_index);
		return NULL;
	}
	if (dev->ops->bar_size && (bar_size == 0 || bar_size > MODEL_BAR0_SIZE)) {
		fprintf(stderr, "pci: %s: BAR%u is not a memory BAR (model)\n", dev->addr, bar_index);
		return NULL;
	}
	if (dev->mapped & (1u << bar_index)) {
		model_violation(dev->addr, "BAR%u mapped twice", bar_index);
	}
	if (!bar_region) {
		void* region = mmap(NULL, BAR_REGION_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (region == MAP_FAILED) {
			model_usage_error("cannot reserve address space for the fake BARs");
		}
		bar_region = region;
	}
	dev->mapped |= 1u << bar_index;
	dev->mapped_sizes[bar_index] = dev->ops->bar_size ? bar_size : MODEL_BAR0_SIZE;
	*size = dev->mapped_sizes[bar_index];
	return bar_region + ((size_t)(dev - devices) * MODEL_BARS + bar_index) * MODEL_BAR0_SIZE;
}

void model_pci_offer_msix(struct model_pci_device* dev, bool offer) {
	dev->offers_msix = offer;
}

void model_pci_raise_msix(struct model_pci_device* dev, unsigned vector) {
	uint64_t one = 1;
	if (vector >= dev->num_vectors) {
		model_violation(dev->addr, "MSI-X vector %u raised, but the driver enabled only %u vectors", vector,
				dev->num_vectors);
	} else if (write(dev->vector_fds[vector], &one, sizeof(one)) != sizeof(one)) {
		model_usage_error("cannot signal the eventfd of vector %u: %s", vector, strerror(errno));
	} else {
		dev->vector_messages[vector]++;
	}
}

uint64_t model_pci_msix_count(const struct model_pci_device* dev, unsigned vector) {
	return vector < dev->num_vectors ? dev->vector_messages[vector] : 0;
}

// VFIO's enable_interrupts: one eventfd per vector for a device that offers MSI-X (model_pci_offer_msix), 0 (no
// MSI-X vectors) for one that does not.
static int model_enable_interrupts(struct pci_device* pci, unsigned count, int fds[]) {
	struct model_pci_device* dev = find_device(pci->addr);
	if (!dev || dev->num_vectors > 0 || count == 0 || count > MODEL_MAX_VECTORS) {
		fprintf(stderr,
			"model: %s: %u interrupt vectors cannot be enabled (already enabled, or more than %d)\n",
			pci->addr, count, MODEL_MAX_VECTORS);
		return -1;
	}
	if (!dev->offers_msix) {
		return 0;
	}
	for (unsigned i = 0; i < count; i++) {
		fds[i] = dev->vector_fds[i] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (fds[i] < 0) {
			model_usage_error("eventfd: %s", strerror(errno));
		}
		dev->vector_messages[i] = 0;
	}
	dev->num_vectors = count;
	return 1;
}

static void close_vectors(struct model_pci_device* dev) {
	for (unsigned i = 0; i < dev->num_vectors; i++) {
		close(dev->vector_fds[i]);
	}
	dev->num_vectors = 0;
}

// The driver gives the device up: it unmapped its BARs (pci_close BAR 0, the VirtIO transport the ones it mapped).
static void model_close(struct pci_device* pci) {
	struct model_pci_device* dev = find_device(pci->addr);
	if (dev) {
		close_vectors(dev); // as VFIO does when the device is closed
	}
	for (unsigned bar = 0; dev && bar < MODEL_BARS; bar++) {
		if (!(dev->mapped & (1u << bar))) {
			continue; // never mapped: no slice (and bar_region may be NULL still)
		}
		// The driver unmapped the slice: reserve it again at once, or the next mapping of the process (a
		// thread's stack) could land in the hole, and the device's next close would unmap that.
		uint8_t* slice = bar_region + ((size_t)(dev - devices) * MODEL_BARS + bar) * MODEL_BAR0_SIZE;
		if (mmap(slice, dev->mapped_sizes[bar], PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			 -1, 0) != slice) {
			model_violation(dev->addr, "BAR%u still mapped when the device is closed", bar);
		}
	}
	if (dev && dev->mapped) {
		dev->touches++;
		if (dev->ops && dev->ops->unmapped) {
			dev->ops->unmapped(dev->model);
		}
		dev->mapped = 0;
	}
	free(pci);
}

static struct pci_device* pci_open_sysfs(const char* pci_addr);

// The model's way to reach a device: like sysfs, plus MSI-X where the test offers it (VFIO's interrupts).
const struct pci_access pci_sysfs_access = {.name = "sysfs (model)",
					    .open = pci_open_sysfs,
					    .config = model_config,
					    .map_bar = model_map_bar,
					    .close = model_close,
					    .enable_interrupts = model_enable_interrupts};

static struct pci_device* pci_open_sysfs(const char* pci_addr) {
	struct model_pci_device* dev = find_device(pci_addr);
	struct pci_device* pci = dev ? calloc(1, sizeof(*pci)) : NULL;
	if (!pci) {
		return NULL;
	}
	dev->touches++;
	pci->access = &pci_sysfs_access;
	snprintf(pci->addr, sizeof(pci->addr), "%s", pci_addr);
	return pci;
}

// ---- the register seam of src/driver/driver.h, implemented for the model ----

static struct model_pci_device* register_target(const uint8_t* bar, uint32_t reg, const char* what) {
	struct model_pci_device* dev = device_of_bar(bar);
	if (!dev || !dev->mapped) {
		model_violation(dev ? dev->addr : NULL, "register %s at 0x%05x through a BAR that is not mapped", what,
				reg);
		return NULL;
	}
	if (reg % 4 != 0 || reg >= MODEL_BAR0_SIZE) {
		model_violation(dev->addr, "register %s at 0x%05x: not an aligned offset inside BAR0", what, reg);
		return NULL;
	}
	return dev;
}

static uint32_t read32_locked(const uint8_t* bar, uint32_t reg) {
	struct model_pci_device* dev = register_target(bar, reg, "read");
	// An uncached read crosses PCIe twice: about a microsecond.
	advance_clock(1);
	if (!dev) {
		return 0xffffffff; // what a read from nowhere returns on PCIe
	}
	uint32_t value = dev->ops->read32 ? dev->ops->read32(dev->model, reg) : 0;
	if (last_read.bar == bar && last_read.reg == reg && last_read.value == value) {
		set_repeats(read_repeats() + 1);
		if (read_repeats() > HANG_IDENTICAL_READS) {
			char why[160];
			snprintf(
			    why, sizeof(why),
			    "[%s] register 0x%05x read %u times in a row with the same value 0x%08x, without sleeping",
			    dev->addr, reg, read_repeats(), value);
			hang_detected(why);
		}
	} else {
		last_read.bar = bar;
		last_read.reg = reg;
		last_read.value = value;
		set_repeats(1);
	}
	return value;
}

uint32_t ixy_model_read32(const uint8_t* bar, uint32_t reg) {
	model_lock();
	uint32_t value = read32_locked(bar, reg);
	model_unlock();
	return value;
}

void ixy_model_write32(uint8_t* bar, uint32_t reg, uint32_t value) {
	// A queue's own register may bypass the models' lock (model_pci_ops.queue_write32): the device says so.
	struct model_pci_device* fast = device_of_bar(bar);
	if (fast && fast->mapped && reg % 4 == 0 && reg < MODEL_BAR0_SIZE && fast->ops->queue_write32 &&
	    fast->ops->queue_write32(fast->model, reg, value)) {
		forget_repeats();
		return;
	}
	model_lock();
	forget_repeats();
	struct model_pci_device* dev = register_target(bar, reg, "write");
	if (dev && dev->ops->write32) {
		dev->ops->write32(dev->model, reg, value);
	}
	model_unlock();
}

// A load or store of a device's memory BAR by the VirtIO modern transport: anywhere in a mapped BAR, 1, 2 or 4 bytes,
// naturally aligned (4.1.3.1), inside the BAR's size.
static struct model_pci_device* mmio_target(const volatile uint8_t* address, size_t width, unsigned* bar,
					    uint32_t* offset, const char* what) {
	struct model_pci_device* dev = locate(address, bar, offset);
	size_t size = dev && dev->ops && dev->ops->bar_size ? dev->ops->bar_size(dev->model, *bar) : 0;
	if (!dev || !(dev->mapped & (1u << *bar)) || !dev->ops->mmio_read || !dev->ops->mmio_write) {
		model_violation(dev ? dev->addr : NULL, "%s of %zu bytes at %p: not in a mapped BAR", what, width,
				(const void*)address);
		return NULL;
	}
	if ((width != 1 && width != 2 && width != 4) || *offset % width != 0 || *offset + width > size) {
		model_violation(dev->addr,
				"%s of %zu bytes at offset 0x%x of BAR%u (%zu bytes): not an aligned access "
				"inside the BAR",
				what, width, *offset, *bar, size);
		return NULL;
	}
	return dev;
}

static uint32_t mmio_read_locked(const volatile uint8_t* address, size_t width) {
	unsigned bar;
	uint32_t offset;
	struct model_pci_device* dev = mmio_target(address, width, &bar, &offset, "load");
	advance_clock(1); // as ixy_seam_read32
	if (!dev) {
		return width < 4 ? (1u << (8 * width)) - 1 : 0xffffffffu; // what a read from nowhere returns on PCIe
	}
	return dev->ops->mmio_read(dev->model, bar, offset, (unsigned)width);
}

uint32_t ixy_seam_mmio_read(const volatile uint8_t* address, size_t width) {
	model_lock();
	uint32_t value = mmio_read_locked(address, width);
	model_unlock();
	return value;
}

void ixy_seam_mmio_write(volatile uint8_t* address, size_t width, uint32_t value) {
	unsigned bar;
	uint32_t offset;
	model_lock();
	struct model_pci_device* dev = mmio_target(address, width, &bar, &offset, "store");
	if (dev) {
		dev->ops->mmio_write(dev->model, bar, offset, (unsigned)width, value);
	}
	model_unlock();
}

void ixy_seam_usleep(uint32_t us) {
	model_lock();
	model_advance_us(us);
	model_unlock();
}
