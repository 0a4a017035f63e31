// Memory pools: a fixed number of fixed-size packet buffers in DMA memory, the free ones kept on a stack.
// A stack (not a queue) hands out the buffer freed last, which is likely still in the CPU cache.
#include <stdlib.h>

#include <ixy/memory.h>

#include "access.h"
#include "log.h"

// 2 KiB of packet data plus the metadata line. Not a power of two on purpose: buffers 2048 or 4096 bytes apart all
// map to the same few L1 cache sets, and their metadata lines would keep evicting each other (see docs/benchmark.md).
#define DEFAULT_BUF_SIZE (2048 + 64)

uint32_t memory_mempool_huge_pages(uint32_t num_entries, uint32_t buf_size) {
	uint32_t bufs_per_page = IXY_HUGE_PAGE_SIZE / (buf_size ? buf_size : DEFAULT_BUF_SIZE);
	return (num_entries + bufs_per_page - 1) / bufs_per_page;
}

struct mempool* memory_allocate_mempool(uint32_t num_entries, uint32_t buf_size) {
	buf_size = buf_size ? buf_size : DEFAULT_BUF_SIZE;
	if (num_entries == 0 || buf_size % 64 != 0 || buf_size < sizeof(struct pkt_buf) + 64 ||
	    buf_size > IXY_HUGE_PAGE_SIZE) {
		ixy_error("mempool of %u buffers of %u bytes: needs buffers of whole 64 byte lines, 128 bytes to 2 MiB",
			  num_entries, buf_size);
		return NULL;
	}
	struct mempool* mempool = calloc(1, sizeof(*mempool) + num_entries * sizeof(mempool->free_stack[0]));
	if (!mempool) {
		ixy_error("out of memory for a mempool of %u buffers", num_entries);
		return NULL;
	}
	// Buffers are laid out page by page, none spans two huge pages: those need not be physically contiguous.
	uint32_t bufs_per_page = IXY_HUGE_PAGE_SIZE / buf_size;
	size_t num_pages = memory_mempool_huge_pages(num_entries, buf_size);
	if (memory_allocate_dma(num_pages * IXY_HUGE_PAGE_SIZE, false, &mempool->dma) != 0) {
		free(mempool);
		return NULL;
	}
	mempool->buf_size = buf_size;
	mempool->num_entries = num_entries;
	mempool->free_stack_top = num_entries;
	uintptr_t page_phy = 0;
	for (uint32_t i = 0; i < num_entries; i++) {
		uint8_t* page = (uint8_t*)mempool->dma.virt + (size_t)(i / bufs_per_page) * IXY_HUGE_PAGE_SIZE;
		size_t offset_in_page = (size_t)(i % bufs_per_page) * buf_size;
		// Each huge page is physically contiguous: translate once per page.
		if (offset_in_page == 0 && (page_phy = memory_device_address(page)) == 0) {
			memory_free_mempool(mempool);
			return NULL;
		}
		struct pkt_buf* buf = (struct pkt_buf*)(page + offset_in_page);
		buf->buf_addr_phy = page_phy + offset_in_page;
		buf->mempool = mempool;
		buf->mempool_idx = i;
		buf->size = 0;
		// The stack is filled so that buffer 0 is handed out first.
		mempool->free_stack[num_entries - 1 - i] = buf;
	}
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
	num_bufs = num_bufs < mempool->free_stack_top ? num_bufs : mempool->free_stack_top;
	// bufs[0] is the top of the stack: the buffer freed last (warm in cache).
	struct pkt_buf** top = &mempool->free_stack[mempool->free_stack_top];
	for (uint32_t i = 0; i < num_bufs; i++) {
		bufs[i] = *(top - 1 - i);
	}
	mempool->free_stack_top -= num_bufs;
	return num_bufs;
}

struct pkt_buf* pkt_buf_alloc(struct mempool* mempool) {
	// __builtin_expect: the pool is rarely empty, so the compiler puts the pop on the straight path.
	return __builtin_expect(mempool->free_stack_top > 0, 1) ? mempool->free_stack[--mempool->free_stack_top] : NULL;
}

void pkt_buf_free(struct pkt_buf* buf) {
	struct mempool* mempool = buf->mempool;
	if (mempool->free_stack_top >= mempool->num_entries) {
		// More frees than buffers: some buffer was freed twice. Continuing would corrupt the stack.
		ixy_panic("buffer %u freed to a full mempool (freed twice?)", buf->mempool_idx);
	}
	mempool->free_stack[mempool->free_stack_top++] = buf;
}

void pkt_buf_free_batch(struct pkt_buf* bufs[], uint32_t num_bufs) {
	for (uint32_t i = 0; i < num_bufs; i++) {
		pkt_buf_free(bufs[i]);
	}
}
