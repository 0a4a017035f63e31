// The reader of classic pcap files for ixy-pktgen --replay (see pcap_read.h).
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "pcap_read.h"

#define MAGIC_MICRO 0xa1b2c3d4u
#define MAGIC_NANO 0xa1b23c4du
#define GLOBAL_HEADER 24
#define RECORD_HEADER 16
#define LINKTYPE_ETHERNET 1
#define LINKTYPE_FCS_PRESENT 0x04000000u // the F bit: the FCS length (bits 28-31) is given

static uint32_t get32(const uint8_t* p, bool big_endian) {
	return big_endian ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
			  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint32_t get16(const uint8_t* p, bool big_endian) {
	return big_endian ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
}

uint32_t pcap_parse(const uint8_t* data, size_t size, struct pcap_frame* frames, char* problem, size_t problem_size) {
	if (size < GLOBAL_HEADER) {
		snprintf(problem, problem_size, "truncated: %zu bytes, shorter than the 24 byte pcap header", size);
		return 0;
	}
	// The magic tells the writer's byte order: read little-endian, a big-endian file's magic comes out reversed.
	uint32_t magic = get32(data, false);
	bool big_endian = magic == __builtin_bswap32(MAGIC_MICRO) || magic == __builtin_bswap32(MAGIC_NANO);
	magic = get32(data, big_endian);
	if (magic != MAGIC_MICRO && magic != MAGIC_NANO) {
		snprintf(problem, problem_size,
			 "not a classic pcap file: magic %08" PRIx32
			 " is not a1b2c3d4 or a1b23c4d in either byte order",
			 get32(data, false));
		return 0;
	}
	uint64_t frac_ns = magic == MAGIC_NANO ? 1 : 1000, frac_limit = magic == MAGIC_NANO ? 1000000000 : 1000000;
	uint32_t major = get16(data + 4, big_endian), snaplen = get32(data + 16, big_endian);
	uint32_t link_type = get32(data + 20, big_endian);
	if (major != 2) {
		snprintf(problem, problem_size, "pcap version %" PRIu32 ", not 2", major);
		return 0;
	}
	if (snaplen < PCAP_READ_MIN_FRAME || snaplen > PCAP_READ_MAX_SNAPLEN) {
		snprintf(problem, problem_size, "snaplen %" PRIu32 " is out of range (14 to 262144)", snaplen);
		return 0;
	}
	if (link_type != LINKTYPE_ETHERNET) {
		// The field's upper bits (pcap-savefile(5), the pcap file format draft): the FCS length in bits 28-31,
		// in 16-bit words, valid with the F bit (bit 26); bits 16-25 and 27 reserved. Named, so that an
		// Ethernet capture with its FCS (link type 0x14000001: F, 2 words) says why it is refused.
		char flags[96] = "";
		if (link_type & LINKTYPE_FCS_PRESENT) {
			snprintf(flags, sizeof(flags), ", F bit set: each frame ends in an FCS of %" PRIu32 " bytes",
				 (link_type >> 28) * 2);
		} else if (link_type >> 16) {
			snprintf(flags, sizeof(flags), ", upper bits 0x%04" PRIx32 " set", link_type >> 16);
		}
		snprintf(problem, problem_size, "link type 0x%08" PRIx32 " is not Ethernet (0x00000001)%s", link_type,
			 flags);
		return 0;
	}
	uint32_t count = 0;
	uint64_t first_ns = 0, last_ns = 0;
	for (size_t at = GLOBAL_HEADER; at < size; count++) {
		if (count == PCAP_READ_MAX_FRAMES) {
			snprintf(problem, problem_size, "more than %d records", PCAP_READ_MAX_FRAMES);
			return 0;
		}
		if (size - at < RECORD_HEADER) {
			snprintf(problem, problem_size, "record %" PRIu32 ": truncated record header (%zu of 16 bytes)",
				 count, size - at);
			return 0;
		}
		const uint8_t* record = data + at;
		uint64_t seconds = get32(record, big_endian), frac = get32(record + 4, big_endian);
		uint32_t caplen = get32(record + 8, big_endian), len = get32(record + 12, big_endian);
		if (frac >= frac_limit) {
			snprintf(problem, problem_size,
				 "record %" PRIu32 ": timestamp fraction %" PRIu64 " is out of range", count, frac);
			return 0;
		}
		if (caplen != len) {
			snprintf(problem, problem_size,
				 "record %" PRIu32 ": captured %" PRIu32 " of %" PRIu32
				 " bytes: a cut frame cannot be replayed",
				 count, caplen, len);
			return 0;
		}
		if (caplen < PCAP_READ_MIN_FRAME || caplen > PCAP_READ_MAX_FRAME || caplen > snaplen) {
			snprintf(problem, problem_size,
				 "record %" PRIu32 ": frame of %" PRIu32
				 " bytes (allowed: 14 to 1514, at most the snaplen %" PRIu32 ")",
				 count, caplen, snaplen);
			return 0;
		}
		if (size - at - RECORD_HEADER < caplen) {
			snprintf(problem, problem_size,
				 "record %" PRIu32 ": truncated frame (%zu of %" PRIu32 " bytes)", count,
				 size - at - RECORD_HEADER, caplen);
			return 0;
		}
		uint64_t ns = seconds * 1000000000ull + frac * frac_ns; // below 2^32 * 10^9 + 10^9: fits 64 bits
		if (count == 0) {
			first_ns = last_ns = ns;
		}
		last_ns = ns > last_ns ? ns : last_ns;
		frames[count] =
		    (struct pcap_frame){.data = record + RECORD_HEADER, .len = caplen, .time_ns = last_ns - first_ns};
		at += RECORD_HEADER + caplen;
	}
	if (count == 0) {
		snprintf(problem, problem_size, "no records: nothing to replay");
	}
	return count;
}
