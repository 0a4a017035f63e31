// ixy-pktgen's own options, beyond those of every app (options.h), which arg_options hands to pktgen_option:
//   --flows <k>           ixy-pktgen's flows, 1 to ARG_MAX_FLOWS (common/generator.h)
//   --rate, --size, --seed, --count, --seconds, --replay, --replay-timing, --loop   ixy-pktgen's test options
//                         (issue 30: common/pacing.h, common/sizes.h, common/replay.h, apps/ixy-pktgen.c)
//   --src-mac, --dst-mac, --src-ip, --dst-ip, --src-port, --dst-port, --vlan, --mark-end   ixy-pktgen's addresses,
//                         tag and end markers (issue 37: common/flows.h); they shape generated frames as --flows does
// A refused option leaves its field as it was.
#ifndef IXY_APPS_PKTGEN_OPTIONS_H
#define IXY_APPS_PKTGEN_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "flows.h"
#include "options.h"
#include "pacing.h"
#include "sizes.h"

#define ARG_MAX_FLOWS 1024

struct pktgen_options {
	struct app_options app;   // first: arg_options reads into it and hands ixy-pktgen's own options back
	uint32_t flows;           // --flows
	struct rate rate;         // --rate; per_second 0: none
	struct frame_sizes sizes; // --size, --seed
	uint64_t count;           // --count; 0: no limit
	uint32_t seconds;         // --seconds; 0: no limit
	const char* replay;       // --replay <file.pcap>; NULL: generate
	bool replay_timing;       // --replay-timing
	bool loop;                // --loop
	bool generator_shaped;    // --flows, --size or --seed given (ixy-pktgen refuses them with --replay)
	// the addresses (issue 37, common/flows.h); the app sets the defaults (spec_default) before parsing
	struct packet_spec spec;
	bool flows_given, size_given; // --flows, --size given
};

#define ARG_FLOWS                                                                                                      \
	{ "flows", required_argument, NULL, 'f' }
// ixy-pktgen's test options (issue 30): --rate <n><unit>, --size <bytes>|<min>-<max>|imix, --seed <n>, --count <n>,
// --seconds <s>, --replay <file.pcap>, --replay-timing, --loop.
#define ARG_PKTGEN                                                                                                     \
	{"rate", required_argument, NULL, 'R'}, {"size", required_argument, NULL, 'S'},                                \
	    {"seed", required_argument, NULL, 'e'}, {"count", required_argument, NULL, 'c'},                           \
	    {"seconds", required_argument, NULL, 's'}, {"replay", required_argument, NULL, 'P'},                       \
	    {"replay-timing", no_argument, NULL, 'T'}, {                                                               \
		"loop", no_argument, NULL, 'L'                                                                         \
	}
// ixy-pktgen's addresses (issue 37): --src-mac, --dst-mac, --src-ip, --dst-ip, --src-port, --dst-port, --vlan, and
// --mark-end (end markers, common/flows.h).
#define ARG_ADDRESSES                                                                                                  \
	{"src-mac", required_argument, NULL, 'A'}, {"dst-mac", required_argument, NULL, 'B'},                          \
	    {"src-ip", required_argument, NULL, 'I'}, {"dst-ip", required_argument, NULL, 'J'},                        \
	    {"src-port", required_argument, NULL, 'O'}, {"dst-port", required_argument, NULL, 'D'},                    \
	    {"vlan", required_argument, NULL, 'V'}, {                                                                  \
		"mark-end", no_argument, NULL, 'E'                                                                     \
	}

// arg_options (options.h) for ixy-pktgen: table may hold the entries above besides those of options.h.
int pktgen_arg_options(const char* prog, const struct option table[], int argc, char* argv[],
		       struct pktgen_options* options);

#endif
