// Strict numbers: a number must be all decimal digits (no sign, no spaces, no "0x", nothing after the digits), must
// fit into 64 bits and must lie in the range the caller allows. Anything else is refused, so that "10k" never silently
// becomes 10. A leaf: it includes nothing of the apps, and the apps' parsers (options.h, sizes.h) build on it.
#ifndef IXY_APPS_PARSE_H
#define IXY_APPS_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Parses text as a decimal number in [min, max] into *value. Returns NULL, or what is wrong with text: "is empty",
// "is not a decimal number" (a character that is not 0-9: "-1", "+1", " 1", "1k", "0x10") or "is out of range" (not
// within [min, max], or more than 2^64 - 1); then *value is untouched.
const char* parse_u64(const char* text, uint64_t min, uint64_t max, uint64_t* value);

// Splits text at the first sep: copies what comes before it (all of text if it has no sep) into first, size bytes
// with the terminating zero, and sets *rest to what follows sep, NULL if there is no sep. False if that first part
// does not fit (first is then undefined). For "<first>-<last>" ranges and "<id>:<priority>".
bool parse_split(const char* text, char sep, char* first, size_t size, const char** rest);

#endif
