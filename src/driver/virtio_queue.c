// What both virtqueue layouts of the VirtIO driver share at run time (virtio_queue.h): a queue's memory, and the
// report of used entries the device got wrong. virtio.c (split, and the device) and virtio_packed.c (packed) call
// these; neither calls the other's packet path.
#include <stdlib.h>

#include "virtio_queue.h"

// Counts a used ring entry the device got wrong, in the queue (its thread's); the first one of each queue is
// reported, later ones only counted. cold: a rare call, so the packet loops that may call it keep their values in
// registers rather than around it.
__attribute__((cold)) void virtio_bad_used_entry(const struct virtio_device* dev, struct virtqueue* q, const char* what,
						 uint32_t id, uint32_t len) {
	if (q->bad_used_entries++ == 0) {
		ixy_warn("%s: virtqueue %u: the device returned %s (id %u, length %u): ignored. Reported once per "
			 "queue; the count is printed at close, RX ones are also counted as RX dropped",
			 dev->ixy.pci_addr, q->index, what, id, len);
	}
}

// Allocates the queue's DMA memory, `bytes` of it in one block (the legacy interface needs the rings physically
// contiguous: one huge page, which holds the largest queue), and for RX and TX the buffer of each chain; RX also
// the batch that last took each chain in any order, TX room for a stack of the chains the device does not hold.
int virtio_alloc_queue(const struct virtio_device* dev, struct virtqueue* q, size_t bytes) {
	if (memory_allocate_dma(bytes, true, &q->mem) != 0) {
		return -1;
	}
	bool out_of_memory = false;
	if (q->kind != QUEUE_CTRL) {
		q->bufs = calloc(q->num_chains, sizeof(*q->bufs));
		out_of_memory |= !q->bufs;
	}
	if (q->kind == QUEUE_RX) {
		q->taken_in = calloc(q->num_chains, sizeof(*q->taken_in));
		out_of_memory |= !q->taken_in;
	}
	if (q->kind == QUEUE_TX) {
		q->free_chains = calloc(q->num_chains, sizeof(*q->free_chains));
		out_of_memory |= !q->free_chains;
	}
	if (out_of_memory) {
		ixy_error("%s: out of memory for virtqueue %u", dev->ixy.pci_addr, q->index);
		return -1;
	}
	return 0;
}
