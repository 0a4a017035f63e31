// Strict parsing of numbers, PCI addresses and options on the command line (see args.h).
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ixy/ixy.h>

#include "args.h"

const char* parse_u64(const char* text, uint64_t min, uint64_t max, uint64_t* value) {
	if (text[0] == '\0') {
		return "is empty";
	}
	if (strspn(text, "0123456789") != strlen(text)) { // before strtoull, which takes signs, spaces and "0x"
		return "is not a decimal number";
	}
	errno = 0;
	unsigned long long number = strtoull(text, NULL, 10);
	if (errno == ERANGE || number < min || number > max) { // ERANGE: more than 2^64 - 1
		return "is out of range";
	}
	*value = number;
	return NULL;
}

bool arg_u64(const char* prog, const char* what, const char* text, uint64_t min, uint64_t max, uint64_t* value) {
	const char* problem = parse_u64(text, min, max, value);
	if (problem) {
		fprintf(stderr, "%s: %s '%s' %s (allowed: %llu to %llu)\n", prog, what, text, problem,
			(unsigned long long)min, (unsigned long long)max);
	}
	return !problem;
}

bool arg_pci_addrs(const char* prog, char* const addrs[], int count) {
	for (int i = 0; i < count; i++) {
		if (!ixy_valid_pci_addr(addrs[i])) {
			fprintf(stderr, "%s: '%s' is not a PCI address like 0000:03:00.0 nor xdp:<ifname>\n", prog,
				addrs[i]);
			return false;
		}
		for (int j = 0; j < i; j++) {
			// PCI addresses in either case; interface names (xdp:<ifname>) are case-sensitive
			if ((strncmp(addrs[i], "xdp:", 4) ? strcasecmp(addrs[i], addrs[j])
							  : strcmp(addrs[i], addrs[j])) == 0) {
				fprintf(stderr, "%s: %s given twice: each device can be used once\n", prog, addrs[i]);
				return false;
			}
		}
	}
	return true;
}

struct ixy_sandbox_config arg_sandbox;

int arg_options(const char* prog, int argc, char* argv[], int32_t* wait_ms, uint32_t* ring_size, const char* many_name,
		uint32_t* many) {
	// Only the options the app has: an entry without a name (NULL) is left out of the table getopt_long reads,
	// which then calls the option unrecognized.
	bool flows = many_name && many_name[0] == 'f';
	const struct option all[] = {{"no-sandbox", no_argument, NULL, 'n'},
				     {"user", required_argument, NULL, 'u'},
				     {many_name, required_argument, NULL, 'q'},
				     {wait_ms ? "poll" : NULL, no_argument, NULL, 'p'},
				     {wait_ms ? "wait" : NULL, required_argument, NULL, 'w'},
				     {ring_size ? "ring" : NULL, required_argument, NULL, 'r'}};
	struct option options[7] = {{0}};
	for (size_t i = 0, k = 0; i < 6; i++) {
		options[k] = all[i];
		k += all[i].name != NULL;
	}
	optind = 0; // glibc: start afresh (tests parse more than one command line)
	int option, waits = 0;
	uint64_t n = 0;
	// "+": the first argument that is not an option ends them. A bad option (unknown, or without its value) makes
	// getopt_long print why and return '?'.
	while ((option = getopt_long(argc, argv, "+", options, NULL)) != -1) {
		if (option == '?' || (option == 'w' && !arg_u64(prog, "wait time (ms)", optarg, 1, 60000, &n)) ||
		    (option == 'r' && !arg_u64(prog, "ring size", optarg, 64, 4096, &n)) ||
		    (option == 'q' &&
		     !arg_u64(prog, many_name, optarg, 1, flows ? ARG_MAX_FLOWS : IXY_MAX_QUEUES, &n)) ||
		    (option == 'u' && ixy_sandbox_user(&arg_sandbox, optarg) != 0)) {
			return -1;
		}
		if (option == 'r' || option == 'q') {
			*(option == 'r' ? ring_size : many) = (uint32_t)n;
		} else if (option == 'n' || option == 'u') {
			arg_sandbox.disabled |= option == 'n';
		} else if (waits++ > 0) {
			fprintf(stderr, "%s: give --poll or --wait once\n", prog);
			return -1;
		} else {
			*wait_ms = option == 'p' ? 0 : (int32_t)n;
		}
	}
	return optind;
}

int usage(const char* usage_text) {
	fprintf(stderr, "usage: %s\n%s\n", usage_text, IXY_SANDBOX_OPTIONS_HELP);
	return EXIT_USAGE;
}
