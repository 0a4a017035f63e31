// Replays saved fuzz inputs through a fuzz target, for builds without libFuzzer (gcc): ctest runs every seed in
// test/fuzz/corpus/<target>/ and every input that once crashed in test/fuzz/regressions/<target>/.
//
// Usage: <replay binary> FILE_OR_DIRECTORY...   Directories are read non-recursively, in name order. A broken
// invariant aborts (FUZZ_CHECK), a sanitizer error aborts too; otherwise prints how many inputs ran and exits 0.
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_input.h"

// Runs the target on the file's contents. Returns 0, or -1 if the file cannot be read.
static int replay_file(const char* path) {
	FILE* file = fopen(path, "rb");
	if (!file) {
		fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t capacity = 4096, size = 0;
	uint8_t* data = malloc(capacity);
	while (data) {
		size += fread(data + size, 1, capacity - size, file);
		if (size < capacity) {
			break;
		}
		capacity *= 2;
		uint8_t* bigger = realloc(data, capacity);
		if (!bigger) {
			free(data);
		}
		data = bigger;
	}
	int failed = ferror(file) || !data;
	if (fclose(file) != 0 || failed) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		free(data);
		return -1;
	}
	// An exact-size copy, so that AddressSanitizer catches a target reading past the end of its input.
	uint8_t* input = malloc(size ? size : 1);
	if (!input) {
		free(data);
		return -1;
	}
	memcpy(input, data, size);
	free(data);
	LLVMFuzzerTestOneInput(input, size);
	free(input);
	return 0;
}

static int compare_names(const void* a, const void* b) {
	return strcmp(*(char* const*)a, *(char* const*)b);
}

// Replays every regular file directly in the directory; adds their number to *count. Returns 0 or -1.
static int replay_directory(const char* dir_path, unsigned* count) {
	struct dirent** entries = NULL;
	int n = scandir(dir_path, &entries, NULL, NULL);
	if (n < 0) {
		fprintf(stderr, "replay: cannot list %s: %s\n", dir_path, strerror(errno));
		return -1;
	}
	char** names = calloc((size_t)n + 1, sizeof(*names));
	int result = names ? 0 : -1;
	int num_names = 0;
	for (int i = 0; i < n; i++) {
		if (names && entries[i]->d_name[0] != '.') {
			names[num_names++] = entries[i]->d_name;
		}
	}
	if (names) {
		qsort(names, (size_t)num_names, sizeof(*names), compare_names);
	}
	for (int i = 0; i < num_names && result == 0; i++) {
		char path[4096];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir_path, names[i]);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
			continue;
		}
		result = replay_file(path);
		*count += result == 0;
	}
	free(names);
	for (int i = 0; i < n; i++) {
		free(entries[i]);
	}
	free(entries);
	return result;
}

int main(int argc, char** argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE_OR_DIRECTORY...\n", argv[0]);
		return 2;
	}
	unsigned count = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		int result = S_ISDIR(st.st_mode) ? replay_directory(argv[i], &count) : replay_file(argv[i]);
		if (result != 0) {
			return 1;
		}
		count += !S_ISDIR(st.st_mode);
	}
	printf("replayed %u inputs\n", count);
	return 0;
}
