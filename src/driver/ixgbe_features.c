// What features add to ixgbe's init (struct driver_features, driver.h): the register trace (src/trace.h), RSS
// (intel_rss.c), an interrupt per RX queue (ixgbe_interrupts.c) and the settings (ixgbe_settings.c).
// src/feature_entries.c gives it to ixgbe_init; the paper-only build has none of them.
#include "../trace.h"
#include "intel_rss.h"
#include "ixgbe_interrupts.h"
#include "ixgbe_regs.h"

static void trace_registers(const char* pci_addr, uint8_t* bar, size_t bar_size) {
	ixy_trace_bar(pci_addr, &ixgbe_reg_names, bar, bar_size);
}

static bool setup_rss(uint8_t* bar, const struct ixy_config* config) {
	return intel_setup_rss(bar, config, &intel_rss_82599);
}

extern const struct ixy_settings ixgbe_settings; // ixgbe_settings.c

const struct driver_features ixgbe_features = {.trace = trace_registers,
					       .setup_rss = setup_rss,
					       .setup_interrupts = ixgbe_setup_interrupts,
					       .settings = &ixgbe_settings};
