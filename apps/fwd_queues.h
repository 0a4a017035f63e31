// ixy-fwd --queues n (n > 1): the threads of queues 1..n-1 and the per-queue lines (issue 20; book chapter 11). With
// one queue none of this does anything: ixy-fwd.c's main thread forwards queue 0 as it always did.
//
// Shared nothing: thread i forwards queue i of each device to queue i of the other with its own waiter (sleeping on
// its two RX queues) and counters, and every buffer it touches comes from the pools behind its RX queues. The main
// thread runs queue 0 and alone reads the devices' counters and prints. Each thread is pinned to a CPU (i modulo the
// CPUs the process may use) if it may use more than one.
//
// Threads and the sandbox: the threads start before the sandbox, so that its filter covers them (TSYNC); the main
// thread waits until each has signed in (glibc sets a thread up with system calls the filter refuses), then enters the
// sandbox and says go (phase). They are never joined (pthread_join waits with a futex operation the filter refuses):
// they run detached, and at the end the main thread sleeps until each has signed out, its last touch of anything
// shared. A stop signal may reach any thread (signals.c: stop_signal is atomic); the main thread passes it on.
#ifndef IXY_APPS_FWD_QUEUES_H
#define IXY_APPS_FWD_QUEUES_H

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/rates.h" // print_queue_rate
#include "fwd.h"          // struct fwd_queue, fwd_round

static atomic_int fwd_phase; // set by the main thread only: 0 wait (for the sandbox), 1 forward, 2 stop
static atomic_int fwd_signs; // each thread signs in when it runs and out when it has left its loop
static cpu_set_t fwd_cpus;   // the CPUs the process may use, as it started

// Pins the calling thread, that of queue q, to the (q mod n)-th of the n CPUs in fwd_cpus, if n > 1.
static void fwd_pin(uint16_t q) {
	cpu_set_t one;
	int cpu = -1;
	for (int k = q % CPU_COUNT(&fwd_cpus); k >= 0; k -= CPU_ISSET(cpu, &fwd_cpus)) {
		cpu++;
	}
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (CPU_COUNT(&fwd_cpus) > 1 && pthread_setaffinity_np(pthread_self(), sizeof(one), &one) != 0) {
		fprintf(stderr, "ixy-fwd: cannot pin the thread of queue %u to CPU %d\n", q, cpu);
	}
}

static void* fwd_thread(void* arg) { // queue i > 0
	fwd_pin(((struct fwd_queue*)arg)->queue);
	atomic_fetch_add(&fwd_signs, 1);
	for (int now; (now = atomic_load_explicit(&fwd_phase, memory_order_relaxed)) != 2;) {
		if (now == 1) {
			fwd_round(arg);
		}
	}
	atomic_fetch_add(&fwd_signs, 1);
	return NULL;
}

static void fwd_wait_for_signs(int count) {
	while (atomic_load(&fwd_signs) < count) {
		(void)nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL); // (a thread may sleep in its waiter)
	}
}

// Starts the threads of queues 1..n-1 and waits until each runs; pins the caller (queue 0's) if n > 1. Returns how
// many queues have their thread, the caller's counted: n, or fewer if a thread could not be started.
static uint16_t fwd_queues_start(struct fwd_queue queues[], uint16_t n) {
	atomic_store(&fwd_phase, 0);
	atomic_store(&fwd_signs, 0);
	uint16_t running = 1;
	pthread_t thread;
	int err = n > 1 && sched_getaffinity(0, sizeof(fwd_cpus), &fwd_cpus) != 0 ? errno : 0;
	for (; running < n && !err; running += !err) {
		err = pthread_create(&thread, NULL, fwd_thread, &queues[running]);
		err = err ? err : pthread_detach(thread); // (cannot fail on a thread just created)
	}
	if (err) { // (fwd_cpus may then be empty: queue 0's thread is not pinned)
		fprintf(stderr, "ixy-fwd: no threads for queues %u-%d: %s\n", running, n - 1, strerror(err));
	} else if (n > 1) {
		fwd_pin(0);
	}
	fwd_wait_for_signs(running - 1);
	return running;
}

// The threads forward (go) or end at once; later fwd_queues_stop ends them and waits until each has left its loop.
static void fwd_queues_go(bool go) {
	atomic_store(&fwd_phase, go ? 1 : 2);
}

static void fwd_queues_stop(uint16_t running) {
	atomic_store(&fwd_phase, 2);
	fwd_wait_for_signs(2 * (running - 1));
}

// With more than one queue, before a device's rates: "[<pci addr>] queue <i> RX: <n> Mpps" per queue, the packets
// its thread received since the last time (last[i]), read while the thread runs (fwd.h stores them atomically).
static void fwd_queues_print_rates(struct fwd_queue queues[], uint16_t n, int dev, uint64_t last[],
				   uint64_t elapsed_ns) {
	for (uint16_t q = 0; q < n && n > 1; q++) {
		const struct fwd_counters* c = &queues[q].counters[dev];
		uint64_t rx = __atomic_load_n(&c->forwarded, __ATOMIC_RELAXED) +
			      __atomic_load_n(&c->dropped_tx_full, __ATOMIC_RELAXED);
		print_queue_rate(stdout, queues[q].devs[dev]->pci_addr, q, rx, &last[q], elapsed_ns);
	}
}

// With more than one queue, before a device's totals line, per queue (what queue i of devs[dev] received, and what
// became of it): queue app=ixy-fwd pci=<addr> queue=<i> rx_packets=<n> forwarded=<n> tx_full=<n>
static void fwd_queues_print_totals(struct fwd_queue queues[], uint16_t n, int dev) {
	for (uint16_t q = 0; q < n && n > 1; q++) {
		const struct fwd_counters* c = &queues[q].counters[dev];
		printf("queue app=ixy-fwd pci=%s queue=%u rx_packets=%" PRIu64 " forwarded=%" PRIu64 " tx_full=%" PRIu64
		       "\n",
		       queues[q].devs[dev]->pci_addr, q, c->forwarded + c->dropped_tx_full, c->forwarded,
		       c->dropped_tx_full);
	}
}

#endif
