// The register trace (src/trace.h, IXY_TRACE=1) against the 82599 model: the lines the driver's accessors print
// (src/driver/traced/reg_io.h; the model prints nothing) are every register access of an ixgbe init and close, in the
// order the model recorded them, with offset and value, each named as the model's own table names it.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ixy/ixy.h>

#include "../check.h"
#include "driver/igb_regs.h"
#include "driver/ixgbe_regs.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "trace.h"

#define NIC_ADDR "0000:08:00.0"
#define MAX_LINES 65536

struct traced_access {
	char name[32];
	uint32_t reg;
	uint32_t value;
	bool write;
};
static struct traced_access lines[MAX_LINES];

// Parses "ixy: trace <addr> <driver> NAME[0xOFFSET] <- 0xVALUE" (or "->") lines; returns how many there were.
static uint32_t parse_trace(FILE* trace, uint32_t* other_lines) {
	char line[256], addr[32], driver[16], name[32], arrow[4];
	uint32_t n = 0, reg, value;
	while (fgets(line, sizeof(line), trace)) {
		if (sscanf(line, "ixy: trace %31s %15s %31[^[][0x%x] %3s 0x%x", addr, driver, name, &reg, arrow,
			   &value) != 6) {
			(*other_lines)++;
			continue;
		}
		CHECK(strcmp(addr, NIC_ADDR) == 0 && strcmp(driver, "ixgbe") == 0);
		if (n < MAX_LINES) {
			lines[n] =
			    (struct traced_access){.reg = reg, .value = value, .write = strcmp(arrow, "<-") == 0};
			snprintf(lines[n].name, sizeof(lines[n].name), "%s", name);
			n++;
		}
	}
	return n;
}

// Compares trace line *i with one access of the model's record; prints the first few that differ.
static bool same_access(uint32_t* i, uint32_t n, const struct model_log_entry* e) {
	static const struct traced_access none = {.name = "(no line)"};
	const struct traced_access* t = *i < n ? &lines[*i] : &none;
	char name[24];
	const char* model_name = model_ixgbe_reg_name(e->reg, name);
	bool write = e->access == MODEL_WRITE;
	bool same = t->write == write && t->reg == e->reg && t->value == e->value && strcmp(t->name, model_name) == 0;
	static int shown;
	if (!same && shown++ < 5) {
		fprintf(stderr, "trace line %u: %s[0x%05x] %s 0x%08x; the model recorded %s[0x%05x] %s 0x%08x\n", *i,
			t->name, t->reg, t->write ? "<-" : "->", t->value, model_name, e->reg, write ? "<-" : "->",
			e->value);
	}
	(*i)++;
	return same;
}

static void test_trace_of_init_and_close(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	setenv("IXY_TRACE", "1", 1);
	// The trace goes to stderr: catch it in a file.
	FILE* trace = tmpfile();
	int saved_stderr = dup(STDERR_FILENO);
	CHECK(trace != NULL && saved_stderr >= 0);
	if (!trace || saved_stderr < 0) {
		return;
	}
	fflush(stderr);
	CHECK(dup2(fileno(trace), STDERR_FILENO) >= 0);
	struct ixy_device* dev = ixy_init(NIC_ADDR, 2, 2);
	ixy_close(dev);
	fflush(stderr);
	CHECK(dup2(saved_stderr, STDERR_FILENO) >= 0);
	close(saved_stderr);
	unsetenv("IXY_TRACE");
	CHECK(dev != NULL);
	rewind(trace);
	uint32_t other_lines = 0;
	uint32_t n = parse_trace(trace, &other_lines);
	fclose(trace);
	// The model's record, in order: a write is one trace line, a read repeated with the same result (logged once
	// with its count) is as many.
	uint32_t i = 0, accesses = 0, matched = 0, writes = 0;
	for (uint32_t k = 0; k < model_ixgbe_log_length(nic); k++) {
		const struct model_log_entry* e = model_ixgbe_log_entry(nic, k);
		uint32_t times = e->access == MODEL_WRITE ? 1 : e->repeats;
		writes += e->access == MODEL_WRITE;
		for (uint32_t r = 0; r < times; r++, accesses++) {
			matched += same_access(&i, n, e);
		}
	}
	printf("trace: %u lines, the model recorded %u accesses (%u writes); %u match in order\n", n, accesses, writes,
	       matched);
	CHECK(writes > 50); // 75 for this init and close
	CHECK(accesses > writes);
	CHECK_EQ(n, accesses);
	CHECK_EQ(matched, accesses);
	// The first writes are those of 4.6.3: mask, reset.
	uint32_t first = 0;
	while (first < n && !lines[first].write) {
		first++;
	}
	CHECK(first + 1 < n && strcmp(lines[first].name, "EIMC") == 0 && strcmp(lines[first + 1].name, "CTRL") == 0);
	char buf[32];
	CHECK(strcmp(ixy_trace_reg_name(&ixgbe_reg_names, 0x01018 + 3 * 0x40, buf), "RDT(3)") == 0);
	CHECK(ixy_trace_reg_name(&ixgbe_reg_names, 0x00004, buf) == NULL);
	CHECK(strcmp(ixy_trace_reg_name(&igb_reg_names, 0x00100, buf), "RCTL") == 0); // the igb's table too
	CHECK(strcmp(ixy_trace_reg_name(&igb_reg_names, 0x0E018 + 2 * 0x40, buf), "TDT(2)") == 0);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// Without IXY_TRACE=1 nothing is traced.
static void test_no_trace_without_the_variable(void) {
	model_test_begin(__func__);
	model_ixgbe_add(NIC_ADDR);
	ixy_trace_on = false;
	struct ixy_device* dev = ixy_init(NIC_ADDR, 1, 1);
	CHECK(dev != NULL);
	CHECK(!ixy_trace_on);
	ixy_close(dev);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

int main(void) {
	test_no_trace_without_the_variable();
	test_trace_of_init_and_close();
	return model_test_summary();
}
