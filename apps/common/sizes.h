// ixy-pktgen --size (issue 30): the sizes of generated frames, without the 4 byte FCS, PACKET_MIN_SIZE (60) to
// PACKET_MAX_SIZE (1514) bytes:
//   --size <n>          every frame n bytes (default 60)
//   --size <min>-<max>  uniformly distributed in [min, max], drawn from a seeded pseudo-random generator (--seed,
//                       default 1), so that the same command line sends the same sizes in the same order (also when
//                       a full TX queue refuses frames: they keep their sizes, generator_send)
//   --size imix         the "simple IMIX": frames of 64, 594 and 1518 bytes with FCS (60, 590 and 1514 without) in
//                       the ratio 7:4:1, drawn at random from the same generator; sizes with FCS, as test tools give
//                       them. This "simple IMIX" is test-equipment practice, usually attributed to Agilent's, Spirent's
//                       and Cisco's tools; we found no primary source to cite for it. RFC 6985 ("IMIX Genome")
//                       specifies a notation for repeating size sequences; we could not verify that it lists this mix,
//                       and its size code letters (64, 128, 256, 512, 1024, 1280, 1518 bytes) have no 594.
// The generator is splitmix64 (64-bit state, a Weyl sequence through a mixing function), written from its
// published description; drawing a size costs a few multiplications, no division.
#ifndef IXY_APPS_SIZES_H
#define IXY_APPS_SIZES_H

#include <stdint.h>

enum size_mode { SIZE_FIXED, SIZE_UNIFORM, SIZE_IMIX };

#define SIZES_DEFAULT_SEED 1
#define IMIX_SMALL 60
#define IMIX_MEDIUM 590
#define IMIX_LARGE 1514

struct frame_sizes {
	enum size_mode mode;
	uint32_t min, max; // SIZE_FIXED: min == max
	uint64_t state;    // the pseudo-random generator's state: the seed, then advanced per draw
};

// Parses "<n>", "<min>-<max>" (min <= max) or "imix" into *sizes (seed left as it is). Returns NULL, or what is
// wrong; then *sizes is untouched.
const char* parse_sizes(const char* text, struct frame_sizes* sizes);

// "60", "60-1514" or "imix", for the totals line.
void format_sizes(const struct frame_sizes* sizes, char* out, unsigned out_size);

static inline uint64_t sizes_random(struct frame_sizes* sizes) {
	uint64_t z = (sizes->state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

// A number in [0, n) from the top 32 bits of a draw (multiply and shift: a bias below n / 2^32, 4e-7 for n 1455).
static inline uint32_t sizes_below(struct frame_sizes* sizes, uint32_t n) {
	return (uint32_t)(((sizes_random(sizes) >> 32) * n) >> 32);
}

// The next frame's size.
static inline uint32_t sizes_next(struct frame_sizes* sizes) {
	switch (sizes->mode) {
		case SIZE_UNIFORM:
			return sizes->min + sizes_below(sizes, sizes->max - sizes->min + 1);
		case SIZE_IMIX: {
			uint32_t twelfth = sizes_below(sizes, 12); // 7 of 12, 4 of 12, 1 of 12
			return twelfth < 7 ? IMIX_SMALL : twelfth < 11 ? IMIX_MEDIUM : IMIX_LARGE;
		}
		default:
			return sizes->min;
	}
}

#endif
