// How drivers talk to a device: 32 bit memory-mapped registers, and delays.
//
// Production builds compile these to plain volatile loads and stores (one instruction each).
// Test builds define IXY_SEAM: then register accesses and delays go to a software device model (test/model),
// which checks what the driver does against the datasheet and keeps a virtual clock.
#ifndef IXY_DEVICE_IO_H
#define IXY_DEVICE_IO_H

#include <stdint.h>
#include <unistd.h>

#ifdef IXY_SEAM
#include "seam_io.h" // test/seam: the functions of a software device model
#else
static inline void set_reg32(uint8_t* bar, uint32_t reg, uint32_t value) {
	// The compiler barrier keeps earlier memory writes (descriptors) before the register write.
	__asm__ volatile("" : : : "memory");
	*((volatile uint32_t*)(bar + reg)) = value;
}

static inline uint32_t get_reg32(const uint8_t* bar, uint32_t reg) {
	__asm__ volatile("" : : : "memory");
	return *((volatile uint32_t*)(bar + reg));
}

static inline void ixy_usleep(uint32_t us) {
	usleep(us);
}
#endif

static inline void set_flags32(uint8_t* bar, uint32_t reg, uint32_t flags) {
	set_reg32(bar, reg, get_reg32(bar, reg) | flags);
}

static inline void clear_flags32(uint8_t* bar, uint32_t reg, uint32_t flags) {
	set_reg32(bar, reg, get_reg32(bar, reg) & ~flags);
}

#endif
