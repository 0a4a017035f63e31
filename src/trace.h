// The register trace for students (trace.c): with IXY_TRACE=1 in the environment, every register access of the ixgbe
// and igb drivers prints one line on stderr, named from the driver's register table, e.g.
//   ixy: trace 0000:03:00.0 ixgbe CTRL[0x00000] <- 0x04000008
//   ixy: trace 0000:03:00.0 ixgbe RXDCTL(0)[0x01028] -> 0x02000000
// so that an init sequence can be read next to the datasheet. (The VirtIO driver is not traced: its modern transport
// reaches the device's structures with plain loads and stores, not through these accessors.) Production builds have it
// only when configured with cmake -DIXY_TRACE=ON (src/driver/trace_io.h); the default build has no trace code in its
// register accessors at all. Test builds always have it (the device model calls it).
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

// True once a BAR was mapped with IXY_TRACE=1 in the environment.
extern bool ixy_trace_on;

// A driver mapped a device's BAR: remembers it, and the driver's register names, if IXY_TRACE=1.
void ixy_trace_bar(const char* pci_addr, const char* driver, const uint8_t* bar, size_t size);
// Prints one register access through bar (a BAR ixy_trace_bar saw; others are ignored).
void ixy_trace_access(const uint8_t* bar, uint32_t reg, uint32_t value, bool write);
// The name of a register of a driver ("RDT(3)"), or NULL if its table has none. For tests.
const char* ixy_trace_reg_name(const char* driver, uint32_t reg, char buf[32]);

#endif
