// The register accessors of test builds: those of src/driver/traced/reg_io.h, which print the register trace while
// IXY_TRACE=1 is set, with the device model's register access (test/model/model.c) in place of the volatile load and
// store. Out of line, so that the model tests see the lines these accessors print (test_ixgbe_trace compares them with
// the model's record), and the benchmark (bench/callgrind_parts.py) still counts a register access of the driver as
// one call: the trace check inside belongs to the test build, not to the driver's production code.
#include <stdint.h>

uint32_t ixy_model_read32(const uint8_t* bar, uint32_t reg);
void ixy_model_write32(uint8_t* bar, uint32_t reg, uint32_t value);
#define ixy_raw_read32 ixy_model_read32
#define ixy_raw_write32 ixy_model_write32
#include "driver/traced/reg_io.h"

uint32_t ixy_seam_read32(const uint8_t* bar, uint32_t reg);
void ixy_seam_write32(uint8_t* bar, uint32_t reg, uint32_t value);

uint32_t ixy_seam_read32(const uint8_t* bar, uint32_t reg) {
	return get_reg32(bar, reg);
}

void ixy_seam_write32(uint8_t* bar, uint32_t reg, uint32_t value) {
	set_reg32(bar, reg, value);
}
