// The ixgbe driver's RX interrupts against the 82599 model (MSI-X as VFIO gives it: one eventfd per vector): each RX
// queue has its own vector, a vector fires only while the waiter has armed it and then masks itself, a cause that
// came while the vector was masked stays latched (and would fire when the vector is enabled) but the driver clears it
// when it arms, so an idle app sleeps until the timeout; EITR holds a vector to one message per
// IXY_RX_INTERRUPT_INTERVAL_US, and the waiter's last look after arming catches a packet that arrived just before.
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ixy/interrupts.h>

#include "../check.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "seam.h"

#define NIC_ADDR "0000:07:00.0"
#define REG_GPIE 0x00898
#define REG_IVAR(n) (0x00900 + 4 * (n))
#define REG_EIMS_EX(i) (0x00AA0 + 4 * (i))
#define REG_EIAM_EX(i) (0x00AD0 + 4 * (i))
#define REG_EICR 0x00800
#define REG_EITR(n) (0x00820 + 4 * (n)) // vectors 0-23
// What the driver must write to EITR (8.2.3.5.12): the documented 50 us (include/ixy/interrupts.h) in 2 us units in
// ITR_Interval (bits 11:3), and CNT_WDIS (bit 31).
#define DOCUMENTED_EITR (25u << 3 | 1u << 31)

static const uint8_t nic_mac[6] = {0x02, 0x00, 0x00, 0x07, 0x00, 0x00}; // the model's EEPROM MAC for 07:00.0

static struct ixy_device* open_device(struct model_ixgbe* nic, uint16_t rx_queues, int32_t timeout_ms) {
	model_pci_offer_msix(model_ixgbe_pci(nic), true);
	struct ixy_config config = {
	    .pci_addr = NIC_ADDR, .rx_queues = rx_queues, .tx_queues = 1, .interrupt_timeout_ms = timeout_ms};
	struct ixy_device* dev = ixy_init_config(&config);
	model_advance_us(1000000); // the link is up now
	return dev;
}

static void inject(struct model_ixgbe* nic, uint16_t queue, uint32_t seq) {
	uint8_t frame[60];
	model_test_frame(frame, sizeof(frame), nic_mac, seq);
	CHECK_EQ(model_ixgbe_inject_rx(nic, queue, frame, sizeof(frame)), MODEL_RX_DELIVERED);
}

// Reads and resets an eventfd: the number of messages since the last read (0 if none).
static uint64_t drain(int fd) {
	uint64_t count = 0;
	if (read(fd, &count, sizeof(count)) != sizeof(count)) {
		CHECK_EQ(errno, EAGAIN);
		return 0;
	}
	return count;
}

// Takes every packet waiting in a queue and frees it; returns how many there were.
static uint32_t take_all(struct ixy_device* dev, uint16_t queue) {
	struct pkt_buf* bufs[32];
	uint32_t total = 0, n;
	while ((n = ixy_rx_batch(dev, queue, bufs, 32)) > 0) {
		for (uint32_t i = 0; i < n; i++) {
			pkt_buf_free(bufs[i]);
		}
		total += n;
	}
	return total;
}

