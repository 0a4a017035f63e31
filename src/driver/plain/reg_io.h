// Register access and delays of a production build (driver.h includes this file as "reg_io.h": CMake puts this
// folder on the include path; -DIXY_TRACE=ON puts src/driver/traced/ there instead, test builds test/seam/).
// A register access is one volatile load or store.
#ifndef IXY_REG_IO_H
#define IXY_REG_IO_H

#include <stdint.h>

#include "../delay.h" // ixy_usleep: the full time, also when a signal interrupts it

static inline void set_reg32(uint8_t* bar, uint32_t reg, uint32_t value) {
	// The compiler barrier keeps earlier memory writes (descriptors) before the register write.
	__asm__ volatile("" : : : "memory");
	*((volatile uint32_t*)(bar + reg)) = value;
}

static inline uint32_t get_reg32(const uint8_t* bar, uint32_t reg) {
	__asm__ volatile("" : : : "memory");
	return *((volatile uint32_t*)(bar + reg));
}

#endif
