// Waiting for packets instead of polling (include/ixy/interrupts.h): the switch between polling and sleeping
// that every driver's interrupts share. A driver only arms or disarms a queue's interrupt (set_rx_interrupt); the
// device signals an eventfd (VFIO, vfio.c) when the interrupt fires. An AF_XDP queue's fd is its socket, readable
// while its RX ring holds packets (the kernel's poll): it has no interrupt to arm, and nothing to reset.
//
// The rule, per waiter (usually all the queues of one app thread):
//   - polling: every round that received packets starts the idle time anew;
//   - after IDLE_US without a packet: arm every queue's interrupt and let the app poll one more round. A packet that
//     arrived after the app's last look but before its queue was armed raised no interrupt; without this round it
//     would wait in the ring until the next interrupt or the timeout (the race of ixy issue 21);
//   - that round empty too: sleep in epoll_wait until an interrupt fires or the timeout passes; then disarm and
//     poll again. A round with packets disarms at once.
// So under load nothing changes (no interrupt is armed), and an idle app costs one wake-up per timeout.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <ixy/interrupts.h>

#include "log.h"

#define MAX_WAITER_QUEUES 64
// How long all queues must stay empty before the waiter arms their interrupts: long enough that a short gap in a
// stream of packets costs no interrupt, short enough that an idle app sleeps almost at once.
#define IDLE_US 500
// Empty rounds between two looks at the clock (reading it costs more than a round of empty polls).
#define ROUNDS_PER_CLOCK_READ 64

struct waiter_queue {
	struct ixy_device* dev;
	uint16_t queue;
	uint64_t interrupts; // wake-ups by this queue's interrupt
};

struct ixy_waiter {
	int epoll_fd;
	struct waiter_queue queues[MAX_WAITER_QUEUES];
	uint16_t num_queues;
	bool can_sleep; // every queue has an interrupt
	int timeout_ms; // the shortest timeout of the devices (-1: none)
	uint32_t empty_rounds;
	bool armed;             // the interrupts are armed: the app polls once more, then the waiter sleeps
	uint64_t idle_since_ns; // when the last round with packets ended (0: not looked yet)
	uint64_t sleeps, timeouts, rechecks_found;
	void (*before_sleep)(void* arg); // the app's hook (ixy_waiter_before_sleep)
	void* before_sleep_arg;
	const atomic_int* stop; // the app's stop flag (ixy_waiter_stop_on), or NULL
};

struct ixy_waiter* ixy_waiter_create(void) {
	struct ixy_waiter* waiter = calloc(1, sizeof(*waiter));
	if (!waiter) {
		ixy_error("out of memory for a waiter");
		return NULL;
	}
	waiter->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (waiter->epoll_fd < 0) {
		ixy_error("cannot create an epoll instance: %s", strerror(errno));
		free(waiter);
		return NULL;
	}
	waiter->can_sleep = true;
	waiter->timeout_ms = -1;
	return waiter;
}

int ixy_waiter_add(struct ixy_waiter* waiter, struct ixy_device* dev, uint16_t rx_queue) {
	if (rx_queue >= dev->num_rx_queues) {
		ixy_error("%s: RX queue %u cannot be watched: the device has %u RX queue(s)", dev->pci_addr, rx_queue,
			  dev->num_rx_queues);
		return -1;
	}
	if (waiter->num_queues == MAX_WAITER_QUEUES) {
		ixy_error("%s: RX queue %u cannot be watched: this waiter watches %d queues already, its most",
			  dev->pci_addr, rx_queue, MAX_WAITER_QUEUES);
		return -1;
	}
	uint16_t index = waiter->num_queues;
	if (!dev->interrupts) {
		waiter->can_sleep = false; // this queue is only seen by polling
	} else {
		// The index of the queue is the event's data; a queue added twice shares its eventfd with itself: epoll
		// knows it once, which is all it takes to wake up.
		struct epoll_event event = {.events = EPOLLIN, .data.u32 = index};
		int fd = dev->interrupts->rx_fds[rx_queue];
		if (epoll_ctl(waiter->epoll_fd, EPOLL_CTL_ADD, fd, &event) != 0 && errno != EEXIST) {
			ixy_error("%s: cannot watch the interrupt of RX queue %u: %s", dev->pci_addr, rx_queue,
				  strerror(errno));
			return -1;
		}
		int timeout = dev->interrupts->timeout_ms;
		if (timeout >= 0 && (waiter->timeout_ms < 0 || timeout < waiter->timeout_ms)) {
			waiter->timeout_ms = timeout;
		}
	}
	waiter->queues[index] = (struct waiter_queue){.dev = dev, .queue = rx_queue};
	waiter->num_queues++;
	return 0;
}

void ixy_waiter_before_sleep(struct ixy_waiter* waiter, void (*before_sleep)(void* arg), void* arg) {
	waiter->before_sleep = before_sleep;
	waiter->before_sleep_arg = arg;
}

