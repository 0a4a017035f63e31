// fwd_bench: what the ixgbe driver costs per forwarded packet, with the 82599 model (test/model) as a perfect NIC.
//
// Two modelled 82599s, one queue each, default ring size (512). Every round injects a burst of FWD_BATCH_SIZE
// (32) 60-byte frames into each NIC's RX ring and then runs the forwarding step of ixy-fwd (apps/fwd.h) in both
// directions, A -> B and B -> A, as ixy-fwd's main loop does. The model transmits everything at the TDT write, so
// each transmit call cleans the 32 descriptors of the previous one: the steady state of ixy-fwd under full load.
// Nothing may be dropped; the program fails (exit 1) if a single packet is.
//
// The file builds two programs (bench/CMakeLists.txt); see docs/benchmark.md for the method:
// - fwd_bench_count: no timing code at all. Run under callgrind with --instr-atstart=no and
//   --toggle-collect=bench_measured_rounds, so that only the measured rounds (after a warm-up) are counted;
//   bench/callgrind_parts.py splits the instructions into RX, TX, memory management, forwarding and the model.
// - fwd_bench_time (FWD_BENCH_TIMED): reads the time stamp counter around each rx_batch and tx_batch call (by
//   putting timing functions into the device's function pointers), around each pair of forward() calls, and
//   around each register write (the linker's --wrap=ixy_seam_write32: the model's work is timed and subtracted).
//   Memory management is timed separately (pkt_buf_alloc_batch/pkt_buf_free_batch on a pool like the driver's).
//   Noisy.
//
// Usage: fwd_bench_count [packets]      fwd_bench_time [packets [segments]]
// Environment: FWD_BENCH_RING=<descriptors per ring> (default 512). FWD_BENCH_QUEUES=<n> (1 to 64, default 1): n RX
// and TX queues per port, as ixy-fwd --queues n; each round then injects a burst into every RX queue and forwards
// queue i to queue i, one queue after the other in this one thread (what one of ixy-fwd's threads does per queue):
// the instructions per packet show whether a queue's path costs more with more queues (bench/run.sh --queues). Other
// batch sizes than 32 are other builds
// (-DFWD_BATCH_SIZE=n, bench/evaluate.sh).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ixy/ixy.h>

#include "common/packet.h"
#include "fwd.h"
#include "ixgbe_model.h"

// Under callgrind (valgrind --instr-atstart=no), only the measured rounds are instrumented, so that call counts
// leave out the warm-up too. Natively these are a few instructions, outside the measured functions.
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

#define PORT_A "0000:0b:00.0"
#define PORT_B "0000:0b:00.1"
#define DEFAULT_PACKETS 2000000u
#define WARM_UP_ROUNDS 1000u
// Packets forwarded per round: one batch in each direction on every queue.
static uint16_t queues = 1;
#define PACKETS_PER_ROUND (2u * FWD_BATCH_SIZE * queues)

struct bench {
	struct model_ixgbe* nic_a;
	struct model_ixgbe* nic_b;
	struct ixy_device* dev_a;
	struct ixy_device* dev_b;
	struct fwd_counters a_to_b;
	struct fwd_counters b_to_a;
	uint8_t frame[PACKET_SIZE];
	uint64_t not_delivered; // injected frames the model could not deliver (RX ring full: must stay 0)
};

#ifdef FWD_BENCH_TIMED
#include <x86intrin.h>

// The time stamp counter, with LFENCE on both sides so that the work before and after stays outside.
static inline uint64_t tsc(void) {
	_mm_lfence();
	uint64_t ticks = __rdtsc();
	_mm_lfence();
	return ticks;
}

// Ticks summed over one segment of rounds. Each sum includes the cost of its own pair of tsc() calls.
struct ticks {
	uint64_t forward_pair; // both forward() calls of a round
	uint64_t rx;           // rx_batch calls
	uint64_t rx_model;     // register writes (model) inside rx_batch
	uint64_t tx;           // tx_batch calls
	uint64_t tx_model;     // register writes (model) inside tx_batch
	uint64_t model;        // all register writes
	uint64_t rx_calls, tx_calls, rounds;
};
static struct ticks ticks;

static uint32_t (*driver_rx_batch)(struct ixy_device*, uint16_t, struct pkt_buf*[], uint32_t);
static uint32_t (*driver_tx_batch)(struct ixy_device*, uint16_t, struct pkt_buf*[], uint32_t);

