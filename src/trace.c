// The register trace for students: see trace.h.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/igb_regs.h"
#include "driver/ixgbe_regs.h"
#include "driver/virtio_regs.h"
#include "trace.h"

#define MAX_TRACED_BARS 16

bool ixy_trace_on;

static const struct ixy_reg_name ixgbe_names[] = {IXGBE_REG_NAMES, {NULL, 0, 0, 0}};
static const struct ixy_reg_name igb_names[] = {IGB_REG_NAMES, {NULL, 0, 0, 0}};
static const struct ixy_reg_name virtio_legacy_names[] = {VIRTIO_LEGACY_REG_NAMES, {NULL, 0, 0, 0}};
static const struct ixy_reg_name virtio_common_names[] = {VIRTIO_COMMON_REG_NAMES, {NULL, 0, 0, 0}};
static const struct ixy_reg_name virtio_net_names[] = {VIRTIO_NET_CONFIG_NAMES, {NULL, 0, 0, 0}};
static const struct ixy_reg_name virtio_notify_names[] = {VIRTIO_NOTIFY_NAMES, {NULL, 0, 0, 0}};

// Each driver's register table.
static const struct {
	const char* driver;
	const struct ixy_reg_name* names;
} tables[] = {{"ixgbe", ixgbe_names},
	      {"igb", igb_names},
	      {"virtio-legacy", virtio_legacy_names},
	      {"virtio-modern", virtio_common_names},
	      {"virtio-net-config", virtio_net_names},
	      {"virtio-notify", virtio_notify_names}};

static struct {
	const uint8_t* bar;
	size_t size;
	char pci_addr[sizeof("0000:00:00.0")];
	const char* driver;
	const struct ixy_reg_name* names;
} traced[MAX_TRACED_BARS];
static unsigned num_traced;

static const struct ixy_reg_name* names_of(const char* driver) {
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		if (strcmp(tables[i].driver, driver) == 0) {
			return tables[i].names;
		}
	}
	return NULL;
}

static const char* lookup(const struct ixy_reg_name* names, uint32_t reg, char buf[32]) {
	for (size_t i = 0; names && names[i].name; i++) {
		const struct ixy_reg_name* n = &names[i];
		if (n->count == 1 && reg == n->offset) {
			return n->name;
		}
		if (n->count > 1 && reg >= n->offset && (reg - n->offset) % n->stride == 0 &&
		    (reg - n->offset) / n->stride < n->count) {
			snprintf(buf, 32, "%s(%u)", n->name, (reg - n->offset) / n->stride);
			return buf;
		}
	}
	return NULL;
}

const char* ixy_trace_reg_name(const char* driver, uint32_t reg, char buf[32]) {
	return lookup(names_of(driver), reg, buf);
}

static bool requested;

void ixy_trace_request(bool on) {
	requested = on;
}

void ixy_trace_bar(const char* pci_addr, const char* driver, const uint8_t* bar, size_t size) {
	unsigned i = 0;
	while (i < num_traced && traced[i].bar != bar) {
		i++; // a BAR mapped where an earlier one was (and is no longer) takes its place
	}
	if (!requested || i == MAX_TRACED_BARS) {
		return;
	}
#if !defined(IXY_TRACE) && !defined(IXY_SEAM) // plain register accessors (src/driver/driver.h): nothing to trace
	static bool told;
	if (!told) {
		fprintf(stderr, "ixy: this build has no register trace; configure with -DIXY_TRACE=ON\n");
	}
	told = true;
	return;
#endif
	traced[i].bar = bar;
	traced[i].size = size;
	snprintf(traced[i].pci_addr, sizeof(traced[i].pci_addr), "%s", pci_addr);
	traced[i].driver = driver;
	traced[i].names = names_of(driver);
	num_traced += i == num_traced;
	ixy_trace_on = true;
}

void ixy_trace_access(const uint8_t* bar, uint32_t reg, uint32_t value, bool write) {
	for (unsigned i = 0; i < num_traced; i++) {
		if (traced[i].bar == bar) {
			char buf[32];
			const char* name = lookup(traced[i].names, reg, buf);
			fprintf(stderr, "ixy: trace %s %s %s[0x%05x] %s 0x%08x\n", traced[i].pci_addr, traced[i].driver,
				name ? name : "?", reg, write ? "<-" : "->", value);
			return;
		}
	}
}
