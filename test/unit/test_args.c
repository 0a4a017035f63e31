// Strict argument parsing of the apps (apps/common/args.h).
#include <string.h>

#include "../check.h"
#include "common/args.h"

// parse_u64's answer is the expected problem (never NULL: then it accepted the text).
static bool same(const char* problem, const char* expected) {
	return problem != NULL && strcmp(problem, expected) == 0;
}

static void test_good_numbers(void) {
	uint64_t v = 0;
	CHECK(parse_u64("0", 0, 10, &v) == NULL);
	CHECK_EQ(v, 0);
	CHECK(parse_u64("7", 1, 10, &v) == NULL);
	CHECK_EQ(v, 7);
	CHECK(parse_u64("007", 1, 10, &v) == NULL);
	CHECK_EQ(v, 7);
	CHECK(parse_u64("1000000", 1, UINT64_MAX, &v) == NULL);
	CHECK_EQ(v, 1000000);
	CHECK(parse_u64("18446744073709551615", 1, UINT64_MAX, &v) == NULL);
	CHECK(v == UINT64_MAX);
	CHECK(parse_u64("10", 10, 10, &v) == NULL); // both bounds inclusive
}

static void test_bad_numbers(void) {
	uint64_t v = 12345;
	CHECK(same(parse_u64("", 0, 10, &v), "is empty"));
	CHECK(same(parse_u64("-1", 0, 10, &v), "is not a decimal number"));
	CHECK(same(parse_u64("+1", 0, 10, &v), "is not a decimal number"));
	CHECK(same(parse_u64(" 1", 0, 10, &v), "is not a decimal number"));
	CHECK(same(parse_u64("1 ", 0, 10, &v), "is not a decimal number"));
	CHECK(same(parse_u64("10k", 0, 100, &v), "is not a decimal number")); // trailing junk
	CHECK(same(parse_u64("0x10", 0, 100, &v), "is not a decimal number"));
	CHECK(same(parse_u64("1e3", 0, 10000, &v), "is not a decimal number"));
	CHECK(same(parse_u64("abc", 0, 10, &v), "is not a decimal number"));
	CHECK(same(parse_u64("1.5", 0, 10, &v), "is not a decimal number"));
	// One more than 2^64 - 1, and far more: with the range [0, 2^64 - 1] only an overflow is out of range
	CHECK(same(parse_u64("18446744073709551616", 0, UINT64_MAX, &v), "is out of range"));
	CHECK(same(parse_u64("99999999999999999999999", 0, UINT64_MAX, &v), "is out of range"));
	CHECK(same(parse_u64("0", 1, 10, &v), "is out of range"));
	CHECK(same(parse_u64("11", 1, 10, &v), "is out of range"));
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
	CHECK(arg_pci_addrs("test", (char*[]){"0000:03:00.0"}, 1));
	CHECK(arg_pci_addrs("test", (char*[]){"abcd:ef:1f.7"}, 1));
	CHECK(!arg_pci_addrs("test", (char*[]){"03:00.0"}, 1));
	CHECK(!arg_pci_addrs("test", (char*[]){"0000:03:00.8"}, 1)); // function is 0..7
	CHECK(!arg_pci_addrs("test", (char*[]){"0000:03:00.0x"}, 1));
	CHECK(!arg_pci_addrs("test", (char*[]){"0000-03-00.0"}, 1));
	CHECK(!arg_pci_addrs("test", (char*[]){""}, 1));
	CHECK(arg_pci_addrs("test", (char*[]){"0000:03:00.0", "0000:03:00.1"}, 2));
	CHECK(!arg_pci_addrs("test", (char*[]){"0000:03:00.0", "0000:03:00.0"}, 2));
	CHECK(
	    !arg_pci_addrs("test", (char*[]){"0000:0a:00.0", "0000:0A:00.0"}, 2)); // the same device, spelt differently
	CHECK(!arg_pci_addrs("test", (char*[]){"0000:03:00.0", "03:00.1"}, 2));
	CHECK(!arg_pci_addrs("test", (char*[]){"03:00.0", "0000:03:00.1"}, 2));
	CHECK(!arg_pci_addrs("test", (char*[]){"0000:03:00.0", "0000:03:00.1", "0000:03:00.0"}, 3));
	// A kernel interface through AF_XDP (src/driver/xdp.c): "xdp:" and 1 to 15 bytes of an interface name.
	CHECK(arg_pci_addrs("test", (char*[]){"xdp:eth0"}, 1));
	CHECK(arg_pci_addrs("test", (char*[]){"xdp:123456789012345"}, 1));
	CHECK(!arg_pci_addrs("test", (char*[]){"xdp:1234567890123456"}, 1));
	CHECK(!arg_pci_addrs("test", (char*[]){"xdp:"}, 1));
	CHECK(!arg_pci_addrs("test", (char*[]){"xdp:.."}, 1));
	CHECK(!arg_pci_addrs("test", (char*[]){"xdp:a/b"}, 1));
	CHECK(!arg_pci_addrs("test", (char*[]){"xdp:a b"}, 1));
	CHECK(!arg_pci_addrs("test", (char*[]){"xdp:a:b"}, 1));
	CHECK(!arg_pci_addrs("test", (char*[]){"XDP:eth0"}, 1));
	CHECK(!arg_pci_addrs("test", (char*[]){"xdp:veth0", "xdp:veth0"}, 2));
	CHECK(arg_pci_addrs("test", (char*[]){"xdp:veth0", "xdp:VETH0"}, 2)); // interface names are case-sensitive
	CHECK_EQ(usage("test <x>"), EXIT_USAGE);
	CHECK_EQ(EXIT_USAGE, 2);
}

