// Classic pcap writer (format in pcap.h).
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "pcap.h"

// 1 MiB: about 13000 minimum-sized packets per write() system call.
#define PCAP_BUFFER_SIZE (1u << 20)

static void put_le16(uint8_t* p, uint16_t value) {
	p[0] = (uint8_t)value;
	p[1] = (uint8_t)(value >> 8);
}

static void put_le32(uint8_t* p, uint32_t value) {
	put_le16(p, (uint16_t)value);
	put_le16(p + 2, (uint16_t)(value >> 16));
}

// Writes len bytes at the file's position; returns how many reached the file (len, or fewer with errno set).
static size_t write_all(int fd, const uint8_t* data, size_t len) {
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			errno = n == 0 ? EIO : errno;
			break;
		}
		done += (size_t)n;
	}
	return done;
}

// The null device (character device 1:3): it has no contents to lose, so neither its type nor its owner matter.
static bool is_null_device(const struct stat* st) {
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 && minor(st->st_rdev) == 3;
}

// Why an existing file st may not be written by a capture that runs as owner: into problem, or false if it may.
static bool refused(const struct stat* st, uid_t owner, char* problem, size_t size) {
	if (S_ISLNK(st->st_mode)) {
		snprintf(problem, size, "a symbolic link, not followed");
	} else if (S_ISDIR(st->st_mode)) {
		snprintf(problem, size, "%s", strerror(EISDIR));
	} else if (is_null_device(st)) {
		return false;
	} else if (!S_ISREG(st->st_mode)) {
		snprintf(problem, size, "%s, not a regular file", S_ISFIFO(st->st_mode) ? "a FIFO" : "a special file");
	} else if (st->st_uid != owner) {
		snprintf(problem, size, "belongs to uid %u, not to uid %u, who the capture runs as",
			 (unsigned)st->st_uid, (unsigned)owner);
	} else {
		return false;
	}
	return true;
}

// An existing file: checked before it is opened (lstat: nothing else is opened, a FIFO cannot block), opened without
// following a symbolic link, then checked again (fstat: the same file, not one swapped in meanwhile). Never
// truncated here. Returns the descriptor, or -1 with problem set.
static int open_existing(const char* path, uid_t owner, char* problem, size_t size) {
	struct stat before, after;
	if (lstat(path, &before) != 0) {
		snprintf(problem, size, "%s", strerror(errno));
		return -1;
	}
	if (refused(&before, owner, problem, size)) {
		return -1;
	}
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &after) != 0 || fcntl(fd, F_SETFL, 0) != 0) {
		snprintf(problem, size, "%s", errno == ELOOP ? "a symbolic link, not followed" : strerror(errno));
	} else if (after.st_dev != before.st_dev || after.st_ino != before.st_ino) {
		snprintf(problem, size, "replaced by another file while it was opened");
	} else if (!refused(&after, owner, problem, size)) {
		return fd;
	}
	if (fd >= 0) {
		close(fd);
	}
	return -1;
}

int pcap_open(struct pcap_writer* writer, const char* path, uid_t owner) {
	*writer = (struct pcap_writer){.path = path, .fd = -1};
	// A new file is created (O_EXCL: never through a symbolic link), an existing one opened as it is, if it may be
	// written: pcap_start empties it once the capture begins.
	char problem[128] = "";
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	writer->created = fd >= 0;
	if (fd < 0) {
		int err = errno;
		snprintf(problem, sizeof(problem), "%s", strerror(err));
		fd = err == EEXIST ? open_existing(path, owner, problem, sizeof(problem)) : -1;
	}
	writer->fd = fd;
	writer->buffer = fd >= 0 ? malloc(PCAP_BUFFER_SIZE) : NULL;
	writer->tags = writer->buffer ? malloc(PCAP_BUFFER_SIZE / PCAP_RECORD_HEADER_SIZE) : NULL;
	if (!writer->tags) {
		fprintf(stderr, "pcap: cannot create %s: %s\n", path, fd >= 0 ? "out of memory" : problem);
		pcap_discard(writer);
		return -1;
	}
	return 0;
}

