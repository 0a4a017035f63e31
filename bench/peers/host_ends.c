// host_ends: the source and the sink of bench/peers.sh --host-ends, on the host, outside the QEMU guest, so that the
// guest's one vCPU runs nothing but the forwarder under test. Not part of libixy: libc only.
//
//   host_ends <source port> <NIC B's port> <sink port> <kpps> [<hub port>]
//
// QEMU's "-netdev socket,udp=..." joins a guest NIC to a UDP socket on 127.0.0.1 and carries one Ethernet frame per
// datagram. host_ends sends 60-byte frames (IPv4/UDP, as ixy-pktgen's) from <source port> to NIC B's netdev at
// <kpps> thousand frames per second, paced by the clock (more than any forwarder here takes: what NIC B cannot take
// waits in, and is dropped by, the host's socket buffer of QEMU's netdev, as on a wire), and counts the datagrams
// that NIC C's netdev sends to <sink port>. It copies every line of its standard input to standard output, prefixed
// with the time (CLOCK_MONOTONIC, seconds) and the number of frames received so far:
//
//   <seconds> <frames received> <line>
//
// so that feeding it the guest's console marks where each measured run began and ended in the sink's count. It
// runs until its standard input ends, then prints "sent <n> frames, received <m>, foreign <f>". The sink counts only
// its own frames: 60 bytes, the source's header, a sequence number below the count sent and a due time since
// host_ends started; any other datagram is foreign (counted apart, no latency taken).
//
// Latency (bench/latency.sh): every frame carries its sequence number and the time it was due to be sent (frame
// layout below); the sink takes the time of each frame's arrival and keeps the difference in a histogram
// (histogram.h). The stamp is the frame's place in the schedule, the start of its rate plus k / rate for its k-th
// frame, not the moment it went out: when the source falls behind (a stall of this process, a full batch), the
// frames due meanwhile go out late, and stamped with their send time the wait would vanish from the histogram
// (coordinated omission); stamped with their due time it is counted as the latency it is to a frame. A line of
// standard input containing "IXY-VM: bench <name> run <i>: begin" empties the histogram, one with "...: end" prints
//
//   latency <name> run <i>: frames <n> p50 <ns> p90 <ns> p99 <ns> p99.9 <ns> p99.99 <ns> max <ns>
//
// A line containing "latency load <what>" sets the source's rate: "max" or "overload" <kpps>; a percentage (10)
// that share of the forwarder's maximum: the largest rate the sink saw between a begin and an end mark while the
// load was "max" (overload; the guest may measure it several times, and the largest counts).
// With the "latency" line of an end mark goes one about NIC B (bench/peers.sh --layouts: the loss inside the
// forwarder):
//
//   nic_b <name> run <i>: sent <n> refused <r> dropped <d> sink_dropped <s>
//
// sent: the frames the source sent in the run; refused: those of them the host's own socket did not take (a full send
// buffer); dropped: those that QEMU's socket for NIC B dropped because it was full (the "drops" column of
// /proc/net/udp for NIC B's port): either NIC B had no free receive buffer (QEMU stops reading the socket then: the
// forwarder's loss) or QEMU's main loop did not read it in time (QEMU's); the counter cannot tell which. sent -
// refused - dropped reached NIC B. sink_dropped: what the sink's own socket dropped (host_ends did not read it in
// time): left NIC C, never counted by the sink. A socket that closed during the run (QEMU ended) took its count with
// it: dropped counts only the drops of the socket bound at the end, if any. A line containing "latency path <where>"
// sets where the source sends: "nic" (NIC B's port, the start), "direct" (the sink's own port: the measuring path
// alone, no QEMU) or "hub" (<hub port>: a QEMU netdev that QEMU's hub joins to a netdev sending to the sink, with no
// NIC and no guest in between).
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/histogram.h"

