// The classic pcap writer of ixy-pcap (apps/common/pcap.h): byte-exact file contents, and tcpdump reads it.
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../check.h"
#include "common/packet.h"
#include "common/pcap.h"

static uint32_t le32(const uint8_t* p) {
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint8_t* read_file(const char* path, size_t* size) {
	FILE* f = fopen(path, "rb");
	if (!f) {
		return NULL;
	}
	static uint8_t contents[1 << 20];
	*size = fread(contents, 1, sizeof(contents), f);
	fclose(f);
	return contents;
}

static void make_temp_path(char* path, size_t len) {
	const char* dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(path, len, "%s/test_pcap_XXXXXX", dir);
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd >= 0) {
		close(fd);
	}
}

#define NUM_PACKETS 5

// Writes NUM_PACKETS ixy-pktgen packets (sequence numbers 0..4) of growing length, then checks every byte.
static void test_write_and_read_back(const char* path) {
	struct pcap_writer writer;
	CHECK_EQ(pcap_open(&writer, path, getuid()), 0);
	CHECK_EQ(pcap_start(&writer), 0);
	const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x01};
	uint8_t pkt[PACKET_SIZE + NUM_PACKETS];
	packet_build_template(pkt, mac);
	const uint64_t t0 = 1700000000ull * 1000000000ull + 123456789; // 2023-11-14, .123456789 s
	for (uint32_t i = 0; i < NUM_PACKETS; i++) {
		packet_stamp_seq(pkt, i);
		pkt[PACKET_SIZE + i] = (uint8_t)(0xa0 + i);
		CHECK_EQ(pcap_write_packet(&writer, pkt, PACKET_SIZE + i, t0 + i * 1000500ull), 0);
	}
	CHECK_EQ(writer.packets_written, NUM_PACKETS);
	CHECK_EQ(pcap_close(&writer), 0);
	CHECK(writer.fd == -1);

	size_t size = 0;
	const uint8_t* file = read_file(path, &size);
	CHECK(file != NULL);
	if (!file) {
		return;
	}
	size_t expected_size = 24;
	for (uint32_t i = 0; i < NUM_PACKETS; i++) {
		expected_size += 16 + PACKET_SIZE + i;
	}
	CHECK_EQ(size, expected_size);
	if (size != expected_size) {
		return;
	}
	const uint8_t global_header[24] = {0xd4, 0xc3, 0xb2, 0xa1, 2,    0,    4, 0, 0, 0, 0, 0,
					   0,    0,    0,    0,    0xff, 0xff, 0, 0, 1, 0, 0, 0};
	CHECK(memcmp(file, global_header, 24) == 0);
	const uint8_t* record = file + 24;
	for (uint32_t i = 0; i < NUM_PACKETS; i++) {
		uint64_t t = t0 + i * 1000500ull;
		CHECK_EQ(le32(record + 0), t / 1000000000u);
		CHECK_EQ(le32(record + 4), t % 1000000000u / 1000u); // microseconds, rounded down
		CHECK_EQ(le32(record + 8), PACKET_SIZE + i);
		CHECK_EQ(le32(record + 12), PACKET_SIZE + i);
		const uint8_t* data = record + 16;
		CHECK(memcmp(data, pkt, PACKET_SIZE - 4) == 0); // all but the sequence number are the template
		CHECK_EQ(packet_read_seq(data), i);
		CHECK(memcmp(data + PACKET_SIZE, pkt + PACKET_SIZE, i) == 0); // the extra bytes 0xa0, 0xa1, ...
		record += 16 + PACKET_SIZE + i;
	}
	CHECK_EQ(le32(file + 24 + 0), 1700000000);
	CHECK_EQ(le32(file + 24 + 4), 123456);
}

// tcpdump, if installed, must read the file and show the UDP packets.
static void test_tcpdump_reads_it(const char* path) {
	if (system("command -v tcpdump >/dev/null 2>&1") != 0) {
		printf("SKIP tcpdump part: tcpdump is not installed\n");
		return;
	}
	char command[512];
	snprintf(command, sizeof(command), "tcpdump -r '%s' -nn 2>/dev/null", path);
	FILE* out = popen(command, "r");
	CHECK(out != NULL);
	if (!out) {
		return;
	}
	char line[512];
	int udp_lines = 0, lines = 0;
	while (fgets(line, sizeof(line), out)) {
		lines++;
		udp_lines += strstr(line, "10.0.0.1.42 > 10.0.0.2.1337: UDP, length 18") != NULL;
	}
	CHECK_EQ(pclose(out), 0);
	CHECK_EQ(lines, NUM_PACKETS);
	CHECK_EQ(udp_lines, NUM_PACKETS);
	printf("tcpdump read %d packets\n", lines);
}

