// virtio_fwd_bench: what the VirtIO driver costs per forwarded packet, with the VirtIO model (test/model) as the
// device, counted by callgrind (bench/run.sh --virtio; docs/benchmark.md).
//
// Two modelled legacy VirtIO NICs (one RX and one TX queue each, 512 descriptors). Every round the model delivers a
// burst of FWD_BATCH_SIZE (32) 60-byte frames into each NIC's RX queue, then ixy-fwd's forwarding step (apps/fwd.h)
// runs in both directions, then the model sends what the driver queued (as a device that polls: the notification
// only counts, bench/callgrind_parts.py leaves the model's side out). Each transmit call therefore cleans the 32
// chains of the previous one: the steady state of ixy-fwd under full load. Nothing may be dropped; the program
// fails (exit 1) if a single packet is.
//
// The layout is the argument: "two" (the model does not offer VIRTIO_F_ANY_LAYOUT: header and frame in a chain of
// two descriptors), "one" (it offers it: one descriptor per packet), "modern" (the modern interface, VERSION_1:
// one descriptor, 12-byte header, split virtqueues), "packed" (the same with VIRTIO_F_RING_PACKED offered: packed
// virtqueues, VirtIO 1.2, 2.8).
//
// Usage: virtio_fwd_bench two|one|modern|packed [packets]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ixy/ixy.h>

#include "common/packet.h"
#include "fwd.h"
#include "virtio_model.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

#define PORT_A "0000:0c:00.0"
#define PORT_B "0000:0c:00.1"
#define QUEUE_SIZE 512
#define DEFAULT_PACKETS 640000u
#define WARM_UP_ROUNDS 1000u
#define PACKETS_PER_ROUND (2u * FWD_BATCH_SIZE)

struct bench {
	struct model_virtio* nic_a;
	struct model_virtio* nic_b;
	struct ixy_device* dev_a;
	struct ixy_device* dev_b;
	struct fwd_counters a_to_b;
	struct fwd_counters b_to_a;
	uint8_t frame[PACKET_SIZE];
	uint64_t not_delivered; // frames the model could not deliver (no RX chain: must stay 0)
	uint64_t sent_a, sent_b;
};

static struct model_virtio* add_nic(const char* pci_addr, const char* layout) {
	bool packed = strcmp(layout, "packed") == 0;
	bool modern = packed || strcmp(layout, "modern") == 0;
	struct model_virtio* nic =
	    model_virtio_add(pci_addr, modern ? MODEL_VIRTIO_MODERN_ONLY : MODEL_VIRTIO_LEGACY_ONLY);
	model_virtio_set_queue_max(nic, QUEUE_SIZE);
	model_virtio_offer(nic, MODEL_VIRTIO_DEFAULT_FEATURES |
				    (strcmp(layout, "one") == 0 ? MODEL_VIRTIO_F_ANY_LAYOUT : 0) |
				    (packed ? MODEL_VIRTIO_F_RING_PACKED : 0));
	model_virtio_tx_on_notify(nic, false); // the bench sends after each round, outside the driver's calls
	return nic;
}

static struct ixy_device* open_port(const char* pci_addr) {
	struct ixy_config config = {.pci_addr = pci_addr, .rx_queues = 1, .tx_queues = 1, .ring_size = QUEUE_SIZE};
	struct ixy_device* dev = ixy_init_config(&config);
	if (!dev) {
		fprintf(stderr, "virtio_fwd_bench: ixy_init(%s) failed\n", pci_addr);
		exit(1);
	}
	return dev;
}

// ixy-fwd's forwarding step, a function of its own so that callgrind can tell its cost apart.
__attribute__((noinline)) uint32_t forward_step(struct ixy_device* rx_dev, struct ixy_device* tx_dev,
						struct fwd_counters* counters) {
	return forward(rx_dev, 0, tx_dev, 0, counters);
}

static uint32_t deliver_burst(struct model_virtio* nic, const uint8_t* frame) {
	uint32_t delivered = 0;
	for (uint32_t i = 0; i < FWD_BATCH_SIZE; i++) {
		delivered += model_virtio_rx(nic, frame, PACKET_SIZE) == MODEL_VIRTIO_RX_DELIVERED;
	}
	return delivered;
}