#define FRAME_SIZE 60
#define BATCH 32
#define LINE_MAX_BYTES 4096
// Frame layout: Ethernet 0..13, IPv4 14..33, UDP 34..41, payload 42..59. ixy-fwd adds 1 to byte 45
// (apps/fwd.h FWD_MODIFIED_BYTE); the sequence number (32 bits) and the time the frame was due (64 bits,
// CLOCK_MONOTONIC nanoseconds) follow it, both in host byte order (the host reads them back).
#define SEQ_OFFSET 46
#define STAMP_OFFSET 50

static uint64_t now_ns(void) {
	struct timespec now;
	if (clock_gettime(CLOCK_MONOTONIC, &now) != 0) {
		perror("host_ends: clock_gettime(CLOCK_MONOTONIC)");
		exit(1);
	}
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static double now_seconds(void) {
	return (double)now_ns() / 1e9;
}

// A UDP socket on 127.0.0.1:port, non-blocking. Returns the descriptor or -1 after a message.
static int udp_socket(uint16_t port) {
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		perror("host_ends: socket");
		return -1;
	}
	struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
	address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr*)&address, sizeof(address)) != 0) {
		fprintf(stderr, "host_ends: binding 127.0.0.1:%u: %s\n", port, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int parse_port(const char* text, uint16_t* port) {
	char* end;
	unsigned long value = strtoul(text, &end, 10);
	if (*text == '\0' || *end != '\0' || value == 0 || value > 65535) {
		fprintf(stderr, "host_ends: not a port: %s\n", text);
		return -1;
	}
	*port = (uint16_t)value;
	return 0;
}

// The frame every datagram carries: unicast to a MAC that no NIC of the guest has (so that a learning
// bridge floods it to its other port), from a fixed source MAC, IPv4/UDP 10.0.0.1 -> 10.0.0.2, header checksum set.
static const uint8_t header[] = {
    0x52, 0x54, 0x00, 0x12, 0x34, 0xff, 0x52, 0x54, 0x00, 0x12, 0x34, 0xee, 0x08, 0x00, // Ethernet
    0x45, 0x00, 0x00, 0x2e, 0x00, 0x00, 0x00, 0x00, 0x40, 0x11, 0x00, 0x00, 0x0a, 0x00, // IPv4 (46 bytes)
    0x00, 0x01, 0x0a, 0x00, 0x00, 0x02, 0x04, 0xd2, 0x10, 0xe1, 0x00, 0x1a, 0x00, 0x00, // UDP (26 bytes)
};
static void fill_frame(uint8_t* frame) {
	memset(frame, 0, FRAME_SIZE);
	memcpy(frame, header, sizeof(header));
	uint32_t sum = 0;
	for (int i = 14; i < 34; i += 2) {
		sum += (uint32_t)(frame[i] << 8 | frame[i + 1]);
	}
	while (sum >> 16) {
		sum = (sum & 0xffff) + (sum >> 16);
	}
	frame[24] = (uint8_t)(~sum >> 8);
	frame[25] = (uint8_t)~sum;
}

// When the k-th frame (from 0) of a rate of kpps thousand frames per second that started at start_ns is due.
static uint64_t due_time(uint64_t start_ns, uint64_t k, double kpps) {
	return start_ns + (uint64_t)((double)(k + 1) * 1e6 / kpps);
}

// The datagrams the kernel dropped at the UDP socket bound to 127.0.0.1:port because its receive buffer was full: the
// last column ("drops") of that socket's line in /proc/net/udp, whose local address is hexadecimal (address:port).
// 0 if there is no such socket (yet), or the file cannot be read.
static uint64_t socket_drops(uint16_t port) {
	FILE* f = fopen("/proc/net/udp", "r");
	if (!f) {
		return 0;
	}
	static char row[512];
	uint64_t drops = 0;
	while (fgets(row, sizeof(row), f)) {
		unsigned int local_port;
		char* field = strchr(row, ':'); // "  sl: local rem ..."
		if (!field || sscanf(field + 1, " %*8x:%4x", &local_port) != 1 || local_port != port) {
			continue;
		}
		// The drops column is the line's last word (spaces may follow it).
		char* last = NULL;
		for (char* word = strtok(row, " \t\n"); word; word = strtok(NULL, " \t\n")) {
			last = word;
		}
		drops = last ? strtoull(last, NULL, 10) : 0;
		break;
	}
	fclose(f);
	return drops;
}

// The drops of a port since a run began, from the counts at its begin and end. A count below the one at the begin is
// another socket's (the one of the begin closed, and the port is unbound, 0, or bound anew): only its own drops count,
// not the difference, which would wrap to nearly 2^64.
static uint64_t drops_since(uint64_t end, uint64_t begin) {
	return end >= begin ? end - begin : end;
}

// What the marks of the guest's console say to do.
struct control {
	double overload_kpps; // the command line's rate
	double rate_kpps;     // the source's rate now
	double max_kpps;      // the forwarder's maximum, once measured (0 before)
	bool measuring_max;   // the load is "max": each begin..end measures it
	uint16_t ports[3];    // where the source sends: NIC B's port, the sink's, the hub's (0: none)
	uint16_t to;          // the one of them it sends to now
	uint64_t begin_count, begin_sent, begin_refused, begin_drops, begin_sink_drops;
	double begin_seconds;
	struct histogram latency;
};

// Acts on one line of the guest's console (after it was copied with its time and count).
static void control_line(struct control* c, const char* line, uint64_t count, uint64_t sent, uint64_t refused) {
	const char* load = strstr(line, "latency load ");
	if (load) {
		load += strlen("latency load ");
		double percent = strtod(load, NULL);
		c->measuring_max = strncmp(load, "max", 3) == 0;
		if (strncmp(load, "max", 3) == 0 || strncmp(load, "overload", 8) == 0) {
			c->rate_kpps = c->overload_kpps;
		} else if (percent > 0 && percent <= 1000 && c->max_kpps > 0) {
			c->rate_kpps = c->max_kpps * percent / 100.0;
		} else {
			printf("latency: load '%.*s' ignored (no maximum measured yet, or not a percentage)\n",
			       (int)strcspn(load, "\n"), load);
		}
		printf("latency rate %.3f kpps\n", c->rate_kpps);
		return;
	}
	const char* path = strstr(line, "latency path ");
	if (path) {
		path += strlen("latency path ");
		static const char* const names[] = {"nic", "direct", "hub"};
		for (int i = 0; i < 3; i++) {
			if (strncmp(path, names[i], strlen(names[i])) == 0 && c->ports[i] != 0) {
				c->to = c->ports[i];
				printf("latency path %s: port %u\n", names[i], c->to);
				return;
			}
		}
		printf("latency: path '%.*s' ignored (nic, direct or, with a hub port, hub)\n",
		       (int)strcspn(path, "\n"), path);
		return;
	}
	char name[64], what[16];
	unsigned int run;
	const char* mark = strstr(line, "IXY-VM: bench ");
	if (!mark || sscanf(mark, "IXY-VM: bench %63s run %u: %15s", name, &run, what) != 3) {
		return;
	}
	if (strcmp(what, "begin") == 0) {
		histogram_reset(&c->latency);
		c->begin_count = count;
		c->begin_sent = sent;
		c->begin_refused = refused;
		c->begin_drops = socket_drops(c->ports[0]);
		c->begin_sink_drops = socket_drops(c->ports[1]);
		c->begin_seconds = now_seconds();
	} else if (strcmp(what, "end") == 0) {
		double seconds = now_seconds() - c->begin_seconds;
		const struct histogram* h = &c->latency;
		printf("latency %s run %u: offered %.3f kpps sent %llu received %llu in %.3f s frames %llu p50 %llu "
		       "p90 %llu "
		       "p99 %llu p99.9 %llu p99.99 %llu max %llu\n",
		       name, run, c->rate_kpps, (unsigned long long)(sent - c->begin_sent),
		       (unsigned long long)(count - c->begin_count), seconds, (unsigned long long)h->total,
		       (unsigned long long)histogram_percentile(h, 500000),
		       (unsigned long long)histogram_percentile(h, 900000),
		       (unsigned long long)histogram_percentile(h, 990000),
		       (unsigned long long)histogram_percentile(h, 999000),
		       (unsigned long long)histogram_percentile(h, 999900), (unsigned long long)h->max);
		printf("nic_b %s run %u: sent %llu refused %llu dropped %llu sink_dropped %llu\n", name, run,
		       (unsigned long long)(sent - c->begin_sent), (unsigned long long)(refused - c->begin_refused),
		       (unsigned long long)drops_since(socket_drops(c->ports[0]), c->begin_drops),
		       (unsigned long long)drops_since(socket_drops(c->ports[1]), c->begin_sink_drops));
		double kpps = seconds > 0 ? (double)(count - c->begin_count) / seconds / 1000.0 : 0;
		if (c->measuring_max && kpps > c->max_kpps) {
			c->max_kpps = kpps;
		}
		if (c->measuring_max) {
			printf("latency maximum %.3f kpps (this run %.3f)\n", c->max_kpps, kpps);
		}
	}
}

// Whether a datagram the sink received is a frame of this source: 60 bytes, the source's header (ixy-fwd changes
// byte 45, after it) as in its frame sent_frame, a sequence number it sent and a due time since start. Sets *stamp.
static bool own_frame(const uint8_t* frame, ssize_t length, const uint8_t* sent_frame, uint64_t sent, uint64_t start,
		      uint64_t* stamp) {
	uint32_t seq;
	if (length != FRAME_SIZE || memcmp(frame, sent_frame, sizeof(header)) != 0) {
		return false;
	}
	memcpy(&seq, frame + SEQ_OFFSET, sizeof(seq));
	memcpy(stamp, frame + STAMP_OFFSET, sizeof(*stamp));
	return seq < sent && *stamp >= start;
}

int main(int argc, char** argv) {
	uint16_t source_port, sink_port;
	static struct control control;
	char* end;
	double kpps = argc == 5 || argc == 6 ? strtod(argv[4], &end) : 0;
	if ((argc != 5 && argc != 6) || parse_port(argv[1], &source_port) || parse_port(argv[2], &control.ports[0]) ||
	    parse_port(argv[3], &sink_port) || *end != '\0' || !(kpps > 0 && kpps <= 10000) ||
	    (argc == 6 && parse_port(argv[5], &control.ports[2]))) {
		fprintf(stderr,
			"usage: host_ends <source port> <NIC B's port> <sink port> <kpps 0..10000> [<hub port>]\n");
		return 2;
	}
	control.ports[1] = sink_port;
	control.to = control.ports[0];
	uint64_t start = now_ns();
	int source = udp_socket(source_port);
	int sink = source < 0 ? -1 : udp_socket(sink_port);
	if (sink < 0) {
		return 1;
	}
	int flags = fcntl(STDIN_FILENO, F_GETFL);
	if (flags < 0 || fcntl(STDIN_FILENO, F_SETFL, flags | O_NONBLOCK) != 0) {
		perror("host_ends: making standard input non-blocking");
		return 1;
	}
	// Wake-ups to the nanosecond, not the default 50 us timer slack: the source is paced by them.
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) != 0) {
		perror("host_ends: prctl(PR_SET_TIMERSLACK)");
	}
	struct sockaddr_in nic = {.sin_family = AF_INET, .sin_port = htons(control.to)};
	nic.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	static uint8_t frames[BATCH][FRAME_SIZE], received[2048];
	static struct iovec iov[BATCH];
	struct mmsghdr batch[BATCH];
	for (int i = 0; i < BATCH; i++) {
		fill_frame(frames[i]);
		iov[i] = (struct iovec){.iov_base = frames[i], .iov_len = FRAME_SIZE};
		batch[i] = (struct mmsghdr){
		    .msg_hdr = {.msg_name = &nic, .msg_namelen = sizeof(nic), .msg_iov = &iov[i], .msg_iovlen = 1}};
	}
	control.overload_kpps = control.rate_kpps = kpps;
	histogram_reset(&control.latency);
	static char line[LINE_MAX_BYTES];
	size_t line_length = 0;
	uint64_t sent = 0, refused = 0, count = 0, foreign = 0;
	// The rate changes at marks: frames are due at rate_kpps since rate_start, after the sent_at_start sent before.
	uint64_t rate_start = now_ns(), sent_at_start = 0;
	double rate_now = kpps;
	for (;;) {
		if (control.rate_kpps != rate_now) {
			rate_now = control.rate_kpps;
			rate_start = now_ns();
			sent_at_start = sent;
		}
		// Send what is due by now (at most a batch; the rest on the next turn), each frame stamped with its due
		// time: frame k (counted from the rate's start) is due (k + 1) / rate after rate_start.
		uint64_t now = now_ns();
		double due = (double)(now - rate_start) * rate_now / 1e6 + (double)sent_at_start;
		unsigned int to_send = due > (double)sent ? (unsigned int)(due - (double)sent) : 0;
		if (to_send > BATCH) {
			to_send = BATCH;
		}
		nic.sin_port = htons(control.to);
		if (to_send > 0) {
			for (unsigned int i = 0; i < to_send; i++) {
				uint32_t seq = (uint32_t)(sent + i);
				uint64_t due_ns = due_time(rate_start, sent + i - sent_at_start, rate_now);
				memcpy(frames[i] + SEQ_OFFSET, &seq, sizeof(seq));
				memcpy(frames[i] + STAMP_OFFSET, &due_ns, sizeof(due_ns));
			}
			int n = sendmmsg(source, batch, to_send, 0);
			// A full socket buffer (EAGAIN) or a netdev not yet bound (ECONNREFUSED) drops, as a wire
			// would; any other error ends the run.
			if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNREFUSED) {
				perror("host_ends: sendmmsg");
				return 1;
			}
			sent += to_send;
			refused += to_send - (n > 0 ? (unsigned int)n : 0u);
		}
		// Count what arrived, and how long each frame took.
		ssize_t length;
		while ((length = recv(sink, received, sizeof(received), 0)) >= 0) {
			uint64_t arrived = now_ns(), stamp;
			if (own_frame(received, length, frames[0], sent, start, &stamp) && stamp <= arrived) {
				count++;
				histogram_add(&control.latency, arrived - stamp);
			} else {
				foreign++;
			}
		}
		// (ECONNREFUSED: an ICMP error of an earlier datagram, reported once; nothing lost.)
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNREFUSED && errno != EINTR) {
			perror("host_ends: recv");
			return 1;
		}
		// Copy the lines of standard input, each with the time and the count; act on the marks.
		ssize_t got;
		while ((got = read(STDIN_FILENO, line + line_length, 1)) == 1) {
			if (line[line_length] == '\n' || line_length == sizeof(line) - 2) {
				line[line_length + 1] = '\0';
				printf("%.6f %llu %s", now_seconds(), (unsigned long long)count, line);
				if (line[line_length] != '\n') {
					putchar('\n');
				}
				control_line(&control, line, count, sent, refused);
				fflush(stdout);
				line_length = 0;
			} else {
				line_length++;
			}
		}
		if (got == 0) {
			break;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			perror("host_ends: reading standard input");
			return 1;
		}
		// Sleep until the next frame is due or something arrives, at most a millisecond.
		if (to_send < BATCH) {
			uint64_t next = due_time(rate_start, sent - sent_at_start, rate_now);
			uint64_t wait = next > now_ns() ? next - now_ns() : 0;
			wait = wait > 1000000 ? 1000000 : wait;
			struct timespec timeout = {.tv_sec = 0, .tv_nsec = (long)wait};
			struct pollfd wait_for[2] = {{.fd = sink, .events = POLLIN},
						     {.fd = STDIN_FILENO, .events = POLLIN}};
			if (ppoll(wait_for, 2, &timeout, NULL) < 0 && errno != EINTR) {
				perror("host_ends: ppoll");
				return 1;
			}
		}
	}
	printf("sent %llu frames, received %llu, foreign %llu\n", (unsigned long long)sent, (unsigned long long)count,
	       (unsigned long long)foreign);
	return 0;
}
