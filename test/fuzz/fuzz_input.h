// Reading a fuzzer's input as a stream of small numbers, shared by the fuzz targets in test/fuzz.
//
// A fuzz target gets an arbitrary byte string. The targets here read it front to back as a little program: an
// operation code, then its arguments. Once the input is used up every read returns 0, so every input, however
// short, is a valid program, and a mutation of one byte changes one decision.
#ifndef IXY_TEST_FUZZ_INPUT_H
#define IXY_TEST_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct fuzz_input {
	const uint8_t* data;
	size_t size;
	size_t pos;
};

static inline struct fuzz_input fuzz_input(const uint8_t* data, size_t size) {
	return (struct fuzz_input){.data = data, .size = size, .pos = 0};
}

static inline size_t fuzz_remaining(const struct fuzz_input* in) {
	return in->size - in->pos;
}

static inline uint8_t fuzz_u8(struct fuzz_input* in) {
	return in->pos < in->size ? in->data[in->pos++] : 0;
}

static inline uint16_t fuzz_u16(struct fuzz_input* in) {
	uint16_t low = fuzz_u8(in);
	return (uint16_t)(low | fuzz_u8(in) << 8);
}

static inline uint32_t fuzz_u32(struct fuzz_input* in) {
	uint32_t low = fuzz_u16(in);
	return low | (uint32_t)fuzz_u16(in) << 16;
}

static inline uint64_t fuzz_u64(struct fuzz_input* in) {
	uint64_t low = fuzz_u32(in);
	return low | (uint64_t)fuzz_u32(in) << 32;
}

// A broken invariant: the fuzzer (or the replay driver) must see a crash, with the reason printed first.
#define FUZZ_CHECK(cond)                                                                                               \
	do {                                                                                                           \
		if (!(cond)) {                                                                                         \
			fprintf(stderr, "%s:%d: fuzz invariant broken: %s\n", __FILE__, __LINE__, #cond);              \
			abort();                                                                                       \
		}                                                                                                      \
	} while (0)

// Every fuzz target defines this (libFuzzer's entry point); replay_main.c calls it in builds without libFuzzer.
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#endif
