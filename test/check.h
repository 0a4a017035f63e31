// Minimal test helpers shared by all C tests. A test program calls CHECK* and ends with `return check_summary();`.
#ifndef IXY_TEST_CHECK_H
#define IXY_TEST_CHECK_H

#include <inttypes.h>
#include <stdio.h>

static int check_failures;
static int check_passes;

#define CHECK(cond)                                                                                                    \
	do {                                                                                                           \
		if (cond) {                                                                                            \
			check_passes++;                                                                                \
		} else {                                                                                               \
			check_failures++;                                                                              \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                       \
		}                                                                                                      \
	} while (0)

#define CHECK_EQ(a, b)                                                                                                 \
	do {                                                                                                           \
		uint64_t check_a_ = (uint64_t)(a), check_b_ = (uint64_t)(b);                                           \
		if (check_a_ == check_b_) {                                                                            \
			check_passes++;                                                                                \
		} else {                                                                                               \
			check_failures++;                                                                              \
			fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (%" PRIu64 " != %" PRIu64 ")\n", __FILE__,   \
				__LINE__, #a, #b, check_a_, check_b_);                                                 \
		}                                                                                                      \
	} while (0)

// Prints "<checks> passed, <checks> failed" and returns the exit code.
static inline int check_summary(void) {
	printf("%d passed, %d failed\n", check_passes, check_failures);
	return check_failures ? 1 : 0;
}

// Exit code that ctest treats as skipped (SKIP_RETURN_CODE 77).
#define CHECK_SKIP 77

#endif
