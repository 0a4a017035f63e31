// The register trace for students: see trace.h.
#include <stdio.h>

#include "trace.h"

#define MAX_TRACED_BARS 16

bool ixy_trace_on;

static struct {
	const uint8_t* bar;
	size_t size;
	char pci_addr[sizeof("0000:00:00.0")];
	const struct ixy_reg_names* names;
} traced[MAX_TRACED_BARS];
static unsigned num_traced;

const char* ixy_trace_reg_name(const struct ixy_reg_names* names, uint32_t reg, char buf[32]) {
	for (const struct ixy_reg_name* n = names->regs; n->name; n++) {
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

static bool requested;

void ixy_trace_request(bool on) {
	requested = on;
}

void ixy_trace_bar(const char* pci_addr, const struct ixy_reg_names* names, const uint8_t* bar, size_t size) {
	unsigned i = 0;
	while (i < num_traced && traced[i].bar != bar) {
		i++; // a BAR mapped where an earlier one was (and is no longer) takes its place
	}
	if (!requested || i == MAX_TRACED_BARS) {
		return;
	}
#if !defined(IXY_TRACE) && !defined(IXY_SEAM) // plain register accessors (src/driver/plain/reg_io.h): nothing to trace
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
	traced[i].names = names;
	num_traced += i == num_traced;
	ixy_trace_on = true;
}

void ixy_trace_access(const uint8_t* bar, uint32_t reg, uint32_t value, bool write) {
	for (unsigned i = 0; i < num_traced; i++) {
		if (traced[i].bar == bar) {
			char buf[32];
			const char* name = ixy_trace_reg_name(traced[i].names, reg, buf);
			fprintf(stderr, "ixy: trace %s %s %s[0x%05x] %s 0x%08x\n", traced[i].pci_addr,
				traced[i].names->driver, name ? name : "?", reg, write ? "<-" : "->", value);
			return;
		}
	}
}
