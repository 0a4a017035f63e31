// Strict parsing of the apps' values and their options (apps/common/options.h, parse.h, pktgen_options.h).
#include <string.h>

#include "../check.h"
#include "common/options.h"
#include "common/pktgen_options.h"

// Option tables as the apps have them: ixy-fwd and ixy-pcap (fwd), ixy-pktgen (pktgen), and two smaller ones.
static const struct option fwd_table[] = {ARG_POLL_WAIT, ARG_RING, ARG_QUEUES, ARG_SANDBOX, ARG_HELP_OPTION, {0}};
static const struct option pktgen_table[] = {ARG_FLOWS, ARG_SANDBOX, ARG_HELP_OPTION, {0}};
static const struct option wait_table[] = {ARG_POLL_WAIT, ARG_SANDBOX, {0}}; // without --ring
static const struct option sandbox_table[] = {ARG_SANDBOX, {0}};

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
	CHECK_EQ(usage("test <x>", false), EXIT_USAGE);
	CHECK_EQ(usage("test <x>", true), 0); // --help
	CHECK_EQ(EXIT_USAGE, 2);
}

// arg_options on a command line given as a string array (the table with --ring, or without): returns its result,
// *wait_ms and *ring.
static int options_of(char** argv, int32_t* wait_ms, uint32_t* ring, bool with_ring) {
	int argc = 0;
	while (argv[argc]) {
		argc++;
	}
	struct app_options opt = {.wait_ms = 1000};
	int first = arg_options("test", with_ring ? fwd_table : wait_table, argc, argv, &opt);
	*wait_ms = (int32_t)opt.wait_ms;
	*ring = opt.ring_size;
	return first;
}

// pktgen_arg_options (arg_options, handing ixy-pktgen's own options to it) with table on argc/argv: returns its
// result, and the options in *opt (queues and flows start at 1).
static int many_of(const struct option table[], int argc, char** argv, struct pktgen_options* opt) {
	*opt = (struct pktgen_options){.app = {.wait_ms = 1000, .queues = 1}, .flows = 1};
	return pktgen_arg_options("app", table, argc, argv, opt);
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
	CHECK_EQ(options_of((char*[]){"app", "--ring", "100", "a", NULL}, &ms, &ring, true), -1); // not a power of 2
	CHECK_EQ(ring, 0);
	CHECK_EQ(options_of((char*[]){"app", "--ring", "4095", "a", NULL}, &ms, &ring, true), -1);
	CHECK_EQ(ring, 0);
	CHECK_EQ(options_of((char*[]){"app", "--fast", "a", NULL}, &ms, &ring, false), -1);
	CHECK_EQ(options_of((char*[]){"app", "-p", "a", NULL}, &ms, &ring, false), -1);
}

// --queues (ixy-fwd, ixy-pcap) and --flows (ixy-pktgen): the option the app names, in its range, nothing else.
static void test_many_options(void) {
	struct pktgen_options opt;
	CHECK_EQ(many_of(fwd_table, 4, (char*[]){"app", "--queues", "4", "a", NULL}, &opt), 3);
	CHECK_EQ(opt.app.queues, 4);
	CHECK_EQ(many_of(fwd_table, 5, (char*[]){"app", "--poll", "--queues=64", "a", NULL}, &opt), 3);
	CHECK_EQ(opt.app.queues, 64);
	CHECK_EQ(opt.app.wait_ms, 0);
	CHECK_EQ(many_of(pktgen_table, 4, (char*[]){"app", "--flows", "1024", "a", NULL}, &opt), 3);
	CHECK_EQ(opt.flows, 1024);
	fprintf(stderr, "(the following error lines are expected)\n");
	CHECK_EQ(many_of(fwd_table, 4, (char*[]){"app", "--queues", "0", "a", NULL}, &opt), -1);
	CHECK_EQ(opt.app.queues, 1); // untouched by every refusal
	CHECK_EQ(many_of(fwd_table, 4, (char*[]){"app", "--queues", "65", "a", NULL}, &opt), -1);
	CHECK_EQ(opt.app.queues, 1);
	CHECK_EQ(many_of(pktgen_table, 4, (char*[]){"app", "--flows", "1025", "a", NULL}, &opt), -1);
	CHECK_EQ(opt.flows, 1);
	CHECK_EQ(many_of(pktgen_table, 4, (char*[]){"app", "--flows", "0", "a", NULL}, &opt), -1);
	CHECK_EQ(opt.flows, 1);
	CHECK_EQ(many_of(pktgen_table, 4, (char*[]){"app", "--queues", "2", "a", NULL}, &opt), -1);
	CHECK_EQ(opt.app.queues, 1);
	CHECK_EQ(many_of(fwd_table, 4, (char*[]){"app", "--flows", "2", "a", NULL}, &opt), -1);
	CHECK_EQ(opt.flows, 1);
	CHECK_EQ(many_of(sandbox_table, 4, (char*[]){"app", "--queues", "2", "a", NULL}, &opt), -1);
	CHECK_EQ(many_of(fwd_table, 4, (char*[]){"app", "--queues", "x", "a", NULL}, &opt), -1);
	CHECK_EQ(opt.app.queues, 1);
	// ixy-pktgen has no --ring.
	CHECK_EQ(many_of(pktgen_table, 3, (char*[]){"app", "--ring", "64", NULL}, &opt), -1);
}

