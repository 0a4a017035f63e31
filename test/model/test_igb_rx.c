// igb_rx_batch (src/driver/igb.c) against a device that sets DD without EOP on every descriptor: a broken device, or
// one that keeps reporting parts of a frame larger than a buffer. The driver drops each such descriptor and gives it
// back, so `received` does not grow: only a bound of its own ends the call. A device that sets DD again as soon as a
// descriptor is given back would keep an unbounded driver in one call forever; here the ring is set once, and the
// test counts the descriptors one call looks at: up to the ring's end, and at most the ring_size - 1 the device may
// fill.
//
// igb has no device model (test/model models the 82599 and VirtIO). So this test includes the driver's source for
// its static igb_rx_batch and builds the device struct by hand: a ring in ordinary memory, buffers from a real
// mempool, and a BAR0 from the PCI model whose only modelled register is RDT (the tail the driver writes).
#define igb_driver igb_driver_under_test // the library's own igb.c defines igb_driver too
#include "driver/igb.c"

#include "../check.h"
#include "model.h"

#define NIC_ADDR "0000:05:00.0"
#define RING_SIZE 64
#define DESCRIPTOR_LENGTH 64 // a valid length: only the missing EOP makes the driver drop the descriptor

static uint32_t rdt_writes, rdt;

static void bar_write32(void* model, uint32_t reg, uint32_t value) {
	(void)model;
	if (reg == IGB_RDT(0)) {
		rdt_writes++;
		rdt = value;
	}
}

static const struct model_pci_ops bar_ops = {.write32 = bar_write32};

// The device struct igb_init would build for one RX queue of RING_SIZE descriptors, each with a buffer.
static struct igb_device dev;
static union intel_adv_rx_desc ring[RING_SIZE] __attribute__((aligned(128)));
static struct pkt_buf* ring_bufs[RING_SIZE];

static struct pci_device* open_device(void) {
	model_pci_add(NIC_ADDR, 0x8086, 0x10c9, 0x020000, &bar_ops, NULL);
	struct pci_device* pci = pci_sysfs_access.open(NIC_ADDR);
	dev.bar = pci && pci_map_bar0(pci) == 0 ? pci->bar0 : NULL;
	dev.ring_size = RING_SIZE;
	struct igb_rx_queue* queue = &dev.rx_queues[0];
	queue->descriptors = ring;
	queue->bufs = ring_bufs;
	queue->mempool = memory_allocate_mempool(2 * RING_SIZE, RX_BUF_SIZE);
	CHECK(dev.bar != NULL && queue->mempool != NULL);
	if (queue->mempool) {
		pkt_buf_alloc_batch(queue->mempool, ring_bufs, RING_SIZE);
		rx_give_buffers(queue, 0, RING_SIZE);
	}
	return pci;
}

static void close_device(struct pci_device* pci) {
	struct igb_rx_queue* queue = &dev.rx_queues[0];
	for (uint32_t i = 0; queue->mempool && i < RING_SIZE; i++) {
		pkt_buf_free(ring_bufs[i]);
	}
	memory_free_mempool(queue->mempool);
	pci_close(pci);
	model_pci_remove_all();
}

// The device "writes back" every descriptor: DD, no EOP.
static void set_dd_everywhere(void) {
	for (uint32_t i = 0; i < RING_SIZE; i++) {
		ring[i].wb.status_error = ADV_RXD_STAT_DD;
		ring[i].wb.length = DESCRIPTOR_LENGTH;
	}
}

// Descriptors the driver looked at: it gave each back in read format, which clears the status (hdr_addr is 0).
static uint32_t descriptors_looked_at(void) {
	uint32_t n = 0;
	for (uint32_t i = 0; i < RING_SIZE; i++) {
		n += !(ring[i].wb.status_error & ADV_RXD_STAT_DD);
	}
	return n;
}

static void test_one_call_looks_at_most_at_the_ring(uint16_t start) {
	struct pci_device* pci = open_device();
	struct igb_rx_queue* queue = &dev.rx_queues[0];
	queue->rx_index = start;
	uint32_t free_before = queue->mempool ? queue->mempool->free_stack_top : 0;
	set_dd_everywhere();
	rdt_writes = 0;
	struct pkt_buf* bufs[32];
	uint32_t received = igb_rx_batch(&dev.ixy, 0, bufs, 32);
	CHECK_EQ(received, 0);
	// A call stops at the ring's end (the next one starts at 0), and never looks at all RING_SIZE descriptors:
	// without that bound the driver goes on around the ring (and, with a device that sets DD again behind it,
	// never stops).
	uint32_t expected = start ? RING_SIZE - start : RING_SIZE - 1;
	CHECK_EQ(descriptors_looked_at(), expected);
	// It continues where it stopped, and the tail gives the device all descriptors it looked at.
	CHECK_EQ(queue->rx_index, (start + expected) % RING_SIZE);
	CHECK_EQ(rdt_writes, 1);
	CHECK_EQ(rdt, start + expected - 1);
	// Dropped descriptors keep their buffers: nothing taken from the pool, nothing lost.
	CHECK_EQ(queue->mempool ? queue->mempool->free_stack_top : 0, free_before);
	CHECK(queue->in_multi_desc_packet);
	CHECK_EQ(queue->dropped, 0); // no EOP: no frame has ended, none is counted as dropped yet
	close_device(pci);
	dev = (struct igb_device){0};
}

// A queue number beyond the device's queues (issue 34): ixy_rx_batch refuses it before the driver (which would take
// the queue's struct behind the one set up: no ring) sees it, and the ring of queue 0 stays untouched.
static void test_queue_out_of_range(void) {
	struct pci_device* pci = open_device();
	dev.ixy = (struct ixy_device){.pci_addr = NIC_ADDR,
				      .num_rx_queues = 1,
				      .num_tx_queues = 1,
				      .rx_batch = igb_rx_batch,
				      .tx_batch = igb_tx_batch};
	set_dd_everywhere();
	rdt_writes = 0;
	struct pkt_buf* bufs[32];
	CHECK_EQ(ixy_rx_batch(&dev.ixy, 1, bufs, 32), 0);
	CHECK_EQ(ixy_rx_batch(&dev.ixy, IGB_MAX_QUEUES, bufs, 32), 0);
	CHECK_EQ(ixy_tx_batch(&dev.ixy, 1, bufs, 0), 0);
	CHECK_EQ(descriptors_looked_at(), 0);
	CHECK_EQ(rdt_writes, 0);
	close_device(pci);
	dev = (struct igb_device){0};
}

int main(void) {
	test_queue_out_of_range();
	test_one_call_looks_at_most_at_the_ring(0);
	test_one_call_looks_at_most_at_the_ring(RING_SIZE / 2);
	test_one_call_looks_at_most_at_the_ring(RING_SIZE - 1);
	if (model_violation_count() > 0) {
		model_print_violations(stderr);
	}
	CHECK_EQ(model_violation_count(), 0);
	return check_summary();
}
