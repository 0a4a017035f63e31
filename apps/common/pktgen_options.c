// ixy-pktgen's options and the strict parsing of their values (see pktgen_options.h).
#include <stdio.h>

#include "pktgen_options.h"

// One line on stderr for a value a parser refused (problem not NULL), e.g. "ixy-pktgen: rate '10k' has no unit ...".
static bool arg_problem(const char* prog, const char* what, const char* text, const char* problem) {
	if (problem) {
		fprintf(stderr, "%s: %s '%s' %s\n", prog, what, text, problem);
	}
	return !problem;
}

// One of ixy-pktgen's own options (struct app_options' more): options is the app member of a struct pktgen_options.
static bool pktgen_option(struct app_options* app, const char* prog, int option, const char* value) {
	struct pktgen_options* options = (struct pktgen_options*)app;
	switch (option) {
		case 'f':
			options->generator_shaped = options->flows_given = true;
			return arg_u32(prog, "flows", value, 1, ARG_MAX_FLOWS, &options->flows);
		case 'R':
			return arg_problem(prog, "rate", value, parse_rate(value, &options->rate));
		case 'S':
			options->generator_shaped = options->size_given = true;
			return arg_problem(prog, "size", value, parse_sizes(value, &options->sizes));
		case 'e':
			options->generator_shaped = true;
			return arg_u64(prog, "seed", value, 0, UINT64_MAX, &options->sizes.state);
		case 'c':
			return arg_u64(prog, "packet count", value, 1, UINT64_MAX, &options->count);
		case 's':
			return arg_u32(prog, "seconds", value, 1, 86400 * 365, &options->seconds);
		case 'P':
			options->replay = value;
			return true;
		case 'T':
			options->replay_timing = true;
			return true;
		case 'L':
			options->loop = true;
			return true;
		default: // the addresses: A B I J O D V E
			options->generator_shaped = true;
			return arg_address(prog, (char)option, value, &options->spec); // common/flows.h
	}
}

int pktgen_arg_options(const char* prog, const struct option table[], int argc, char* argv[],
		       struct pktgen_options* options) {
	options->app.more = pktgen_option;
	return arg_options(prog, table, argc, argv, &options->app);
}