// With -Wl,--wrap=ixy_seam_write32 every register write of the driver arrives here instead of in the model.
void __real_ixy_seam_write32(uint8_t* bar, uint32_t reg, uint32_t value);
void __wrap_ixy_seam_write32(uint8_t* bar, uint32_t reg, uint32_t value);
void __wrap_ixy_seam_write32(uint8_t* bar, uint32_t reg, uint32_t value) {
	uint64_t start = tsc();
	__real_ixy_seam_write32(bar, reg, value);
	ticks.model += tsc() - start;
}

static uint32_t timed_rx_batch(struct ixy_device* dev, uint16_t queue, struct pkt_buf* bufs[], uint32_t num) {
	uint64_t model_before = ticks.model;
	uint64_t start = tsc();
	uint32_t received = driver_rx_batch(dev, queue, bufs, num);
	ticks.rx += tsc() - start;
	ticks.rx_model += ticks.model - model_before;
	ticks.rx_calls++;
	return received;
}

static uint32_t timed_tx_batch(struct ixy_device* dev, uint16_t queue, struct pkt_buf* bufs[], uint32_t num) {
	uint64_t model_before = ticks.model;
	uint64_t start = tsc();
	uint32_t sent = driver_tx_batch(dev, queue, bufs, num);
	ticks.tx += tsc() - start;
	ticks.tx_model += ticks.model - model_before;
	ticks.tx_calls++;
	return sent;
}
#endif

// FWD_BENCH_RING in the environment: descriptors per ring (bench/evaluate.sh); the default otherwise.
static struct ixy_device* open_port(const char* pci_addr) {
	const char* ring = getenv("FWD_BENCH_RING");
	struct ixy_config config = {.pci_addr = pci_addr,
				    .rx_queues = queues,
				    .tx_queues = queues,
				    .ring_size = ring ? (uint32_t)strtoul(ring, NULL, 10) : 0};
	struct ixy_device* dev = ixy_init_config(&config);
	if (!dev) {
		fprintf(stderr, "fwd_bench: ixy_init(%s) failed\n", pci_addr);
		exit(1);
	}
	return dev;
}

static void bench_open(struct bench* bench) {
	memset(bench, 0, sizeof(*bench));
	const char* n = getenv("FWD_BENCH_QUEUES");
	queues = n ? (uint16_t)strtoul(n, NULL, 10) : 1;
	if (queues < 1 || queues > IXY_MAX_QUEUES) {
		fprintf(stderr, "fwd_bench: FWD_BENCH_QUEUES=%s: 1 to %d\n", n, IXY_MAX_QUEUES);
		exit(2);
	}
	bench->nic_a = model_ixgbe_add(PORT_A);
	bench->nic_b = model_ixgbe_add(PORT_B);
	model_ixgbe_set_perfect(bench->nic_a, true);
	model_ixgbe_set_perfect(bench->nic_b, true);
	bench->dev_a = open_port(PORT_A);
	bench->dev_b = open_port(PORT_B);
	model_advance_us(1000000); // a second of virtual time: the links are up
	static const uint8_t src_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
	packet_build_template(bench->frame, src_mac); // the receivers are promiscuous
}

// ixy-fwd's forwarding step (inline in apps/fwd.h), kept a function of its own here so that callgrind can tell its
// cost apart (bench/callgrind_parts.py). The call adds a few instructions per batch, less than 0.2 per packet.
__attribute__((noinline)) uint32_t forward_step(struct ixy_device* rx_dev, struct ixy_device* tx_dev, uint16_t queue,
						struct fwd_counters* counters) {
	return forward(rx_dev, queue, tx_dev, queue, counters);
}

// One round of ixy-fwd's loop, with a burst of frames arriving on both ports first.
static inline void round_of_forwarding(struct bench* bench) {
	for (uint16_t q = 0; q < queues; q++) {
		bench->not_delivered += FWD_BATCH_SIZE - model_ixgbe_inject_rx_burst(bench->nic_a, q, bench->frame,
										     PACKET_SIZE, FWD_BATCH_SIZE);
		bench->not_delivered += FWD_BATCH_SIZE - model_ixgbe_inject_rx_burst(bench->nic_b, q, bench->frame,
										     PACKET_SIZE, FWD_BATCH_SIZE);
	}
#ifdef FWD_BENCH_TIMED
	uint64_t start = tsc();
#endif
	for (uint16_t q = 0; q < queues; q++) {
		forward_step(bench->dev_a, bench->dev_b, q, &bench->a_to_b);
		forward_step(bench->dev_b, bench->dev_a, q, &bench->b_to_a);
	}
#ifdef FWD_BENCH_TIMED
	ticks.forward_pair += tsc() - start;
	ticks.rounds++;
#endif
}

