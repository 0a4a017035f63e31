// xdp_fwd_bench: what the AF_XDP driver's user-space side costs per forwarded packet, counted by callgrind
// (bench/run.sh --xdp; docs/benchmark.md). Valgrind does not know the bpf() commands, so the driver cannot open real
// sockets under it; this bench counts the part it can: the driver's rx_batch and tx_batch with the ring handling of
// src/driver/xdp_ring.c (xsk_rx with its fill ring refill, xsk_tx with its completion ring work) against a simulated
// kernel side, as test/fuzz/fuzz_xdp_rings.c drives the rings. No socket, no XDP program: the four rings of each
// socket are plain memory; the UMEM is the driver's own (umem_make: one slice, a pool over ordinary memory, as for a
// process with AF_XDP devices only), shared by the two sockets' queues 0 as XDP_SHARED_UMEM shares it.
//
// Two ports (one socket each, rings of 512 entries). Every round the simulated kernel receives FWD_BATCH_SIZE (32)
// 60-byte frames on each port (takes frames from the fill ring, writes the packet into them, puts RX descriptors),
// then ixy-fwd's forwarding step (apps/fwd.h) runs in both directions, then the kernel sends what was queued (takes
// the TX descriptors, puts their frames into the completion ring). Each transmit call therefore takes back the 32
// frames of the previous one: the steady state of ixy-fwd under full load. Nothing may be dropped or refused; the
// program fails (exit 1) otherwise.
//
// The ports are xdp.c's devices and their rx_batch and tx_batch are xdp.c's xdp_rx_batch and xdp_tx_batch: this file
// includes the driver's source (as test/model/test_igb_rx.c includes igb.c), because both functions and the device
// struct are private to it. The ports are made by hand instead of by xdp_init (no interface, no socket: fd -1), and
// closed by xdp_stop. The simulated kernel never asks for a wake-up; were one asked for, the driver's system call on
// fd -1 would fail and set kick_warned, which the bench checks.
//
// Usage: xdp_fwd_bench [packets]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/packet.h"
#include "driver/xdp.c" // the driver itself: its globals stand in for the library's (whose xdp.o is not linked)
#include "fwd.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

#define RING_SIZE 512
#define DEFAULT_PACKETS 640000u
#define WARM_UP_ROUNDS 1000u
#define PACKETS_PER_ROUND (2u * FWD_BATCH_SIZE)

struct ring_memory {
	uint32_t producer, consumer, flags;
	struct xdp_desc descs[RING_SIZE]; // the fill and completion rings use the first half (uint64_t entries)
};

struct port {
	struct xdp_device dev; // one queue, no socket
	struct xsk_queue queue;
	int fd; // the queue's socket: none, -1
	struct ring_memory fill, completion, rx, tx;
};

struct bench {
	struct port a, b;
	struct fwd_counters a_to_b, b_to_a;
	uint8_t frame[PACKET_SIZE];
	uint64_t not_delivered; // frames the kernel could not deliver (fill ring empty or RX ring full): must stay 0
	uint64_t sent_a, sent_b;
};

static void init_ring(struct xsk_ring* ring, struct ring_memory* mem) {
	*ring = (struct xsk_ring){.producer = &mem->producer,
				  .consumer = &mem->consumer,
				  .flags = &mem->flags,
				  .descs = mem->descs,
				  .size = RING_SIZE};
}

// What xdp_init and open_socket set that the packet path reads, with the simulated rings in place of the socket's.
static int open_port(struct port* port, const char* name) {
	struct xdp_device* dev = &port->dev;
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	dev->ifname = ifname_of(dev->name);
	dev->map_fd = dev->prog_fd = dev->link_fd = port->fd = -1;
	dev->num_queues = 1;
	dev->queues = &port->queue;
	dev->fds = &port->fd;
	dev->ixy = (struct ixy_device){.pci_addr = dev->name,
				       .driver_name = "xdp",
				       .num_rx_queues = 1,
				       .num_tx_queues = 1,
				       .rx_batch = xdp_rx_batch,
				       .tx_batch = xdp_tx_batch};
	struct xdp_plan plan = {.frames = {4 * RING_SIZE}, .queues = 1}; // fill, RX, TX and completion rings
	if (umem_make(dev->name, &plan) != 0) {
		return -1;
	}
	port->queue.slice = &process_umem.slices[0]; // queue 0 of both ports: slice 0, as open_sockets does
	port->queue.slot = umem_join(dev->name);
	if (port->queue.slot == 0) {
		return -1;
	}
	init_ring(&port->queue.fill, &port->fill);
	init_ring(&port->queue.completion, &port->completion);
	init_ring(&port->queue.rx, &port->rx);
	init_ring(&port->queue.tx, &port->tx);
	xsk_refill(&port->queue); // as open_socket does after binding
	return 0;
}

// The kernel receives up to FWD_BATCH_SIZE frames: each into a frame from the fill ring, at XSK_PACKET_OFFSET (as a
// NIC's DMA or the copy of copy mode writes it), then an RX descriptor. Returns how many.
static uint32_t kernel_receive(struct port* port, const uint8_t* frame) {
	uint64_t* fill = (uint64_t*)port->fill.descs;
	uint32_t n = 0;
	for (; n < FWD_BATCH_SIZE; n++) {
		if (port->fill.consumer == port->fill.producer || port->rx.producer - port->rx.consumer == RING_SIZE) {
			break;
		}
		uint64_t addr = fill[port->fill.consumer++ & (RING_SIZE - 1)] + XSK_PACKET_OFFSET;
		memcpy((uint8_t*)process_umem.mem.virt + addr, frame, PACKET_SIZE);
		port->rx.descs[port->rx.producer++ & (RING_SIZE - 1)] =
		    (struct xdp_desc){.addr = addr, .len = PACKET_SIZE};
	}
	return n;
}

