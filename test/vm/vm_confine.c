// vm_confine: what a NIC can reach (guest only; the confine scenario runs it). ixy's driver takes the NIC; then this
// program hands the NIC a buffer that lies outside ixy's DMA memory, as a buggy driver or a bad descriptor would:
// through VFIO that memory is not mapped in the IOMMU, through sysfs (the control) it is ordinary memory the NIC can
// reach by its physical address. The buffer holds a "secret" (bytes 0x5a).
//
//   vm_confine tx <pci> vfio|sysfs   sends a marker frame, a frame from the secret buffer, a marker frame again. The
//                                    host's record of the wire shows whether the secret left (check_confine.py).
//   vm_confine rx <pci> vfio|sysfs   prints "confine: rx: ready" once the NIC's RX ring is armed (the scenario
//                                    starts the sender then), waits for traffic, then lets the driver put the secret
//                                    buffer into an RX descriptor and receives until the NIC reports a packet in it
//                                    (at most 60 s): prints whether the secret memory changed.
//
// Both print one line per finding, "confine: ...", and one for the scenario's checks: "confine-tx page=0x..." (the
// page of the secret frame's device address, as the kernel logs an IOMMU fault) and "confine-rx page=0x... posted=0|1
// received=N in_buffer=N changed=N" (whether the driver put the secret buffer into an RX descriptor; packets received
// after that, and how many of them the NIC reported in that buffer; bytes of the secret memory that changed). The
// secret buffer is a fake struct pkt_buf at the start of the memory; the drivers only read its buf_addr_phy, size and
// mempool (to give it back), like any buffer's.
//
// The receive ends on what it waits for, not after a fixed time: the first traffic may be frames that "vm_confine tx"
// sent to this NIC before it had a driver (QEMU holds them until the RX ring is armed, then delivers them at once),
// and under load the sender may start seconds later; a ring of 256 descriptors needs up to 256 packets before the NIC
// reaches the secret buffer.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ixy/ixy.h>

#define SECRET 0x5a
#define REGION_SIZE (2u << 20)
#define FRAME_LEN 60

