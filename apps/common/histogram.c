// HDR-style latency histogram: see histogram.h.
#include "histogram.h"

#include <string.h>

void histogram_reset(struct histogram* h) {
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

uint32_t histogram_bucket(uint64_t value) {
	if (value < (1u << HIST_SUB_BITS)) {
		return (uint32_t)value;
	}
	uint32_t exponent = 63u - (uint32_t)__builtin_clzll(value); // value in [2^exponent, 2^(exponent + 1))
	uint32_t shift = exponent - HIST_SUB_BITS;
	// the top HIST_SUB_BITS + 1 bits of the value: 2^HIST_SUB_BITS .. 2^(HIST_SUB_BITS + 1) - 1
	uint32_t top = (uint32_t)(value >> shift);
	return ((shift + 1) << HIST_SUB_BITS) + top - (1u << HIST_SUB_BITS);
}

uint64_t histogram_bucket_low(uint32_t bucket) {
	if (bucket < (1u << HIST_SUB_BITS)) {
		return bucket;
	}
	uint32_t shift = (bucket >> HIST_SUB_BITS) - 1;
	uint64_t top = (bucket & ((1u << HIST_SUB_BITS) - 1)) + (1u << HIST_SUB_BITS);
	return top << shift;
}

uint64_t histogram_bucket_high(uint32_t bucket) {
	if (bucket < (1u << HIST_SUB_BITS)) {
		return bucket;
	}
	uint32_t shift = (bucket >> HIST_SUB_BITS) - 1;
	return histogram_bucket_low(bucket) + ((1ull << shift) - 1);
}

void histogram_add(struct histogram* h, uint64_t value) {
	h->counts[histogram_bucket(value)]++;
	h->total++;
	h->min = value < h->min ? value : h->min;
	h->max = value > h->max ? value : h->max;
}

uint64_t histogram_rank(uint64_t total, uint32_t ppm) {
	// total = q * 10^6 + r, so ppm * total / 10^6 = q * ppm + r * ppm / 10^6: only the second part needs rounding
	// up, and r * ppm < 10^12 cannot overflow (ppm * total could).
	uint64_t q = total / 1000000, r = total % 1000000;
	uint64_t rank = q * ppm + (r * ppm + 999999) / 1000000;
	return rank < 1 ? 1 : rank;
}

uint64_t histogram_percentile(const struct histogram* h, uint32_t ppm) {
	if (h->total == 0) {
		return 0;
	}
	uint64_t rank = histogram_rank(h->total, ppm); // 1-based
	rank = rank > h->total ? h->total : rank;
	if (rank == h->total) {
		return h->max; // the largest value is known exactly
	}
	uint64_t seen = 0;
	for (uint32_t b = 0; b < HIST_BUCKETS; b++) {
		seen += h->counts[b];
		if (seen >= rank) {
			uint64_t low = histogram_bucket_low(b), high = histogram_bucket_high(b);
			uint64_t middle = low + (high - low) / 2;
			return middle < h->min ? h->min : middle > h->max ? h->max : middle;
		}
	}
	return h->max;
}
