// Many cores (book chapter 11): ixy-fwd's queues, with --wait each with its waiter, and with --queues n > 1 a thread
// each. ixy-fwd's main thread forwards queue 0 as the paper's forwarder does; fwd_features.c brings it everything
// else of the queues, which is here.
//
// Shared nothing: thread i forwards queue i of each device to queue i of the other with its own waiter (sleeping on
// its two RX queues, ixy/interrupts.h) and counters, and every buffer it touches comes from the pools behind its RX
// queues. The main thread runs queue 0 and alone reads the devices' counters and prints. Each thread is pinned to a
// CPU (i modulo the CPUs the process may use) if it may use more than one.
//
// Threads and the sandbox: the threads start before the sandbox, so that its filter covers them (TSYNC), but after
// the capabilities were dropped (ixy_sandbox_drop_privileges: a thread starts with its creator's); the main
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

#include <ixy/interrupts.h>

#include "common/queue_rate.h"
#include "common/signals.h" // stop_signal
#include "fwd.h"            // forward

// ixy-fwd's queue i (queue 0 without --queues): both directions between queue i of each device, and a waiter that
// sleeps while both of those RX queues are idle. With --queues, a thread of its own each (fwd_queues.h).
struct fwd_queue {
	_Alignas(64) struct fwd_counters counters[2]; // counters[d]: from devs[d]'s queue i to the other's (own line)
	struct ixy_device** devs;
	struct ixy_waiter* waiter;
	uint16_t queue;
};

// One round of queue i: both directions, then the waiter. Returns whether the waiter slept (the clock then moved on
// more than the rounds say).
static inline bool fwd_round(struct fwd_queue* q) {
	uint32_t received = forward(q->devs[0], q->queue, q->devs[1], q->queue, &q->counters[0]);
	received += forward(q->devs[1], q->queue, q->devs[0], q->queue, &q->counters[1]);
	return ixy_waiter_round(q->waiter, received);
}

static atomic_int fwd_phase; // set by the main thread only: 0 wait (for the sandbox), 1 forward, 2 stop
static atomic_int fwd_signs; // each thread signs in when it runs and out when it has left its loop
static cpu_set_t fwd_cpus;   // the CPUs the process may use, as it started
static uint16_t fwd_running; // queues with a thread, queue 0's (the main thread's) counted
static uint64_t fwd_last_rx[2][IXY_MAX_QUEUES]; // per device and queue: packets received at the last rates

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

// Queues 1..n-1 (queue 0 is the main thread's, made in fwd_features.c), and with wait (--wait) each queue's waiter,
// on RX queue q of both devices.
static bool fwd_waiters_create(struct fwd_queue queues[], uint16_t n, struct ixy_device* devs[2], bool wait) {
	bool ok = true;
	for (uint16_t q = 0; q < n; q++) {
		if (q > 0) {
			queues[q] = (struct fwd_queue){.devs = devs, .queue = q};
		}
		queues[q].waiter = wait ? ixy_waiter_create() : NULL; // polling (the default): no waiter, and no line
		for (int i = 0; i < 2 && ok && wait; i++) {
			ok = queues[q].waiter && ixy_waiter_add(queues[q].waiter, devs[i], q) == 0;
		}
		if (ok && wait) {
			ixy_waiter_stop_on(queues[q].waiter, &stop_signal); // a stop ends its sleep within a slice
		}
	}
	return ok;
}