// Packets longer than the snap length are stored cut to 65535 bytes, with their full length in the header.
static void test_snaplen(const char* path) {
	static uint8_t big[70000];
	memset(big, 0x5a, sizeof(big));
	struct pcap_writer writer;
	CHECK_EQ(pcap_open(&writer, path, getuid()), 0);
	CHECK_EQ(pcap_start(&writer), 0);
	CHECK_EQ(pcap_write_packet(&writer, big, sizeof(big), 0), 0);
	CHECK_EQ(pcap_close(&writer), 0);
	size_t size = 0;
	const uint8_t* file = read_file(path, &size);
	CHECK(file != NULL);
	CHECK_EQ(size, 24 + 16 + 65535);
	if (file && size >= 40) {
		CHECK_EQ(le32(file + 24 + 8), 65535);
		CHECK_EQ(le32(file + 24 + 12), 70000);
	}
}

// A file that cannot be created fails at pcap_open (before ixy-pcap would take the device); a full disk shows when
// the header is written.
static void test_open_fails(void) {
	struct pcap_writer writer;
	fprintf(stderr, "(the following error lines are expected)\n");
	CHECK_EQ(pcap_open(&writer, "/nonexistent-directory/x.pcap", getuid()), -1);
	CHECK_EQ(pcap_open(&writer, "/", getuid()), -1); // a directory
	CHECK_EQ(pcap_close(&writer), 0);                // closing a writer that failed to open is harmless
	// The null device is taken as it is, whoever owns it (it has no contents to lose).
	CHECK_EQ(pcap_open(&writer, "/dev/null", getuid() + 1), 0);
	CHECK_EQ(pcap_start(&writer), 0);
	CHECK_EQ(pcap_close(&writer), 0);
}

// Writes "keep me" into path.
static void write_keep_me(const char* path) {
	FILE* f = fopen(path, "wb");
	CHECK(f != NULL && fputs("keep me", f) >= 0 && fclose(f) == 0);
}

static bool holds_keep_me(const char* path) {
	size_t size = 0;
	const uint8_t* contents = read_file(path, &size);
	return contents && size == 7 && memcmp(contents, "keep me", 7) == 0;
}

// What ixy-pcap does with a file: pcap_open, and if it succeeds, pcap_start (which empties it) and pcap_close.
static int capture(const char* path, uid_t owner) {
	struct pcap_writer writer;
	if (pcap_open(&writer, path, owner) != 0) {
		return -1;
	}
	CHECK_EQ(pcap_start(&writer), 0);
	CHECK_EQ(pcap_close(&writer), 0);
	return 0;
}

// Issue 34: a capture never writes through a symbolic link, into anything but a regular file (or /dev/null), or into
// a file of another user than the one it runs as. Each is refused at pcap_open; the file stays as it was.
static void test_refused_files(const char* dir) {
	char target[300], link[300], fifo[300], sub[300], special[300];
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	snprintf(special, sizeof(special), "%s/full", dir);
	write_keep_me(target);
	CHECK_EQ(symlink(target, link), 0);
	struct pcap_writer writer;
	// A link to a file of the capture's own user: still not followed.
	CHECK_EQ(capture(link, getuid()), -1);
	CHECK(holds_keep_me(target));
	if (getuid() == 0) {
		// As root for a user (nobody): the link in that user's directory points to root's file.
		CHECK_EQ(chown(dir, 65534, 65534), 0);
		CHECK_EQ(capture(link, 65534), -1);
		CHECK(holds_keep_me(target));
		// A file of root's, named directly, is not nobody's either.
		CHECK_EQ(capture(target, 65534), -1);
		CHECK(holds_keep_me(target));
		CHECK_EQ(chown(target, 65534, 65534), 0);
		CHECK_EQ(capture(target, 0), -1); // nobody's file, the capture runs as root
		CHECK(holds_keep_me(target));
		CHECK_EQ(pcap_open(&writer, target, 65534), 0); // nobody's own
		pcap_discard(&writer);
		CHECK_EQ(chown(target, 0, 0), 0);
	}
	// A file of another user (here: the capture runs as another uid than the file's).
	CHECK_EQ(capture(target, getuid() + 1), -1);
	CHECK(holds_keep_me(target));
	// A dangling link: nothing is created where it points.
	CHECK_EQ(unlink(target), 0);
	CHECK_EQ(capture(link, getuid()), -1);
	CHECK(access(target, F_OK) != 0);
	// A FIFO (opening it for writing would wait for a reader) and a directory.
	CHECK_EQ(mkfifo(fifo, 0600), 0);
	CHECK_EQ(capture(fifo, getuid()), -1);
	CHECK_EQ(mkdir(sub, 0700), 0);
	CHECK_EQ(capture(sub, getuid()), -1);
	// A device other than the null device (root can make one: /dev/full's numbers, 1:7).
	if (getuid() == 0 && mknod(special, S_IFCHR | 0600, makedev(1, 7)) == 0) {
		CHECK_EQ(capture(special, 0), -1);
		CHECK_EQ(unlink(special), 0);
	}
	CHECK(unlink(link) == 0 && unlink(fifo) == 0 && rmdir(sub) == 0);
}

