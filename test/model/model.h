// The world a driver sees in test builds: fake PCI devices, a virtual clock, DMA checks and a list of violations.
//
// Test builds link this instead of src/pci.c and real hardware: pci_read_ids(), the sysfs way (struct pci_access) and
// friends look devices up in a table the test fills (model_pci_add), and every register access and delay of a driver
// (src/driver/driver.h with IXY_SEAM) arrives here and is passed to the device model behind the BAR.
//
// Time is virtual: it advances only when the driver sleeps (ixy_usleep) or reads a register (an uncached read
// over PCIe takes about a microsecond), so tests are deterministic and a 10 second link timeout costs nothing.
//
// Whenever a model sees something the datasheet forbids, it records a violation (model_violation): the message is
// printed at once, and a test program that exits with violations it did not expect fails (exit code 1).
#ifndef IXY_TEST_MODEL_H
#define IXY_TEST_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

// ---- threads ----
//
// The models are one state machine, not thread-safe by themselves: every register access, delay and MMIO access of a
// driver takes one process-wide lock (recursive) for its whole visit to the model, so that a threaded app (ixy-fwd
// --queues) can run against them. A test that calls a model's own functions (model_ixgbe_receive, _counters, ...)
// while such an app runs in other threads holds the lock around them with model_lock/model_unlock. DMA memory the
// model writes (descriptors, frames) is not guarded: the driver and the device meet there as on real hardware,
// through the descriptors' done bits; test/model/tsan.supp says why ThreadSanitizer is told so.
//
// One exception, so that threads on different queues can run side by side (bench/threads_bench.c): a device may take
// a write to a queue's own register (a tail) without this lock, under a lock of that queue
// (model_pci_ops.queue_write32; the 82599 model does while it is quiet, ixgbe_model.c). The recorded violations have
// a lock of their own for that, and the clock is read with atomic loads.
void model_lock(void);
void model_unlock(void);

// ---- virtual time ----

// Microseconds since the program started, in virtual time.
uint64_t model_now_us(void);
// Lets virtual time pass (as if the test waited); runs nothing by itself, models catch up when accessed.
void model_advance_us(uint64_t us);

// ---- frame stamps (a test-only latency clock) ----
//
// With stamps on, a device model notes the virtual time at which it writes a received frame into a buffer (RX
// descriptor write-back: model_stamp_received) and, when it fetches a TX descriptor of a packet whose first buffer
// holds such a frame (a forwarder sends the buffer it received, zero copy), records the frame's wait: send time
// minus receive time (model_stamp_sent). Buffers are known by the address the device sees. Off by default.

// Switches stamps on or off; both forget every note and recorded wait.
void model_stamps_enable(bool on);
// True while stamps are on.
bool model_stamps_on(void);
// A device model wrote a received frame to the buffer at device address `buffer` now.
void model_stamp_received(uint64_t buffer);
// A device model fetched the TX descriptor of a packet starting at device address `buffer` now: if the buffer
// holds a stamped frame, its wait is recorded and the note is consumed.
void model_stamp_sent(uint64_t buffer);
// The recorded waits in virtual microseconds, in the order the frames were sent; returns their number.
size_t model_stamp_waits(const uint64_t** waits);

// ---- violations ----

