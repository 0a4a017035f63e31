// Strict decimal numbers (see parse.h).
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

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

bool parse_split(const char* text, char sep, char* first, size_t size, const char** rest) {
	const char* at = strchr(text, sep);
	size_t len = at ? (size_t)(at - text) : strlen(text);
	if (len >= size) {
		return false;
	}
	memcpy(first, text, len);
	first[len] = '\0';
	*rest = at ? at + 1 : NULL;
	return true;
}
