// threads_bench: packets per second of wall time with ixy-fwd's forwarding in 1, 2 and (with 4 CPUs or more) 4
// threads, against two modelled 82599s (test/model) with a queue pair per thread each (issues 20 and 28).
//
// A thread owns queue q of both ports, as each of ixy-fwd --queues' threads does (apps/fwd_queues.h), and is pinned
// like them (CPU q modulo the CPUs the process may use, if more than one). Each of its rounds has the model put a
// burst of FWD_BATCH_SIZE 60-byte frames into RX queue q of both ports and then runs apps/fwd_queues.h's fwd_round on
// its own struct fwd_queue: both directions, then its waiter (no interrupts: it never sleeps). A 1-thread run forwards
// queue 0 only; an n-thread run forwards queues 0 .. n - 1, a thread each, 1/n of the packets each. Runs alternate
// 1, 2, (4,) 1, 2, ... so that all see the same load on a shared machine; a run counts the packets forwarded (both
// directions) over the wall time from the moment its threads are told to go to the moment the last one ends, and the
// CPU time the process used meanwhile.
//
// The models are "perfect" (nothing recorded or logged): then a queue's tail writes and its injected frames run
// under that queue's own lock, not the models' one lock (test/model/ixgbe_model.c, "the fast path"), and n threads
// share no lock and no written cache line on the packet path. What is left to share is the machine: n threads on n
// CPUs can forward n times as much, unless the driver's (or the model's) queues share cache lines (issue 28).
//
// Usage: threads_bench [packets per run [runs per thread count]]   (defaults 2000000 and 5)
// Output: "run <threads> <i> <packets> <wall seconds> <cpu seconds>" per run (bench/threads.sh reads these), then
// "threads <n> median_pps <p> min_pps <p> max_pps <p> cpu_ns_per_packet <t> cpu_per_wall <c>" per thread count,
// "ratio <2 / 1>" (of the medians) and "ratio_rounds <n> median <r> min <r> max <r>" per n > 1: the ratio of the
// n-thread run to the 1-thread run of each round. Exit 1 if a packet was dropped or the model saw a violation.
#include <pthread.h> // (_GNU_SOURCE: the top-level CMakeLists.txt)
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ixy/ixy.h>

#include "common/packet.h"
#pragma GCC diagnostic push // (only struct fwd_queue and fwd_round are used here, not the rest of the queues' file)
#pragma GCC diagnostic ignored "-Wunused-function"
#include "fwd_queues.h"
#pragma GCC diagnostic pop
#include "ixgbe_model.h"

#define PORT_A "0000:0b:00.0"
#define PORT_B "0000:0b:00.1"
#define MAX_THREADS 4 // 4 threads only with 4 CPUs or more
#define MAX_RUNS 99
#define PACKETS_PER_ROUND (2u * FWD_BATCH_SIZE) // a burst each way on the thread's queue

struct worker {
	struct fwd_queue fq; // (aligned: the counters have a cache line of their own)
	struct model_ixgbe* nics[2];
	const uint8_t* frame;
	uint64_t rounds;
	uint64_t not_delivered;
	pthread_t thread;
};

static atomic_int ready; // threads waiting for go
static atomic_int go;
static cpu_set_t cpus; // the CPUs the process may use
static int queues;     // per port: the most threads a run has (2, or 4 with 4 CPUs or more)