// The kernel sends what the TX ring holds and hands each frame back through the completion ring. Returns how many.
static uint32_t kernel_send(struct port* port) {
	uint64_t* completion = (uint64_t*)port->completion.descs;
	uint32_t n = 0;
	while (port->tx.consumer != port->tx.producer &&
	       port->completion.producer - port->completion.consumer < RING_SIZE) {
		completion[port->completion.producer++ & (RING_SIZE - 1)] =
		    port->tx.descs[port->tx.consumer++ & (RING_SIZE - 1)].addr;
		n++;
	}
	return n;
}

// ixy-fwd's forwarding step, a function of its own so that callgrind can tell its cost apart.
__attribute__((noinline)) uint32_t forward_step(struct ixy_device* rx_dev, struct ixy_device* tx_dev,
						struct fwd_counters* counters) {
	return forward(rx_dev, 0, tx_dev, 0, counters);
}

static inline void round_of_forwarding(struct bench* bench) {
	bench->not_delivered += FWD_BATCH_SIZE - kernel_receive(&bench->a, bench->frame);
	bench->not_delivered += FWD_BATCH_SIZE - kernel_receive(&bench->b, bench->frame);
	forward_step(&bench->a.dev.ixy, &bench->b.dev.ixy, &bench->a_to_b);
	forward_step(&bench->b.dev.ixy, &bench->a.dev.ixy, &bench->b_to_a);
	bench->sent_b += kernel_send(&bench->b);
	bench->sent_a += kernel_send(&bench->a);
}

__attribute__((noinline)) void bench_warm_up_rounds(struct bench* bench, uint32_t rounds);
__attribute__((noinline)) void bench_measured_rounds(struct bench* bench, uint32_t rounds);
void bench_warm_up_rounds(struct bench* bench, uint32_t rounds) {
	for (uint32_t i = 0; i < rounds; i++) {
		round_of_forwarding(bench);
	}
}
void bench_measured_rounds(struct bench* bench, uint32_t rounds) {
	for (uint32_t i = 0; i < rounds; i++) {
		round_of_forwarding(bench);
	}
}

int main(int argc, char* argv[]) {
	uint64_t packets = argc > 1 ? strtoull(argv[1], NULL, 10) : DEFAULT_PACKETS;
	uint32_t rounds = (uint32_t)(packets / PACKETS_PER_ROUND);
	if (rounds == 0) {
		fprintf(stderr, "xdp_fwd_bench: at least %u packets\n", PACKETS_PER_ROUND);
		return 2;
	}
	static struct bench bench;
	// The memory of a process with AF_XDP devices only, as checks.c chooses it; the ports' sockets share the UMEM.
	if (access_choose("xdp:bench", &xdp_memory_access) != 0 || open_port(&bench.a, "xdp:bench0") != 0 ||
	    open_port(&bench.b, "xdp:bench1") != 0) {
		fprintf(stderr, "xdp_fwd_bench: no UMEM\n");
		return 1;
	}
	static const uint8_t src_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
	packet_build_template(bench.frame, src_mac);
	bench_warm_up_rounds(&bench, WARM_UP_ROUNDS);
	CALLGRIND_START_INSTRUMENTATION;
	bench_measured_rounds(&bench, rounds);
	CALLGRIND_STOP_INSTRUMENTATION;

	uint64_t expected = (uint64_t)(WARM_UP_ROUNDS + rounds) * FWD_BATCH_SIZE;
	uint64_t copied = bench.a.queue.counters.tx_copied + bench.b.queue.counters.tx_copied;
	uint64_t bad = bench.a.queue.counters.bad + bench.b.queue.counters.bad;
	bool kicked = bench.a.dev.kick_warned || bench.b.dev.kick_warned;
	int status = 0;
	if (bench.not_delivered != 0 || bench.a_to_b.forwarded != expected || bench.b_to_a.forwarded != expected ||
	    bench.sent_a != expected || bench.sent_b != expected || copied != 0 || bad != 0 || kicked) {
		fprintf(stderr,
			"xdp_fwd_bench: expected %llu packets each way, forwarded %llu and %llu, sent %llu and %llu, "
			"%llu not delivered, %llu copied, %llu refused, %s\n",
			(unsigned long long)expected, (unsigned long long)bench.a_to_b.forwarded,
			(unsigned long long)bench.b_to_a.forwarded, (unsigned long long)bench.sent_b,
			(unsigned long long)bench.sent_a, (unsigned long long)bench.not_delivered,
			(unsigned long long)copied, (unsigned long long)bad,
			kicked ? "a wake-up system call made" : "no wake-up");
		status = 1;
	}
	// The frames back to the pool, the slots left; the last one frees the UMEM.
	xdp_stop(&bench.a.dev.ixy);
	xdp_stop(&bench.b.dev.ixy);
	printf("xdp_fwd_bench: %u rounds measured, batch %d, %llu packets forwarded\n", rounds, FWD_BATCH_SIZE,
	       (unsigned long long)(2 * expected));
	return status;
}