static inline void round_of_forwarding(struct bench* bench) {
	bench->not_delivered += FWD_BATCH_SIZE - deliver_burst(bench->nic_a, bench->frame);
	bench->not_delivered += FWD_BATCH_SIZE - deliver_burst(bench->nic_b, bench->frame);
	forward_step(bench->dev_a, bench->dev_b, &bench->a_to_b);
	forward_step(bench->dev_b, bench->dev_a, &bench->b_to_a);
	bench->sent_b += model_virtio_tx_process(bench->nic_b);
	bench->sent_a += model_virtio_tx_process(bench->nic_a);
	model_virtio_clear_tx(bench->nic_a);
	model_virtio_clear_tx(bench->nic_b);
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
	const char* layout = argc > 1 ? argv[1] : "";
	if (strcmp(layout, "two") != 0 && strcmp(layout, "one") != 0 && strcmp(layout, "modern") != 0 &&
	    strcmp(layout, "packed") != 0) {
		fprintf(stderr, "usage: %s two|one|modern|packed [packets]\n", argv[0]);
		return 2;
	}
	uint64_t packets = argc > 2 ? strtoull(argv[2], NULL, 10) : DEFAULT_PACKETS;
	uint32_t rounds = (uint32_t)(packets / PACKETS_PER_ROUND);
	if (rounds == 0) {
		fprintf(stderr, "virtio_fwd_bench: at least %u packets\n", PACKETS_PER_ROUND);
		return 2;
	}
	static struct bench bench;
	bench.nic_a = add_nic(PORT_A, layout);
	bench.nic_b = add_nic(PORT_B, layout);
	bench.dev_a = open_port(PORT_A);
	bench.dev_b = open_port(PORT_B);
	bool packed = strcmp(layout, "packed") == 0;
	if (model_virtio_packed(bench.nic_a, 0) != packed || model_virtio_packed(bench.nic_b, 0) != packed) {
		fprintf(stderr, "virtio_fwd_bench: the driver did not choose the %s virtqueues\n",
			packed ? "packed" : "split");
		return 1;
	}
	static const uint8_t src_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
	packet_build_template(bench.frame, src_mac); // the receivers are promiscuous
	bench_warm_up_rounds(&bench, WARM_UP_ROUNDS);
	CALLGRIND_START_INSTRUMENTATION;
	bench_measured_rounds(&bench, rounds);
	CALLGRIND_STOP_INSTRUMENTATION;

	uint64_t expected = (uint64_t)(WARM_UP_ROUNDS + rounds) * FWD_BATCH_SIZE;
	int status = 0;
	if (bench.not_delivered != 0 || bench.a_to_b.forwarded != expected || bench.b_to_a.forwarded != expected ||
	    bench.sent_a != expected || bench.sent_b != expected) {
		fprintf(
		    stderr,
		    "virtio_fwd_bench: expected %llu packets each way, forwarded %llu and %llu, sent %llu and %llu, "
		    "%llu not delivered by the model\n",
		    (unsigned long long)expected, (unsigned long long)bench.a_to_b.forwarded,
		    (unsigned long long)bench.b_to_a.forwarded, (unsigned long long)bench.sent_b,
		    (unsigned long long)bench.sent_a, (unsigned long long)bench.not_delivered);
		status = 1;
	}
	if (model_violation_count() != 0) {
		fprintf(stderr, "virtio_fwd_bench: %u model violation(s): the numbers are not valid\n",
			model_violation_count());
		status = 1;
	}
	ixy_stop(bench.dev_a);
	ixy_stop(bench.dev_b);
	ixy_close(bench.dev_a);
	ixy_close(bench.dev_b);
	model_pci_remove_all();
	printf("virtio_fwd_bench %s: %u rounds measured, batch %d, %llu packets forwarded\n", layout, rounds,
	       FWD_BATCH_SIZE, (unsigned long long)(2 * expected));
	return status;
}
