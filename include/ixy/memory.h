// DMA memory, memory pools and packet buffers.
//
// A NIC reads and writes packets with DMA, using physical addresses. This file gives you memory whose physical
// address is known and fixed (huge pages, locked), and a fixed-size pool of packet buffers carved out of it.
// Pools are a free stack of buffer pointers: the most recently freed buffer is handed out next (warm in cache).
// Pools are not thread-safe: use one pool per thread.
#ifndef IXY_MEMORY_H
#define IXY_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Size of a huge page on x86-64; DMA memory comes in multiples of it.
#define IXY_HUGE_PAGE_SIZE (2u * 1024 * 1024)
// Where hugetlbfs must be mounted (scripts/setup-hugetlbfs.sh does this).
#define IXY_HUGETLBFS_PATH "/mnt/huge"

struct dma_memory {
	void* virt;    // where the CPU sees it
	uintptr_t phy; // where the device sees it: physical address, or behind an IOMMU (VFIO) IO virtual address
	size_t size;   // bytes mapped (a multiple of IXY_HUGE_PAGE_SIZE)
};

// Allocates size bytes (rounded up to whole huge pages) of locked DMA memory, zero-filled.
// With require_contiguous, the memory must be physically contiguous, which is only guaranteed up to one huge page.
// Returns 0 on success; on failure prints why and returns -1 with *mem untouched.
int memory_allocate_dma(size_t size, bool require_contiguous, struct dma_memory* mem);
// Gives the memory back. The caller must make sure no device can DMA into it any more.
void memory_free_dma(struct dma_memory* mem);
// Physical address of a virtual address inside DMA memory (via /proc/self/pagemap), 0 on failure.
uintptr_t virt_to_phys(const void* virt);
// Fails with a message unless hugetlbfs is mounted at IXY_HUGETLBFS_PATH.
int memory_check_hugetlbfs(void);

// Bytes in front of the packet data that drivers may use (e.g. the VirtIO net header).
#define PKT_BUF_HEAD_ROOM 40

// One packet buffer. The first cache line is metadata; packet data starts at offset 64.
struct pkt_buf {
	uintptr_t buf_addr_phy;  // device address of this struct (see dma_memory.phy): data at +64
	struct mempool* mempool; // the pool this buffer must be returned to
	uint32_t mempool_idx;    // index of this buffer in its pool
	uint32_t size;           // bytes of packet data
	uint8_t head_room[PKT_BUF_HEAD_ROOM];
	uint8_t data[] __attribute__((aligned(64)));
};

_Static_assert(offsetof(struct pkt_buf, data) == 64, "packet data must start at offset 64");
_Static_assert(offsetof(struct pkt_buf, head_room) + PKT_BUF_HEAD_ROOM == 64, "head room must end at the data");

// Not thread-safe, on purpose (no lock, no atomic on the packet path): a pool belongs to one thread at a time, which
// allocates its buffers and frees them, also through the tx_batch calls that give sent buffers back (ixy.h, threads).
struct mempool {
	struct dma_memory dma;   // the memory holding all buffers
	uint32_t buf_size;       // bytes per buffer, including the 64 byte metadata line
	uint32_t num_entries;    // buffers in the pool
	uint32_t free_stack_top; // number of free buffers: free_stack[0 .. top-1]
	struct pkt_buf* free_stack[];
};

// Creates a pool of num_entries buffers of buf_size bytes each, metadata line included (0: 2048 + 64). buf_size must
// be a multiple of 64 and at most a huge page. Returns NULL (with a message) on failure.
struct mempool* memory_allocate_mempool(uint32_t num_entries, uint32_t buf_size);
// A pool of num_entries buffers in mem (buf_size as above), for memory_allocate_mempool and for buffers laid out
// otherwise (an AF_XDP UMEM's frames, src/driver/xdp.c). Buffer i lies at offset first + (i % n) * stride in huge page
// i / n of mem, n = 2 MiB / stride; stride >= buf_size, and the last buffer must end inside mem. The pool owns mem
// from then on (memory_free_mempool frees it with memory_free_dma). NULL with a message if it cannot; mem then stays
// the caller's.
struct mempool* memory_mempool_in(const struct dma_memory* mem, uint32_t num_entries, uint32_t buf_size, size_t first,
				  size_t stride);
// Huge pages such a pool takes; 0, with a message, for sizes memory_allocate_mempool refuses.
uint32_t memory_mempool_huge_pages(uint32_t num_entries, uint32_t buf_size);
// Frees the pool and its DMA memory. All buffers should be back; the pool is freed even if some are not.
void memory_free_mempool(struct mempool* mempool);

// Takes up to num_bufs buffers off the free stack; returns how many it took.
uint32_t pkt_buf_alloc_batch(struct mempool* mempool, struct pkt_buf* bufs[], uint32_t num_bufs);
// One buffer, or NULL when the pool is empty.
struct pkt_buf* pkt_buf_alloc(struct mempool* mempool);
// Returns a buffer to its pool. Panics if the pool is full: the buffer was freed twice.
void pkt_buf_free(struct pkt_buf* buf);
// Returns num_bufs buffers, each to its own pool (they may come from different pools), as pkt_buf_free does.
void pkt_buf_free_batch(struct pkt_buf* bufs[], uint32_t num_bufs);
#endif
