// A latency histogram with HDR-style buckets (after Gil Tene's HdrHistogram): bounded memory, a relative error that
// is the same at every magnitude, so that the 99.99th percentile of nanosecond latencies is as exact as the median.
// Shared by ixy-pcap --report (common/report.h) and the benchmark's host_ends (bench/peers).
//
// Values below 2^HIST_SUB_BITS (128 ns) each have a bucket of their own. Above, every power of two [2^e, 2^(e+1)) is
// split into 2^HIST_SUB_BITS equal buckets: a bucket is at most 1/128 of its values wide, so a percentile read as the
// bucket's middle is within 0.4 % of the exact value. 2^64 ns are covered by 7424 buckets (58 KiB).
#ifndef IXY_APPS_HISTOGRAM_H
#define IXY_APPS_HISTOGRAM_H

#include <stdint.h>

#define HIST_SUB_BITS 7
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) << HIST_SUB_BITS)

struct histogram {
	uint64_t counts[HIST_BUCKETS];
	uint64_t total;
	uint64_t min, max; // exact
};

void histogram_reset(struct histogram* h);
// The bucket of a value, and the smallest and largest value of a bucket.
uint32_t histogram_bucket(uint64_t value);
uint64_t histogram_bucket_low(uint32_t bucket);
uint64_t histogram_bucket_high(uint32_t bucket);
void histogram_add(struct histogram* h, uint64_t value);
// Percentiles are given in parts per million, as integers: p99.9 is 999000. In doubles, 99.9 / 100 * 1000 is
// 999.0000000000001, which rounds up to rank 1000 instead of 999; integer ranks are exact.
// The 1-based nearest rank of ppm (0 < ppm <= 1000000) among total values: ceil(ppm * total / 10^6), at least 1.
uint64_t histogram_rank(uint64_t total, uint32_t ppm);
// The value at ppm parts per million by nearest rank: the smallest recorded value such that at least ppm / 10^6 of
// all are at or below it, read as the middle of its bucket (clamped to the exact min and max; 1000000: the exact
// max). 0 if empty.
uint64_t histogram_percentile(const struct histogram* h, uint32_t ppm);

#endif