// Records a violation of the datasheet (or of the ixy API contract) by the driver. device may be NULL.
void model_violation(const char* device, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// Number of violations recorded and not yet expected (see model_expect_violation).
unsigned model_violation_count(void);
// Removes the oldest recorded violation whose message contains substring; false if there is none.
// For tests that provoke a violation on purpose.
bool model_expect_violation(const char* substring);
// Forgets all recorded violations and returns how many there were (tests of the model itself).
unsigned model_forget_violations(void);
// Prints the recorded violations.
void model_print_violations(FILE* out);

// A mistake in the test itself (bad argument to a model function): prints and exits with status 2.
void model_usage_error(const char* fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

// ---- DMA ----

// True if the device may touch [addr, addr + len): the range lies in live DMA memory (test/seam/seam.h).
// Fast: remembers the huge pages it found live until some DMA memory is freed.
bool model_dma_ok(uintptr_t addr, size_t len);
// Makes the nth DMA allocation from now fail (1: the next one), as if huge pages ran out; 0 cancels.
// (test/seam's seam_dma_fail_next fails the next n in a row; this reaches the error paths further in.)
void model_fail_dma_allocation(unsigned nth);
// Number of DMA allocations made so far (successful or not).
unsigned model_dma_allocations(void);

// ---- PCI devices ----

struct model_pci_device;

// What a device model does when the driver touches it. All functions may be NULL.
struct model_pci_ops {
	uint32_t (*read32)(void* model, uint32_t reg);
	void (*write32)(void* model, uint32_t reg, uint32_t value);
	// Called first for every register write, without the models' lock: a device that handles the write itself (a
	// queue's tail, under that queue's own lock) returns true; false sends it to write32, under the models' lock.
	bool (*queue_write32)(void* model, uint32_t reg, uint32_t value);
	// The driver unmapped its BARs (and closed the device: pci_close): it can no longer reach the device.
	void (*unmapped)(void* model);
	// DMA memory [start, start + size) is about to be freed.
	void (*dma_freed)(void* model, uintptr_t start, size_t size);
	// Frees the model (model_pci_remove_all).
	void (*destroy)(void* model);
	// Devices with memory BARs other than the 82599's BAR0 (VirtIO): the size of BAR `bar` (0: no memory BAR
	// there; at most MODEL_BAR0_SIZE), and loads and stores of 1, 2 or 4 bytes anywhere in it
	// (ixy_seam_mmio_read/write, test/seam/seam_io.h). Without bar_size a device has BAR0 of MODEL_BAR0_SIZE,
	// reached through read32/write32.
	size_t (*bar_size)(void* model, unsigned bar);
	uint32_t (*mmio_read)(void* model, unsigned bar, uint32_t offset, unsigned width);
	void (*mmio_write)(void* model, unsigned bar, uint32_t offset, unsigned width, uint32_t value);
	// The 256 bytes of PCI configuration space the driver may read (IDs, status, capabilities); model.c puts its
	// command register over them. Without it, the command register is all there is.
	void (*config_space)(void* model, uint8_t config[256]);
};

// Size of BAR0 of every fake device (the 82599's memory BAR is 512 KiB), and the largest BAR of any.
#define MODEL_BAR0_SIZE (512u * 1024)

// Adds a device at pci_addr ("0000:01:00.0"). ops may be NULL for a device without a model (its BAR cannot be
// mapped: a driver must not touch it). Returns the device; the model pointer is passed to every op.
struct model_pci_device* model_pci_add(const char* pci_addr, uint16_t vendor_id, uint16_t device_id,
				       uint32_t class_code, const struct model_pci_ops* ops, void* model);
// The model of the device at pci_addr if it was added with these ops, else NULL. Prints nothing, touches nothing
// (for the parts of a device model that the driver reaches without a BAR, like the VirtIO transports).
void* model_pci_model(const char* pci_addr, const struct model_pci_ops* ops);
// Removes all devices and frees their models. Devices whose BAR is still mapped are reported as violations.
void model_pci_remove_all(void);

// State of a device as the PCI layer sees it.
bool model_pci_bus_master(const struct model_pci_device* dev);
// True while any of its BARs is mapped.
bool model_pci_bar_mapped(const struct model_pci_device* dev);
// Where BAR `bar` (0 to 5) of the device is mapped; NULL while it is not.
uint8_t* model_pci_bar(const struct model_pci_device* dev, unsigned bar);
bool model_pci_unbound(const struct model_pci_device* dev);
const char* model_pci_addr(const struct model_pci_device* dev);
// Number of pci_* calls (other than pci_read_ids) made for the device: 0 means the driver never touched it.
unsigned model_pci_touches(const struct model_pci_device* dev);
// Makes failsafe_check_device() fail for every device (as for a user without root).
void model_pci_deny_permissions(bool deny);
// failsafe_check_memory() passes while at most this many huge pages are needed (initially: any number), and
// remembers the number it was last asked for.
void model_set_free_huge_pages(uint64_t pages);
uint64_t model_memory_checked(void);

// ---- interrupts (MSI-X, as VFIO gives them: one eventfd per vector) ----

#define MODEL_MAX_VECTORS 64
// Lets the driver enable the device's MSI-X vectors (pci_access.enable_interrupts, which only VFIO has otherwise).
void model_pci_offer_msix(struct model_pci_device* dev, bool offer);
// The device sends the MSI-X message of vector (a model calls this): the vector's eventfd is signalled. Reports a
// violation if the driver did not enable the vector.
void model_pci_raise_msix(struct model_pci_device* dev, unsigned vector);
// Messages sent on vector since it was enabled.
uint64_t model_pci_msix_count(const struct model_pci_device* dev, unsigned vector);

#endif
