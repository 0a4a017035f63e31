// The register accessors of the paper-only test build (cmake -DIXY_PAPER_ONLY=ON): the device model's register
// access, without the register trace, which is a feature that build does not have (trace_seam.c is the full build's).
#include <stdint.h>

uint32_t ixy_model_read32(const uint8_t* bar, uint32_t reg);
void ixy_model_write32(uint8_t* bar, uint32_t reg, uint32_t value);
uint32_t ixy_seam_read32(const uint8_t* bar, uint32_t reg);
void ixy_seam_write32(uint8_t* bar, uint32_t reg, uint32_t value);

uint32_t ixy_seam_read32(const uint8_t* bar, uint32_t reg) {
	return ixy_model_read32(bar, reg);
}

void ixy_seam_write32(uint8_t* bar, uint32_t reg, uint32_t value) {
	ixy_model_write32(bar, reg, value);
}
