// The test side of the register access in src/driver/driver.h: in test builds (IXY_SEAM) register accesses and delays
// of the drivers go to these functions. ixy_seam_read32/ixy_seam_write32 (trace_seam.c) are the tracing accessors of
// src/driver/traced/reg_io.h, out of line, with a software device model's register access below them
// (ixy_model_read32/ixy_model_write32); the model (test/model/model.c) implements those and the delay, and keeps a
// virtual clock.
#ifndef IXY_TEST_SEAM_IO_H
#define IXY_TEST_SEAM_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

uint32_t ixy_seam_read32(const uint8_t* bar, uint32_t reg);
void ixy_seam_write32(uint8_t* bar, uint32_t reg, uint32_t value);
void ixy_seam_usleep(uint32_t us);
#define get_reg32 ixy_seam_read32
#define set_reg32 ixy_seam_write32
#define ixy_usleep ixy_seam_usleep

uint32_t ixy_model_read32(const uint8_t* bar, uint32_t reg);
void ixy_model_write32(uint8_t* bar, uint32_t reg, uint32_t value);
// The VirtIO transports (src/driver/virtio_modern.c, virtio_legacy.c) in test builds.
// Modern: a load or store of `width` bytes (1, 2 or 4) at `address`, anywhere inside a memory BAR that the access's
// map_bar returned.
uint32_t ixy_seam_mmio_read(const volatile uint8_t* address, size_t width);
void ixy_seam_mmio_write(volatile uint8_t* address, size_t width, uint32_t value);
// Legacy: the IO-port BAR0 of the device at pci_addr, as the sysfs resource file the real transport opens: a handle
// (or -1 with errno), pread/pwrite at a register offset (returning the bytes done, or -1 with errno), close.
int ixy_seam_io_open(const char* pci_addr);
ssize_t ixy_seam_io_pread(int handle, void* buf, size_t len, off_t offset);
ssize_t ixy_seam_io_pwrite(int handle, const void* buf, size_t len, off_t offset);
int ixy_seam_io_close(int handle);

#endif
