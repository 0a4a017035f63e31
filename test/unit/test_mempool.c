// Mempool: alloc/free, batches, exhaustion, LIFO order, buffer layout, double frees.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ixy/memory.h>

#include "../check.h"
#include "seam.h"

static void test_layout_and_single_alloc(void) {
	struct mempool* pool = memory_allocate_mempool(16, 2048);
	CHECK(pool != NULL);
	if (!pool) {
		return;
	}
	CHECK_EQ(pool->free_stack_top, 16);
	struct pkt_buf* buf = pkt_buf_alloc(pool);
	CHECK(buf != NULL);
	CHECK_EQ(pool->free_stack_top, 15);
	CHECK(buf->mempool == pool);
	CHECK_EQ((uintptr_t)buf->data - (uintptr_t)buf, 64);
	// In test builds the device address is the virtual address.
	CHECK_EQ(buf->buf_addr_phy, (uintptr_t)buf);
	CHECK((uint8_t*)buf == (uint8_t*)pool->dma.virt + (size_t)buf->mempool_idx * 2048);
	pkt_buf_free(buf);
	CHECK_EQ(pool->free_stack_top, 16);
	memory_free_mempool(pool);
	CHECK_EQ(seam_dma_live_allocations(), 0);
}

static void test_batch_and_exhaustion(void) {
	struct mempool* pool = memory_allocate_mempool(100, 0);
	CHECK(pool != NULL);
	if (!pool) {
		return;
	}
	CHECK_EQ(pool->buf_size, 2048 + 64); // the default: 2 KiB of data, not a power of two
	struct pkt_buf* bufs[128];
	CHECK_EQ(pkt_buf_alloc_batch(pool, bufs, 64), 64);
	CHECK_EQ(pkt_buf_alloc_batch(pool, bufs + 64, 64), 36);
	CHECK_EQ(pool->free_stack_top, 0);
	CHECK(pkt_buf_alloc(pool) == NULL);
	CHECK_EQ(pkt_buf_alloc_batch(pool, bufs, 5), 0);
	// All 100 distinct, all indices in range.
	int seen[100] = {0};
	for (int i = 0; i < 100; i++) {
		uint32_t idx = bufs[i]->mempool_idx;
		CHECK(idx < 100);
		seen[idx < 100 ? idx : 0] += idx < 100;
	}
	int distinct = 0;
	for (int i = 0; i < 100; i++) {
		distinct += seen[i] == 1;
	}
	CHECK_EQ(distinct, 100);
	for (int i = 0; i < 100; i++) {
		pkt_buf_free(bufs[i]);
	}
	CHECK_EQ(pool->free_stack_top, 100);
	memory_free_mempool(pool);
}

static void test_lifo(void) {
	struct mempool* pool = memory_allocate_mempool(8, 2048);
	struct pkt_buf* a = pkt_buf_alloc(pool);
	struct pkt_buf* b = pkt_buf_alloc(pool);
	pkt_buf_free(a);
	CHECK(pkt_buf_alloc(pool) == a); // the buffer freed last comes back first
	pkt_buf_free(b);
	pkt_buf_free(a);
	memory_free_mempool(pool);
}

static void test_buffers_spanning_pages(void) {
	// 3000 buffers of 2 KiB are three huge pages: every buffer keeps its own address and pool.
	struct mempool* pool = memory_allocate_mempool(3000, 2048);
	CHECK(pool != NULL);
	if (!pool) {
		return;
	}
	CHECK_EQ(pool->dma.size, 3 * IXY_HUGE_PAGE_SIZE);
	struct pkt_buf* bufs[3000];
	CHECK_EQ(pkt_buf_alloc_batch(pool, bufs, 3000), 3000);
	int ok = 1;
	for (int i = 0; i < 3000; i++) {
		ok &= bufs[i]->buf_addr_phy == (uintptr_t)bufs[i];
		ok &= bufs[i]->mempool == pool;
	}
	CHECK(ok);
	CHECK_EQ(pkt_buf_alloc_batch(pool, bufs, 1), 0);
	memory_free_mempool(pool);
}

