// DMA memory for test builds: anonymous memory mapped at low addresses (seam.h), device address == virtual address,
// every allocation recorded.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "dma_provider.h"
#include "seam.h"

#define MAX_ALLOCATIONS 4096

static struct dma_memory live[MAX_ALLOCATIONS];
static unsigned fail_next;
// 0, or SEAM_PHYSICAL_OFFSET with IXY_SEAM_ADDRESSES=physical (seam.h); read once.
static uintptr_t address_offset(void) {
	static int mode = -1;
	if (mode < 0) {
		const char* env = getenv("IXY_SEAM_ADDRESSES");
		mode = env && strcmp(env, "physical") == 0;
	}
	return mode ? (uintptr_t)SEAM_PHYSICAL_OFFSET : 0;
}

// The process's provider (dma_provider.h): the seam allocates all DMA memory itself, in the address mode the
// environment says (seam.h), whichever way a test takes; so any provider may be installed at any time, and memory a
// test allocated before its first device does not fix the way.
int memory_install_provider(const struct dma_provider* provider) {
	(void)provider;
	return 0;
}

bool memory_in_use(void) {
	return false;
}

uintptr_t memory_device_address(const void* virt) {
	return (uintptr_t)virt + address_offset();
}

void* seam_dma_virt(uintptr_t addr) {
	return (void*)(addr - address_offset());
}

void seam_dma_fail_next(unsigned n) {
	fail_next = n;
}

// The first free, huge page aligned place between SEAM_DMA_BASE and SEAM_DMA_END, mapped and zeroed.
static void* map_low(size_t size) {
	for (uintptr_t at = SEAM_DMA_BASE; at + size <= SEAM_DMA_END; at += IXY_HUGE_PAGE_SIZE) {
		void* virt = mmap((void*)at, size, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (virt == (void*)at) {
			return virt;
		}
		if (virt != MAP_FAILED && munmap(virt, size) != 0) { // an old kernel took the address as a hint only
			return NULL;
		}
		if (virt == MAP_FAILED && errno != EEXIST) {
			return NULL;
		}
	}
	return NULL;
}

int memory_allocate_dma(size_t size, bool require_contiguous, struct dma_memory* mem) {
	size = (size + IXY_HUGE_PAGE_SIZE - 1) / IXY_HUGE_PAGE_SIZE * IXY_HUGE_PAGE_SIZE;
	if (require_contiguous && size > IXY_HUGE_PAGE_SIZE) {
		fprintf(stderr, "seam: contiguous DMA allocation of %zu bytes is larger than a huge page\n", size);
		return -1;
	}
	if (fail_next > 0) {
		fail_next--;
		fprintf(stderr, "seam: DMA allocation failed on purpose\n");
		return -1;
	}
	for (size_t i = 0; i < MAX_ALLOCATIONS; i++) {
		if (live[i].virt == NULL) {
			void* virt = map_low(size);
			if (!virt) {
				fprintf(stderr, "seam: no address space left for DMA memory below SEAM_DMA_END\n");
				return -1;
			}
			live[i] = (struct dma_memory){.virt = virt, .phy = memory_device_address(virt), .size = size};
			*mem = live[i];
			return 0;
		}
	}
	fprintf(stderr, "seam: too many DMA allocations\n");
	return -1;
}

void memory_free_dma(struct dma_memory* mem) {
	for (size_t i = 0; i < MAX_ALLOCATIONS; i++) {
		if (mem->virt != NULL && live[i].virt == mem->virt) {
			// Unmapped: a device model that still DMAs here, or a driver that reads it, crashes (until
			// the place is mapped again).
			if (munmap(live[i].virt, live[i].size) != 0) {
				fprintf(stderr, "seam: munmap of DMA memory failed: %s\n", strerror(errno));
			}
			live[i] = (struct dma_memory){0};
			break;
		}
	}
	*mem = (struct dma_memory){0};
}

uintptr_t virt_to_phys(const void* virt) {
	return memory_device_address(virt);
}

bool seam_dma_contains(uintptr_t addr, size_t len) {
	for (size_t i = 0; i < MAX_ALLOCATIONS; i++) {
		uintptr_t start = live[i].phy;
		if (live[i].virt && addr >= start && len <= live[i].size && addr - start <= live[i].size - len) {
			return true;
		}
	}
	return false;
}

size_t seam_dma_live_allocations(void) {
	size_t n = 0;
	for (size_t i = 0; i < MAX_ALLOCATIONS; i++) {
		n += live[i].virt != NULL;
	}
	return n;
}

size_t seam_dma_live_bytes(void) {
	size_t bytes = 0;
	for (size_t i = 0; i < MAX_ALLOCATIONS; i++) {
		bytes += live[i].size;
	}
	return bytes;
}
