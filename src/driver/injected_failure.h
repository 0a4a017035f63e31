// A test hook of the fail safety (book chapter 12), for the inits of igb, e1000 and VirtIO, the NICs QEMU has:
// IXY_TEST_FAIL_INIT=<pci addr>:<step>, which check_config (src/checks.c) reads with the other environment variables
// into config->test_fail_step. ixgbe's init, the paper's, has no test hook: its tests break the 82599 model instead
// (model_ixgbe_set_fault, seam_dma_fail_next).
#ifndef IXY_DRIVER_INJECTED_FAILURE_H
#define IXY_DRIVER_INJECTED_FAILURE_H

#include <string.h>

#include <ixy/ixy.h>

#include "../log.h"

// True, with a warning, if IXY_TEST_FAIL_INIT named this device and step (config->test_fail_step). The PCI drivers'
// inits then fail at that step as if it had failed, and clean up as for a real failure there: "reset" (a reset that
// times out), "memory" (a DMA allocation that fails), "queue" (a queue that does not enable, others enabled), so that
// the tests see each driver's way out of a failed init, and ixy giving the NIC back (test/vm/scenario-bad-inputs.sh,
// test/model/test_ixgbe_init.c).
static inline bool injected_failure(const struct ixy_config* config, const char* step) {
	if (!config->test_fail_step || strcmp(config->test_fail_step, step) != 0) {
		return false;
	}
	ixy_warn("%s: init fails at the step '%s' (test hook IXY_TEST_FAIL_INIT)", config->pci_addr, step);
	return true;
}

#endif