static void test_buffers_never_span_pages(void) {
	// 3136 bytes (3 KiB of data): 668 buffers fit in a huge page, the rest of the page stays unused.
	struct mempool* pool = memory_allocate_mempool(1000, 3136);
	CHECK(pool != NULL);
	if (!pool) {
		return;
	}
	CHECK_EQ(pool->dma.size, 2 * IXY_HUGE_PAGE_SIZE);
	struct pkt_buf* bufs[1000];
	CHECK_EQ(pkt_buf_alloc_batch(pool, bufs, 1000), 1000);
	int inside_one_page = 0, distinct = 0;
	for (int i = 0; i < 1000; i++) {
		uintptr_t start = (uintptr_t)bufs[i] - (uintptr_t)pool->dma.virt;
		inside_one_page += start / IXY_HUGE_PAGE_SIZE == (start + 3136 - 1) / IXY_HUGE_PAGE_SIZE;
		distinct += i == 0 || bufs[i] != bufs[i - 1];
	}
	CHECK_EQ(inside_one_page, 1000);
	CHECK_EQ(distinct, 1000);
	CHECK((uintptr_t)bufs[668] - (uintptr_t)pool->dma.virt == IXY_HUGE_PAGE_SIZE); // buffer 668 opens page 2
	for (int i = 0; i < 1000; i++) {
		pkt_buf_free(bufs[i]);
	}
	CHECK_EQ(pool->free_stack_top, 1000);
	memory_free_mempool(pool);
}

// pkt_buf_free_batch returns each buffer to its own pool, also when the pools alternate within a batch.
static void test_free_batch_of_two_pools(void) {
	struct mempool* large = memory_allocate_mempool(8, 0);
	struct mempool* small = memory_allocate_mempool(8, 128);
	CHECK(large != NULL && small != NULL);
	if (!large || !small) {
		return;
	}
	struct pkt_buf* bufs[12];
	for (int i = 0; i < 12; i++) {
		CHECK_EQ(pkt_buf_alloc_batch(i % 3 ? large : small, &bufs[i], 1), 1);
	}
	CHECK_EQ(large->free_stack_top, 0);
	CHECK_EQ(small->free_stack_top, 4);
	pkt_buf_free_batch(bufs, 12);
	CHECK_EQ(large->free_stack_top, 8);
	CHECK_EQ(small->free_stack_top, 8);
	CHECK(large->free_stack[7] == bufs[11] && small->free_stack[7] == bufs[9]); // the last freed is on top
	pkt_buf_free_batch(bufs, 0);
	memory_free_mempool(large);
	memory_free_mempool(small);
}

