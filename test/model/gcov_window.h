// A window for gcov (-DIXY_COVERAGE=ON; scripts/coverage-paper.sh): gcov_window_open() zeroes this program's counts,
// gcov_window_close() writes them to the .gcda files and keeps the exit from writing again, so that the files hold
// what ran in between (the app under test, and what other threads ran meanwhile), not the test's own setup and
// checks. Without --coverage both do nothing: libgcov's functions are weak references, null when not linked.
#ifndef IXY_TEST_MODEL_GCOV_WINDOW_H
#define IXY_TEST_MODEL_GCOV_WINDOW_H

void __gcov_reset(void) __attribute__((weak));
void __gcov_dump(void) __attribute__((weak));

static inline void gcov_window_open(void) {
	if (__gcov_reset) {
		__gcov_reset();
	}
}

static inline void gcov_window_close(void) {
	if (__gcov_dump) {
		__gcov_dump();
	}
}

#endif