// The warm-up and the measured rounds are separate functions so that callgrind can collect only the latter.
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

// Checks that every injected packet was forwarded, the model saw no violation, and closes both ports.
static int bench_close(struct bench* bench, uint64_t rounds) {
	uint64_t expected = rounds * FWD_BATCH_SIZE * queues;
	int status = 0;
	if (bench->not_delivered != 0 || bench->a_to_b.forwarded != expected || bench->b_to_a.forwarded != expected ||
	    bench->a_to_b.dropped_tx_full + bench->b_to_a.dropped_tx_full != 0) {
		fprintf(stderr,
			"fwd_bench: expected %llu packets each way, forwarded %llu and %llu, dropped %llu, %llu not "
			"delivered by the model\n",
			(unsigned long long)expected, (unsigned long long)bench->a_to_b.forwarded,
			(unsigned long long)bench->b_to_a.forwarded,
			(unsigned long long)(bench->a_to_b.dropped_tx_full + bench->b_to_a.dropped_tx_full),
			(unsigned long long)bench->not_delivered);
		status = 1;
	}
	if (model_ixgbe_counters(bench->nic_a).tx_frames != expected ||
	    model_ixgbe_counters(bench->nic_b).tx_frames != expected) {
		fprintf(stderr, "fwd_bench: the model did not transmit every packet\n");
		status = 1;
	}
	if (model_violation_count() != 0) {
		fprintf(stderr, "fwd_bench: %u model violation(s): the numbers are not valid\n",
			model_violation_count());
		status = 1;
	}
	ixy_stop(bench->dev_a);
	ixy_stop(bench->dev_b);
	ixy_close(bench->dev_a);
	ixy_close(bench->dev_b);
	model_pci_remove_all();
	return status;
}

#ifdef FWD_BENCH_TIMED
static int compare_u64(const void* a, const void* b) {
	uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
	return (x > y) - (x < y);
}