// Runs free_twice(pool) in a child process; true if it was killed by the panic's abort().
static bool aborts(void (*free_twice)(struct mempool* pool)) {
	fflush(NULL);
	pid_t child = fork();
	if (child == 0) {
		struct mempool* pool = memory_allocate_mempool(4, 0);
		// The panic message is expected: stderr goes to /dev/null.
		if (pool && freopen("/dev/null", "w", stderr) != NULL) {
			free_twice(pool);
		}
		_exit(0);
	}
	int status = 0;
	CHECK(child > 0 && waitpid(child, &status, 0) == child);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static void free_one_twice(struct mempool* pool) {
	struct pkt_buf* buf = pkt_buf_alloc(pool);
	pkt_buf_free(buf);
	pkt_buf_free(buf);
}

static void free_one_twice_in_a_batch(struct mempool* pool) {
	struct pkt_buf* bufs[3];
	pkt_buf_alloc_batch(pool, bufs, 2);
	bufs[2] = bufs[0];
	pkt_buf_free_batch(bufs, 3);
}

// A buffer freed twice overfills its pool's free stack: that panics (abort) instead of corrupting memory.
static void test_double_free_panics(void) {
	CHECK(aborts(free_one_twice));
	CHECK(aborts(free_one_twice_in_a_batch));
}

static void test_bad_arguments(void) {
	CHECK(memory_allocate_mempool(0, 2048) == NULL);
	CHECK(memory_allocate_mempool(10, 3000) == NULL); // not whole cache lines
	CHECK(memory_allocate_mempool(10, 64) == NULL);   // no room for data
	seam_dma_fail_next(1);
	CHECK(memory_allocate_mempool(10, 2048) == NULL); // DMA memory unavailable
	CHECK_EQ(seam_dma_live_allocations(), 0);
}

// Issue 28: the huge pages of a pool. Buffers larger than a huge page are refused (the count divided by zero, SIGFPE),
// and so are pools of more than 2^24 buffers (near UINT32_MAX buffers, rounding up wrapped around to 0 pages).
static void test_huge_pages(void) {
	CHECK_EQ(memory_mempool_huge_pages(1024, 2048), 1);
	CHECK_EQ(memory_mempool_huge_pages(1025, 2048), 2);
	CHECK_EQ(memory_mempool_huge_pages(992, 0), 1);                // 2048 + 64 bytes: 992 fit in a page
	CHECK_EQ(memory_mempool_huge_pages(1u << 24, 2048), 1u << 14); // the most buffers a pool takes
	CHECK_EQ(memory_mempool_huge_pages((1u << 24) + 1, 2048), 0);  // refused, as near UINT32_MAX (it wrapped)
	CHECK_EQ(memory_mempool_huge_pages(UINT32_MAX, 2048), 0);
	CHECK(memory_allocate_mempool(UINT32_MAX, 2048) == NULL);
	CHECK_EQ(memory_mempool_huge_pages(10, 4 << 20), 0);
	CHECK(memory_allocate_mempool(10, 4 << 20) == NULL);
	CHECK_EQ(seam_dma_live_allocations(), 0);
}

// A pool in given memory (memory_mempool_in, as AF_XDP lays out its frames): a stride of 0 (it divided by zero), one
// shorter than a buffer or longer than a huge page, a first offset that pushes a page's last buffer past the page, or
// buffers beyond the memory are refused; what fits is taken.
static void test_pool_in_given_memory(void) {
	struct dma_memory mem;
	CHECK_EQ(memory_allocate_dma(IXY_HUGE_PAGE_SIZE, false, &mem), 0);
	CHECK(memory_mempool_in(&mem, 10, 2048, 0, 0) == NULL);
	CHECK(memory_mempool_in(&mem, 10, 2048, 0, 1024) == NULL);
	CHECK(memory_mempool_in(&mem, 1, 2048, 0, 4u << 20) == NULL);
	CHECK(memory_mempool_in(&mem, 10, 2048, 4096, 4096) == NULL); // a page's 512th would end 2048 bytes past it
	CHECK(memory_mempool_in(&mem, 513, 2048, 0, 4096) == NULL);   // a second page mem does not have
	struct mempool* pool = memory_mempool_in(&mem, 512, 2048, 2048, 4096); // the 512th ends at the page's end
	CHECK(pool != NULL);
	if (pool) {
		CHECK_EQ(pool->num_entries, 512);
		memory_free_mempool(pool); // frees mem too
	} else {
		memory_free_dma(&mem);
	}
	CHECK_EQ(seam_dma_live_allocations(), 0);
}

int main(void) {
	test_layout_and_single_alloc();
	test_batch_and_exhaustion();
	test_lifo();
	test_buffers_spanning_pages();
	test_buffers_never_span_pages();
	test_free_batch_of_two_pools();
	test_double_free_panics();
	test_bad_arguments();
	test_huge_pages();
	test_pool_in_given_memory();
	return check_summary();
}
