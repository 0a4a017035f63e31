// DMA memory: huge pages from hugetlbfs, locked, with their physical addresses from /proc/self/pagemap.
//
// Why huge pages: Linux may move a normal page to another physical address at any time (swapping, compaction, NUMA
// balancing), and a NIC writing to the old address would corrupt someone else's memory. Pages of hugetlbfs are never
// swapped and are locked here; Linux migrates them only to empty physical memory (hot-remove, soft-offline of a
// failing page, large contiguous allocations) or on a move_pages/mbind call, which ixy relies on not happening. A
// 2 MiB huge page is physically contiguous, so a descriptor ring or a packet buffer inside one page is too.
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "dma_provider.h"
#include "log.h"

#define HUGETLBFS_MAGIC 0x958458f6 // linux/magic.h

uintptr_t virt_to_phys(const void* virt) {
	uintptr_t page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	// One 64 bit entry per virtual page: bits 0-54 are the page frame number, 0 if the page is not present or the
	// process is not root (Documentation/admin-guide/mm/pagemap.rst).
	uint64_t entry = 0;
	off_t offset = (off_t)((uintptr_t)virt / page_size * sizeof(entry));
	int fd = open("/proc/self/pagemap", O_RDONLY);
	ssize_t got = fd < 0 ? -1 : pread(fd, &entry, sizeof(entry), offset);
	const char* reason = got < 0 ? strerror(errno) : "no physical address (not root, or the page is not present)";
	if (fd >= 0) {
		close(fd);
	}
	uint64_t pfn = entry & ((1ull << 55) - 1);
	if (got != sizeof(entry) || pfn == 0) {
		ixy_error("cannot translate %p through /proc/self/pagemap: %s", virt, reason);
		return 0;
	}
	return (uintptr_t)(pfn * page_size + (uintptr_t)virt % page_size);
}

int memory_check_hugetlbfs(void) {
	struct statfs fs;
	if (statfs(IXY_HUGETLBFS_PATH, &fs) != 0 || fs.f_type != HUGETLBFS_MAGIC) {
		ixy_error("hugetlbfs is not mounted at %s: run scripts/setup-hugetlbfs.sh as root", IXY_HUGETLBFS_PATH);
		return -1;
	}
	return 0;
}

// The paper's DMA memory; memory_allocate_dma rounded size up to whole huge pages.
static int hugetlbfs_allocate(size_t size, struct dma_memory* mem) {
	if (memory_check_hugetlbfs() != 0) {
		return -1;
	}
	// One unnamed file per allocation (O_TMPFILE): the mapping keeps the pages, and a crash leaves no file behind.
	int fd = open(IXY_HUGETLBFS_PATH, O_TMPFILE | O_RDWR, S_IRUSR | S_IWUSR);
	if (fd < 0) {
		ixy_error("cannot create a file in %s for DMA memory: %s", IXY_HUGETLBFS_PATH, strerror(errno));
		return -1;
	}
	// MAP_POPULATE: the pages exist (and have physical addresses) right away, zero-filled by the kernel as every
	// new page is. MAP_LOCKED: never swapped out; hugetlbfs pages are not anyway, but DMA memory must not be.
	void* virt = ftruncate(fd, (off_t)size) == 0
			 ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE | MAP_LOCKED, fd, 0)
			 : MAP_FAILED;
	int map_errno = errno; // of ftruncate or mmap
	close(fd);
	if (virt == MAP_FAILED) {
		ixy_error("cannot get %zu free huge page(s) for DMA memory: %s. Reserve more with "
			  "scripts/setup-hugetlbfs.sh <pages>",
			  size / IXY_HUGE_PAGE_SIZE, strerror(map_errno));
		return -1;
	}
	uintptr_t phy = virt_to_phys(virt);
	if (phy == 0) {
		munmap(virt, size);
		return -1;
	}
	*mem = (struct dma_memory){.virt = virt, .phy = phy, .size = size};
	return 0;
}

static void hugetlbfs_free(struct dma_memory* mem) {
	if (munmap(mem->virt, mem->size) != 0) {
		ixy_warn("munmap of DMA memory failed: %s", strerror(errno));
	}
}

static const struct dma_provider hugetlbfs = {
    .name = "hugetlbfs", .iommu = false, .allocate = hugetlbfs_allocate, .free = hugetlbfs_free};
static const struct dma_provider* provider = &hugetlbfs;
static bool in_use; // DMA memory was allocated: the provider stays

int memory_install_provider(const struct dma_provider* new_provider) {
	provider = in_use ? provider : new_provider;
	return provider == new_provider ? 0 : -1;
}

bool memory_in_use(void) {
	return in_use;
}

uintptr_t memory_device_address(const void* virt) {
	return provider->iommu ? (uintptr_t)virt : virt_to_phys(virt);
}

int memory_allocate_dma(size_t size, bool require_contiguous, struct dma_memory* mem) {
	size = (size + IXY_HUGE_PAGE_SIZE - 1) / IXY_HUGE_PAGE_SIZE * IXY_HUGE_PAGE_SIZE;
	if (require_contiguous && size > IXY_HUGE_PAGE_SIZE) {
		ixy_error("%zu bytes of physically contiguous DMA memory requested: at most one huge page", size);
		return -1;
	}
	int rc = provider->allocate(size, mem);
	in_use |= rc == 0;
	return rc;
}

void memory_free_dma(struct dma_memory* mem) {
	if (mem->virt) {
		provider->free(mem);
	}
	*mem = (struct dma_memory){0};
}
