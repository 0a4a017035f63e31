// Register accessors that trace (src/trace.h): driver.h includes these as "reg_io.h" instead of the plain ones
// (../plain/reg_io.h) in builds configured with cmake -DIXY_TRACE=ON (CMake puts this folder on the include path).
// Test builds (IXY_SEAM) always run them, with the device model below (test/seam/trace_seam.c), so that the model
// tests check the lines these print. A trace line is printed only while IXY_TRACE=1 is set (ixy_trace_on).
#ifndef IXY_TRACE_IO_H
#define IXY_TRACE_IO_H

#include <stdint.h>
#include <unistd.h>

#include "../../trace.h"

// The access itself: a volatile load or store, or in test builds the device model's (test/seam/trace_seam.c).
#ifndef IXY_SEAM
static inline void ixy_raw_write32(uint8_t* bar, uint32_t reg, uint32_t value) {
	__asm__ volatile("" : : : "memory");
	*((volatile uint32_t*)(bar + reg)) = value;
}

static inline uint32_t ixy_raw_read32(const uint8_t* bar, uint32_t reg) {
	__asm__ volatile("" : : : "memory");
	return *((volatile uint32_t*)(bar + reg));
}

#include "../delay.h" // ixy_usleep
#endif

static inline void set_reg32(uint8_t* bar, uint32_t reg, uint32_t value) {
	if (ixy_trace_on) {
		ixy_trace_access(bar, reg, value, true);
	}
	ixy_raw_write32(bar, reg, value);
}

static inline uint32_t get_reg32(const uint8_t* bar, uint32_t reg) {
	uint32_t value = ixy_raw_read32(bar, reg);
	if (ixy_trace_on) {
		ixy_trace_access(bar, reg, value, false);
	}
	return value;
}

#endif