int pcap_start(struct pcap_writer* writer) {
	// A regular file loses what it held; the null device (pcap_open) cannot be truncated and need not be.
	struct stat st;
	if (fstat(writer->fd, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(writer->fd, 0) != 0) {
		fprintf(stderr, "pcap: cannot empty %s: %s\n", writer->path, strerror(errno));
		return -1;
	}
	uint8_t header[PCAP_GLOBAL_HEADER_SIZE];
	put_le32(header + 0, PCAP_MAGIC);
	put_le16(header + 4, PCAP_VERSION_MAJOR);
	put_le16(header + 6, PCAP_VERSION_MINOR);
	put_le32(header + 8, 0);  // time zone offset: timestamps are UTC
	put_le32(header + 12, 0); // timestamp accuracy: unused, always 0
	put_le32(header + 16, PCAP_SNAPLEN);
	put_le32(header + 20, PCAP_LINKTYPE_ETHERNET);
	if (write_all(writer->fd, header, sizeof(header)) != sizeof(header)) {
		fprintf(stderr, "pcap: cannot write to %s: %s\n", writer->path, strerror(errno));
		writer->failed = true;
		return -1;
	}
	writer->file_bytes = sizeof(header);
	return 0;
}

void pcap_discard(struct pcap_writer* writer) {
	if (writer->fd >= 0) {
		close(writer->fd); // nothing was written: nothing can fail that matters
		writer->fd = -1;
	}
	free(writer->buffer);
	free(writer->tags);
	writer->buffer = NULL;
	writer->tags = NULL;
	if (writer->created && unlink(writer->path) != 0) {
		fprintf(stderr, "pcap: cannot remove %s again: %s\n", writer->path, strerror(errno));
	}
	writer->created = false;
}

int pcap_write_tagged(struct pcap_writer* writer, uint8_t tag, const uint8_t* data, uint32_t len,
		      uint64_t timestamp_ns) {
	uint32_t stored = len < PCAP_SNAPLEN ? len : PCAP_SNAPLEN;
	if (writer->used + PCAP_RECORD_HEADER_SIZE + stored > PCAP_BUFFER_SIZE && pcap_flush(writer) != 0) {
		return -1;
	}
	if (writer->failed) {
		return -1;
	}
	uint8_t* header = writer->buffer + writer->used;
	put_le32(header + 0, (uint32_t)(timestamp_ns / 1000000000u));
	put_le32(header + 4, (uint32_t)(timestamp_ns % 1000000000u / 1000u));
	put_le32(header + 8, stored);
	put_le32(header + 12, len);
	memcpy(header + PCAP_RECORD_HEADER_SIZE, data, stored);
	writer->used += PCAP_RECORD_HEADER_SIZE + stored;
	writer->tags[writer->records++] = tag < PCAP_TAGS ? tag : PCAP_TAGS - 1;
	writer->packets_written++;
	return 0;
}

int pcap_flush(struct pcap_writer* writer) {
	if (writer->failed) {
		return -1;
	}
	size_t used = writer->used, done = write_all(writer->fd, writer->buffer, used);
	int err = errno;
	// The records whose bytes all reached the file count; a record cut by a failed write is cut off again.
	size_t whole = 0;
	for (uint32_t i = 0; i < writer->records; i++) {
		const uint8_t* p = writer->buffer + whole + 8;
		size_t record = PCAP_RECORD_HEADER_SIZE +
				((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		if (whole + record > done) {
			break;
		}
		whole += record;
		writer->packets_in_file++;
		writer->in_file[writer->tags[i]]++;
	}
	writer->file_bytes += whole;
	writer->used = 0;
	writer->records = 0;
	if (done == used) {
		return 0;
	}
	struct stat st;
	if (done > whole && fstat(writer->fd, &st) == 0 && S_ISREG(st.st_mode)) {
		(void)ftruncate(writer->fd, (off_t)writer->file_bytes); // best effort: the file then ends on a record
	}
	fprintf(stderr, "pcap: cannot write to %s: %s\n", writer->path, strerror(err));
	writer->failed = true;
	return -1;
}

int pcap_close(struct pcap_writer* writer) {
	if (writer->fd < 0) {
		return writer->failed ? -1 : 0;
	}
	int result = pcap_flush(writer);
	if (close(writer->fd) != 0 && result == 0) {
		fprintf(stderr, "pcap: cannot close %s: %s\n", writer->path, strerror(errno));
		result = -1;
	}
	writer->fd = -1;
	free(writer->buffer);
	free(writer->tags);
	writer->buffer = NULL;
	writer->tags = NULL;
	return result;
}

uint64_t pcap_time_now_ns(void) {
	struct timespec ts;
	if (clock_gettime(CLOCK_REALTIME, &ts) != 0) {
		return 0; // cannot happen for CLOCK_REALTIME; a zero timestamp is harmless
	}
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
