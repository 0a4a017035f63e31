// The test side of the register access in src/driver/driver.h: in test builds (IXY_SEAM) register accesses and delays
// of the drivers go to these functions, which a software device model implements (test/model/model.c keeps a virtual
// clock). They go there through the tracing accessors of src/driver/trace_io.h, so that the model tests see the lines
// of the register trace (IXY_TRACE=1) that the driver's own accessors print.
#ifndef IXY_TEST_SEAM_IO_H
#define IXY_TEST_SEAM_IO_H

#include <stdint.h>

uint32_t ixy_seam_read32(const uint8_t* bar, uint32_t reg);
void ixy_seam_write32(uint8_t* bar, uint32_t reg, uint32_t value);
void ixy_seam_usleep(uint32_t us);
#define ixy_raw_read32 ixy_seam_read32
#define ixy_raw_write32 ixy_seam_write32
#define ixy_usleep ixy_seam_usleep

#include "driver/trace_io.h"

#endif