// arg_options on a command line given as a string array: returns its result, *wait_ms and *ring.
static int options_of(char** argv, int32_t* wait_ms, uint32_t* ring, bool with_ring) {
	int argc = 0;
	while (argv[argc]) {
		argc++;
	}
	*wait_ms = 1000;
	*ring = 0;
	return arg_options("test", argc, argv, wait_ms, with_ring ? ring : NULL, NULL, NULL);
}

static void test_options(void) {
	int32_t ms = 0;
	uint32_t ring = 0;
	CHECK_EQ(options_of((char*[]){"app", "a", "b", NULL}, &ms, &ring, false), 1);
	CHECK_EQ(ms, 1000); // no option: the default stays
	CHECK_EQ(options_of((char*[]){"app", "--poll", "a", NULL}, &ms, &ring, false), 2);
	CHECK_EQ(ms, 0);
	CHECK_EQ(options_of((char*[]){"app", "--wait", "250", "a", NULL}, &ms, &ring, false), 3);
	CHECK_EQ(ms, 250);
	CHECK_EQ(options_of((char*[]){"app", "--ring", "128", "--wait=60000", "a", NULL}, &ms, &ring, true), 4);
	CHECK_EQ(ring, 128);
	CHECK_EQ(ms, 60000);
	CHECK_EQ(options_of((char*[]){"app", "--ring", "256", "--poll", "a", NULL}, &ms, &ring, true), 4);
	CHECK_EQ(ring, 256);
	CHECK_EQ(ms, 0); // --poll after an option with a value
	// The first other argument ends the options: "--wait" after it is an argument (then not a PCI address).
	CHECK_EQ(options_of((char*[]){"app", "a", "--wait", "5", NULL}, &ms, &ring, false), 1);
	CHECK_EQ(ms, 1000);
	CHECK_EQ(options_of((char*[]){"app", "--", "--poll", NULL}, &ms, &ring, false), 2);
	CHECK_EQ(ms, 1000);
	fprintf(stderr, "(the following error lines are expected)\n");
	CHECK_EQ(options_of((char*[]){"app", "--wait", "10k", "a", NULL}, &ms, &ring, false), -1);
	CHECK_EQ(options_of((char*[]){"app", "--wait", "0", "a", NULL}, &ms, &ring, false), -1);
	CHECK_EQ(options_of((char*[]){"app", "--wait", NULL}, &ms, &ring, false), -1);
	CHECK_EQ(options_of((char*[]){"app", "--poll", "--wait", "5", "a", NULL}, &ms, &ring, false), -1);
	CHECK_EQ(options_of((char*[]){"app", "--ring", "128", "a", NULL}, &ms, &ring, false), -1); // not this app's
	CHECK_EQ(ring, 0);
	CHECK_EQ(options_of((char*[]){"app", "--ring", "32", "a", NULL}, &ms, &ring, true), -1);
	CHECK_EQ(ring, 0);
	CHECK_EQ(options_of((char*[]){"app", "--fast", "a", NULL}, &ms, &ring, false), -1);
	CHECK_EQ(options_of((char*[]){"app", "-p", "a", NULL}, &ms, &ring, false), -1);
}