static int compare_double(const void* a, const void* b) {
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

// The ticks of an empty timed region (a tsc() pair with nothing between): subtracted once per region.
static uint64_t timer_overhead(void) {
	enum { SAMPLES = 100001 };
	static uint64_t samples[SAMPLES];
	for (int i = 0; i < SAMPLES; i++) {
		uint64_t start = tsc();
		samples[i] = tsc() - start;
	}
	qsort(samples, SAMPLES, sizeof(samples[0]), compare_u64);
	return samples[SAMPLES / 2];
}

// Ticks per packet of memory management as the driver does it: one pkt_buf_alloc_batch() of FWD_BATCH_SIZE buffers
// (rx_batch refills the descriptors it took) and one pkt_buf_free_batch() of as many (tx_clean), on a pool shaped
// like the driver's RX pool (2 * 512 + 1024 buffers of 64 + 3 KiB).
static void time_memory_management(uint64_t overhead, uint32_t rounds, double* alloc_per_packet,
				   double* free_per_packet) {
	struct mempool* pool = memory_allocate_mempool(2 * IXY_DEFAULT_RING_SIZE + 1024, 64 + 3 * 1024);
	if (!pool) {
		fprintf(stderr, "fwd_bench: no mempool\n");
		exit(1);
	}
	struct pkt_buf* bufs[FWD_BATCH_SIZE];
	uint64_t alloc_ticks = 0, free_ticks = 0;
	for (uint32_t r = 0; r < WARM_UP_ROUNDS + rounds; r++) {
		uint64_t start = tsc();
		pkt_buf_alloc_batch(pool, bufs, FWD_BATCH_SIZE);
		uint64_t middle = tsc();
		pkt_buf_free_batch(bufs, FWD_BATCH_SIZE);
		uint64_t end = tsc();
		if (r >= WARM_UP_ROUNDS) {
			alloc_ticks += middle - start - overhead;
			free_ticks += end - middle - overhead;
		}
	}
	memory_free_mempool(pool);
	*alloc_per_packet = (double)alloc_ticks / ((double)rounds * FWD_BATCH_SIZE);
	*free_per_packet = (double)free_ticks / ((double)rounds * FWD_BATCH_SIZE);
}

// Ticks per packet in one segment, each timed region's tsc() pair subtracted once. A nested region (the model
// inside rx_batch) was measured with its own pair, so subtracting what it measured removes that pair too.
// split: rx_batch and tx_batch were timed (their own regions); otherwise only forward() pairs and the model.
struct parts {
	double rx, tx, forwarding, model, driver_total;
};

static struct parts segment_parts(const struct ticks* t, uint64_t overhead, bool split) {
	double packets = (double)t->rounds * PACKETS_PER_ROUND;
	double outer = (double)t->forward_pair - (double)(t->rounds * overhead);
	struct parts parts = {.model = (double)t->model / packets};
	if (split) {
		double rx = (double)t->rx - (double)t->rx_model - (double)(t->rx_calls * overhead);
		double tx = (double)t->tx - (double)t->tx_model - (double)(t->tx_calls * overhead);
		parts.rx = rx / packets;
		parts.tx = tx / packets;
		parts.forwarding = (outer - (double)t->rx - (double)t->tx) / packets;
		parts.driver_total = parts.rx + parts.tx + parts.forwarding;
	} else {
		parts.driver_total = (outer - (double)t->model) / packets;
	}
	return parts;
}

static double median(double* values, uint32_t n) {
	qsort(values, n, sizeof(values[0]), compare_double);
	return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// TSC ticks per nanosecond, against CLOCK_MONOTONIC over 100 ms.
static double tsc_ghz(void) {
	struct timespec start_ts, end_ts;
	clock_gettime(CLOCK_MONOTONIC, &start_ts);
	uint64_t start = tsc();
	do {
		clock_gettime(CLOCK_MONOTONIC, &end_ts);
	} while ((end_ts.tv_sec - start_ts.tv_sec) * 1000000000LL + (end_ts.tv_nsec - start_ts.tv_nsec) < 100000000);
	uint64_t end = tsc();
	return (double)(end - start) /
	       (double)((end_ts.tv_sec - start_ts.tv_sec) * 1000000000LL + (end_ts.tv_nsec - start_ts.tv_nsec));
}

#define MAX_SEGMENTS 1000u

int main(int argc, char** argv) {
	uint64_t packets = argc > 1 ? strtoull(argv[1], NULL, 10) : DEFAULT_PACKETS;
	uint32_t segments = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 100;
	struct bench bench;
	bench_open(&bench); // (sets queues)
	if (segments < 2 || segments > MAX_SEGMENTS || packets / PACKETS_PER_ROUND < segments) {
		fprintf(stderr, "usage: %s [packets (>= %u per segment)] [segments (2..%u)]\n", argv[0],
			PACKETS_PER_ROUND, MAX_SEGMENTS);
		return 2;
	}
	uint32_t rounds_per_segment = (uint32_t)(packets / PACKETS_PER_ROUND / segments);
	uint64_t overhead = timer_overhead();

	driver_rx_batch = bench.dev_a->rx_batch;
	driver_tx_batch = bench.dev_a->tx_batch;
	if (bench.dev_b->rx_batch != driver_rx_batch || bench.dev_b->tx_batch != driver_tx_batch) {
		fprintf(stderr, "fwd_bench: both ports must use the same driver\n");
		return 1;
	}
	bench_warm_up_rounds(&bench, WARM_UP_ROUNDS);
	// Even segments time only forward() and the model (the fewest probes: the total); odd segments also time
	// each rx_batch and tx_batch call (the split). Interleaved, so that both see the same load on the machine.
	static double rx[MAX_SEGMENTS], tx[MAX_SEGMENTS], forwarding[MAX_SEGMENTS], split_total[MAX_SEGMENTS];
	static double total[MAX_SEGMENTS], model[MAX_SEGMENTS];
	uint32_t splits = 0, totals = 0;
	for (uint32_t s = 0; s < segments; s++) {
		bool split = s % 2 == 1;
		bench.dev_a->rx_batch = bench.dev_b->rx_batch = split ? timed_rx_batch : driver_rx_batch;
		bench.dev_a->tx_batch = bench.dev_b->tx_batch = split ? timed_tx_batch : driver_tx_batch;
		memset(&ticks, 0, sizeof(ticks));
		bench_measured_rounds(&bench, rounds_per_segment);
		struct parts parts = segment_parts(&ticks, overhead, split);
		if (split) {
			rx[splits] = parts.rx;
			tx[splits] = parts.tx;
			forwarding[splits] = parts.forwarding;
			split_total[splits++] = parts.driver_total;
		} else {
			model[totals] = parts.model;
			total[totals++] = parts.driver_total;
		}
	}
	bench.dev_a->rx_batch = bench.dev_b->rx_batch = driver_rx_batch;
	bench.dev_a->tx_batch = bench.dev_b->tx_batch = driver_tx_batch;
	double alloc_per_packet, free_per_packet;
	time_memory_management(overhead, rounds_per_segment, &alloc_per_packet, &free_per_packet);
	int status = bench_close(&bench, WARM_UP_ROUNDS + (uint64_t)segments * rounds_per_segment);

	double rx_median = median(rx, splits), tx_median = median(tx, splits);
	// median() sorts: the quartiles of the total are read off afterwards
	double total_median = median(total, totals);
	printf("# fwd_bench_time: %u segments of %llu packets (half of them split into RX/TX), batch %d, ring %d\n",
	       segments, (unsigned long long)rounds_per_segment * PACKETS_PER_ROUND, FWD_BATCH_SIZE,
	       IXY_DEFAULT_RING_SIZE);
	printf("# TSC ticks per packet, medians over segments; memory: pkt_buf_alloc_batch/free_batch timed on their "
	       "own\n");
	printf("tsc_ghz %.3f\n", tsc_ghz());
	printf("timer_overhead_ticks %llu\n", (unsigned long long)overhead);
	printf("rx_incl_memory %.1f\n", rx_median);
	printf("tx_incl_memory %.1f\n", tx_median);
	printf("memory_alloc %.1f\n", alloc_per_packet);
	printf("memory_free %.1f\n", free_per_packet);
	// Every packet takes one buffer of a pkt_buf_alloc_batch (rx_batch refills its descriptor) and one of a
	// pkt_buf_free_batch (tx_clean).
	printf("rx %.1f\n", rx_median - alloc_per_packet);
	printf("tx %.1f\n", tx_median - free_per_packet);
	printf("memory %.1f\n", alloc_per_packet + free_per_packet);
	printf("forwarding %.1f\n", median(forwarding, splits));
	printf("split_total %.1f\n", median(split_total, splits));
	printf("total %.1f\n", total_median);
	printf("total_q1 %.1f\n", total[totals / 4]);
	printf("total_q3 %.1f\n", total[totals * 3 / 4]);
	printf("model_excluded %.1f\n", median(model, totals));
	return status;
}

#else

int main(int argc, char** argv) {
	uint64_t packets = argc > 1 ? strtoull(argv[1], NULL, 10) : DEFAULT_PACKETS;
	struct bench bench;
	bench_open(&bench); // (sets queues)
	if (packets < PACKETS_PER_ROUND || packets / PACKETS_PER_ROUND > UINT32_MAX) {
		fprintf(stderr, "usage: %s [packets (>= %u)]\n", argv[0], PACKETS_PER_ROUND);
		return 2;
	}
	uint32_t rounds = (uint32_t)(packets / PACKETS_PER_ROUND);
	bench_warm_up_rounds(&bench, WARM_UP_ROUNDS);
	CALLGRIND_START_INSTRUMENTATION;
	bench_measured_rounds(&bench, rounds);
	CALLGRIND_STOP_INSTRUMENTATION;
	int status = bench_close(&bench, WARM_UP_ROUNDS + (uint64_t)rounds);
	printf("# fwd_bench_count: %llu packets measured (after %u warm-up), batch %d, ring %d, queues %u\n",
	       (unsigned long long)rounds * PACKETS_PER_ROUND, WARM_UP_ROUNDS * PACKETS_PER_ROUND, FWD_BATCH_SIZE,
	       IXY_DEFAULT_RING_SIZE, queues);
	printf("packets %llu\n", (unsigned long long)rounds * PACKETS_PER_ROUND);
	return status;
}

#endif
