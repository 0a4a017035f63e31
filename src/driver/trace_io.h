// Register accessors that trace (src/trace.h): driver.h uses these instead of the plain ones in builds configured
// with cmake -DIXY_TRACE=ON. A trace line is printed only while IXY_TRACE=1 is set (ixy_trace_on).
#ifndef IXY_TRACE_IO_H
#define IXY_TRACE_IO_H

#include <stdint.h>
#include <unistd.h>

#include "../trace.h"

static inline void set_reg32(uint8_t* bar, uint32_t reg, uint32_t value) {
	if (ixy_trace_on) {
		ixy_trace_access(bar, reg, value, true);
	}
	__asm__ volatile("" : : : "memory");
	*((volatile uint32_t*)(bar + reg)) = value;
}

static inline uint32_t get_reg32(const uint8_t* bar, uint32_t reg) {
	__asm__ volatile("" : : : "memory");
	uint32_t value = *((volatile uint32_t*)(bar + reg));
	if (ixy_trace_on) {
		ixy_trace_access(bar, reg, value, false);
	}
	return value;
}

static inline void ixy_usleep(uint32_t us) {
	usleep(us);
}

#endif
