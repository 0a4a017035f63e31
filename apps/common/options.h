// The apps' command lines: options first, then the other arguments (PCI addresses, a file, a count). The options are
// the features' (an app without them has none), and every value is parsed strictly, so that a typo is refused before
// the app touches any device.
//
// Each app has a table of its own options (struct option, for libc's getopt_long), made of the entries below, and
// arg_options reads them into a struct app_options. The first argument that is not an option ends them. Every option
// but --help belongs to a feature, which takes its value from struct app_options:
//   --poll, --wait <ms>   interrupts and waiting (ixy/interrupts.h): never sleep (ixy-fwd's default), or sleep on idle
//                         NICs reached through VFIO at most <ms> (1 to 60000) at a time (ixy-pcap's default: 1000; a
//                         stop ends a sleep within 100 ms)
//   --ring <n>            descriptors per ring, a power of two, 64 to 4096 (checked here; a device may allow fewer)
//   --queues <n>          many cores (ixy/rss.h): RX and TX queues per device, 1 to IXY_MAX_QUEUES
//   --report              ixy-pcap's report of loss, reordering, duplicates and latency (common/report.h)
//   --no-sandbox, --user <name>   least privilege (ixy/sandbox.h): no seccomp filter; drop root to <name>, who is
//                         looked up here, before any device is opened
// ixy-pktgen's own options (--flows, --rate, --size, the addresses, ...) are common/pktgen_options.h's: arg_options
// hands them back to it (struct app_options' more). A refused option leaves its field as it was.
#ifndef IXY_APPS_OPTIONS_H
#define IXY_APPS_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include <ixy/sandbox.h>

#include "parse.h"

// Exit code for a wrong command line (as in many Unix tools); failures at run time exit with 1.
#define EXIT_USAGE 2
// What arg_options returns for --help.
#define ARG_HELP (-2)

struct app_options {
	uint32_t wait_ms;   // --poll: 0; --wait <ms>
	uint32_t ring_size; // --ring; 0: the driver's default
	uint32_t queues;    // --queues
	bool report;        // --report
	struct ixy_sandbox_config sandbox;
	// An app's own options (ixy-pktgen's, pktgen_options.h): takes one (getopt_long's letter in the app's table,
	// which arg_options does not know) with its value (NULL if it takes none); false after one line on stderr.
	// NULL: none.
	bool (*more)(struct app_options* options, const char* prog, int option, const char* value);
};

#define ARG_POLL_WAIT                                                                                                  \
	{"poll", no_argument, NULL, 'p'}, {                                                                            \
		"wait", required_argument, NULL, 'w'                                                                   \
	}
#define ARG_RING                                                                                                       \
	{ "ring", required_argument, NULL, 'r' }
#define ARG_QUEUES                                                                                                     \
	{ "queues", required_argument, NULL, 'q' }
#define ARG_REPORT                                                                                                     \
	{ "report", no_argument, NULL, 'M' }
#define ARG_SANDBOX                                                                                                    \
	{"no-sandbox", no_argument, NULL, 'n'}, {                                                                      \
		"user", required_argument, NULL, 'u'                                                                   \
	}
#define ARG_HELP_OPTION                                                                                                \
	{ "help", no_argument, NULL, 'h' }
#define ARG_WAIT_USAGE "[--poll | --wait <ms>]"
#define ARG_RING_USAGE "[--ring <descriptors>]"

// Reads the options of table (ending in an all-zero entry) into *options. Returns the index in argv of the first
// other argument, ARG_HELP for --help, or -1 after one line on stderr (getopt_long's, or the value's): the app then
// exits with EXIT_USAGE and prints nothing more, so that the reason is the one line (the usage only for --help or no
// argument at all).
int arg_options(const char* prog, const struct option table[], int argc, char* argv[], struct app_options* options);

// Prints "usage: <usage_text>" and a line on the options every app has (--no-sandbox, --user): on stdout for --help
// (help true), returning 0; else on stderr, returning EXIT_USAGE. For `return usage(...)` in main.
int usage(const char* usage_text, bool help);

// ---- Strict values (parse.h)

// parse_u64() for a command-line argument: on failure prints one line to stderr, e.g.
// "ixy-pcap: packet count '10k' is not a decimal number (allowed: 1 to 18446744073709551615)", and returns false.
bool arg_u64(const char* prog, const char* what, const char* text, uint64_t min, uint64_t max, uint64_t* value);
// arg_u64 for a value of 32 bits (max <= UINT32_MAX).
bool arg_u32(const char* prog, const char* what, const char* text, uint32_t min, uint32_t max, uint32_t* value);

// Checks that the arguments after the options (argv[first ..]) are min to max; if not, prints one line naming what is
// missing or the first argument too many, e.g. "ixy-pktgen: unexpected argument 'extra' after <pci> (see ixy-pktgen
// --help)", and returns false. No argument at all (argc 1): false without a line. synopsis: "<pci1> <pci2>".
bool arg_count(const char* prog, int argc, char* argv[], int first, int min, int max, const char* synopsis);

// The exit code of a refused command line, after arg_options, arg_count or a value's check said why in one line: the
// usage for --help (stdout, 0) or for no argument at all (stderr); else nothing more, EXIT_USAGE.
int arg_exit(const char* usage_text, int first, int argc);

// Checks that addrs[0 .. count-1] are PCI addresses like 0000:03:00.0 (or xdp:<ifname>), no device named twice; if
// not, prints one line to stderr and returns false.
bool arg_pci_addrs(const char* prog, char* const addrs[], int count);

#endif
