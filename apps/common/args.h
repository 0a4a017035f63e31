// Strict command-line parsing for the apps.
//
// A number argument must be all decimal digits (no sign, no spaces, no "0x", nothing after the digits), must fit
// into 64 bits and must lie in the range the app allows. Anything else is refused with a one-line message, so a
// typo like "10k" never silently becomes 10. PCI addresses are checked with ixy_valid_pci_addr() before the app
// touches any device.
#ifndef IXY_APPS_ARGS_H
#define IXY_APPS_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include <ixy/sandbox.h>

// Exit code for a wrong command line (as in many Unix tools); failures at run time exit with 1.
#define EXIT_USAGE 2

// Parses text as a decimal number in [min, max] into *value. Returns NULL, or what is wrong with text: "is empty",
// "is not a decimal number" (a character that is not 0-9: "-1", "+1", " 1", "1k", "0x10") or "is out of range" (not
// within [min, max], or more than 2^64 - 1); then *value is untouched.
const char* parse_u64(const char* text, uint64_t min, uint64_t max, uint64_t* value);

// parse_u64() for a command-line argument: on failure prints one line to stderr, e.g.
// "ixy-pcap: packet count '10k' is not a decimal number (allowed: 1 to 18446744073709551615)", and returns false.
bool arg_u64(const char* prog, const char* what, const char* text, uint64_t min, uint64_t max, uint64_t* value);

// Checks that addrs[0 .. count-1] are PCI addresses like 0000:03:00.0, no device named twice; if not, prints one
// line to stderr and returns false.
bool arg_pci_addrs(const char* prog, char* const addrs[], int count);

// The apps' options, read with libc's getopt_long in front of their other arguments (the first other one ends them):
//   --poll        never sleep: *wait_ms = 0
//   --wait <ms>   sleep on idle NICs reached through VFIO, at most <ms> (1 to 60000) at a time: a bound, so that a
//                 signal that comes just before the app sleeps is seen within it (for struct ixy_config)
//   --ring <n>    descriptors per ring (ixy-pcap's RX ring, ixy-fwd's RX and TX rings): a power of two, 64 to 4096
//                 (ixy_init checks the value); only if ring_size != NULL
//   --no-sandbox  arg_sandbox.disabled: no seccomp filter once the devices run (ixy_sandbox_enter): for a kernel or
//                 a container where it cannot be installed (the app says so and stops), or an app that needs more
//                 system calls while packets flow than the filter allows
//   --user <name> arg_sandbox drops root to that user once the devices run (sysfs; through VFIO the apps run as the
//                 user already). Looked up here, before any device is opened.
//   --queues <n>  RX and TX queues per device, 1 to IXY_MAX_QUEUES (64), into *many; only if many_name is "queues"
//   --flows <n>   flows, 1 to ARG_MAX_FLOWS, into *many; only if many_name is "flows" (ixy-pktgen)
//   --poll and --wait only if wait_ms != NULL (ixy-pktgen has neither).
// An option not given leaves its variable as it is; --poll and --wait exclude each other. Returns the index in argv
// of the first other argument, or -1 after one line on stderr.
#define ARG_WAIT_USAGE "[--poll | --wait <ms>]"
#define ARG_RING_USAGE "[--ring <descriptors>]"
#define ARG_MAX_FLOWS 1024
int arg_options(const char* prog, int argc, char* argv[], int32_t* wait_ms, uint32_t* ring_size, const char* many_name,
		uint32_t* many);
// What --no-sandbox and --user asked for, for ixy_sandbox_enter once every device runs.
extern struct ixy_sandbox_config arg_sandbox;

// Prints "usage: <usage>" and a line on the options every app has (--no-sandbox, --user) to stderr and returns
// EXIT_USAGE, for `return usage(...)` in main.
int usage(const char* usage_text);

#endif
