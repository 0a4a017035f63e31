// Memory pools: a fixed number of fixed-size packet buffers in DMA memory, the free ones kept on a stack.
// A stack (not a queue) hands out the buffer freed last, which is likely still in the CPU cache.
#include <stdlib.h>

#include <ixy/memory.h>

#include "log.h"

#define DEFAULT_BUF_SIZE 2048

struct mempool* memory_allocate_mempool(uint32_t num_entries, uint32_t buf_size) {
	if (buf_size == 0) {
		buf_size = DEFAULT_BUF_SIZE;
	}
	if (num_entries == 0 || buf_size < sizeof(struct pkt_buf) + 64 || IXY_HUGE_PAGE_SIZE % buf_size != 0) {
		ixy_error(
		    "cannot make a mempool of %u buffers of %u bytes: needs at least one buffer, and the size must "
		    "divide the huge page size (%u) and hold 64 bytes of packet data",
		    num_entries, buf_size, IXY_HUGE_PAGE_SIZE);
		return NULL;
	}
	struct mempool* mempool = calloc(1, sizeof(*mempool) + num_entries * sizeof(mempool->free_stack[0]));
	if (!mempool) {
		ixy_error("out of memory for a mempool of %u buffers", num_entries);
		return NULL;
	}
	if (memory_allocate_dma((size_t)num_entries * buf_size, false, &mempool->dma) != 0) {
		free(mempool);
		return NULL;
	}
	mempool->buf_size = buf_size;
	mempool->num_entries = num_entries;
	// Huge pages need not be contiguous with each other, but each one is: translate once per page.
	uint8_t* base = mempool->dma.virt;
	uintptr_t page_phy = 0;
	for (uint32_t i = 0; i < num_entries; i++) {
		size_t offset = (size_t)i * buf_size;
		if (offset % IXY_HUGE_PAGE_SIZE == 0) {
			page_phy = virt_to_phys(base + offset);
			if (page_phy == 0) {
				memory_free_mempool(mempool);
				return NULL;
			}
		}
		struct pkt_buf* buf = (struct pkt_buf*)(base + offset);
		buf->buf_addr_phy = page_phy + offset % IXY_HUGE_PAGE_SIZE;
		buf->mempool = mempool;
		buf->mempool_idx = i;
		buf->size = 0;
		// The stack is filled so that buffer 0 is handed out first.
		mempool->free_stack[i] = num_entries - 1 - i;
	}
	mempool->free_stack_top = num_entries;
	return mempool;
}

void memory_free_mempool(struct mempool* mempool) {
	if (!mempool) {
		return;
	}
	if (mempool->free_stack_top != mempool->num_entries) {
		ixy_warn("freeing a mempool while %u of its %u buffers are in use (leaked, or still held)",
			 mempool->num_entries - mempool->free_stack_top, mempool->num_entries);
	}
	memory_free_dma(&mempool->dma);
	free(mempool);
}

uint32_t pkt_buf_alloc_batch(struct mempool* mempool, struct pkt_buf* bufs[], uint32_t num_bufs) {
	if (num_bufs > mempool->free_stack_top) {
		num_bufs = mempool->free_stack_top;
	}
	uint8_t* base = mempool->dma.virt;
	for (uint32_t i = 0; i < num_bufs; i++) {
		uint32_t idx = mempool->free_stack[--mempool->free_stack_top];
		bufs[i] = (struct pkt_buf*)(base + (size_t)idx * mempool->buf_size);
	}
	return num_bufs;
}

struct pkt_buf* pkt_buf_alloc(struct mempool* mempool) {
	struct pkt_buf* buf = NULL;
	pkt_buf_alloc_batch(mempool, &buf, 1);
	return buf;
}

void pkt_buf_free(struct pkt_buf* buf) {
	struct mempool* mempool = buf->mempool;
	if (mempool->free_stack_top >= mempool->num_entries) {
		// More frees than buffers: some buffer was freed twice. Continuing would corrupt the stack.
		ixy_panic("buffer %u freed to a full mempool (freed twice?)", buf->mempool_idx);
	}
	mempool->free_stack[mempool->free_stack_top++] = buf->mempool_idx;
}
