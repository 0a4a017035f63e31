// The apps' options and the strict parsing of their values (see options.h).
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <ixy/checks.h>
#include <ixy/ixy.h>

#include "options.h"

bool arg_u64(const char* prog, const char* what, const char* text, uint64_t min, uint64_t max, uint64_t* value) {
	const char* problem = parse_u64(text, min, max, value);
	if (problem) {
		fprintf(stderr, "%s: %s '%s' %s (allowed: %llu to %llu)\n", prog, what, text, problem,
			(unsigned long long)min, (unsigned long long)max);
	}
	return !problem;
}

bool arg_u32(const char* prog, const char* what, const char* text, uint32_t min, uint32_t max, uint32_t* value) {
	uint64_t n;
	if (!arg_u64(prog, what, text, min, max, &n)) {
		return false;
	}
	*value = (uint32_t)n;
	return true;
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

// --ring: a power of two in 64..4096, checked here, before any device is opened (issue 34).
static bool arg_ring(const char* prog, const char* text, uint32_t* ring_size) {
	uint32_t n;
	if (!arg_u32(prog, "ring size", text, 64, 4096, &n)) {
		return false;
	}
	if ((n & (n - 1)) != 0) {
		fprintf(stderr, "%s: ring size '%s' is not a power of two (allowed: 64, 128, ..., 4096)\n", prog, text);
		return false;
	}
	*ring_size = n;
	return true;
}

int arg_options(const char* prog, const struct option table[], int argc, char* argv[], struct app_options* options) {
	optind = 0; // glibc: start afresh (tests parse more than one command line)
	int option, waits = 0;
	bool ok = true;
	// "+": the first argument that is not an option ends them. An unknown option, or one without its value, makes
	// getopt_long print why and return '?'.
	while (ok && (option = getopt_long(argc, argv, "+", table, NULL)) != -1) {
		switch (option) {
			case 'p':
				options->wait_ms = 0;
				break;
			case 'w':
				ok = arg_u32(prog, "wait time (ms)", optarg, 1, 60000, &options->wait_ms);
				break;
			case 'r':
				ok = arg_ring(prog, optarg, &options->ring_size);
				break;
			case 'q':
				ok = arg_u32(prog, "queues", optarg, 1, IXY_MAX_QUEUES, &options->queues);
				break;
			case 'M':
				options->report = true;
				break;
			case 'n':
				options->sandbox.disabled = true;
				break;
			case 'u':
				ok = ixy_sandbox_user(&options->sandbox, optarg) == 0;
				break;
			case 'h':
				return ARG_HELP;
			case '?':
				return -1;
			default: // an app's own option
				ok = options->more && options->more(options, prog, option, optarg);
				break;
		}
		waits += option == 'p' || option == 'w';
		if (ok && waits > 1) {
			fprintf(stderr, "%s: give --poll or --wait once\n", prog);
			ok = false;
		}
	}
	return ok ? optind : -1;
}

int usage(const char* usage_text, bool help) {
	fprintf(help ? stdout : stderr, "usage: %s\n%s\n", usage_text, IXY_SANDBOX_OPTIONS_HELP);
	return help ? 0 : EXIT_USAGE;
}

bool arg_count(const char* prog, int argc, char* argv[], int first, int min, int max, const char* synopsis) {
	int given = argc - first;
	if (argc == 1 || (given >= min && given <= max)) {
		return argc > 1; // nothing at all: no line (arg_exit prints the usage)
	}
	if (given < min) {
		fprintf(stderr, "%s: %d argument%s after the options, expected %s (see %s --help)\n", prog, given,
			given == 1 ? "" : "s", synopsis, prog);
	} else {
		// The first other argument ends the options: one that looks like an option came too late.
		fprintf(stderr, "%s: unexpected argument '%s' after %s%s (see %s --help)\n", prog, argv[first + max],
			synopsis, strncmp(argv[first + max], "--", 2) == 0 ? ": options go first" : "", prog);
	}
	return false;
}

int arg_exit(const char* usage_text, int first, int argc) {
	return first == ARG_HELP || argc == 1 ? usage(usage_text, first == ARG_HELP) : EXIT_USAGE;
}