// Makes queues 1..n-1 between devs[0] and devs[1], and with wait every queue's waiter, then starts the threads of
// queues 1..n-1 and waits until each runs; pins the caller (queue 0's) if n > 1. The threads forward once fwd_queues_go
// says so. False with a message if a waiter or a thread could not be made; fwd_queues_stop and fwd_queues_close then
// still end what was made.
static bool fwd_queues_start(struct fwd_queue queues[], uint16_t n, struct ixy_device* devs[2], bool wait) {
	atomic_store(&fwd_phase, 0);
	atomic_store(&fwd_signs, 0);
	fwd_running = 1;
	memset(fwd_last_rx, 0, sizeof(fwd_last_rx));
	if (!fwd_waiters_create(queues, n, devs, wait)) {
		return false;
	}
	pthread_t thread;
	int err = n > 1 && sched_getaffinity(0, sizeof(fwd_cpus), &fwd_cpus) != 0 ? errno : 0;
	for (; fwd_running < n && !err; fwd_running += !err) {
		err = pthread_create(&thread, NULL, fwd_thread, &queues[fwd_running]);
		err = err ? err : pthread_detach(thread); // (cannot fail on a thread just created)
	}
	if (err) { // (fwd_cpus may then be empty: queue 0's thread is not pinned)
		fprintf(stderr, "ixy-fwd: no threads for queues %u-%d: %s\n", fwd_running, n - 1, strerror(err));
	} else if (n > 1) {
		fwd_pin(0);
	}
	fwd_wait_for_signs(fwd_running - 1);
	return !err;
}

// The threads forward (go) or end at once.
static void fwd_queues_go(bool go) {
	atomic_store(&fwd_phase, go ? 1 : 2);
}

// Ends the threads and waits until each has left its loop: their queues are the main thread's from then on.
static void fwd_queues_stop(void) {
	atomic_store(&fwd_phase, 2);
	fwd_wait_for_signs(2 * (fwd_running - 1));
}

// With more than one queue, before a device's rates: "[<pci addr>] queue <i> RX: <n> Mpps" per queue, the packets
// its thread received since the last time, read while the thread runs (fwd.h stores them atomically).
static void fwd_queues_print_rates(struct fwd_queue queues[], uint16_t n, int dev, uint64_t elapsed_ns) {
	for (uint16_t q = 0; q < n && n > 1; q++) {
		const struct fwd_counters* c = &queues[q].counters[dev];
		uint64_t rx = __atomic_load_n(&c->forwarded, __ATOMIC_RELAXED) +
			      __atomic_load_n(&c->dropped_tx_full, __ATOMIC_RELAXED);
		print_queue_rate(stdout, queues[q].devs[dev]->pci_addr, q, rx, &fwd_last_rx[dev][q], elapsed_ns);
	}
}

// After fwd_queues_stop, before a device's totals line: adds what queues 1..n-1 forwarded from devs[dev] to *sum
// (queue 0's). First an empty tx_batch on each queue of devs[dev]: what it sent since the last batch counts now
// (VirtIO and AF_XDP count there). With more than one queue it prints per queue (what queue i of devs[dev] received,
// and what became of it): queue app=ixy-fwd pci=<addr> queue=<i> rx_packets=<n> forwarded=<n> tx_full=<n>
static void fwd_queues_totals(struct fwd_queue queues[], uint16_t n, int dev, struct fwd_counters* sum) {
	for (uint16_t q = 0; q < n; q++) {
		const struct fwd_counters* c = &queues[q].counters[dev];
		ixy_tx_batch(queues[q].devs[dev], q, NULL, 0);
		if (q > 0) {
			sum->forwarded += c->forwarded;
			sum->dropped_tx_full += c->dropped_tx_full;
		}
		if (n > 1) {
			printf("queue app=ixy-fwd pci=%s queue=%u rx_packets=%" PRIu64 " forwarded=%" PRIu64
			       " tx_full=%" PRIu64 "\n",
			       queues[q].devs[dev]->pci_addr, q, c->forwarded + c->dropped_tx_full, c->forwarded,
			       c->dropped_tx_full);
		}
	}
}

// Prints each queue's waiter line (ixy_waiter_print) and frees the waiters.
static void fwd_queues_close(struct fwd_queue queues[], uint16_t n) {
	for (uint16_t q = 0; q < n; q++) {
		if (queues[q].waiter) {
			ixy_waiter_print(stdout, "ixy-fwd", queues[q].waiter);
		}
		ixy_waiter_destroy(queues[q].waiter);
	}
}

#endif
