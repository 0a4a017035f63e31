// The trace requested (ixy_init does so for IXY_TRACE=1) against the production library (libixy): a build configured
// with -DIXY_TRACE=ON traces; a default build, whose register accessors are plain loads and stores, says once that it
// has no register trace, instead of printing nothing without a word. No device is touched: the "BAR" is a buffer of
// this test.
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "driver/ixgbe_regs.h"
#include "trace.h"

#define NO_TRACE_LINE "ixy: this build has no register trace; configure with -DIXY_TRACE=ON\n"

int main(void) {
	static uint8_t bar[0x20000];
	FILE* out = tmpfile();
	int saved_stderr = dup(STDERR_FILENO);
	if (!out || saved_stderr < 0) {
		perror("test_trace_build");
		return 1;
	}
	fflush(stderr);
	CHECK(dup2(fileno(out), STDERR_FILENO) >= 0);
	ixy_trace_request(true);
	ixy_trace_bar("0000:08:00.0", &ixgbe_reg_names, bar, sizeof(bar)); // two NICs: the word comes once
	ixy_trace_bar("0000:09:00.0", &ixgbe_reg_names, bar + 0x10000, 0x10000);
	if (ixy_trace_on) {
		ixy_trace_access(bar, 0x00000, 0x04000008, true);
	}
	fflush(stderr);
	CHECK(dup2(saved_stderr, STDERR_FILENO) >= 0);
	char text[512] = {0};
	rewind(out);
	size_t len = fread(text, 1, sizeof(text) - 1, out);
	fclose(out);
	printf("IXY_TRACE=1 printed %zu bytes: %s", len, text);
#ifdef IXY_TRACE
	CHECK(ixy_trace_on);
	CHECK(strcmp(text, "ixy: trace 0000:08:00.0 ixgbe CTRL[0x00000] <- 0x04000008\n") == 0);
#else
	CHECK(!ixy_trace_on);
	CHECK(strcmp(text, NO_TRACE_LINE) == 0);
#endif
	return check_summary();
}