// --queues (ixy-fwd, ixy-pcap) and --flows (ixy-pktgen): the option the app names, in its range, nothing else.
static void test_many_options(void) {
	int32_t ms = 1000;
	uint32_t ring = 0, many = 1;
	CHECK_EQ(arg_options("app", 4, (char*[]){"app", "--queues", "4", "a", NULL}, &ms, &ring, "queues", &many), 3);
	CHECK_EQ(many, 4);
	CHECK_EQ(
	    arg_options("app", 5, (char*[]){"app", "--poll", "--queues=64", "a", NULL}, &ms, &ring, "queues", &many),
	    3);
	CHECK_EQ(many, 64);
	CHECK_EQ(ms, 0);
	CHECK_EQ(arg_options("app", 4, (char*[]){"app", "--flows", "1024", "a", NULL}, NULL, NULL, "flows", &many), 3);
	CHECK_EQ(many, 1024);
	many = 1;
	fprintf(stderr, "(the following error lines are expected)\n");
	CHECK_EQ(arg_options("app", 4, (char*[]){"app", "--queues", "0", "a", NULL}, &ms, &ring, "queues", &many), -1);
	CHECK_EQ(arg_options("app", 4, (char*[]){"app", "--queues", "65", "a", NULL}, &ms, &ring, "queues", &many), -1);
	CHECK_EQ(arg_options("app", 4, (char*[]){"app", "--flows", "1025", "a", NULL}, NULL, NULL, "flows", &many), -1);
	CHECK_EQ(arg_options("app", 4, (char*[]){"app", "--flows", "0", "a", NULL}, NULL, NULL, "flows", &many), -1);
	CHECK_EQ(arg_options("app", 4, (char*[]){"app", "--queues", "2", "a", NULL}, NULL, NULL, "flows", &many), -1);
	CHECK_EQ(arg_options("app", 4, (char*[]){"app", "--flows", "2", "a", NULL}, &ms, &ring, "queues", &many), -1);
	CHECK_EQ(arg_options("app", 4, (char*[]){"app", "--queues", "2", "a", NULL}, &ms, &ring, NULL, NULL), -1);
	CHECK_EQ(arg_options("app", 4, (char*[]){"app", "--queues", "x", "a", NULL}, &ms, &ring, "queues", &many), -1);
	CHECK_EQ(many, 1); // untouched by every refusal
	// Without wait_ms and ring_size (ixy-pktgen), --flows is still in the table after the options left out.
	CHECK_EQ(arg_options("app", 3, (char*[]){"app", "--ring", "64", NULL}, NULL, NULL, "flows", &many), -1);
}

// --no-sandbox and --user fill arg_sandbox; between --poll/--wait they do not count as one of those.
static void test_sandbox_options(void) {
	int32_t ms = 0;
	uint32_t ring = 0;
	CHECK_EQ(options_of((char*[]){"app", "a", NULL}, &ms, &ring, false), 1);
	CHECK(!arg_sandbox.disabled && !arg_sandbox.drop_user);
	CHECK_EQ(
	    options_of((char*[]){"app", "--wait", "5", "--no-sandbox", "--user", "root", "a", NULL}, &ms, &ring, true),
	    6);
	CHECK(arg_sandbox.disabled && arg_sandbox.drop_user);
	CHECK_EQ(arg_sandbox.uid, 0);
	CHECK_EQ(ms, 5);
	// Without wait_ms (ixy-pktgen): only the sandbox options.
	CHECK_EQ(arg_options("app", 3, (char*[]){"app", "--no-sandbox", "a", NULL}, NULL, NULL, NULL, NULL), 2);
	fprintf(stderr, "(the following error lines are expected)\n");
	CHECK_EQ(arg_options("app", 3, (char*[]){"app", "--poll", "a", NULL}, NULL, NULL, NULL, NULL), -1);
	CHECK_EQ(options_of((char*[]){"app", "--user", "ixy-no-such-user", "a", NULL}, &ms, &ring, false), -1);
	CHECK_EQ(options_of((char*[]){"app", "--user", NULL}, &ms, &ring, false), -1);
}

int main(void) {
	test_good_numbers();
	test_many_options();
	test_bad_numbers();
	test_arg_helpers();
	test_options();
	test_sandbox_options();
	return check_summary();
}
