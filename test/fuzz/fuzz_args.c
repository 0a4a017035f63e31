// Fuzz target: the command-line parsing of the apps (apps/common/options.c) and ixy_valid_pci_addr() (src/device.c).
//
// Input: 16 bytes for the range [min, max] of parse_u64 (little endian), then the text (up to the first NUL).
// Each parser is checked against a reference written differently (character classes counted, not scanned), and
// what it accepts must round-trip:
//   - parse_u64: NULL (accepted) exactly for non-empty all-digit text whose value fits 64 bits and lies in
//     [min, max]; then printing the value gives the text without leading zeros. Otherwise *value is untouched, and
//     the answer names the first problem in the order: empty, not decimal, out of range (too large for 64 bits, or
//     outside [min, max]). arg_u64 agrees.
//   - arg_options' --queues and pktgen_arg_options' --flows: accepted exactly for what parse_u64 accepts in their
//   ranges.
//   - ixy_valid_pci_addr: true exactly for the shape DDDD:BB:DD.F (hex digits, function 0-7), then scanning and
//     printing the four numbers gives the text back (in lower case), and for "xdp:<ifname>" with a name an
//     interface can have. arg_pci_addrs agrees.
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include <ixy/checks.h>
#include <ixy/ixy.h>

#include "common/options.h"
#include "common/pktgen_options.h"
#include "fuzz_input.h"

#define UNTOUCHED 0x5a5a5a5a5a5a5a5aull

static const char* const max_u64_text = "18446744073709551615"; // UINT64_MAX

// parse_u64's answer is the expected problem (not NULL: acceptance).
static bool same(const char* problem, const char* expected) {
	return problem != NULL && strcmp(problem, expected) == 0;
}

static void check_parse_u64(const char* text, uint64_t min, uint64_t max) {
	size_t len = strlen(text);
	size_t digits = strspn(text, "0123456789");
	size_t leading_zeros = strspn(text, "0");
	// The digits without leading zeros ("0" for all zeros): what printing the value must give.
	const char* canonical = leading_zeros == len && len > 0 ? "0" : text + leading_zeros;
	size_t canonical_len = strlen(canonical);
	bool fits = canonical_len < 20 || (canonical_len == 20 && strcmp(canonical, max_u64_text) <= 0);

	uint64_t value = UNTOUCHED;
	const char* problem = parse_u64(text, min, max, &value);
	if (len == 0) {
		FUZZ_CHECK(same(problem, "is empty"));
	} else if (digits != len) {
		FUZZ_CHECK(same(problem, "is not a decimal number"));
	} else if (!fits) {
		FUZZ_CHECK(same(problem, "is out of range"));
	} else {
		FUZZ_CHECK(problem == NULL || same(problem, "is out of range"));
	}
	if (problem == NULL) {
		char printed[32];
		snprintf(printed, sizeof(printed), "%" PRIu64, value);
		FUZZ_CHECK(strcmp(printed, canonical) == 0);
		FUZZ_CHECK(value >= min && value <= max);
	} else {
		FUZZ_CHECK(value == UNTOUCHED);
	}
	if (fits && digits == len && len > 0 && problem != NULL) {
		// The value fits 64 bits: the range alone refused it.
		uint64_t full = UNTOUCHED;
		FUZZ_CHECK(parse_u64(text, 0, UINT64_MAX, &full) == NULL);
		FUZZ_CHECK(full < min || full > max);
	}
	uint64_t arg_value = UNTOUCHED;
	FUZZ_CHECK(arg_u64("fuzz", "number", text, min, max, &arg_value) == (problem == NULL));
	FUZZ_CHECK(arg_value == value);
}

