// Parsing of ixy-pktgen --size (see sizes.h).
#include <stdio.h>
#include <string.h>

#include "packet.h"
#include "parse.h"
#include "sizes.h"

const char* parse_sizes(const char* text, struct frame_sizes* sizes) {
	if (strcmp(text, "imix") == 0) {
		sizes->mode = SIZE_IMIX;
		sizes->min = IMIX_SMALL;
		sizes->max = IMIX_LARGE;
		return NULL;
	}
	char number[16];
	const char* last; // after the dash, NULL without one
	if (!parse_split(text, '-', number, sizeof(number), &last)) {
		return "is not <bytes>, <min>-<max> or imix";
	}
	uint64_t min, max;
	if (parse_u64(number, PACKET_MIN_SIZE, PACKET_MAX_SIZE, &min) != NULL ||
	    (last && parse_u64(last, PACKET_MIN_SIZE, PACKET_MAX_SIZE, &max) != NULL)) {
		return "is not <bytes>, <min>-<max> or imix, with bytes 60 to 1514 (without FCS)";
	}
	if (!last) {
		max = min;
	} else if (min > max) {
		return "has <min> above <max>";
	}
	sizes->mode = last ? SIZE_UNIFORM : SIZE_FIXED;
	sizes->min = (uint32_t)min;
	sizes->max = (uint32_t)max;
	return NULL;
}

void format_sizes(const struct frame_sizes* sizes, char* out, unsigned out_size) {
	if (sizes->mode == SIZE_IMIX) {
		snprintf(out, out_size, "imix");
	} else if (sizes->mode == SIZE_UNIFORM) {
		snprintf(out, out_size, "%u-%u", sizes->min, sizes->max);
	} else {
		snprintf(out, out_size, "%u", sizes->min);
	}
}
