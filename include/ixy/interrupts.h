// Waiting for packets instead of polling (src/interrupts.c), for devices whose ixy_config asked for interrupts
// (interrupt_timeout_ms): PCI NICs reached through VFIO (an eventfd per RX queue's interrupt) and AF_XDP devices
// (the queue's socket, which the kernel wakes through poll). Apps that always poll do not need this header.
#ifndef IXY_INTERRUPTS_H
#define IXY_INTERRUPTS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ixy.h"

// What a device whose RX queues have interrupts gives the waiter (its ixy_device.interrupts), chosen once at init.
struct ixy_interrupts {
	// Per RX queue a file descriptor that epoll watches: an eventfd that becomes readable when the queue's
	// interrupt fires (set_rx_interrupt arms it; the waiter reads it to reset it), or, set_rx_interrupt NULL, one
	// that is readable as long as the queue holds packets (an AF_XDP socket: nothing to arm, nothing to reset).
	int* rx_fds;
	int32_t
	    timeout_ms; // ms an idle waiter sleeps at most (-1: until a packet comes): ixy_config.interrupt_timeout_ms
	// Arms or disarms the interrupt of an RX queue. Arming takes effect before the function returns: a packet
	// that arrives afterwards raises the interrupt. NULL: the fds are level-triggered, as above.
	void (*set_rx_interrupt)(struct ixy_device* dev, uint16_t queue_id, bool armed);
};

// Interrupt moderation: an RX queue's vector sends a message at most once per this interval (the NIC's EITR; ixgbe
// and igb program it when they set up interrupts, VirtIO has no such register). 50 us, at most 20 000 interrupts a
// second per queue: what Linux's ixgbe starts its adaptive moderation with and igb's low-latency setting
// (IXGBE_20K_ITR, IGB_20K_ITR). A waiter arms a queue only after IDLE_US (500 us) without a packet, so two of its
// wake-ups are always further apart than this and moderation never delays one; it bounds the interrupt load of
// anything that arms more often.
#define IXY_RX_INTERRUPT_INTERVAL_US 50

// A waiter watches the RX queues an app polls and sleeps for it while they are all idle: it lets the app poll while
// packets come; once none came for a while, it arms the queues' interrupts, lets the app look at the rings once more
// (a packet may have arrived just before: it raised no interrupt), and then sleeps until an interrupt fires or the
// timeout passes. It never sleeps if one of its queues has no interrupt (a device that polls).
struct ixy_waiter;
// NULL with a message if it cannot be made.
struct ixy_waiter* ixy_waiter_create(void);
int ixy_waiter_add(struct ixy_waiter* waiter, struct ixy_device* dev, uint16_t rx_queue);
// Call once per round over all queues, with the number of packets the round received. May sleep; returns true if it
// did (an app that reads the clock every so many rounds should read it now). A NULL waiter never sleeps.
bool ixy_waiter_round(struct ixy_waiter* waiter, uint32_t received);
// Calls before_sleep(arg) each time before the waiter sleeps (e.g. to flush output a reader waits for); NULL: none.
void ixy_waiter_before_sleep(struct ixy_waiter* waiter, void (*before_sleep)(void* arg), void* arg);
// Makes every sleep end within IXY_WAITER_STOP_SLICE_MS once *stop is non-zero (an app's stop flag, which its signal
// handler sets): the sleep is taken in slices, the flag looked at before each, so that a signal that came just before
// the sleep began (and so interrupted nothing) is seen within a slice, however long the timeout (--wait 60000). NULL:
// one sleep to the timeout, as without a call.
#define IXY_WAITER_STOP_SLICE_MS 100
void ixy_waiter_stop_on(struct ixy_waiter* waiter, const atomic_int* stop);
// Prints, as one line for scripts to read, how often it slept and how often each queue's interrupt fired:
// "waiter app=<app> slept=<n> timeouts=<n> packet_before_sleep=<n> polls_only=<0|1>" and per RX queue
// " interrupts/<pci addr>/<queue>=<n>". slept counts the sleeps, timeouts those that ended without an interrupt,
// packet_before_sleep the times a packet came just as it armed the interrupts (it then did not sleep); polls_only=1:
// a queue has no interrupt, so it never sleeps.
void ixy_waiter_print(FILE* out, const char* app, const struct ixy_waiter* waiter);
void ixy_waiter_destroy(struct ixy_waiter* waiter);

#endif
