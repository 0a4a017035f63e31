// afpacket_fwd: a packet forwarder on Linux's own packet sockets, the "traditional API" baseline that the netmap
// paper and the ixy paper compare against. Not part of libixy: a peer for bench/peers.sh, libc only.
//
//   afpacket_fwd <in interface> <out interface>
//
// Forwards every frame that arrives on the first interface to the second, one direction, until SIGINT or SIGTERM,
// then prints a totals line for machines:
//
//   totals app=afpacket_fwd in=<in> out=<out> forwarded=<n> dropped=<m> kernel_dropped=<k> tx_ring_full=<t>
//
// dropped = kernel_dropped + tx_ring_full: every frame that reached the RX socket and was not forwarded. The kernel
// drops a frame when no block of the RX ring is free (the forwarder was too slow or lost its CPU); it counts these per
// socket (PACKET_STATISTICS, read at the end: reading resets them). tx_ring_full counts the frames this program found
// no free TX frame for. It is as fast as packet sockets
// allow without leaving the kernel's driver: both sides use a ring shared with the kernel (TPACKET_V3, Linux's
// Documentation/networking/packet_mmap.rst), so that there is one system call per block of received frames (poll)
// and one per batch sent (send), not one per packet. The kernel's driver still copies each frame twice (into the
// RX block, from the TX frame) and runs its own stack up to the socket: the costs a user space driver avoids.
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <unistd.h>

// RX: 64 blocks of 64 KiB (4 MiB); a block is handed to us when full or after BLOCK_TIMEOUT_MS.
#define RX_BLOCK_SIZE (1u << 16)
#define RX_BLOCKS 64u
#define BLOCK_TIMEOUT_MS 1u
// TX: 1024 frames of 2 KiB, enough for any frame without jumbo support.
#define TX_FRAME_SIZE 2048u
#define TX_FRAMES 1024u
#define TX_BLOCK_SIZE (1u << 16)
// Where a TX frame's data starts when PACKET_TX_HAS_OFF is not set: right after the header, as for RX (packet_mmap).
#define TX_DATA_OFFSET (TPACKET_ALIGN(sizeof(struct tpacket3_hdr)))

static volatile sig_atomic_t stop_requested;

static void request_stop(int signal_number) {
	(void)signal_number;
	stop_requested = 1;
}

struct packet_ring {
	int fd;
	uint8_t* map;
	size_t size;
};

// A packet socket bound to one interface, version 3, with a ring of the given kind (PACKET_RX_RING or
// PACKET_TX_RING) mapped into memory. Returns 0 or -1 after a message.
static int open_ring(struct packet_ring* ring, const char* ifname, int ring_kind, const struct tpacket_req3* req) {
	unsigned int ifindex = if_nametoindex(ifname);
	if (ifindex == 0) {
		fprintf(stderr, "afpacket_fwd: no interface %s\n", ifname);
		return -1;
	}
	// The TX socket receives nothing (protocol 0): only the RX socket sees frames.
	uint16_t protocol = ring_kind == PACKET_RX_RING ? htons(ETH_P_ALL) : 0;
	ring->fd = socket(AF_PACKET, SOCK_RAW, protocol);
	if (ring->fd < 0) {
		perror("afpacket_fwd: socket(AF_PACKET)");
		return -1;
	}
	int version = TPACKET_V3;
	if (setsockopt(ring->fd, SOL_PACKET, PACKET_VERSION, &version, sizeof(version)) != 0 ||
	    setsockopt(ring->fd, SOL_PACKET, ring_kind, req, sizeof(*req)) != 0) {
		fprintf(stderr, "afpacket_fwd: %s: packet ring: %s\n", ifname, strerror(errno));
		return -1;
	}
	ring->size = (size_t)req->tp_block_size * req->tp_block_nr;
	void* map = mmap(NULL, ring->size, PROT_READ | PROT_WRITE, MAP_SHARED, ring->fd, 0);
	if (map == MAP_FAILED) {
		perror("afpacket_fwd: mmap of the packet ring");
		return -1;
	}
	ring->map = map;
	struct sockaddr_ll addr = {.sll_family = AF_PACKET, .sll_protocol = protocol, .sll_ifindex = (int)ifindex};
	if (bind(ring->fd, (struct sockaddr*)&addr, sizeof(addr)) != 0) {
		fprintf(stderr, "afpacket_fwd: bind to %s: %s\n", ifname, strerror(errno));
		return -1;
	}
	if (ring_kind == PACKET_RX_RING) {
		// Every frame, whatever its destination MAC (the generator's are not ours).
		struct packet_mreq promisc = {.mr_ifindex = (int)ifindex, .mr_type = PACKET_MR_PROMISC};
		if (setsockopt(ring->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &promisc, sizeof(promisc)) != 0) {
			fprintf(stderr, "afpacket_fwd: promiscuous mode on %s: %s\n", ifname, strerror(errno));
			return -1;
		}
	} else {
		// Straight to the driver, past the queueing discipline: what a forwarder wants.
		int bypass = 1;
		if (setsockopt(ring->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &bypass, sizeof(bypass)) != 0) {
			fprintf(stderr, "afpacket_fwd: PACKET_QDISC_BYPASS on %s: %s\n", ifname, strerror(errno));
			return -1;
		}
	}
	return 0;
}

