// Messages. Recoverable errors are printed and returned to the caller (ixy never aborts on them);
// ixy_panic() is only for broken invariants, i.e. bugs in ixy or in the app (a buffer freed twice).
#ifndef IXY_LOG_H
#define IXY_LOG_H

#include <stdio.h>
#include <stdlib.h>

#define ixy_error(fmt, ...) fprintf(stderr, "ixy: error: " fmt "\n", ##__VA_ARGS__)
#define ixy_warn(fmt, ...) fprintf(stderr, "ixy: warning: " fmt "\n", ##__VA_ARGS__)
#define ixy_info(fmt, ...) fprintf(stderr, "ixy: " fmt "\n", ##__VA_ARGS__)

#define ixy_panic(fmt, ...)                                                                                            \
	do {                                                                                                           \
		fprintf(stderr, "ixy: BUG at %s:%d %s(): " fmt "\n", __FILE__, __LINE__, __func__, ##__VA_ARGS__);     \
		abort();                                                                                               \
	} while (0)

#endif