void ixy_waiter_stop_on(struct ixy_waiter* waiter, const atomic_int* stop) {
	waiter->stop = stop;
}

// The queue's fd is an eventfd behind an interrupt to arm, not one readable while packets wait (an AF_XDP socket).
static bool has_switch(const struct waiter_queue* q) {
	return q->dev->interrupts->set_rx_interrupt != NULL;
}

static void arm_all(struct ixy_waiter* waiter, bool armed) {
	for (uint16_t i = 0; i < waiter->num_queues; i++) {
		struct waiter_queue* q = &waiter->queues[i];
		if (has_switch(q)) {
			q->dev->interrupts->set_rx_interrupt(q->dev, q->queue, armed);
		}
	}
}

// Disarms every queue and resets the eventfds that fired (non-blocking: the others have nothing to read), so that
// the next sleep waits for a new interrupt: also one that fired for a packet the last look already found.
static void disarm_all(struct ixy_waiter* waiter) {
	arm_all(waiter, false);
	for (uint16_t i = 0; i < waiter->num_queues; i++) {
		uint64_t count;
		struct waiter_queue* q = &waiter->queues[i];
		if (has_switch(q) && read(q->dev->interrupts->rx_fds[q->queue], &count, sizeof(count)) < 0 &&
		    errno != EAGAIN) {
			ixy_warn("%s: reading the interrupt eventfd of RX queue %u failed: %s", q->dev->pci_addr,
				 q->queue, strerror(errno));
		}
	}
}

// Sleeps until an interrupt fires or the timeout passes (the interrupts are armed, and the app's last round after
// arming found nothing); disarms them again.
static void sleep_until_interrupt(struct ixy_waiter* waiter) {
	if (waiter->before_sleep) {
		waiter->before_sleep(waiter->before_sleep_arg);
	}
	struct epoll_event events[MAX_WAITER_QUEUES];
	// With a stop flag (ixy_waiter_stop_on): in slices, the flag looked at before each. left: -1 for no timeout.
	const atomic_int* stop = waiter->stop;
	int ready = 0, left = waiter->timeout_ms;
	do {
		if (stop && *stop) {
			break;
		}
		int slice = stop && (left < 0 || left > IXY_WAITER_STOP_SLICE_MS) ? IXY_WAITER_STOP_SLICE_MS : left;
		ready = epoll_wait(waiter->epoll_fd, events, MAX_WAITER_QUEUES, slice);
		left = left > 0 && ready == 0 ? left - slice : left;
	} while (ready == 0 && left != 0);
	waiter->sleeps++;
	waiter->timeouts += ready == 0 && left == 0;
	for (int i = 0; i < ready; i++) {
		waiter->queues[events[i].data.u32].interrupts++;
	}
	if (ready < 0 && errno != EINTR) { // EINTR: a signal, e.g. Ctrl-C: the app looks at it next
		ixy_warn("epoll_wait failed: %s", strerror(errno));
	}
	disarm_all(waiter);
}

bool ixy_waiter_round(struct ixy_waiter* waiter, uint32_t received) {
	if (!waiter) {
		return false; // no waiter: the app polls
	}
	if (waiter->armed) {
		waiter->armed = false;
		waiter->empty_rounds = 0;
		if (received > 0) {
			waiter->rechecks_found++; // it came just before the arming: no sleep
			disarm_all(waiter);
			return false;
		}
		sleep_until_interrupt(waiter);
		return true;
	}
	if (received > 0 || !waiter->can_sleep) {
		waiter->empty_rounds = 0;
		return false;
	}
	if (waiter->empty_rounds++ % ROUNDS_PER_CLOCK_READ != 0) {
		return false;
	}
	uint64_t now_ns = monotonic_time_ns();
	if (waiter->empty_rounds == 1) {
		waiter->idle_since_ns = now_ns; // the first empty round after packets
	} else if (now_ns - waiter->idle_since_ns >= IDLE_US * 1000ull) {
		arm_all(waiter, true);
		waiter->armed = true; // the app's next round is the last look before sleeping
	}
	return false;
}

void ixy_waiter_print(FILE* out, const char* app, const struct ixy_waiter* waiter) {
	fprintf(out, "waiter app=%s slept=%llu timeouts=%llu packet_before_sleep=%llu polls_only=%d", app,
		(unsigned long long)waiter->sleeps, (unsigned long long)waiter->timeouts,
		(unsigned long long)waiter->rechecks_found, !waiter->can_sleep);
	for (uint16_t i = 0; i < waiter->num_queues; i++) {
		const struct waiter_queue* q = &waiter->queues[i];
		fprintf(out, " interrupts/%s/%u=%llu", q->dev->pci_addr, q->queue, (unsigned long long)q->interrupts);
	}
	fprintf(out, "\n");
}

void ixy_waiter_destroy(struct ixy_waiter* waiter) {
	if (waiter && close(waiter->epoll_fd) != 0) {
		ixy_warn("closing a waiter's epoll instance failed: %s", strerror(errno));
	}
	free(waiter);
}
