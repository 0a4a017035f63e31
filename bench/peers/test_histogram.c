// The latency histogram of host_ends (histogram.h) against exact percentiles: its buckets cover every value once,
// in order, each at most 1/128 of its values wide; its nearest ranks match ranks computed by hand, and meet the
// definition (the smallest rank at or above ppm / 10^6 of all values) for every total up to 20000; for data sets of
// known shape (uniform, a heavy log-normal tail, two modes with a rare slow one, small exact values) each percentile
// host_ends reports (50, 90, 99, 99.9, 99.99, max) is within 1/256 (0.4 %: half a bucket, histogram.h) of the exact
// nearest-rank percentile of the sorted data; and on 1..100, where every value has a bucket of its own, the ranks
// are exact (p50 = 50, p90 = 90, ...).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/histogram.h"

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

enum { N = 200000 }; // values in each data set

// The percentiles host_ends reports, in parts per million (histogram.h), and their nearest ranks among N values,
// computed by hand.
static const struct {
	uint32_t ppm;
	size_t rank_of_n;
} reported[] = {
    {500000, 100000}, {900000, 180000}, {990000, 198000}, {999000, 199800}, {999900, 199980}, {1000000, 200000},
};

// Nearest ranks computed by hand: ceil(ppm * total / 10^6).
static const struct {
	uint64_t total;
	uint32_t ppm;
	uint64_t rank;
} hand_ranks[] = {
    {1000, 999000, 999},  // 999.0: in doubles 999.0000000000001, rounded up to 1000
    {1000, 999900, 1000}, // 999.9
    {1000, 500000, 500},
    {1000, 990000, 990},
    {2000, 999000, 1998},
    {10000, 999000, 9990},
    {10000, 999900, 9999},
    {100, 999000, 100}, // 99.9
    {100, 5000, 1},     // 0.5
    {7, 500000, 4},     // 3.5
    {3, 333333, 1},     // 0.999999
    {3, 333334, 2},     // 1.000002
    {1, 1, 1},
    {100000000000001ull, 999000, 99900000000001ull}, // ppm * total is past 2^64
};

static void check_ranks(void) {
	for (size_t i = 0; i < sizeof(hand_ranks) / sizeof(hand_ranks[0]); i++) {
		uint64_t got = histogram_rank(hand_ranks[i].total, hand_ranks[i].ppm);
		EXPECT(got == hand_ranks[i].rank, "rank of %u ppm among %llu is %llu, not %llu", hand_ranks[i].ppm,
		       (unsigned long long)hand_ranks[i].total, (unsigned long long)got,
		       (unsigned long long)hand_ranks[i].rank);
	}
	// The definition, checked by multiplying instead of dividing: rank * 10^6 reaches ppm * total, rank - 1 does
	// not.
	for (uint64_t total = 1; total <= 20000; total++) {
		for (size_t i = 0; i < sizeof(reported) / sizeof(reported[0]); i++) {
			uint64_t needed = reported[i].ppm * total, rank = histogram_rank(total, reported[i].ppm);
			EXPECT(rank * 1000000 >= needed && (rank - 1) * 1000000 < needed,
			       "rank of %u ppm among %llu is %llu", reported[i].ppm, (unsigned long long)total,
			       (unsigned long long)rank);
		}
	}
	for (size_t i = 0; i < sizeof(reported) / sizeof(reported[0]); i++) {
		uint64_t got = histogram_rank(N, reported[i].ppm);
		EXPECT(got == reported[i].rank_of_n, "rank of %u ppm among %d is %llu, not %zu", reported[i].ppm, N,
		       (unsigned long long)got, reported[i].rank_of_n);
	}
}

// Records values[0..N) and compares each percentile with the exact one.
static void check_percentiles(const char* name, uint64_t* values) {
	static struct histogram h;
	histogram_reset(&h);
	for (size_t i = 0; i < N; i++) {
		histogram_add(&h, values[i]);
	}
	qsort(values, N, sizeof(*values), compare_u64);
	printf("%-10s", name);
	for (size_t i = 0; i < sizeof(reported) / sizeof(reported[0]); i++) {
		uint32_t ppm = reported[i].ppm;
		size_t rank = reported[i].rank_of_n; // nearest rank, 1-based
		uint64_t exact = values[rank - 1], got = histogram_percentile(&h, ppm);
		double error = exact ? fabs((double)got - (double)exact) / (double)exact : (double)got;
		printf(" p%g %llu/%llu", ppm / 10000.0, (unsigned long long)got, (unsigned long long)exact);
		EXPECT(error <= 1.0 / 256, "%s: percentile %g is %llu, exactly %llu (%.2f %% off)", name, ppm / 10000.0,
		       (unsigned long long)got, (unsigned long long)exact, 100 * error);
	}
	printf("\n");
	EXPECT(h.total == N && h.min == values[0] && h.max == values[N - 1], "%s: count, min or max wrong", name);
}

int main(void) {
	check_buckets();
	check_ranks();
	uint64_t* values = malloc(N * sizeof(*values));
	if (!values) {
		return 1;
	}
	for (size_t i = 0; i < N; i++) { // uniform, 1 ns .. 1 ms
		values[i] = 1 + next_random() % 1000000;
	}
	check_percentiles("uniform", values);
	for (size_t i = 0; i < N; i++) { // log-normal: median 20 us, a long tail into milliseconds
		values[i] = (uint64_t)(20000.0 * exp(1.2 * normal()));
	}
	check_percentiles("lognormal", values);
	for (size_t i = 0; i < N; i++) { // 99.95 % near 5 us, 0.05 % near 3 ms (a stall)
		values[i] = i % 2000 == 7 ? 3000000 + next_random() % 500000 : 4000 + next_random() % 2000;
	}
	check_percentiles("bimodal", values);
	for (size_t i = 0; i < N; i++) { // small values: exact buckets
		values[i] = next_random() % 200;
	}
	check_percentiles("small", values);
	free(values);
	// Exact ranks: 1..100 once each (in buckets of their own); nearest rank p50 = 50, p90 = 90, p99 = 99; 99.9 and
	// 99.99 round up to rank 100.
	static struct histogram small;
	histogram_reset(&small);
	for (uint64_t v = 100; v >= 1; v--) {
		histogram_add(&small, v);
	}
	static const uint32_t ranks[][2] = {{500000, 50},  {900000, 90},   {990000, 99}, {999000, 100},
					    {999900, 100}, {1000000, 100}, {5000, 1}};
	for (size_t i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++) {
		uint64_t got = histogram_percentile(&small, ranks[i][0]);
		EXPECT(got == ranks[i][1], "1..100: percentile %g is %llu, not %u", ranks[i][0] / 10000.0,
		       (unsigned long long)got, ranks[i][1]);
	}
	// 1000 values: 998 of 1, one 100, one 120 (all in buckets of their own). p99.9 is rank 999, 100, not the
	// maximum.
	histogram_reset(&small);
	for (int i = 0; i < 998; i++) {
		histogram_add(&small, 1);
	}
	histogram_add(&small, 120);
	histogram_add(&small, 100);
	uint64_t p999 = histogram_percentile(&small, 999000);
	EXPECT(p999 == 100, "1000 values: percentile 99.9 is %llu, not the 999th value 100", (unsigned long long)p999);
	static struct histogram empty;
	histogram_reset(&empty);
	EXPECT(histogram_percentile(&empty, 500000) == 0, "an empty histogram's median is not 0");
	printf(failures ? "%d failures\n" : "PASS\n", failures);
	return failures != 0;
}
