// Fuzz target: the classic pcap writer of ixy-pcap (apps/common/pcap.c) with packets of arbitrary sizes.
//
// The input is a program of operations: write a packet (length 0 .. 128 KiB, so also beyond the 65535 byte
// snaplen, contents and timestamp from the input), or flush. The target writes the file, closes it, reads it back
// and checks that it is a valid classic pcap file holding exactly what was written:
//   - the global header: magic a1b2c3d4, version 2.4, zone 0, accuracy 0, snaplen 65535, link type 1 (Ethernet)
//   - per packet: seconds and microseconds of the timestamp (microseconds < 1000000), incl_len = min(len,
//     snaplen) <= snaplen, orig_len = len, then exactly incl_len bytes, equal to the packet's first bytes
//   - nothing after the last record, and packets_written counts the records.
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "common/pcap.h"
#include "fuzz_input.h"

#define MAX_PACKETS 64
// Packets up to twice the snaplen: lengths above 65535 must be cut to the snaplen in the file.
#define MAX_PACKET_LEN (2u * 65536)

enum pcap_op { OP_WRITE, OP_WRITE_LONG, OP_FLUSH, NUM_OPS };

struct written_packet {
	uint32_t len;
	uint64_t timestamp_ns;
	uint8_t fill_seed; // contents: see fill_packet()
	size_t input_offset;
	size_t input_bytes;
};

static uint8_t packet[MAX_PACKET_LEN];
static uint8_t expected[MAX_PACKET_LEN];
static char path[4096];

static uint32_t le32(const uint8_t* p) {
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const uint8_t* p) {
	return (uint16_t)(p[0] | p[1] << 8);
}

static void remove_temp_file(void) {
	unlink(path);
}

// A file in $TMPDIR (default /tmp) that every run overwrites; removed when the process exits.
static const char* temp_path(void) {
	if (path[0] == '\0') {
		const char* dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
		snprintf(path, sizeof(path), "%s/ixy_fuzz_pcap_XXXXXX", dir);
		int fd = mkstemp(path);
		FUZZ_CHECK(fd >= 0);
		FUZZ_CHECK(close(fd) == 0);
		atexit(remove_temp_file);
	}
	return path;
}

// Packet contents: the input's bytes at its offset, then a pattern from the seed, so long packets need no long
// inputs but every byte still differs from its neighbours (a shifted or truncated copy would be noticed).
static void fill_packet(uint8_t* dst, const struct written_packet* p, const uint8_t* data) {
	uint32_t stored = p->len < PCAP_SNAPLEN ? p->len : PCAP_SNAPLEN;
	size_t from_input = p->input_bytes < stored ? p->input_bytes : stored;
	memcpy(dst, data + p->input_offset, from_input);
	for (uint32_t i = (uint32_t)from_input; i < p->len; i++) {
		dst[i] = (uint8_t)(p->fill_seed + i * 131 + (i >> 8));
	}
}

// Reads the whole file into a malloc'd buffer; *size receives its length.
static uint8_t* read_file(const char* file_path, size_t* size) {
	FILE* file = fopen(file_path, "rb");
	FUZZ_CHECK(file != NULL);
	FUZZ_CHECK(fseek(file, 0, SEEK_END) == 0);
	long end = ftell(file);
	FUZZ_CHECK(end >= 0);
	FUZZ_CHECK(fseek(file, 0, SEEK_SET) == 0);
	uint8_t* contents = malloc((size_t)end + 1);
	FUZZ_CHECK(contents != NULL);
	FUZZ_CHECK(fread(contents, 1, (size_t)end, file) == (size_t)end);
	FUZZ_CHECK(fclose(file) == 0);
	*size = (size_t)end;
	return contents;
}

static void check_file(const struct written_packet* packets, uint32_t count, const uint8_t* data) {
	size_t size;
	uint8_t* file = read_file(temp_path(), &size);
	FUZZ_CHECK(size >= PCAP_GLOBAL_HEADER_SIZE);
	FUZZ_CHECK(le32(file + 0) == PCAP_MAGIC);
	FUZZ_CHECK(le16(file + 4) == 2 && le16(file + 6) == 4);
	FUZZ_CHECK(le32(file + 8) == 0 && le32(file + 12) == 0);
	uint32_t snaplen = le32(file + 16);
	FUZZ_CHECK(snaplen == 65535);
	FUZZ_CHECK(le32(file + 20) == 1);
	size_t pos = PCAP_GLOBAL_HEADER_SIZE;
	for (uint32_t i = 0; i < count; i++) {
		const struct written_packet* p = &packets[i];
		FUZZ_CHECK(size - pos >= PCAP_RECORD_HEADER_SIZE);
		const uint8_t* record = file + pos;
		uint32_t seconds = le32(record), micros = le32(record + 4);
		uint32_t incl_len = le32(record + 8), orig_len = le32(record + 12);
		FUZZ_CHECK(seconds == (uint32_t)(p->timestamp_ns / 1000000000u));
		FUZZ_CHECK(micros < 1000000);
		FUZZ_CHECK(micros == p->timestamp_ns % 1000000000u / 1000u);
		FUZZ_CHECK(orig_len == p->len);
		FUZZ_CHECK(incl_len <= snaplen);
		FUZZ_CHECK(incl_len == (p->len < snaplen ? p->len : snaplen));
		pos += PCAP_RECORD_HEADER_SIZE;
		FUZZ_CHECK(size - pos >= incl_len); // incl_len bytes are present
		fill_packet(expected, p, data);
		FUZZ_CHECK(memcmp(file + pos, expected, incl_len) == 0);
		pos += incl_len;
	}
	FUZZ_CHECK(pos == size); // nothing after the last record
	free(file);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
	struct fuzz_input in = fuzz_input(data, size);
	struct written_packet packets[MAX_PACKETS];
	uint32_t count = 0;
	struct pcap_writer writer;
	FUZZ_CHECK(pcap_open(&writer, temp_path(), getuid()) == 0);
	FUZZ_CHECK(pcap_start(&writer) == 0);
	while (fuzz_remaining(&in) > 0 && count < MAX_PACKETS) {
		uint8_t op = fuzz_u8(&in) % NUM_OPS;
		if (op == OP_FLUSH) {
			FUZZ_CHECK(pcap_flush(&writer) == 0);
			continue;
		}
		struct written_packet* p = &packets[count];
		// Short packets take a 16 bit length; long ones add 65536 to it, up to 128 KiB - 1.
		p->len = fuzz_u16(&in) + (op == OP_WRITE_LONG ? 65536u : 0u);
		p->timestamp_ns = fuzz_u64(&in);
		p->fill_seed = fuzz_u8(&in);
		// The next up to 255 input bytes become the packet's first bytes.
		size_t want = fuzz_u8(&in);
		p->input_offset = in.pos;
		p->input_bytes = want < fuzz_remaining(&in) ? want : fuzz_remaining(&in);
		in.pos += p->input_bytes;
		fill_packet(packet, p, data);
		FUZZ_CHECK(pcap_write_packet(&writer, packet, p->len, p->timestamp_ns) == 0);
		count++;
		FUZZ_CHECK(writer.packets_written == count);
	}
	FUZZ_CHECK(pcap_close(&writer) == 0);
	check_file(packets, count, data);
	return 0;
}
