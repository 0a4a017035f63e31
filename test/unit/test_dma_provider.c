// DMA memory's provider (src/memory.c, src/dma_provider.h) and the process's way to its devices (src/access.c), the
// real files, with fake providers in place of hugetlbfs and VFIO (no device, no huge page is touched): a way chosen
// before the first allocation installs its memory, and memory.c then allocates from it; memory allocated first fixes
// the way (sysfs, the paper's) and refuses another provider; a failed allocation fixes nothing. Each scenario runs in
// a child of its own: the choice is once per process.
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "access.h"

static unsigned allocations, frees;
static bool fail_next;

static int fake_allocate(size_t size, struct dma_memory* mem) {
	void* virt = fail_next ? NULL : aligned_alloc(4096, size);
	fail_next = false;
	if (!virt) {
		return -1;
	}
	allocations++;
	*mem = (struct dma_memory){.virt = virt, .phy = (uintptr_t)virt, .size = size};
	return 0;
}

static void fake_free(struct dma_memory* mem) {
	frees++;
	free(mem->virt);
}

static const struct dma_provider memory_a = {.name = "A", .iommu = true, .allocate = fake_allocate, .free = fake_free};
static const struct dma_provider memory_b = {.name = "B", .iommu = true, .allocate = fake_allocate, .free = fake_free};
static const struct pci_access way_b = {.name = "way B", .dma = &memory_b};

// The way is chosen first: its provider serves every allocation, with IO virtual addresses (iommu).
static void way_first(void) {
	CHECK(access_of_process() == NULL && !memory_in_use());
	CHECK_EQ(access_choose("0000:01:00.0", &way_b), 0);
	CHECK(access_of_process() == &way_b);
	struct dma_memory mem;
	CHECK_EQ(memory_allocate_dma(1, false, &mem), 0);
	CHECK(allocations == 1 && mem.size == IXY_HUGE_PAGE_SIZE && memory_in_use());
	CHECK(memory_device_address((uint8_t*)mem.virt + 100) == (uintptr_t)mem.virt + 100);
	CHECK_EQ(memory_install_provider(&memory_a), -1); // another provider, once memory came from this one
	CHECK_EQ(memory_install_provider(&memory_b), 0);
	memory_free_dma(&mem);
	CHECK(frees == 1 && mem.virt == NULL);
}

// Memory comes first: a failed allocation fixes nothing; a successful one fixes the provider, and the process's way
// is then sysfs's, which refuses a way with other memory (VFIO after memory was allocated).
static void memory_first(void) {
	CHECK_EQ(memory_install_provider(&memory_a), 0);
	struct dma_memory mem;
	fail_next = true;
	CHECK_EQ(memory_allocate_dma(1, false, &mem), -1);
	CHECK(!memory_in_use() && access_of_process() == NULL);
	CHECK_EQ(memory_install_provider(&memory_b), 0); // still free to change
	CHECK_EQ(memory_install_provider(&memory_a), 0);
	CHECK_EQ(memory_allocate_dma(IXY_HUGE_PAGE_SIZE, true, &mem), 0);
	CHECK(memory_in_use() && access_of_process() == &pci_sysfs_access);
	CHECK_EQ(access_choose("0000:01:00.0", &way_b), -1); // its memory could not serve the memory made already
	CHECK_EQ(memory_install_provider(&memory_b), -1);
	CHECK(access_of_process() == &pci_sysfs_access);
	memory_free_dma(&mem);
	// Contiguous memory is one huge page at most: refused before any provider is asked.
	CHECK_EQ(memory_allocate_dma(2 * IXY_HUGE_PAGE_SIZE, true, &mem), -1);
	CHECK_EQ(allocations, 1);
}

static void in_child(void (*scenario)(void)) {
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		scenario();
		fflush(stdout);
		_exit(check_summary());
	}
	int status = -1;
	CHECK(child > 0 && waitpid(child, &status, 0) == child);
	CHECK_EQ(status, 0);
}

int main(void) {
	in_child(way_first);
	in_child(memory_first);
	return check_summary();
}
