// Memory pools: a fixed number of fixed-size packet buffers in DMA memory, the free ones kept on a stack.
// A stack (not a queue) hands out the buffer freed last, which is likely still in the CPU cache.
#include <stdlib.h>

#include <ixy/memory.h>

#include "dma_provider.h" // memory_device_address
#include "log.h"

// 2 KiB of packet data plus the metadata line. Not a power of two on purpose: buffers 2048 or 4096 bytes apart all
// map to the same few L1 cache sets, and their metadata lines would keep evicting each other (see docs/benchmark.md).
#define DEFAULT_BUF_SIZE (2048 + 64)
// The most buffers a pool takes: 16 Mi, 32 GiB of packet buffers and a free stack of 128 MiB (ixy's largest pools
// hold about 16 Ki). Far more could not be had, and near 2^32 the sizes would wrap.
#define MAX_ENTRIES (1u << 24)

// 0 with a message for a pool ixy cannot lay out: no buffers or more than MAX_ENTRIES, buffers not of whole 64 byte
// lines or without a line of data, or larger than a huge page (a buffer never spans two).
uint32_t memory_mempool_huge_pages(uint32_t num_entries, uint32_t buf_size) {
	buf_size = buf_size ? buf_size : DEFAULT_BUF_SIZE;
	if (num_entries == 0 || num_entries > MAX_ENTRIES) {
		ixy_error("mempool of %u buffers: needs 1 to %u buffers", num_entries, MAX_ENTRIES);
		return 0;
	}
	if (buf_size % 64 != 0 || buf_size < sizeof(struct pkt_buf) + 64 || buf_size > IXY_HUGE_PAGE_SIZE) {
		ixy_error("mempool of %u buffers of %u bytes: needs buffers of whole 64 byte lines, 128 bytes to 2 MiB",
			  num_entries, buf_size);
		return 0;
	}
	uint32_t bufs_per_page = IXY_HUGE_PAGE_SIZE / buf_size;
	return (num_entries + bufs_per_page - 1) / bufs_per_page;
}

// Buffers of a page never span two huge pages: those need not be physically contiguous.
struct mempool* memory_mempool_in(const struct dma_memory* mem, uint32_t num_entries, uint32_t buf_size, size_t first,
				  size_t stride) {
	buf_size = buf_size ? buf_size : DEFAULT_BUF_SIZE;
	if (memory_mempool_huge_pages(num_entries, buf_size) == 0) { // the sizes it refuses, with its message
		return NULL;
	}
	// Each page's buffers, stride apart from first, end inside the page, and the last buffer inside mem.
	size_t per_page = stride >= buf_size && stride <= IXY_HUGE_PAGE_SIZE ? IXY_HUGE_PAGE_SIZE / stride : 0;
	size_t last = num_entries - 1;
	if (per_page == 0 || first + (per_page - 1) * stride + buf_size > IXY_HUGE_PAGE_SIZE ||
	    last / per_page * IXY_HUGE_PAGE_SIZE + first + last % per_page * stride + buf_size > mem->size) {
		ixy_error("mempool of %u buffers of %u bytes, %zu apart from %zu: does not fit %zu bytes of memory",
			  num_entries, buf_size, stride, first, mem->size);
		return NULL;
	}
	struct mempool* mempool = calloc(1, sizeof(*mempool) + num_entries * sizeof(mempool->free_stack[0]));
	if (!mempool) {
		ixy_error("out of memory for a mempool of %u buffers", num_entries);
		return NULL;
	}
	*mempool = (struct mempool){
	    .dma = *mem, .buf_size = buf_size, .num_entries = num_entries, .free_stack_top = num_entries};
	uintptr_t page_device = 0;
	for (uint32_t i = 0; i < num_entries; i++) {
		size_t page = i / per_page * IXY_HUGE_PAGE_SIZE, offset = first + i % per_page * stride;
		// Each huge page is physically contiguous: translate once per page.
		if (i % per_page == 0 && (page_device = memory_device_address((uint8_t*)mem->virt + page)) == 0) {
			free(mempool);
			return NULL;
		}
		struct pkt_buf* buf = (struct pkt_buf*)((uint8_t*)mem->virt + page + offset);
		*buf = (struct pkt_buf){.buf_addr_phy = page_device + offset, .mempool = mempool, .mempool_idx = i};
		// The stack is filled so that buffer 0 is handed out first.
		mempool->free_stack[num_entries - 1 - i] = buf;
	}
	return mempool;
}

// Checks the sizes (memory_mempool_huge_pages), takes the huge pages, lays the buffers out in them.
struct mempool* memory_allocate_mempool(uint32_t num_entries, uint32_t buf_size) {
	buf_size = buf_size ? buf_size : DEFAULT_BUF_SIZE;
	uint32_t pages = memory_mempool_huge_pages(num_entries, buf_size);
	struct dma_memory mem;
	if (pages == 0 || memory_allocate_dma((size_t)pages * IXY_HUGE_PAGE_SIZE, false, &mem) != 0) {
		return NULL;
	}
	struct mempool* mempool = memory_mempool_in(&mem, num_entries, buf_size, 0, buf_size);
	if (!mempool) {
		memory_free_dma(&mem);
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
