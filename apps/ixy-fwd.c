// ixy-fwd: forwards packets between two NICs in both directions, printing rates every second.
//
//   ixy-fwd [--no-sandbox] [--user <name>] [--poll | --wait <ms>] [--ring <descriptors>] [--queues <n>] <pci1> <pci2>
//
// --wait (the default, 1000 ms): while no packet comes, sleep until a NIC reached through VFIO raises an interrupt,
// at most <ms> at a time (ixy/interrupts.h); NICs reached through sysfs have no interrupts and are always polled.
// --ring: descriptors per RX and TX ring of both NICs, a power of two, 64 to 4096 (default 512; bench/latency.sh).
// --queues (default 1): RX and TX queues per device; with more than one the NICs spread the flows over their RX queues
// (receive side scaling, ixy/rss.h), and thread i forwards queue i of each device to queue i of the other, shared
// nothing: its queues, the pools behind its RX queues (a buffer only ever passes through queues i), its waiter (which
// sleeps on its own two RX queues) and its counters are its own. The main thread runs queue 0 and alone reads the
// devices' counters and prints; each thread is pinned to a CPU (i modulo the CPUs the process may use) if it may use
// more than one. Each device runs promiscuous (ixy_init turns that on). Every packet received on one device is sent
// on the other with one byte changed (fwd.h says which). Ctrl-C or SIGTERM stops it: it prints a totals line per
// device (print_stats_totals), with more than one queue a line per device and queue before it:
//   queue app=ixy-fwd pci=<addr> queue=<i> rx_packets=<n> forwarded=<n> tx_full=<n>
// (packets queue i of that device received, and what became of them), and each waiter's line, and closes both devices.
//
// Threads and the sandbox: the threads start before the sandbox (its filter covers them, TSYNC; the main thread waits
// until each runs) and forward only once the main thread says so (phase). They are never joined (pthread_join waits
// with a futex operation the filter refuses): they run detached, and at the end the main thread sleeps (nanosleep)
// until each has signed out. A stop signal may reach any thread (stop_signal is atomic); the main thread passes it on.
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>

#include <ixy/interrupts.h>

#include "common/args.h"
#include "common/rates.h"
#include "common/signals.h"
#include "fwd.h"

#define USAGE                                                                                                          \
	"ixy-fwd " ARG_WAIT_USAGE " " ARG_RING_USAGE " [--queues <n>] <pci1> <pci2>   (PCI addresses like "            \
	"0000:03:00.0)"

struct fwd_queue { // queue index i and what belongs to its thread; a cache line of its own
	_Alignas(64) struct fwd_counters counters[2]; // counters[d]: from devs[d]'s queue i to the other's
	struct ixy_device** devs;
	struct ixy_waiter* waiter; // sleeps while both RX queues i are idle
	uint16_t queue;
};

static atomic_int phase; // set by the main thread only: 0 wait (for the sandbox), 1 forward, 2 stop
// Each thread signs in when it runs (glibc has set it up, with system calls the filter refuses: the sandbox waits for
// this) and out when it has left its loop (its last touch of anything shared: the main thread may read its counters).
static atomic_int signs;
static cpu_set_t cpus; // the CPUs the process may use, as it started

static bool fwd_round(struct fwd_queue* q) { // returns whether the waiter slept
	uint32_t received = forward(q->devs[0], q->queue, q->devs[1], q->queue, &q->counters[0]);
	received += forward(q->devs[1], q->queue, q->devs[0], q->queue, &q->counters[1]);
	return ixy_waiter_round(q->waiter, received);
}

// Pins the thread of queue q to the (q mod n)-th of the n CPUs in cpus, if n > 1 (before the sandbox).
static void pin(uint16_t q) {
	cpu_set_t one;
	int cpu = -1;
	for (int k = q % CPU_COUNT(&cpus); k >= 0; k -= CPU_ISSET(cpu, &cpus)) {
		cpu++;
	}
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (CPU_COUNT(&cpus) > 1 && pthread_setaffinity_np(pthread_self(), sizeof(one), &one) != 0) {
		fprintf(stderr, "ixy-fwd: cannot pin the thread of queue %u to CPU %d\n", q, cpu);
	}
}

static void* fwd_thread(void* arg) { // queue i > 0; the main thread runs queue 0
	pin(((struct fwd_queue*)arg)->queue);
	atomic_fetch_add(&signs, 1);
	for (int now; (now = atomic_load_explicit(&phase, memory_order_relaxed)) != 2;) {
		if (now == 1) {
			fwd_round(arg);
		}
	}
	atomic_fetch_add(&signs, 1);
	return NULL;
}

static void wait_for_signs(int count) {
	while (atomic_load(&signs) < count) {
		(void)nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL); // (a thread may sleep in its waiter)
	}
}

