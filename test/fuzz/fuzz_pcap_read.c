// Fuzz target: the pcap reader of ixy-pktgen --replay (apps/common/pcap_read.c), whose input is an untrusted file.
//
// The input is the file itself. The target parses it and checks, for a file it accepts, that every frame lies
// inside the input right after its 16 byte record header (the first right after the 24 byte file header, the last
// ending at the input's end), is 14 to 1514 bytes long, and that the times since the first record never go down;
// for a file it refuses, that the problem is one non-empty line. AddressSanitizer (the libFuzzer build) catches any
// read outside the input.
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/pcap_read.h"
#include "fuzz_input.h"

static struct pcap_frame frames[PCAP_READ_MAX_FRAMES];

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
	// An exact-size copy, so that a read past the end is a heap overflow (the replay build has no sanitizer, but
	// valgrind's memcheck stage sees it).
	uint8_t* copy = malloc(size ? size : 1);
	FUZZ_CHECK(copy != NULL);
	if (size) {
		memcpy(copy, data, size);
	}
	char problem[160] = "";
	uint32_t count = pcap_parse(copy, size, frames, problem, sizeof(problem));
	if (count == 0) {
		size_t len = strlen(problem);
		FUZZ_CHECK(len > 0 && len < sizeof(problem) - 1 && strchr(problem, '\n') == NULL);
	} else {
		FUZZ_CHECK(count <= PCAP_READ_MAX_FRAMES);
		const uint8_t* expected = copy + 24;
		uint64_t last_ns = 0;
		for (uint32_t i = 0; i < count; i++) {
			FUZZ_CHECK(frames[i].data == expected + 16);
			FUZZ_CHECK(frames[i].len >= PCAP_READ_MIN_FRAME && frames[i].len <= PCAP_READ_MAX_FRAME);
			FUZZ_CHECK(frames[i].time_ns >= last_ns);
			FUZZ_CHECK(i > 0 || frames[i].time_ns == 0);
			last_ns = frames[i].time_ns;
			expected = frames[i].data + frames[i].len;
		}
		FUZZ_CHECK(expected == copy + size);
	}
	free(copy);
	return 0;
}
