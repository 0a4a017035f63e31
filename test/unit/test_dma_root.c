// Real DMA memory (needs root, hugetlbfs at /mnt/huge and free huge pages; skipped otherwise):
// every buffer of a pool gets a physical address that matches /proc/self/pagemap and stays the same.
#include <stdio.h>
#include <stdlib.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <ixy/memory.h>

#include "../check.h"

#define FREE_HUGE_PAGES "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages"

int main(void) {
	struct statfs fs;
	if (geteuid() != 0) {
		printf("skipped: not root (DMA memory needs root for /proc/self/pagemap and mlock)\n");
		return CHECK_SKIP;
	}
	if (statfs(IXY_HUGETLBFS_PATH, &fs) != 0 || fs.f_type != 0x958458f6) {
		printf("skipped: hugetlbfs not mounted at %s (run scripts/setup-hugetlbfs.sh)\n", IXY_HUGETLBFS_PATH);
		return CHECK_SKIP;
	}
	// At most two huge pages at a time (the pool below). Fewer free: the host lacks them, not ixy.
	unsigned long free_pages = 0;
	FILE* free_file = fopen(FREE_HUGE_PAGES, "r");
	if (!free_file || fscanf(free_file, "%lu", &free_pages) != 1 || free_pages < 2) {
		printf("skipped: %lu free 2 MiB huge pages (%s), 2 needed (run scripts/setup-hugetlbfs.sh)\n",
		       free_pages, FREE_HUGE_PAGES);
		if (free_file) {
			fclose(free_file);
		}
		return CHECK_SKIP;
	}
	fclose(free_file);
	struct dma_memory mem;
	CHECK(memory_allocate_dma(4096, true, &mem) == 0);
	CHECK_EQ(mem.size, IXY_HUGE_PAGE_SIZE);
	CHECK(mem.phy != 0);
	CHECK_EQ(mem.phy % IXY_HUGE_PAGE_SIZE, 0); // a huge page is physically aligned to its size
	CHECK_EQ(virt_to_phys((uint8_t*)mem.virt + 12345), mem.phy + 12345);
	memory_free_dma(&mem);

	struct dma_memory too_big;
	CHECK(memory_allocate_dma(2 * IXY_HUGE_PAGE_SIZE, true, &too_big) != 0);

	// 2048 buffers in two huge pages
	struct mempool* pool = memory_allocate_mempool(2048, 2048);
	CHECK(pool != NULL);
	if (!pool) {
		return check_summary();
	}
	struct pkt_buf* bufs[2048];
	CHECK_EQ(pkt_buf_alloc_batch(pool, bufs, 2048), 2048);
	int matches = 0;
	for (int i = 0; i < 2048; i++) {
		matches += bufs[i]->buf_addr_phy == virt_to_phys(bufs[i]);
	}
	CHECK_EQ(matches, 2048);
	// Stable: touch the memory a lot, translate again.
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 2048; i++) {
			bufs[i]->data[0] = (uint8_t)round;
		}
		int stable = 0;
		for (int i = 0; i < 2048; i++) {
			stable += bufs[i]->buf_addr_phy == virt_to_phys(bufs[i]);
		}
		CHECK_EQ(stable, 2048);
	}
	for (int i = 0; i < 2048; i++) {
		pkt_buf_free(bufs[i]);
	}
	memory_free_mempool(pool);
	return check_summary();
}
