// The test side of the register access in src/driver/driver.h: in test builds (IXY_SEAM) register accesses and delays
// of the drivers go to these functions. ixy_seam_read32/ixy_seam_write32 (trace_seam.c) are the tracing accessors of
// src/driver/trace_io.h, out of line, with a software device model's register access below them
// (ixy_model_read32/ixy_model_write32); the model (test/model/model.c) implements those and the delay, and keeps a
// virtual clock.
#ifndef IXY_TEST_SEAM_IO_H
#define IXY_TEST_SEAM_IO_H

#include <stdint.h>

uint32_t ixy_seam_read32(const uint8_t* bar, uint32_t reg);
void ixy_seam_write32(uint8_t* bar, uint32_t reg, uint32_t value);
void ixy_seam_usleep(uint32_t us);
#define get_reg32 ixy_seam_read32
#define set_reg32 ixy_seam_write32
#define ixy_usleep ixy_seam_usleep

uint32_t ixy_model_read32(const uint8_t* bar, uint32_t reg);
void ixy_model_write32(uint8_t* bar, uint32_t reg, uint32_t value);

#endif