// The frames the kernel dropped on this socket since the last call (PACKET_STATISTICS, struct tpacket_stats_v3 for
// TPACKET_V3: packet_mmap.rst, "PACKET_STATISTICS"; reading resets the counters). 0 or -1 after a message.
static int kernel_drops(const struct packet_ring* ring, uint64_t* drops) {
	struct tpacket_stats_v3 stats = {0};
	socklen_t len = sizeof(stats);
	if (getsockopt(ring->fd, SOL_PACKET, PACKET_STATISTICS, &stats, &len) != 0) {
		perror("afpacket_fwd: getsockopt(PACKET_STATISTICS)");
		return -1;
	}
	*drops += stats.tp_drops;
	return 0;
}

// Asks the kernel to send the TX frames marked TP_STATUS_SEND_REQUEST. EAGAIN/ENOBUFS only mean "not now": the frames
// stay marked and go with the next call.
static int flush_tx(const struct packet_ring* tx) {
	if (send(tx->fd, NULL, 0, MSG_DONTWAIT) < 0 && errno != EAGAIN && errno != ENOBUFS && errno != EINTR) {
		perror("afpacket_fwd: send on the TX ring");
		return -1;
	}
	return 0;
}

int main(int argc, char* argv[]) {
	if (argc != 3) {
		fprintf(stderr, "usage: afpacket_fwd <in interface> <out interface>\n");
		return 2;
	}
	struct tpacket_req3 rx_req = {.tp_block_size = RX_BLOCK_SIZE,
				      .tp_block_nr = RX_BLOCKS,
				      .tp_frame_size = TX_FRAME_SIZE,
				      .tp_frame_nr = RX_BLOCK_SIZE / TX_FRAME_SIZE * RX_BLOCKS,
				      .tp_retire_blk_tov = BLOCK_TIMEOUT_MS};
	struct tpacket_req3 tx_req = {.tp_block_size = TX_BLOCK_SIZE,
				      .tp_block_nr = TX_FRAMES * TX_FRAME_SIZE / TX_BLOCK_SIZE,
				      .tp_frame_size = TX_FRAME_SIZE,
				      .tp_frame_nr = TX_FRAMES};
	struct packet_ring rx, tx;
	if (open_ring(&rx, argv[1], PACKET_RX_RING, &rx_req) != 0 ||
	    open_ring(&tx, argv[2], PACKET_TX_RING, &tx_req) != 0) {
		return 1;
	}
	struct sigaction on_stop = {.sa_handler = request_stop};
	if (sigaction(SIGINT, &on_stop, NULL) != 0 || sigaction(SIGTERM, &on_stop, NULL) != 0) {
		perror("afpacket_fwd: sigaction");
		return 1;
	}
	printf("afpacket_fwd: forwarding %s -> %s\n", argv[1], argv[2]);
	fflush(stdout);

	uint64_t forwarded = 0, tx_ring_full = 0;
	uint32_t rx_block = 0, tx_frame = 0;
	struct pollfd wait_rx = {.fd = rx.fd, .events = POLLIN | POLLERR};
	while (!stop_requested) {
		struct tpacket_block_desc* block =
		    (struct tpacket_block_desc*)(rx.map + (size_t)rx_block * RX_BLOCK_SIZE);
		if (!(__atomic_load_n(&block->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER)) {
			// Nothing received: sleep until the kernel hands over a block (a signal ends the wait).
			if (poll(&wait_rx, 1, 100) < 0 && errno != EINTR) {
				perror("afpacket_fwd: poll");
				return 1;
			}
			continue;
		}
		// Every frame of the block into the next free TX frame; a full TX ring drops the frame, as any
		// forwarder must when its output is slower than its input.
		uint8_t* frame = (uint8_t*)block + block->hdr.bh1.offset_to_first_pkt;
		for (uint32_t i = 0; i < block->hdr.bh1.num_pkts; i++) {
			const struct tpacket3_hdr* rx_hdr = (const struct tpacket3_hdr*)frame;
			struct tpacket3_hdr* tx_hdr = (struct tpacket3_hdr*)(tx.map + (size_t)tx_frame * TX_FRAME_SIZE);
			if (__atomic_load_n(&tx_hdr->tp_status, __ATOMIC_ACQUIRE) != TP_STATUS_AVAILABLE ||
			    rx_hdr->tp_snaplen > TX_FRAME_SIZE - TX_DATA_OFFSET) {
				tx_ring_full++;
			} else {
				memcpy((uint8_t*)tx_hdr + TX_DATA_OFFSET, frame + rx_hdr->tp_mac, rx_hdr->tp_snaplen);
				tx_hdr->tp_len = rx_hdr->tp_snaplen;
				__atomic_store_n(&tx_hdr->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
				tx_frame = (tx_frame + 1) % TX_FRAMES;
				forwarded++;
			}
			frame += rx_hdr->tp_next_offset;
		}
		__atomic_store_n(&block->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		rx_block = (rx_block + 1) % RX_BLOCKS;
		if (flush_tx(&tx) != 0) {
			return 1;
		}
	}
	uint64_t kernel_dropped = 0; // by both sockets (the TX socket receives nothing, so drops nothing, today)
	if (kernel_drops(&rx, &kernel_dropped) != 0 || kernel_drops(&tx, &kernel_dropped) != 0) {
		return 1;
	}
	printf("totals app=afpacket_fwd in=%s out=%s forwarded=%llu dropped=%llu kernel_dropped=%llu "
	       "tx_ring_full=%llu\n",
	       argv[1], argv[2], (unsigned long long)forwarded, (unsigned long long)(kernel_dropped + tx_ring_full),
	       (unsigned long long)kernel_dropped, (unsigned long long)tx_ring_full);
	munmap(rx.map, rx.size);
	munmap(tx.map, tx.size);
	close(rx.fd);
	close(tx.fd);
	return 0;
}
