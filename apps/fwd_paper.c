// The paper's ixy-fwd (the build with IXY_PAPER_ONLY): two PCI addresses, one queue each, polling; no feature.
#include <stdio.h>

#include "fwd.h"

static bool paper_parse(int argc, char* argv[], struct ixy_config configs[2], int* exit_code) {
	if (argc != 3) {
		fprintf(stderr, "usage: ixy-fwd <pci1> <pci2>   (PCI addresses like 0000:03:00.0)\n");
		*exit_code = 2;
		return false;
	}
	configs[0] = (struct ixy_config){.pci_addr = argv[1], .rx_queues = 1, .tx_queues = 1};
	configs[1] = (struct ixy_config){.pci_addr = argv[2], .rx_queues = 1, .tx_queues = 1};
	return true;
}

// Giving up is closing the first device (ixy_close takes NULL).
const struct fwd_entry fwd_entry = {.parse = paper_parse, .give_up = ixy_close}; // (it polls: no idle step)
