// The register trace for students (trace.c): with IXY_TRACE=1 in the environment, every register access of the ixgbe
// and igb drivers prints one line on stderr, named from the names the driver passes (src/driver/*_trace.c), e.g.
//   ixy: trace 0000:03:00.0 ixgbe CTRL[0x00000] <- 0x04000008
//   ixy: trace 0000:03:00.0 ixgbe RXDCTL(0)[0x01028] -> 0x02000000
// so that an init sequence can be read next to the datasheet. The VirtIO transports trace their registers too
// (IXY_TRACE_FIELD in their accessors), e.g.
//   ixy: trace 0000:00:08.0 virtio-legacy STATUS[0x00012] <- 0x00000003
//   ixy: trace 0000:01:00.0 virtio-modern QUEUE_DESC(0)[0x00020] <- 0x12a00000
// Production builds have it only when configured with cmake -DIXY_TRACE=ON (src/driver/traced/reg_io.h); the default
// build has no trace code in its register accessors at all, and says so once if IXY_TRACE=1 is set. Test builds
// always have it for ixgbe and igb (test/seam/seam_io.h reaches the device model through traced/reg_io.h).
#ifndef IXY_TRACE_H
#define IXY_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ixy_reg_name {
	const char* name;
	uint32_t offset; // of the first (queue 0)
	uint32_t count;  // 1, or how many there are
	uint32_t stride; // bytes between two of them
};

// A register block's names, which its driver passes to ixy_trace_bar (the tables: src/driver/*_trace.c). The trace
// knows no driver: each line names the block by `driver`.
struct ixy_reg_names {
	const char* driver;              // as the trace lines name it: "ixgbe", "virtio-modern"
	const struct ixy_reg_name* regs; // ends with a NULL name
};

// True once a BAR was mapped with the trace requested.
extern bool ixy_trace_on;

// Whether the BARs mapped from now on are traced: ixy_init (device.c) sets it from config->trace (IXY_TRACE=1).
void ixy_trace_request(bool on);
// A driver mapped a device's BAR: remembers it, and the names of its registers, if the trace is requested.
void ixy_trace_bar(const char* pci_addr, const struct ixy_reg_names* names, const uint8_t* bar, size_t size);
// Prints one register access through bar (a BAR ixy_trace_bar saw; others are ignored).
void ixy_trace_access(const uint8_t* bar, uint32_t reg, uint32_t value, bool write);
// The name of register reg in names ("RDT(3)", written to buf), or NULL if names has none.
const char* ixy_trace_reg_name(const struct ixy_reg_names* names, uint32_t reg, char buf[32]);

// For register accessors that are not the ones of src/driver/traced/reg_io.h (the VirtIO transports): traces one access
// of `value` at `offset` of the structure registered as `key` with ixy_trace_bar, in builds with -DIXY_TRACE=ON;
// nothing at all in others.
#ifdef IXY_TRACE
#define IXY_TRACE_FIELD(key, offset, value, write)                                                                     \
	do {                                                                                                           \
		if (ixy_trace_on) {                                                                                    \
			ixy_trace_access((const uint8_t*)(key), (uint32_t)(offset), (uint32_t)(value), (write));       \
		}                                                                                                      \
	} while (0)
#else
#define IXY_TRACE_FIELD(key, offset, value, write)                                                                     \
	do {                                                                                                           \
		(void)(key);                                                                                           \
		(void)(offset);                                                                                        \
		(void)(value);                                                                                         \
	} while (0)
#endif

#endif