// Opening changes nothing: a file that existed keeps its bytes until pcap_start, and pcap_discard leaves it; a file
// that pcap_open created is removed again by pcap_discard.
static void test_open_changes_nothing(const char* path) {
	write_keep_me(path);
	struct pcap_writer writer;
	CHECK_EQ(pcap_open(&writer, path, getuid()), 0);
	CHECK(!writer.created);
	pcap_discard(&writer);
	CHECK(holds_keep_me(path));
	CHECK_EQ(pcap_open(&writer, path, getuid()), 0);
	CHECK_EQ(pcap_start(&writer), 0);
	CHECK_EQ(pcap_close(&writer), 0);
	size_t size = 0;
	const uint8_t* contents = read_file(path, &size);
	CHECK(contents && size == PCAP_GLOBAL_HEADER_SIZE); // emptied, then the header

	CHECK_EQ(unlink(path), 0);
	CHECK_EQ(pcap_open(&writer, path, getuid()), 0);
	CHECK(writer.created);
	pcap_discard(&writer);
	CHECK(access(path, F_OK) != 0); // gone again
}

// Issue 34: the disk fills (here: a file size limit, RLIMIT_FSIZE, with SIGXFSZ ignored, so that write() fails with
// EFBIG after a partial write). Only records whose bytes all reached the file count, per tag too, and the record the
// failed write cut is cut off: the file holds exactly packets_in_file records.
#define FULL_RECORDS 100 // whole records that fit, then half a record more
static void test_full_disk(const char* path) {
	struct rlimit old, small;
	CHECK_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = (struct rlimit){.rlim_cur = 24 + FULL_RECORDS * (16 + PACKET_SIZE) + 30, .rlim_max = old.rlim_max};
	CHECK(signal(SIGXFSZ, SIG_IGN) != SIG_ERR);
	struct pcap_writer writer;
	CHECK_EQ(pcap_open(&writer, path, getuid()), 0);
	CHECK_EQ(pcap_start(&writer), 0);
	CHECK_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
	const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x01};
	uint8_t pkt[PACKET_SIZE];
	packet_build_template(pkt, mac);
	fprintf(stderr, "(the following error line is expected)\n");
	int failures = 0;
	for (uint32_t i = 0; i < 3 * FULL_RECORDS; i++) {
		packet_stamp_seq(pkt, i);
		failures += pcap_write_tagged(&writer, (uint8_t)(i % 4), pkt, PACKET_SIZE, 0) != 0;
		if (i == FULL_RECORDS / 2) {
			CHECK_EQ(pcap_flush(&writer), 0); // still room: all 51 in the file
			CHECK_EQ(writer.packets_in_file, FULL_RECORDS / 2 + 1);
		}
	}
	CHECK_EQ(failures, 0); // all in the buffer
	CHECK_EQ(pcap_close(&writer), -1);
	CHECK_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);
	CHECK_EQ(writer.packets_written, 3 * FULL_RECORDS);
	CHECK_EQ(writer.packets_in_file, FULL_RECORDS);
	uint64_t by_tag = 0;
	for (int t = 0; t < 4; t++) {
		CHECK_EQ(writer.in_file[t], FULL_RECORDS / 4); // records 0..99 in turn
		by_tag += writer.in_file[t];
	}
	CHECK_EQ(by_tag, writer.packets_in_file);
	// The file: the header and exactly packets_in_file whole records, the last one number 99.
	size_t size = 0;
	const uint8_t* file = read_file(path, &size);
	CHECK_EQ(size, 24 + FULL_RECORDS * (16 + PACKET_SIZE));
	CHECK(file && size >= 24 + FULL_RECORDS * (16 + PACKET_SIZE) &&
	      packet_read_seq(file + 24 + (FULL_RECORDS - 1) * (16 + PACKET_SIZE) + 16) == FULL_RECORDS - 1);
}

int main(void) {
	char path[256];
	make_temp_path(path, sizeof(path));
	test_write_and_read_back(path);
	test_tcpdump_reads_it(path);
	test_snaplen(path);
	test_open_fails();
	test_open_changes_nothing(path);
	test_full_disk(path);
	char dir[] = "/tmp/test_pcap_dir_XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	test_refused_files(dir);
	CHECK_EQ(rmdir(dir), 0);
	unlink(path);
	return check_summary();
}
