// host_ends: the source and the sink of bench/peers.sh --host-ends, on the host, outside the QEMU guest, so that the
// guest's one vCPU runs nothing but the forwarder under test. Not part of libixy: libc only.
//
//   host_ends <source port> <NIC B's port> <sink port> <kpps>
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
// runs until its standard input ends, then prints "sent <n> frames, received <m>".
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FRAME_SIZE 60
#define BATCH 32
#define LINE_MAX_BYTES 4096

static double now_seconds(void) {
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
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
static void fill_frame(uint8_t* frame) {
	static const uint8_t header[] = {
	    0x52, 0x54, 0x00, 0x12, 0x34, 0xff, 0x52, 0x54, 0x00, 0x12, 0x34, 0xee, 0x08, 0x00, // Ethernet
	    0x45, 0x00, 0x00, 0x2e, 0x00, 0x00, 0x00, 0x00, 0x40, 0x11, 0x00, 0x00, 0x0a, 0x00, // IPv4 (46 bytes)
	    0x00, 0x01, 0x0a, 0x00, 0x00, 0x02, 0x04, 0xd2, 0x10, 0xe1, 0x00, 0x1a, 0x00, 0x00, // UDP (26 bytes)
	};
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

int main(int argc, char** argv) {
	uint16_t source_port, nic_port, sink_port;
	char* end;
	double kpps = argc == 5 ? strtod(argv[4], &end) : 0;
	if (argc != 5 || parse_port(argv[1], &source_port) || parse_port(argv[2], &nic_port) ||
	    parse_port(argv[3], &sink_port) || *end != '\0' || !(kpps > 0 && kpps <= 10000)) {
		fprintf(stderr, "usage: host_ends <source port> <NIC B's port> <sink port> <kpps 0..10000>\n");
		return 2;
	}
	int source = udp_socket(source_port);
	int sink = source < 0 ? -1 : udp_socket(sink_port);
	if (sink < 0 || fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK) != 0) {
		return 1;
	}
	struct sockaddr_in nic = {.sin_family = AF_INET, .sin_port = htons(nic_port)};
	nic.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	static uint8_t frame[FRAME_SIZE], received[2048];
	fill_frame(frame);
	struct iovec iov = {.iov_base = frame, .iov_len = FRAME_SIZE};
	struct mmsghdr batch[BATCH];
	for (int i = 0; i < BATCH; i++) {
		batch[i] = (struct mmsghdr){
		    .msg_hdr = {.msg_name = &nic, .msg_namelen = sizeof(nic), .msg_iov = &iov, .msg_iovlen = 1}};
	}
	static char line[LINE_MAX_BYTES];
	size_t line_length = 0;
	uint64_t sent = 0, count = 0;
	double start = now_seconds();
	for (;;) {
		// Send what is due by now (at most a batch; the rest on the next turn).
		double due = (now_seconds() - start) * kpps * 1000.0;
		unsigned int to_send = due > (double)sent ? (unsigned int)(due - (double)sent) : 0;
		if (to_send > BATCH) {
			to_send = BATCH;
		}
		if (to_send > 0) {
			int n = sendmmsg(source, batch, to_send, 0);
			// A full socket buffer (EAGAIN) or a netdev not yet bound (ECONNREFUSED) drops, as a wire
			// would.
			sent += n > 0 ? (uint64_t)n : to_send;
		}
		// Count what arrived.
		while (recv(sink, received, sizeof(received), 0) >= 0) {
			count++;
		}
		// Copy the lines of standard input, each with the time and the count.
		ssize_t got;
		while ((got = read(STDIN_FILENO, line + line_length, 1)) == 1) {
			if (line[line_length] == '\n' || line_length == sizeof(line) - 2) {
				line[line_length + 1] = '\0';
				printf("%.6f %llu %s", now_seconds(), (unsigned long long)count, line);
				if (line[line_length] != '\n') {
					putchar('\n');
				}
				fflush(stdout);
				line_length = 0;
			} else {
				line_length++;
			}
		}
		if (got == 0) {
			break;
		}
		// Sleep until the next frame is due or something arrives, at most a millisecond.
		struct pollfd wait_for[2] = {{.fd = sink, .events = POLLIN}, {.fd = STDIN_FILENO, .events = POLLIN}};
		if (to_send < BATCH && poll(wait_for, 2, 1) < 0 && errno != EINTR) {
			perror("host_ends: poll");
			return 1;
		}
	}
	printf("sent %llu frames, received %llu\n", (unsigned long long)sent, (unsigned long long)count);
	return 0;
}
