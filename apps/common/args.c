// Strict parsing of numbers and PCI addresses on the command line (see args.h).
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <ixy/ixy.h>

#include "args.h"

enum parse_status parse_u64(const char* text, uint64_t min, uint64_t max, uint64_t* value) {
	if (text[0] == '\0') {
		return PARSE_EMPTY;
	}
	uint64_t result = 0;
	for (const char* c = text; *c; c++) {
		if (*c < '0' || *c > '9') {
			return PARSE_NOT_DECIMAL;
		}
	}
	for (const char* c = text; *c; c++) {
		uint64_t digit = (uint64_t)(*c - '0');
		// result * 10 + digit must stay <= UINT64_MAX
		if (result > (UINT64_MAX - digit) / 10) {
			return PARSE_OVERFLOW;
		}
		result = result * 10 + digit;
	}
	if (result < min || result > max) {
		return PARSE_OUT_OF_RANGE;
	}
	*value = result;
	return PARSE_OK;
}

bool arg_u64(const char* prog, const char* what, const char* text, uint64_t min, uint64_t max, uint64_t* value) {
	const char* problem = NULL;
	switch (parse_u64(text, min, max, value)) {
		case PARSE_OK:
			return true;
		case PARSE_EMPTY:
			problem = "is empty";
			break;
		case PARSE_NOT_DECIMAL:
			problem = "is not a decimal number";
			break;
		case PARSE_OVERFLOW:
		case PARSE_OUT_OF_RANGE:
			problem = "is out of range";
			break;
	}
	fprintf(stderr, "%s: %s '%s' %s (allowed: %llu to %llu)\n", prog, what, text, problem, (unsigned long long)min,
		(unsigned long long)max);
	return false;
}

bool arg_pci_addr(const char* prog, const char* text) {
	if (ixy_valid_pci_addr(text)) {
		return true;
	}
	fprintf(stderr,
		"%s: '%s' is not a PCI address: expected domain:bus:device.function in hex, e.g. 0000:03:00.0 "
		"(lspci -D lists them)\n",
		prog, text);
	return false;
}

// Takes the first n arguments after argv[0] off the command line: argv[0] moves up to stand in front of the rest.
static void consume_options(int* argc, char*** argv, int n) {
	(*argv)[n] = (*argv)[0];
	*argv += n;
	*argc -= n;
}

bool arg_two_pci_addrs(const char* prog, const char* a, const char* b) {
	if (!arg_pci_addr(prog, a) || !arg_pci_addr(prog, b)) {
		return false;
	}
	if (strcasecmp(a, b) == 0) {
		fprintf(stderr, "%s: %s given twice: forwarding needs two different NICs\n", prog, a);
		return false;
	}
	return true;
}

bool arg_wait_option(const char* prog, int* argc, char*** argv, int32_t* timeout_ms) {
	char** args = *argv;
	if (*argc < 2 || strncmp(args[1], "--", 2) != 0 || strcmp(args[1], "--ring") == 0) {
		return true; // no option of its own (--ring: arg_ring_option)
	}
	uint64_t ms = 0;
	int used = 1;
	if (strcmp(args[1], "--poll") == 0) {
		*timeout_ms = 0;
	} else if (strcmp(args[1], "--wait") == 0 && *argc < 3) {
		fprintf(stderr, "%s: --wait needs a number of milliseconds\n", prog);
		return false;
	} else if (strcmp(args[1], "--wait") == 0) {
		used = 2;
		if (!arg_u64(prog, "wait time (ms)", args[2], 1, 60000, &ms)) {
			return false;
		}
		*timeout_ms = (int32_t)ms;
	} else {
		fprintf(stderr, "%s: unknown option '%s' (options: --poll, --wait <ms>)\n", prog, args[1]);
		return false;
	}
	consume_options(argc, argv, used);
	return true;
}

bool arg_ring_option(const char* prog, int* argc, char*** argv, uint32_t* ring_size) {
	char** args = *argv;
	if (*argc < 2 || strcmp(args[1], "--ring") != 0) {
		return true; // no option
	}
	uint64_t descriptors = 0;
	if (*argc < 3) {
		fprintf(stderr, "%s: --ring needs a number of descriptors\n", prog);
		return false;
	}
	if (!arg_u64(prog, "ring size", args[2], 64, 4096, &descriptors)) {
		return false;
	}
	*ring_size = (uint32_t)descriptors;
	consume_options(argc, argv, 2);
	return true;
}

int usage(const char* usage_text) {
	fprintf(stderr, "usage: %s\n", usage_text);
	return EXIT_USAGE;
}