// Memory outside ixy's DMA memory, filled with the secret; *device_addr: the address a NIC would use for it.
static uint8_t* secret_region(bool vfio, struct dma_memory* dma, uintptr_t* device_addr) {
	uint8_t* region;
	if (vfio) {
		// Through VFIO the NIC sees IO virtual addresses; this memory is not mapped into the IOMMU, so its
		// virtual address is an IO virtual address with nothing behind it.
		region =
		    mmap(NULL, REGION_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (region == MAP_FAILED) {
			perror("vm_confine: mmap");
			exit(1);
		}
		*device_addr = (uintptr_t)region;
	} else {
		// Through sysfs the NIC sees physical addresses: a huge page that is no pool's, by its physical
		// address.
		if (memory_allocate_dma(REGION_SIZE, true, dma) != 0) {
			exit(1);
		}
		region = dma->virt;
		*device_addr = dma->phy;
	}
	memset(region, SECRET, REGION_SIZE);
	return region;
}

// Bytes of the region after the fake buffer's metadata that no longer hold the secret.
static size_t changed_bytes(const uint8_t* region) {
	size_t changed = 0;
	for (size_t i = sizeof(struct pkt_buf); i < REGION_SIZE; i++) {
		changed += region[i] != SECRET;
	}
	return changed;
}

static void send_one(struct ixy_device* dev, struct pkt_buf* buf) {
	for (int tries = 0; tries < 1000000 && ixy_tx_batch(dev, 0, &buf, 1) == 0; tries++) {
	}
	usleep(200000); // sent and cleaned long before this
}

static void send_marker(struct ixy_device* dev, struct mempool* pool, const char* text) {
	struct pkt_buf* buf = pkt_buf_alloc(pool);
	memset(buf->data, 0, FRAME_LEN);
	memset(buf->data, 0xff, 6); // broadcast
	memcpy(buf->data + 14, text, strlen(text));
	buf->size = FRAME_LEN;
	send_one(dev, buf);
}

static int confine_tx(struct ixy_device* dev, bool vfio) {
	struct mempool* pool = memory_allocate_mempool(64, 0);
	struct dma_memory dma = {0};
	uintptr_t device_addr;
	uint8_t* region = secret_region(vfio, &dma, &device_addr);
	if (!pool) {
		return 1;
	}
	// The fake buffer goes back to pool when sent: keep one of the pool's buffers out, so that there is room.
	struct pkt_buf* kept = pkt_buf_alloc(pool);
	struct pkt_buf* fake = (struct pkt_buf*)region;
	*fake = (struct pkt_buf){.buf_addr_phy = device_addr, .mempool = pool, .mempool_idx = kept->mempool_idx};
	fake->size = FRAME_LEN;
	send_marker(dev, pool, "ixy-confine-before");
	send_one(dev, fake);
	send_marker(dev, pool, "ixy-confine-after");
	struct device_stats stats;
	stats_init(&stats, dev);
	ixy_read_stats(dev, &stats);
	printf("confine: tx: the NIC was given a frame at device address 0x%llx (%s memory); it counted %llu frames "
	       "sent\n",
	       (unsigned long long)device_addr, vfio ? "unmapped" : "ordinary", (unsigned long long)stats.tx_pkts);
	printf("confine-tx page=0x%llx\n", (unsigned long long)device_addr & ~0xfffull);
	ixy_stop(dev);
	// The fake buffer is back in the pool (sent and cleaned): swap it for the kept one before the pool goes.
	for (uint32_t i = 0; i < pool->free_stack_top; i++) {
		if (pool->free_stack[i] == fake) {
			pool->free_stack[i] = kept;
		}
	}
	ixy_close(dev);
	memory_free_mempool(pool);
	if (vfio) {
		munmap(region, REGION_SIZE);
	} else {
		memory_free_dma(&dma);
	}
	return 0;
}

static bool in_pool(const struct mempool* pool, const struct pkt_buf* buf) {
	for (uint32_t i = 0; i < pool->free_stack_top; i++) {
		if (pool->free_stack[i] == buf) {
			return true;
		}
	}
	return false;
}

static int confine_rx(struct ixy_device* dev, bool vfio) {
	struct dma_memory dma = {0};
	uintptr_t device_addr;
	uint8_t* region = secret_region(vfio, &dma, &device_addr);
	struct pkt_buf* bufs[32];
	uint32_t n = 0;
	printf("confine: rx: ready\n");
	fflush(stdout);
	for (int i = 0; i < 600 && n == 0; i++) { // up to 60 s for the first packet
		n = ixy_rx_batch(dev, 0, bufs, 32);
		if (n == 0) {
			usleep(100000);
		}
	}
	if (n == 0) {
		printf("confine: rx: no traffic arrived\n");
		ixy_close(dev);
		return 1;
	}
	// The next buffer the driver takes from its RX pool for a descriptor is the fake one.
	struct mempool* pool = bufs[0]->mempool;
	for (uint32_t i = 0; i < n; i++) {
		pkt_buf_free(bufs[i]);
	}
	struct pkt_buf* replaced = pool->free_stack[pool->free_stack_top - 1];
	struct pkt_buf* fake = (struct pkt_buf*)region;
	*fake = (struct pkt_buf){.buf_addr_phy = device_addr, .mempool = pool, .mempool_idx = replaced->mempool_idx};
	pool->free_stack[pool->free_stack_top - 1] = fake;
	uint64_t received = 0, fake_received = 0, start = monotonic_time_ns();
	// posted: the fake buffer was in the pool, and the driver took it from there for an RX descriptor.
	bool pooled = in_pool(pool, fake), posted = false;
	while (fake_received == 0 && monotonic_time_ns() - start < 60000000000ull) {
		n = ixy_rx_batch(dev, 0, bufs, 32);
		posted = posted || (pooled && !in_pool(pool, fake));
		for (uint32_t i = 0; i < n; i++) {
			fake_received += bufs[i] == fake;
			pkt_buf_free(bufs[i]);
		}
		received += n;
	}
	size_t changed = changed_bytes(region);
	printf("confine: rx: the NIC was given an RX buffer at device address 0x%llx (%s memory); %llu packets "
	       "received after that, %llu of them reported in that buffer; the memory is %s (%zu bytes differ)\n",
	       (unsigned long long)device_addr, vfio ? "unmapped" : "ordinary", (unsigned long long)received,
	       (unsigned long long)fake_received, changed ? "CHANGED" : "unchanged", changed);
	printf("confine-rx page=0x%llx posted=%d received=%llu in_buffer=%llu changed=%zu\n",
	       (unsigned long long)device_addr & ~0xfffull, posted, (unsigned long long)received,
	       (unsigned long long)fake_received, changed);
	ixy_stop(dev);
	for (uint32_t i = 0; i < pool->free_stack_top; i++) {
		if (pool->free_stack[i] == fake) {
			pool->free_stack[i] = replaced;
		}
	}
	ixy_close(dev);
	if (!vfio) {
		memory_free_dma(&dma);
	}
	return 0;
}

int main(int argc, char* argv[]) {
	if (argc != 4 || (strcmp(argv[1], "tx") != 0 && strcmp(argv[1], "rx") != 0) ||
	    (strcmp(argv[3], "vfio") != 0 && strcmp(argv[3], "sysfs") != 0)) {
		fprintf(stderr, "usage: vm_confine tx|rx <pci> vfio|sysfs\n");
		return 2;
	}
	struct ixy_device* dev = ixy_init(argv[2], 1, 1);
	if (!dev) {
		return 1;
	}
	bool vfio = strcmp(argv[3], "vfio") == 0;
	return strcmp(argv[1], "tx") == 0 ? confine_tx(dev, vfio) : confine_rx(dev, vfio);
}