// GPIE, IVAR and auto-mask as 7.3 says; vector i belongs to RX queue i and fires only while armed, once.
static void test_vectors(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct model_pci_device* pci = model_ixgbe_pci(nic);
	struct ixy_device* dev = open_device(nic, 3, 100);
	CHECK(dev != NULL && dev->interrupts != NULL);
	if (!dev || !dev->interrupts) {
		ixy_close(dev);
		model_pci_remove_all();
		return;
	}
	const struct ixy_interrupts* irq = dev->interrupts;
	CHECK_EQ(irq->timeout_ms, 100);
	uint32_t gpie = model_ixgbe_peek(nic, REG_GPIE);
	CHECK((gpie & (1u << 4)) && (gpie & (1u << 30))); // Multiple_MSIX, EIAME
	CHECK_EQ(model_ixgbe_peek(nic, REG_IVAR(0)), (0x80u | 0) | (0x80u | 1) << 16);
	CHECK_EQ(model_ixgbe_peek(nic, REG_IVAR(1)) & 0x00FF00FFu, 0x80u | 2);
	CHECK_EQ(model_ixgbe_peek(nic, REG_EIAM_EX(0)) & 7u, 7u);
	for (uint16_t q = 0; q < 3; q++) {
		CHECK_EQ(model_ixgbe_peek(nic, REG_EITR(q)), DOCUMENTED_EITR);
	}
	// disarmed: packets on every queue, no message, but each queue's cause is latched in EICR
	for (uint16_t q = 0; q < 3; q++) {
		inject(nic, q, q);
	}
	for (unsigned v = 0; v < 3; v++) {
		CHECK_EQ(model_pci_msix_count(pci, v), 0);
		CHECK_EQ(drain(irq->rx_fds[v]), 0);
	}
	CHECK_EQ(model_ixgbe_peek(nic, REG_EICR) & 7u, 7u);
	// the driver's arming of queue 1 clears its latched cause first (EICR is write-1-to-clear, 8.2.3.5.1): no
	// message
	irq->set_rx_interrupt(dev, 1, true);
	CHECK_EQ(model_pci_msix_count(pci, 1), 0);
	CHECK_EQ(drain(irq->rx_fds[1]), 0);
	CHECK_EQ(model_ixgbe_peek(nic, REG_EICR) & 7u, 5u);
	irq->set_rx_interrupt(dev, 1, false);
	// the model: enabling vector 1 (behind the driver's back) with its cause latched fires it at once (7.3.1); the
	// message clears the cause (EIAC)
	inject(nic, 1, 21);
	CHECK_EQ(model_pci_msix_count(pci, 1), 0);
	model_ixgbe_write(nic, REG_EIMS_EX(0), 1u << 1);
	CHECK_EQ(model_pci_msix_count(pci, 1), 1);
	CHECK_EQ(drain(irq->rx_fds[1]), 1);
	CHECK_EQ(model_ixgbe_peek(nic, REG_EICR) & 7u, 5u);
	// vector 1 masked itself: more packets latch its cause again but send nothing; queue 0 is not armed
	inject(nic, 1, 11);
	inject(nic, 0, 10);
	CHECK_EQ(model_pci_msix_count(pci, 1), 1);
	CHECK_EQ(model_pci_msix_count(pci, 0), 0);
	// EITR: armed again within 50 us of its message (the arming clears the cause of packet 11), vector 1 holds the
	// cause of a new packet until the interval's end (the model sends at the first access after it: here a frame on
	// queue 2, whose vector is not armed)
	model_advance_us(48);
	irq->set_rx_interrupt(dev, 1, true);
	inject(nic, 1, 12);
	CHECK_EQ(model_pci_msix_count(pci, 1), 1);
	model_advance_us(2);
	inject(nic, 2, 13);
	CHECK_EQ(model_pci_msix_count(pci, 1), 2);
	CHECK_EQ(drain(irq->rx_fds[1]), 1);
	// long after the last message, with no cause latched: a packet on an armed queue fires at once
	model_advance_us(1000);
	irq->set_rx_interrupt(dev, 1, true);
	CHECK_EQ(model_pci_msix_count(pci, 1), 2);
	inject(nic, 1, 14);
	CHECK_EQ(model_pci_msix_count(pci, 1), 3);
	// queue 2's cause is latched (packets 2 and 13): arming clears it, nothing fires; armed and disarmed again
	// before a packet: nothing
	CHECK_EQ(model_pci_msix_count(pci, 2), 0);
	irq->set_rx_interrupt(dev, 2, true);
	CHECK_EQ(model_pci_msix_count(pci, 2), 0);
	irq->set_rx_interrupt(dev, 2, false);
	model_advance_us(1000);
	irq->set_rx_interrupt(dev, 2, true);
	irq->set_rx_interrupt(dev, 2, false);
	inject(nic, 2, 15);
	CHECK_EQ(model_pci_msix_count(pci, 2), 0);
	CHECK_EQ(model_pci_msix_count(pci, 0), 0);
	CHECK_EQ(model_ixgbe_counters(nic).msix_messages, 3);
	CHECK_EQ(take_all(dev, 0) + take_all(dev, 1) + take_all(dev, 2), 10);
	// the reset of ixy_stop masks everything
	irq->set_rx_interrupt(dev, 0, true);
	ixy_stop(dev);
	CHECK_EQ(model_ixgbe_peek(nic, REG_GPIE), 0);
	ixy_close(dev);
	CHECK_EQ(seam_dma_live_allocations(), 0);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// Without interrupt_timeout_ms the driver polls, MSI-X offered or not. With it but no MSI-X to be had (under VFIO: a
// device without the capability), the device is polled too, and one line says so: the app that asked to wait keeps
// working, its waiter never sleeps.
static void test_polling_without_msix(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_device* dev = open_device(nic, 1, 0);
	CHECK(dev != NULL && dev->interrupts == NULL);
	ixy_close(dev);
	model_pci_offer_msix(model_ixgbe_pci(nic), false);
	// what init prints on stderr goes to a file, to be read back
	FILE* log = tmpfile();
	int saved_stderr = dup(STDERR_FILENO);
	CHECK(log != NULL && saved_stderr >= 0);
	if (!log || saved_stderr < 0) {
		model_pci_remove_all();
		return;
	}
	fflush(stderr);
	CHECK(dup2(fileno(log), STDERR_FILENO) >= 0);
	struct ixy_config config = {.pci_addr = NIC_ADDR, .rx_queues = 1, .tx_queues = 1, .interrupt_timeout_ms = 10};
	dev = ixy_init_config(&config);
	fflush(stderr);
	CHECK(dup2(saved_stderr, STDERR_FILENO) >= 0);
	close(saved_stderr);
	char printed[4096] = "";
	rewind(log);
	size_t len = fread(printed, 1, sizeof(printed) - 1, log);
	printed[len] = '\0';
	fclose(log);
	fputs(printed, stderr);
	CHECK(strstr(printed, "ixy: " NIC_ADDR ": no MSI-X vector for each of its 1 RX queue(s): it is polled\n") !=
	      NULL);
	CHECK(dev != NULL && dev->interrupts == NULL);
	struct ixy_waiter* waiter = dev ? ixy_waiter_create() : NULL;
	CHECK(waiter != NULL && ixy_waiter_add(waiter, dev, 0) == 0);
	if (waiter) {
		// A queue the device does not have: the message says so, not that a waiter has a limit.
		model_test_capture_start();
		CHECK_EQ(ixy_waiter_add(waiter, dev, 1), -1);
		char* bad_queue = model_test_capture_end();
		CHECK(strstr(bad_queue, "RX queue 1 cannot be watched: the device has 1 RX queue(s)") != NULL);
		free(bad_queue);
		model_advance_us(1000000);
		inject(nic, 0, 1);
		uint32_t received = 0;
		bool slept = false;
		for (uint32_t round = 0; round < 100000 && !slept; round++) {
			uint32_t n = take_all(dev, 0);
			received += n;
			slept = ixy_waiter_round(waiter, n);
		}
		CHECK(!slept);
		CHECK_EQ(received, 1);
		CHECK_EQ(model_pci_msix_count(model_ixgbe_pci(nic), 0), 0);
	}
	ixy_waiter_destroy(waiter);
	ixy_close(dev);
	CHECK_EQ(seam_dma_live_allocations(), 0);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// A waiter on RX queue 0 of dev, an open device with interrupts; NULL (and dev closed, the models removed) if there is
// none.
static struct ixy_waiter* waiter_on_queue_0(struct ixy_device* dev) {
	CHECK(dev != NULL && dev->interrupts != NULL);
	struct ixy_waiter* waiter = ixy_waiter_create();
	CHECK(waiter != NULL);
	if (!dev || !dev->interrupts || !waiter || ixy_waiter_add(waiter, dev, 0) != 0) {
		ixy_waiter_destroy(waiter);
		ixy_close(dev);
		model_pci_remove_all();
		return NULL;
	}
	return waiter;
}

// The waiter's line (ixy_waiter_print), malloc'd, or NULL.
static char* waiter_line(const struct ixy_waiter* waiter) {
	char* printed = NULL;
	size_t printed_len = 0;
	FILE* out = open_memstream(&printed, &printed_len);
	CHECK(out != NULL);
	if (!out) {
		return NULL;
	}
	ixy_waiter_print(out, "test", waiter);
	fclose(out);
	return printed;
}

// The race of arming: a packet that arrives after the app's last poll but before its queue is armed. The test makes
// one arrive exactly then (a wrapper around set_rx_interrupt injects it just before the arming); the waiter's last
// look after arming must find it, and the waiter must not sleep. (On the 82599 the packet's cause is latched, but the
// driver clears it as it arms, as VirtIO's device forgets it: only the last look finds the packet, and no message
// is left to end the next sleep at once.)
static struct model_ixgbe* race_nic;
static void (*original_set_rx_interrupt)(struct ixy_device*, uint16_t, bool);
static unsigned armings;

static void set_rx_interrupt_late_packet(struct ixy_device* dev, uint16_t queue_id, bool armed) {
	if (armed && armings++ == 0) {
		inject(race_nic, queue_id, 99); // still masked: no interrupt
	}
	original_set_rx_interrupt(dev, queue_id, armed);
}

static void test_packet_just_before_arming(void) {
	model_test_begin(__func__);
	race_nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_device* dev = open_device(race_nic, 1, 2000); // a missed packet would sleep 2 s
	struct ixy_waiter* waiter = waiter_on_queue_0(dev);
	if (!waiter) {
		return;
	}
	original_set_rx_interrupt = dev->interrupts->set_rx_interrupt;
	dev->interrupts->set_rx_interrupt = set_rx_interrupt_late_packet;
	uint32_t received = 0;
	bool slept = false;
	// The app's loop: poll, tell the waiter. Idle for a while, then the waiter arms; the packet comes in between.
	for (uint32_t round = 0; round < 100000000 && received == 0 && !slept; round++) {
		uint32_t n = take_all(dev, 0);
		received += n;
		slept = ixy_waiter_round(waiter, n);
	}
	CHECK_EQ(armings, 1);
	CHECK_EQ(received, 1);
	CHECK(!slept);
	CHECK_EQ(model_pci_msix_count(model_ixgbe_pci(race_nic), 0), 0); // the arming cleared its latched cause
	CHECK_EQ(drain(dev->interrupts->rx_fds[0]), 0);                  // and no message waits
	char* printed = waiter_line(waiter);
	if (printed) {
		CHECK(strstr(printed, "waiter app=test slept=0 ") != NULL);
		CHECK(strstr(printed, " packet_before_sleep=1 ") != NULL);
	}
	free(printed);
	ixy_waiter_destroy(waiter);
	ixy_close(dev);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// An idle app costs one wake-up per timeout (src/interrupts.c), also right after traffic: the packets it polled
// while the vector was masked latched the queue's cause, and the driver clears it as it arms, so the first sleep
// lasts until the timeout instead of ending at once on a message for packets already taken.
static void test_first_sleep_after_traffic(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_device* dev = open_device(nic, 1, 20);
	struct ixy_waiter* waiter = waiter_on_queue_0(dev);
	if (!waiter) {
		return;
	}
	for (uint32_t seq = 0; seq < 3; seq++) {
		inject(nic, 0, seq);
	}
	CHECK_EQ(model_ixgbe_peek(nic, REG_EICR) & 1u, 1u); // latched, the vector masked
	uint32_t received = 0;
	bool slept = false;
	for (uint32_t round = 0; round < 100000000 && !slept; round++) {
		uint32_t n = take_all(dev, 0);
		received += n;
		slept = ixy_waiter_round(waiter, n);
	}
	CHECK(slept);
	CHECK_EQ(received, 3);
	CHECK_EQ(model_pci_msix_count(model_ixgbe_pci(nic), 0), 0);
	char* printed = waiter_line(waiter);
	if (printed) {
		printf("%s", printed);
		CHECK(strstr(printed, "waiter app=test slept=1 timeouts=1 ") != NULL);
		CHECK(strstr(printed, " interrupts/" NIC_ADDR "/0=0\n") != NULL);
	}
	free(printed);
	ixy_waiter_destroy(waiter);
	ixy_close(dev);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// Issue 34: a stop signal that comes just before the waiter sleeps (here: in its before_sleep hook, after the app's
// loop looked at the flag) interrupts nothing; with the app's flag given (ixy_waiter_stop_on), the sleep still ends
// at once instead of at the timeout (3 s here, up to 60 s with --wait): no timeout is counted.
static atomic_int test_stop;

static void stop_just_before_sleep(void* arg) {
	(void)arg;
	test_stop = SIGTERM;
}

static void test_stop_just_before_sleep(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_device* dev = open_device(nic, 1, 3000);
	struct ixy_waiter* waiter = waiter_on_queue_0(dev);
	if (!waiter) {
		return;
	}
	ixy_waiter_stop_on(waiter, &test_stop);
	ixy_waiter_before_sleep(waiter, stop_just_before_sleep, NULL);
	bool slept = false;
	for (uint32_t round = 0; round < 100000000 && !slept && !test_stop; round++) {
		slept = ixy_waiter_round(waiter, take_all(dev, 0));
	}
	CHECK(slept);
	CHECK_EQ(test_stop, SIGTERM);
	char* printed = waiter_line(waiter);
	if (printed) {
		printf("%s", printed);
		CHECK(strstr(printed, "waiter app=test slept=1 timeouts=0 ") != NULL);
	}
	free(printed);
	ixy_waiter_destroy(waiter);
	ixy_close(dev);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

int main(void) {
	test_vectors();
	test_polling_without_msix();
	test_packet_just_before_arming();
	test_first_sleep_after_traffic();
	test_stop_just_before_sleep();
	return model_test_summary();
}