// The shape DDDD:BB:DD.F checked position by position against a template.
static bool reference_pci_shape(const char* text) {
	static const char shape[] = "hhhh:hh:hh.f";
	if (strlen(text) != strlen(shape)) {
		return false;
	}
	for (size_t i = 0; shape[i]; i++) {
		char c = text[i];
		bool ok = shape[i] == 'h'   ? (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
			  : shape[i] == 'f' ? c >= '0' && c <= '7'
					    : c == shape[i];
		if (!ok) {
			return false;
		}
	}
	return true;
}

// "xdp:" and a name the kernel gives an interface: 1 to 15 bytes, not "." or "..", no '/', ':' or white space.
static bool reference_xdp_name(const char* text) {
	if (strncmp(text, "xdp:", 4) != 0) {
		return false;
	}
	const char* name = text + 4;
	size_t len = strlen(name);
	bool ok = len >= 1 && len <= 15 && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
	for (size_t i = 0; ok && i < len; i++) {
		ok = name[i] != '/' && name[i] != ':' && !isspace((unsigned char)name[i]);
	}
	return ok;
}

static void check_pci_addr(const char* text) {
	bool valid = ixy_valid_pci_addr(text);
	FUZZ_CHECK(valid == (reference_pci_shape(text) || reference_xdp_name(text)));
	FUZZ_CHECK(arg_pci_addrs("fuzz", (char* const[]){(char*)text}, 1) == valid);
	if (!valid || reference_xdp_name(text)) {
		return;
	}
	unsigned domain, bus, device, function;
	FUZZ_CHECK(sscanf(text, "%4x:%2x:%2x.%1x", &domain, &bus, &device, &function) == 4);
	FUZZ_CHECK(domain <= 0xffff && bus <= 0xff && device <= 0xff && function <= 7);
	char printed[16], lower[16];
	snprintf(printed, sizeof(printed), "%04x:%02x:%02x.%x", domain, bus, device, function);
	for (size_t i = 0; i < sizeof(lower); i++) {
		lower[i] = (char)tolower((unsigned char)text[i]);
		if (text[i] == '\0') {
			break;
		}
	}
	FUZZ_CHECK(strcmp(printed, lower) == 0);
}

// --queues <text> (ixy-fwd, ixy-pcap: with --poll/--wait and --ring) and --flows <text> (ixy-pktgen: without):
// accepted exactly when parse_u64 takes the text in the option's range, which it then stores; else untouched.
static void check_many_option(const char* text) {
	static const char* const names[] = {"queues", "flows"};
	static const struct option fwd_table[] = {ARG_POLL_WAIT, ARG_RING, ARG_QUEUES, ARG_SANDBOX, {0}};
	static const struct option pktgen_table[] = {ARG_FLOWS, ARG_SANDBOX, {0}};
	for (int i = 0; i < 2; i++) {
		char option[16];
		snprintf(option, sizeof(option), "--%s", names[i]);
		uint64_t max = i == 0 ? IXY_MAX_QUEUES : ARG_MAX_FLOWS, value = UNTOUCHED;
		bool valid = parse_u64(text, 1, max, &value) == NULL;
		struct pktgen_options opt = {.app = {.wait_ms = 1000, .queues = 0x5a5a5a5a}, .flows = 0x5a5a5a5a};
		char* argv[] = {"fuzz", option, (char*)text, "a", NULL};
		int first = i == 0 ? arg_options("fuzz", fwd_table, 4, argv, &opt.app)
				   : pktgen_arg_options("fuzz", pktgen_table, 4, argv, &opt);
		uint32_t many = i == 0 ? opt.app.queues : opt.flows;
		FUZZ_CHECK(first == (valid ? 3 : -1));
		FUZZ_CHECK(many == (valid ? value : 0x5a5a5a5a));
		FUZZ_CHECK(opt.app.wait_ms == 1000 && opt.app.ring_size == 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
	struct fuzz_input in = fuzz_input(data, size);
	uint64_t min = fuzz_u64(&in);
	uint64_t max = fuzz_u64(&in);
	// The rest, up to the first NUL, as a C string.
	size_t text_len = fuzz_remaining(&in);
	char* text = malloc(text_len + 1);
	FUZZ_CHECK(text != NULL);
	if (text_len > 0) {
		memcpy(text, data + in.pos, text_len);
	}
	text[text_len] = '\0';
	check_parse_u64(text, min, max);
	check_pci_addr(text);
	check_many_option(text);
	// The same text once more against the widest range: only empty, not decimal or overflow may fail.
	check_parse_u64(text, 0, UINT64_MAX);
	free(text);
	FUZZ_CHECK(!ixy_valid_pci_addr(NULL));
	return 0;
}