int main(int argc, char* argv[]) {
	int32_t wait_ms = 1000;
	uint32_t ring_size = 0, num_queues = 1; // ring_size 0: the driver's default
	int first = arg_options("ixy-fwd", argc, argv, &wait_ms, &ring_size, "queues", &num_queues);
	if (first < 0 || argc - first != 2 || !arg_pci_addrs("ixy-fwd", &argv[first], 2)) { // argv[first]: pci1
		return usage(USAGE);
	}
	uint16_t n = (uint16_t)num_queues;
	struct ixy_config configs[2];
	for (int i = 0; i < 2; i++) {
		configs[i] = (struct ixy_config){
		    .pci_addr = argv[first + i], .rx_queues = n, .tx_queues = n, .interrupt_timeout_ms = wait_ms};
		configs[i].ring_size = ring_size;
	}
	// Both devices and their DMA memory together, before the first is taken: a refusal leaves both as they are.
	if (!ixy_check_configs(configs, 2, 0) || stop_on_signals() != 0) {
		return 1;
	}
	struct ixy_device* devs[2] = {NULL, NULL};
	struct fwd_queue queues[IXY_MAX_QUEUES];
	int failed = 0;
	for (uint16_t q = 0; q < n; q++) {
		queues[q] = (struct fwd_queue){.devs = devs, .queue = q, .waiter = ixy_waiter_create()};
		failed |= !queues[q].waiter;
	}
	for (int i = 0; i < 2 && !failed; i++) {
		devs[i] = ixy_init_config(&configs[i]);
		for (uint16_t q = 0; q < n && !failed; q++) {
			failed = !devs[i] || ixy_waiter_add(queues[q].waiter, devs[i], q) != 0;
		}
	}
	for (uint16_t q = 0; q < n && failed; q++) {
		ixy_waiter_destroy(queues[q].waiter);
	}
	if (failed) {
		ixy_close(devs[0]); // and the second device, if it is a waiter that failed
		ixy_close(devs[1]);
		return 1;
	}
	atomic_store(&phase, 0);
	atomic_store(&signs, 0);
	uint16_t running = 1; // queues whose thread runs: queue 0's is this one
	pthread_t thread;
	failed = sched_getaffinity(0, sizeof(cpus), &cpus) != 0;
	for (; running < n && !failed; running += !failed) {
		failed = pthread_create(&thread, NULL, fwd_thread, &queues[running]) || pthread_detach(thread);
	}
	if (n > 1) {
		pin(0);
	}
	wait_for_signs(running - 1);
	failed = failed || ixy_sandbox_enter(&arg_sandbox) != 0; // least privilege from here on (ixy/sandbox.h)
	atomic_store(&phase, failed ? 2 : 1);
	struct rate_meter meters[2];
	rate_meter_init(&meters[0], devs[0]);
	rate_meter_init(&meters[1], devs[1]);
	struct ticker ticker;
	ticker_start(&ticker);
	uint64_t elapsed_ns;
	while (!failed && !stop_requested()) {
		bool slept = fwd_round(&queues[0]); // then the clock moved on more than the rounds say
		if (ticker_due(&ticker, slept, &elapsed_ns)) {
			rate_meter_print(&meters[0], elapsed_ns, stdout);
			rate_meter_print(&meters[1], elapsed_ns, stdout);
		}
	}
	atomic_store(&phase, 2);
	wait_for_signs(2 * (running - 1));
	// Totals first: stopping resets the device, and with it the statistics registers.
	// Stop both before closing either: buffers of one device's pool may still sit in the other's TX ring.
	for (int i = 0; i < 2; i++) {
		struct fwd_counters sum = {0};
		for (uint16_t q = 0; q < n; q++) { // (lines per queue only with more than one, before the device's)
			const struct fwd_counters* c = &queues[q].counters[i];
			sum.forwarded += c->forwarded;
			sum.dropped_tx_full += c->dropped_tx_full;
			if (n > 1) {
				printf("queue app=ixy-fwd pci=%s queue=%u rx_packets=%" PRIu64 " forwarded=%" PRIu64
				       " tx_full=%" PRIu64 "\n",
				       devs[i]->pci_addr, q, c->forwarded + c->dropped_tx_full, c->forwarded,
				       c->dropped_tx_full);
			}
		}
		ixy_read_stats(devs[i], &meters[i].total);
		print_stats_totals(stdout, "ixy-fwd", &meters[i].total);
		printf(" forwarded=%" PRIu64 " tx_full=%" PRIu64 "\n", sum.forwarded, sum.dropped_tx_full);
		ixy_stop(devs[i]);
	}
	for (uint16_t q = 0; q < n; q++) {
		ixy_waiter_print(stdout, "ixy-fwd", queues[q].waiter);
		ixy_waiter_destroy(queues[q].waiter);
	}
	ixy_close(devs[0]);
	ixy_close(devs[1]);
	return failed;
}