// --no-sandbox and --user fill the sandbox's configuration; between --poll/--wait they do not count as one of those.
static void test_sandbox_options(void) {
	struct pktgen_options opt;
	CHECK_EQ(many_of(fwd_table, 2, (char*[]){"app", "a", NULL}, &opt), 1);
	CHECK(!opt.app.sandbox.disabled && !opt.app.sandbox.drop_user);
	CHECK_EQ(
	    many_of(fwd_table, 7, (char*[]){"app", "--wait", "5", "--no-sandbox", "--user", "root", "a", NULL}, &opt),
	    6);
	CHECK(opt.app.sandbox.disabled && opt.app.sandbox.drop_user);
	CHECK_EQ(opt.app.sandbox.uid, 0);
	CHECK_EQ(opt.app.wait_ms, 5);
	// Without --poll and --wait (ixy-pktgen): only the sandbox options.
	CHECK_EQ(many_of(pktgen_table, 3, (char*[]){"app", "--no-sandbox", "a", NULL}, &opt), 2);
	fprintf(stderr, "(the following error lines are expected)\n");
	CHECK_EQ(many_of(pktgen_table, 3, (char*[]){"app", "--poll", "a", NULL}, &opt), -1);
	CHECK_EQ(many_of(wait_table, 4, (char*[]){"app", "--user", "ixy-no-such-user", "a", NULL}, &opt), -1);
	CHECK_EQ(many_of(wait_table, 2, (char*[]){"app", "--user", NULL}, &opt), -1);
}

// --help: ARG_HELP wherever it comes among the options; an app without it in its table refuses it.
static void test_help_option(void) {
	struct pktgen_options opt;
	CHECK_EQ(many_of(fwd_table, 2, (char*[]){"app", "--help", NULL}, &opt), ARG_HELP);
	CHECK_EQ(many_of(pktgen_table, 4, (char*[]){"app", "--flows", "2", "--help", NULL}, &opt), ARG_HELP);
	fprintf(stderr, "(the following error line is expected)\n");
	CHECK_EQ(many_of(sandbox_table, 2, (char*[]){"app", "--help", NULL}, &opt), -1);
}

// ixy-pktgen's own options (pktgen_options.h) reach their fields through arg_options; an app that does not hand
// them on (ixy-fwd, ixy-pcap: no more) refuses them, even in its table.
static void test_pktgen_options(void) {
	static const struct option table[] = {ARG_FLOWS, ARG_PKTGEN, ARG_ADDRESSES, ARG_QUEUES, ARG_SANDBOX, {0}};
	struct pktgen_options opt;
	CHECK_EQ(many_of(table, 19,
			 (char*[]){"app",      "--rate", "2.5Mpps",   "--size", "64-128", "--seed", "7",
				   "--count",  "5",      "--seconds", "3",      "--vlan", "5",      "--mark-end",
				   "--queues", "2",      "--flows",   "4",      "a",      NULL},
			 &opt),
		 18);
	CHECK(opt.rate.per_second == 2.5e6 && !opt.rate.wire_bits);
	CHECK(opt.sizes.mode == SIZE_UNIFORM && opt.sizes.min == 64 && opt.sizes.max == 128 && opt.sizes.state == 7);
	CHECK(opt.count == 5 && opt.seconds == 3 && opt.app.queues == 2 && opt.flows == 4);
	CHECK(opt.spec.vlan && opt.spec.vlan_tci == 5 && opt.spec.mark_end);
	CHECK(opt.generator_shaped && opt.size_given && opt.flows_given && !opt.replay && !opt.loop);
	CHECK_EQ(
	    many_of(table, 6, (char*[]){"app", "--replay", "f.pcap", "--loop", "--replay-timing", "a", NULL}, &opt), 5);
	CHECK(opt.replay && strcmp(opt.replay, "f.pcap") == 0 && opt.loop && opt.replay_timing &&
	      !opt.generator_shaped);
	fprintf(stderr, "(the following error lines are expected)\n");
	CHECK_EQ(many_of(table, 4, (char*[]){"app", "--rate", "10k", "a", NULL}, &opt), -1);
	CHECK(opt.rate.per_second == 0);
	CHECK_EQ(many_of(table, 4, (char*[]){"app", "--size", "59", "a", NULL}, &opt), -1);
	CHECK_EQ(opt.sizes.min, 0); // untouched
	struct app_options app = {.queues = 1};
	CHECK_EQ(arg_options("app", table, 4, (char*[]){"app", "--count", "5", "a", NULL}, &app), -1);
}

// The number of arguments after the options (issue 34): in range, or one line naming what is wrong; none at all
// (argc 1): refused without a line (the app prints its usage then), arg_exit says which exit code.
static void test_arg_count(void) {
	char* argv[] = {"app", "--poll", "a", "b", "c", NULL};
	CHECK(arg_count("app", 4, argv, 2, 2, 2, "<x> <y>"));
	CHECK(arg_count("app", 5, argv, 2, 2, 3, "<x> <y> [z]"));
	CHECK(!arg_count("app", 1, argv, 1, 1, 1, "<x>"));
	fprintf(stderr, "(the following error lines are expected)\n");
	CHECK(!arg_count("app", 3, argv, 2, 2, 2, "<x> <y>"));
	CHECK(!arg_count("app", 5, argv, 2, 1, 1, "<x>"));
	CHECK(!arg_count("app", 3, (char*[]){"app", "x", "--poll", NULL}, 1, 1, 1, "<x>")); // options go first
	CHECK_EQ(arg_exit("app <x>", 2, 3), EXIT_USAGE);
	CHECK_EQ(arg_exit("app <x>", -1, 3), EXIT_USAGE);
	CHECK_EQ(arg_exit("app <x>", ARG_HELP, 2), 0);
}

int main(void) {
	test_good_numbers();
	test_many_options();
	test_bad_numbers();
	test_arg_helpers();
	test_options();
	test_sandbox_options();
	test_help_option();
	test_pktgen_options();
	test_arg_count();
	return check_summary();
}
