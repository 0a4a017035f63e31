// The latency histogram of host_ends (histogram.h) against exact percentiles: its buckets cover every value once,
// in order, each at most 1/128 of its values wide, and for data sets of known shape (uniform, a heavy log-normal
// tail, two modes with a rare slow one, small exact values) each percentile host_ends reports (50, 90, 99, 99.9,
// 99.99, max) is within 1/256 (0.4 %: half a bucket, histogram.h) of the exact nearest-rank percentile of the sorted
// data; and on 1..100, where every value has a bucket of its own, the ranks are exact (p50 = 50, p90 = 90, ...).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "histogram.h"

static int failures;
#define EXPECT(cond, ...)                                                                                              \
	do {                                                                                                           \
		if (!(cond)) {                                                                                         \
			failures++;                                                                                    \
			if (failures <= 20) {                                                                          \
				printf("FAIL: " __VA_ARGS__);                                                          \
				putchar('\n');                                                                         \
			}                                                                                              \
		}                                                                                                      \
	} while (0)

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void) { // xorshift64*: the same data on every run
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}
static double uniform01(void) {
	return ((double)(next_random() >> 11) + 0.5) / 9007199254740992.0;
}
static double normal(void) { // Box-Muller
	return sqrt(-2.0 * log(uniform01())) * cos(2.0 * M_PI * uniform01());
}

static int compare_u64(const void* a, const void* b) {
	uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
	return (x > y) - (x < y);
}

static void check_buckets(void) {
	for (uint32_t b = 0; b < HIST_BUCKETS; b++) {
		uint64_t low = histogram_bucket_low(b), high = histogram_bucket_high(b);
		EXPECT(low <= high && histogram_bucket(low) == b && histogram_bucket(high) == b,
		       "bucket %u: [%llu, %llu] maps to buckets %u and %u", b, (unsigned long long)low,
		       (unsigned long long)high, histogram_bucket(low), histogram_bucket(high));
		if (b + 1 < HIST_BUCKETS) {
			EXPECT(histogram_bucket_low(b + 1) == high + 1,
			       "bucket %u ends at %llu, bucket %u starts at %llu", b, (unsigned long long)high, b + 1,
			       (unsigned long long)histogram_bucket_low(b + 1));
		}
		EXPECT((high - low) * 128 <= low, "bucket %u: [%llu, %llu] wider than 1/128", b,
		       (unsigned long long)low, (unsigned long long)high);
	}
	EXPECT(histogram_bucket_high(HIST_BUCKETS - 1) == UINT64_MAX, "the last bucket ends before 2^64 - 1");
	EXPECT(histogram_bucket(UINT64_MAX) == HIST_BUCKETS - 1, "2^64 - 1 is not in the last bucket");
}

// Records values[0..n) and compares each percentile with the exact one.
static void check_percentiles(const char* name, uint64_t* values, size_t n) {
	static struct histogram h;
	histogram_reset(&h);
	for (size_t i = 0; i < n; i++) {
		histogram_add(&h, values[i]);
	}
	qsort(values, n, sizeof(*values), compare_u64);
	static const double percentiles[] = {50, 90, 99, 99.9, 99.99, 100};
	printf("%-10s", name);
	for (size_t i = 0; i < sizeof(percentiles) / sizeof(percentiles[0]); i++) {
		double p = percentiles[i];
		size_t rank = (size_t)ceil(p / 100.0 * (double)n); // nearest rank, 1-based
		uint64_t exact = values[rank - 1], got = histogram_percentile(&h, p);
		double error = exact ? fabs((double)got - (double)exact) / (double)exact : (double)got;
		printf(" p%g %llu/%llu", p, (unsigned long long)got, (unsigned long long)exact);
		EXPECT(error <= 1.0 / 256, "%s: percentile %g is %llu, exactly %llu (%.2f %% off)", name, p,
		       (unsigned long long)got, (unsigned long long)exact, 100 * error);
	}
	printf("\n");
	EXPECT(h.total == n && h.min == values[0] && h.max == values[n - 1], "%s: count, min or max wrong", name);
}

int main(void) {
	check_buckets();
	enum { N = 200000 };
	uint64_t* values = malloc(N * sizeof(*values));
	if (!values) {
		return 1;
	}
	for (size_t i = 0; i < N; i++) { // uniform, 1 ns .. 1 ms
		values[i] = 1 + next_random() % 1000000;
	}
	check_percentiles("uniform", values, N);
	for (size_t i = 0; i < N; i++) { // log-normal: median 20 us, a long tail into milliseconds
		values[i] = (uint64_t)(20000.0 * exp(1.2 * normal()));
	}
	check_percentiles("lognormal", values, N);
	for (size_t i = 0; i < N; i++) { // 99.95 % near 5 us, 0.05 % near 3 ms (a stall)
		values[i] = i % 2000 == 7 ? 3000000 + next_random() % 500000 : 4000 + next_random() % 2000;
	}
	check_percentiles("bimodal", values, N);
	for (size_t i = 0; i < N; i++) { // small values: exact buckets
		values[i] = next_random() % 200;
	}
	check_percentiles("small", values, N);
	free(values);
	// Exact ranks: 1..100 once each (in buckets of their own); nearest rank p50 = 50, p90 = 90, p99 = 99; 99.9 and
	// 99.99 round up to rank 100.
	static struct histogram small;
	histogram_reset(&small);
	for (uint64_t v = 100; v >= 1; v--) {
		histogram_add(&small, v);
	}
	static const double ranks[][2] = {{50, 50},     {90, 90},   {99, 99}, {99.9, 100},
					  {99.99, 100}, {100, 100}, {0.5, 1}};
	for (size_t i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++) {
		uint64_t got = histogram_percentile(&small, ranks[i][0]);
		EXPECT(got == (uint64_t)ranks[i][1], "1..100: percentile %g is %llu, not %g", ranks[i][0],
		       (unsigned long long)got, ranks[i][1]);
	}
	static struct histogram empty;
	histogram_reset(&empty);
	EXPECT(histogram_percentile(&empty, 50) == 0, "an empty histogram's median is not 0");
	printf(failures ? "%d failures\n" : "PASS\n", failures);
	return failures != 0;
}
