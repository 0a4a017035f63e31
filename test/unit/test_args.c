// Strict argument parsing of the apps (apps/common/args.h).
#include <string.h>

#include "../check.h"
#include "common/args.h"

static void test_good_numbers(void) {
	uint64_t v = 0;
	CHECK_EQ(parse_u64("0", 0, 10, &v), PARSE_OK);
	CHECK_EQ(v, 0);
	CHECK_EQ(parse_u64("7", 1, 10, &v), PARSE_OK);
	CHECK_EQ(v, 7);
	CHECK_EQ(parse_u64("007", 1, 10, &v), PARSE_OK);
	CHECK_EQ(v, 7);
	CHECK_EQ(parse_u64("1000000", 1, UINT64_MAX, &v), PARSE_OK);
	CHECK_EQ(v, 1000000);
	CHECK_EQ(parse_u64("18446744073709551615", 1, UINT64_MAX, &v), PARSE_OK);
	CHECK(v == UINT64_MAX);
	CHECK_EQ(parse_u64("10", 10, 10, &v), PARSE_OK); // both bounds inclusive
}

static void test_bad_numbers(void) {
	uint64_t v = 12345;
	CHECK_EQ(parse_u64("", 0, 10, &v), PARSE_EMPTY);
	CHECK_EQ(parse_u64("-1", 0, 10, &v), PARSE_NOT_DECIMAL);
	CHECK_EQ(parse_u64("+1", 0, 10, &v), PARSE_NOT_DECIMAL);
	CHECK_EQ(parse_u64(" 1", 0, 10, &v), PARSE_NOT_DECIMAL);
	CHECK_EQ(parse_u64("1 ", 0, 10, &v), PARSE_NOT_DECIMAL);
	CHECK_EQ(parse_u64("10k", 0, 100, &v), PARSE_NOT_DECIMAL); // trailing junk
	CHECK_EQ(parse_u64("0x10", 0, 100, &v), PARSE_NOT_DECIMAL);
	CHECK_EQ(parse_u64("1e3", 0, 10000, &v), PARSE_NOT_DECIMAL);
	CHECK_EQ(parse_u64("abc", 0, 10, &v), PARSE_NOT_DECIMAL);
	CHECK_EQ(parse_u64("1.5", 0, 10, &v), PARSE_NOT_DECIMAL);
	// One more than 2^64 - 1, and far more
	CHECK_EQ(parse_u64("18446744073709551616", 0, UINT64_MAX, &v), PARSE_OVERFLOW);
	CHECK_EQ(parse_u64("99999999999999999999999", 0, UINT64_MAX, &v), PARSE_OVERFLOW);
	CHECK_EQ(parse_u64("0", 1, 10, &v), PARSE_OUT_OF_RANGE);
	CHECK_EQ(parse_u64("11", 1, 10, &v), PARSE_OUT_OF_RANGE);
	CHECK_EQ(v, 12345); // untouched by every failure
}

static void test_arg_helpers(void) {
	uint64_t v = 0;
	fprintf(stderr, "(the following error lines are expected)\n");
	CHECK(arg_u64("test", "count", "42", 1, 100, &v));
	CHECK_EQ(v, 42);
	CHECK(!arg_u64("test", "count", "42x", 1, 100, &v));
	CHECK(!arg_u64("test", "count", "", 1, 100, &v));
	CHECK(!arg_u64("test", "count", "101", 1, 100, &v));
	CHECK(arg_pci_addr("test", "0000:03:00.0"));
	CHECK(arg_pci_addr("test", "abcd:ef:1f.7"));
	CHECK(!arg_pci_addr("test", "03:00.0"));
	CHECK(!arg_pci_addr("test", "0000:03:00.8")); // function is 0..7
	CHECK(!arg_pci_addr("test", "0000:03:00.0x"));
	CHECK(!arg_pci_addr("test", "0000-03-00.0"));
	CHECK(!arg_pci_addr("test", ""));
	CHECK(arg_two_pci_addrs("test", "0000:03:00.0", "0000:03:00.1"));
	CHECK(!arg_two_pci_addrs("test", "0000:03:00.0", "0000:03:00.0"));
	CHECK(!arg_two_pci_addrs("test", "0000:0a:00.0", "0000:0A:00.0")); // the same device, spelt differently
	CHECK(!arg_two_pci_addrs("test", "0000:03:00.0", "03:00.1"));
	CHECK_EQ(usage("test <x>"), EXIT_USAGE);
	CHECK_EQ(EXIT_USAGE, 2);
}

int main(void) {
	test_good_numbers();
	test_bad_numbers();
	test_arg_helpers();
	return check_summary();
}