static double seconds(clockid_t clock) {
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pin(uint16_t q) { // as fwd_queues.h's fwd_pin
	if (CPU_COUNT(&cpus) < 2) {
		return;
	}
	int cpu = -1;
	for (int k = q % CPU_COUNT(&cpus); k >= 0; k -= CPU_ISSET(cpu, &cpus)) {
		cpu++;
	}
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
}

static void* work(void* arg) {
	struct worker* w = arg;
	pin(w->fq.queue);
	atomic_fetch_add(&ready, 1);
	while (!atomic_load(&go)) {
	}
	for (uint64_t r = 0; r < w->rounds; r++) {
		for (int d = 0; d < 2; d++) { // (under the queue's lock: model_ixgbe_inject_rx_burst locks by itself)
			w->not_delivered +=
			    FWD_BATCH_SIZE -
			    model_ixgbe_inject_rx_burst(w->nics[d], w->fq.queue, w->frame, PACKET_SIZE, FWD_BATCH_SIZE);
		}
		fwd_round(&w->fq);
	}
	return NULL;
}

// One run of `threads` threads (queues 0..threads-1) forwarding `packets` in all; returns the wall seconds, and the
// process's CPU seconds in *cpu.
static double run(struct worker workers[], int threads, uint64_t packets, double* cpu) {
	atomic_store(&ready, 0);
	atomic_store(&go, 0);
	for (int t = 0; t < threads; t++) {
		workers[t].rounds = packets / PACKETS_PER_ROUND / (uint64_t)threads;
		if (pthread_create(&workers[t].thread, NULL, work, &workers[t]) != 0) {
			fprintf(stderr, "threads_bench: pthread_create failed\n");
			exit(1);
		}
	}
	while (atomic_load(&ready) < threads) {
	}
	double cpu_start = seconds(CLOCK_PROCESS_CPUTIME_ID), start = seconds(CLOCK_MONOTONIC);
	atomic_store(&go, 1);
	for (int t = 0; t < threads; t++) {
		pthread_join(workers[t].thread, NULL);
	}
	double wall = seconds(CLOCK_MONOTONIC) - start;
	*cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
	return wall;
}

static int compare_double(const void* a, const void* b) {
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

static double median(double* values, int n) { // sorts values
	qsort(values, (size_t)n, sizeof(values[0]), compare_double);
	return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

int main(int argc, char** argv) {
	uint64_t packets = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000u;
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	if (packets < MAX_THREADS * PACKETS_PER_ROUND || runs < 1 || runs > MAX_RUNS) {
		fprintf(stderr, "usage: %s [packets per run (>= %u)] [runs per thread count (1..%d)]\n", argv[0],
			MAX_THREADS * PACKETS_PER_ROUND, MAX_RUNS);
		return 2;
	}
	packets -= packets % (MAX_THREADS * PACKETS_PER_ROUND); // the same number for every thread count
	if (sched_getaffinity(0, sizeof(cpus), &cpus) != 0) {
		CPU_ZERO(&cpus);
	}
	queues = CPU_COUNT(&cpus) >= 4 ? 4 : 2;
	static const int thread_counts[] = {1, 2, 4};
	int num_counts = queues == 4 ? 3 : 2;
	struct model_ixgbe* nics[2] = {model_ixgbe_add(PORT_A), model_ixgbe_add(PORT_B)};
	struct ixy_device* devs[2];
	const char* addrs[2] = {PORT_A, PORT_B};
	for (int d = 0; d < 2; d++) {
		model_ixgbe_set_perfect(nics[d], true);
		struct ixy_config config = {
		    .pci_addr = addrs[d], .rx_queues = (uint16_t)queues, .tx_queues = (uint16_t)queues};
		devs[d] = ixy_init_config(&config);
		if (!devs[d]) {
			fprintf(stderr, "threads_bench: ixy_init(%s) failed\n", addrs[d]);
			return 1;
		}
	}
	model_advance_us(1000000); // a second of virtual time: the links are up
	static uint8_t frame[PACKET_SIZE];
	static const uint8_t src_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
	packet_build_template(frame, src_mac); // the receivers are promiscuous
	static struct worker workers[MAX_THREADS];
	for (uint16_t q = 0; q < queues; q++) {
		workers[q] = (struct worker){.fq = {.devs = devs, .queue = q, .waiter = ixy_waiter_create()},
					     .nics = {nics[0], nics[1]},
					     .frame = frame};
		if (!workers[q].fq.waiter || ixy_waiter_add(workers[q].fq.waiter, devs[0], q) != 0 ||
		    ixy_waiter_add(workers[q].fq.waiter, devs[1], q) != 0) {
			fprintf(stderr, "threads_bench: no waiter\n");
			return 1;
		}
	}

	printf("# threads_bench: %llu packets per run, batch %d, ring %d, 2 ports x %d queues, %d CPUs, alternating "
	       "%s threads\n",
	       (unsigned long long)packets, FWD_BATCH_SIZE, IXY_DEFAULT_RING_SIZE, queues, CPU_COUNT(&cpus),
	       queues == 4 ? "1, 2 and 4" : "1 and 2");
	double cpu, pps[3][MAX_RUNS], load[3][MAX_RUNS], cpu_ns[3][MAX_RUNS], ratios[3][MAX_RUNS];
	uint64_t expected[MAX_THREADS] = {0};
	for (int c = 0; c < num_counts; c++) { // warm-up: one of each, not counted
		run(workers, thread_counts[c], packets / 4, &cpu);
		for (int t = 0; t < thread_counts[c]; t++) {
			expected[t] += workers[t].rounds * FWD_BATCH_SIZE;
		}
	}
	for (int i = 0; i < runs; i++) {
		for (int c = 0; c < num_counts; c++) {
			int threads = thread_counts[c];
			double wall = run(workers, threads, packets, &cpu);
			for (int t = 0; t < threads; t++) {
				expected[t] += workers[t].rounds * FWD_BATCH_SIZE;
			}
			pps[c][i] = (double)packets / wall;
			load[c][i] = cpu / wall;
			cpu_ns[c][i] = cpu * 1e9 / (double)packets;
			ratios[c][i] = pps[c][i] / pps[0][i]; // this round's 1-thread run came first
			printf("run %d %d %llu %.6f %.6f\n", threads, i + 1, (unsigned long long)packets, wall, cpu);
			fflush(stdout);
		}
	}

	int status = 0;
	uint64_t tx_expected = 0;
	for (int t = 0; t < queues; t++) {
		tx_expected += expected[t];
		for (int d = 0; d < 2; d++) {
			const struct fwd_counters* c = &workers[t].fq.counters[d];
			if (c->forwarded != expected[t] || c->dropped_tx_full != 0 || workers[t].not_delivered != 0) {
				fprintf(stderr,
					"threads_bench: queue %d: expected %llu packets from port %d, forwarded %llu, "
					"dropped %llu, %llu not delivered by the model\n",
					t, (unsigned long long)expected[t], d, (unsigned long long)c->forwarded,
					(unsigned long long)c->dropped_tx_full,
					(unsigned long long)workers[t].not_delivered);
				status = 1;
			}
		}
	}
	for (int d = 0; d < 2; d++) {
		if (model_ixgbe_counters(nics[d]).tx_frames != tx_expected) {
			fprintf(stderr, "threads_bench: the model did not transmit every packet\n");
			status = 1;
		}
	}
	if (model_violation_count() != 0) {
		fprintf(stderr, "threads_bench: %u model violation(s): the numbers are not valid\n",
			model_violation_count());
		status = 1;
	}
	double medians[3] = {0};
	for (int c = 0; c < num_counts; c++) {
		medians[c] = median(pps[c], runs);
		printf(
		    "threads %d median_pps %.0f min_pps %.0f max_pps %.0f cpu_ns_per_packet %.1f cpu_per_wall %.2f\n",
		    thread_counts[c], medians[c], pps[c][0], pps[c][runs - 1], median(cpu_ns[c], runs),
		    median(load[c], runs));
	}
	printf("ratio %.2f\n", medians[1] / medians[0]);
	for (int c = 1; c < num_counts; c++) {
		double m = median(ratios[c], runs); // (sorts: then the first is the least, the last the greatest)
		printf("ratio_rounds %d median %.2f min %.2f max %.2f\n", thread_counts[c], m, ratios[c][0],
		       ratios[c][runs - 1]);
	}
	for (int q = 0; q < queues; q++) {
		ixy_waiter_destroy(workers[q].fq.waiter);
	}
	ixy_stop(devs[0]); // both before a close: each TX queue holds buffers of the other port's RX pool
	ixy_stop(devs[1]);
	ixy_close(devs[0]);
	ixy_close(devs[1]);
	model_pci_remove_all();
	return status;
}
