// The register trace (src/trace.h, IXY_TRACE=1) against the 82599 model: every register write of an ixgbe init and
// close appears in the trace, in order, with its offset and value as the model recorded them, named from the
// driver's register table.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ixy/ixy.h>

#include "../check.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "trace.h"

#define NIC_ADDR "0000:08:00.0"
#define MAX_WRITES 65536

struct traced_write {
	char name[32];
	uint32_t reg;
	uint32_t value;
};
static struct traced_write writes[MAX_WRITES];

// Parses "ixy: trace <addr> <driver> NAME[0xOFFSET] <- 0xVALUE" lines; returns the number of writes, counts reads.
static uint32_t parse_trace(FILE* trace, uint32_t* reads, uint32_t* other_lines) {
	char line[256], addr[32], driver[16], name[32], arrow[4];
	uint32_t n = 0, reg, value;
	while (fgets(line, sizeof(line), trace)) {
		if (sscanf(line, "ixy: trace %31s %15s %31[^[][0x%x] %3s 0x%x", addr, driver, name, &reg, arrow,
			   &value) != 6) {
			(*other_lines)++;
			continue;
		}
		CHECK(strcmp(addr, NIC_ADDR) == 0 && strcmp(driver, "ixgbe") == 0);
		if (strcmp(arrow, "->") == 0) {
			(*reads)++;
		} else if (n < MAX_WRITES) {
			snprintf(writes[n].name, sizeof(writes[n].name), "%s", name);
			writes[n].reg = reg;
			writes[n++].value = value;
		}
	}
	return n;
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
	uint32_t reads = 0, other_lines = 0;
	uint32_t n = parse_trace(trace, &reads, &other_lines);
	fclose(trace);
	// The model's record of writes, in order.
	uint32_t matched = 0, log_writes = 0;
	for (uint32_t i = 0; i < model_ixgbe_log_length(nic); i++) {
		const struct model_log_entry* e = model_ixgbe_log_entry(nic, i);
		if (e->access != MODEL_WRITE) {
			continue;
		}
		if (log_writes < n && writes[log_writes].reg == e->reg && writes[log_writes].value == e->value) {
			matched++;
		} else if (log_writes < n) {
			fprintf(stderr, "write %u: traced %s[0x%05x] <- 0x%08x, the model recorded 0x%05x <- 0x%08x\n",
				log_writes, writes[log_writes].name, writes[log_writes].reg, writes[log_writes].value,
				e->reg, e->value);
		}
		log_writes++;
	}
	printf("trace: %u writes and %u reads traced, the model recorded %u writes; %u match in order\n", n, reads,
	       log_writes, matched);
	CHECK(n > 50); // 75 for this init and close
	CHECK(reads > 0);
	CHECK_EQ(n, log_writes);
	CHECK_EQ(matched, log_writes);
	// Every write has a name from the driver's table, and the first ones are those of 4.6.3: mask, reset.
	uint32_t unnamed = 0;
	for (uint32_t i = 0; i < n; i++) {
		unnamed += strcmp(writes[i].name, "?") == 0;
	}
	CHECK_EQ(unnamed, 0);
	CHECK(n > 1 && strcmp(writes[0].name, "EIMC") == 0 && strcmp(writes[1].name, "CTRL") == 0);
	char buf[32];
	CHECK(strcmp(ixy_trace_reg_name("ixgbe", 0x01018 + 3 * 0x40, buf), "RDT(3)") == 0);
	CHECK(ixy_trace_reg_name("ixgbe", 0x00004, buf) == NULL);
	CHECK(strcmp(ixy_trace_reg_name("igb", 0x00100, buf), "RCTL") == 0); // the igb's table too
	CHECK(strcmp(ixy_trace_reg_name("igb", 0x0E018 + 2 * 0x40, buf), "TDT(2)") == 0);
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
