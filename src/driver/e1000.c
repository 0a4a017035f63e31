// e1000: driver for the Intel 82540EM and 82574L 1 GbE NICs, the NICs of QEMU's "e1000" (pc machine, VirtualBox's
// default too) and "e1000e" (q35) devices, and of MIT's 6.1810 networking lab.
//
// Read it side by side with igb.c: the same functions in the same order. What differs is the older family's: one
// receive and one transmit ring, legacy descriptors (e1000_regs.h) instead of advanced ones, no per-queue enable bits
// (RCTL.EN and TCTL.EN alone start the rings), a receive buffer size set in RCTL instead of SRRCTL, and no drop
// counter per queue. e1000_init() follows SDM 14 (8254x manual, revision 4.0) and 74 4.6 (82574 datasheet); where the
// two NICs differ, `models` below names the quirk. Registers are in e1000_regs.h; register access
// goes through driver.h.
//
// Where to start reading (after igb.c, as in docs/book/16-the-e1000.md): e1000_init() at the bottom, then
// e1000_rx_batch() and e1000_tx_batch(); then e1000_stop().
#include <stdlib.h>

#include <ixy/settings.h>

#include "../trace.h" // ixy_trace_bar: the register trace for students
#include "driver.h"
#include "e1000_interrupts.h"
#include "e1000_regs.h"
#include "injected_failure.h"

// Packet buffers of the receive pool: RCTL.BSIZE 00b makes the NIC write up to 2048 bytes per descriptor at the
// data offset, which holds any frame the MAC accepts without long packets (RCTL.LPE off: 1522 bytes).
#define RX_BUF_SIZE (64 + 2048)
#define RX_BUF_DATA_ROOM (RX_BUF_SIZE - offsetof(struct pkt_buf, data))
// Buffers in the RX pool: enough to refill the ring while the app holds a ring's worth (e.g. in another NIC's TX ring).
#define RX_POOL_ENTRIES(ring_size) (2 * (ring_size) + 1024)
// Sent descriptors are cleaned (their buffers freed) in batches of this many: less often touching the ring.
#define TX_CLEAN_BATCH 32
// Every wait for the NIC polls a register once per millisecond, up to a timeout: 1 s for the NIC's own steps
// (reset, PHY access), 100 ms for the rings to drain, LINK_TIMEOUT_MS for auto-negotiation.
#define POLL_INTERVAL_US 1000
#define LINK_TIMEOUT_MS 10000

// The PCI device IDs of the NICs this driver takes (vendor 0x8086; e1000_regs.h lists them).
static const uint16_t nic_ids[] = {E1000_DEVICE_IDS};

// Where the two NICs differ, each a flag. The 82574L (a PCIe NIC) must stop its DMA before a reset (GIO master
// disable, 74 4.6.1), and wants TXDCTL bit 22 and TARC0.ENABLE set for its transmit ring (74 10.2.6); the 82540EM
// (PCI) has neither: its CTRL bit 2 and TXDCTL bit 22 are reserved. The third difference, MSI-X on the 82574L
// only, needs no flag: e1000_interrupts.c asks the device for its vectors.
enum { QUIRK_GIO_MASTER = 1, QUIRK_TX_BITS = 2 };
static const struct e1000_model {
	uint16_t device_id;
	unsigned quirks;
} models[] = {{E1000_DEV_82540EM, 0}, {E1000_DEV_82574L, QUIRK_GIO_MASTER | QUIRK_TX_BITS}};

// The queues' state as in igb.c, where queues may be different threads'. Here there is one queue each way.
struct e1000_rx_queue {
	// the ring: NIC reads buffer addresses, writes back status
	volatile struct e1000_rx_desc* descriptors;
	struct dma_memory ring_memory;
	struct mempool* mempool;   // buffers for this queue's descriptors
	struct pkt_buf** bufs;     // bufs[i]: the buffer descriptor i points to
	uint16_t rx_index;         // next descriptor to look at for a received packet
	bool in_multi_desc_packet; // the last descriptor seen had no EOP: drop up to and including the next EOP
	uint64_t dropped;          // packets the driver dropped (spanning descriptors, bad length); only grows
};

struct e1000_tx_queue {
	// the ring: NIC reads packet addresses, writes back DD
	volatile struct e1000_tx_desc* descriptors;
	struct dma_memory ring_memory;
	struct pkt_buf** bufs; // bufs[i]: the buffer descriptor i sends, freed once sent
	uint16_t clean_index;  // oldest descriptor not yet cleaned
	uint16_t tx_index;     // next descriptor to fill
};

struct e1000_device {
	struct ixy_device ixy;
	struct pci_device* pci; // ixy.pci_addr points to its address
	uint8_t* bar;           // BAR0: the NIC's registers
	const struct e1000_model* model;
	uint16_t ring_size; // descriptors per ring, a power of two
	struct e1000_rx_queue rx_queue;
	struct e1000_tx_queue tx_queue;
	uint64_t rx_dropped_read; // rx_queue.dropped at the last read_stats (the reader's)
	bool stopped;             // no DMA any more: e1000_stop ran, and the rings hold no buffers
};

// Polls until (reg & mask) == expected, every POLL_INTERVAL_US, for at most timeout_ms. On timeout warns that the
// NIC did not do `what` and returns false; the caller decides whether that is fatal.
static bool wait_for_reg(const struct e1000_device* dev, uint32_t reg, uint32_t mask, uint32_t expected,
			 uint32_t timeout_ms, const char* what) {
	for (uint32_t waited_us = 0; waited_us <= timeout_ms * 1000; waited_us += POLL_INTERVAL_US) {
		if ((get_reg32(dev->bar, reg) & mask) == expected) {
			return true;
		}
		ixy_usleep(POLL_INTERVAL_US);
	}
	ixy_warn("%s: timeout after %u ms waiting for %s", dev->ixy.pci_addr, timeout_ms, what);
	return false;
}

static uint32_t ring_index(uint32_t index, uint32_t ring_size) {
	return index & (ring_size - 1); // ring sizes are powers of two
}

// SDM 14.9, 74 4.6.1-2: mask all interrupts (ixy polls), on the 82574L stop its DMA first (GIO master disable), reset
// the device, mask interrupts again. The reset takes the NIC's MAC address from its EEPROM back into RAL0/RAH0.
// QEMU's e1000 model only clears CTRL.RST and keeps every other register: so init writes each register it relies on
// in full, and stop turns the rings off itself before the reset.
static bool reset_device(struct e1000_device* dev) {
	set_reg32(dev->bar, E1000_IMC, E1000_IRQ_ALL);
	if (dev->model->quirks & QUIRK_GIO_MASTER) {
		set_flags32(dev->bar, E1000_CTRL, E1000_CTRL_GIO_MASTER_DISABLE);
		wait_for_reg(dev, E1000_STATUS, E1000_STATUS_GIO_MASTER_ENABLE, 0, 100, "DMA to stop before the reset");
	}
	set_flags32(dev->bar, E1000_CTRL, E1000_CTRL_RST);
	ixy_usleep(10000); // SDM 14.9: software waits at least 1 us; 74 4.6.1: 1 ms
	bool done = wait_for_reg(dev, E1000_CTRL, E1000_CTRL_RST, 0, 1000, "the reset");
	set_reg32(dev->bar, E1000_IMC, E1000_IRQ_ALL);
	return done;
}

// Adds the NIC's counters since the last call to *stats (NULL: just restart counting). They clear on read (SDM
// 13.7): init reads them once.
static void e1000_read_stats(struct ixy_device* ixy, struct device_stats* stats) {
	struct e1000_device* dev = IXY_TO_DRIVER(struct e1000_device, ixy);
	struct device_stats discarded = {0};
	stats = stats ? stats : &discarded;
	// Drops: packets the NIC missed (MPC: no room, e.g. the ring was full) and packets the driver dropped. (QEMU's
	// models keep MPC when it is read: there a nonzero MPC would count again at every read. They hold frames in
	// their queue instead of missing them while the ring is full, so it stays 0.)
	uint64_t dropped = __atomic_load_n(&dev->rx_queue.dropped, __ATOMIC_RELAXED);
	stats->rx_dropped += get_reg32(dev->bar, E1000_MPC) + dropped - dev->rx_dropped_read;
	dev->rx_dropped_read = dropped;
	stats->rx_pkts += get_reg32(dev->bar, E1000_GPRC);
	stats->tx_pkts += get_reg32(dev->bar, E1000_GPTC);
	// The low half first: reading the high half clears the 64 bit counter.
	stats->rx_bytes += get_reg32(dev->bar, E1000_GORCL);
	stats->rx_bytes += (uint64_t)get_reg32(dev->bar, E1000_GORCH) << 32;
	stats->tx_bytes += get_reg32(dev->bar, E1000_GOTCL);
	stats->tx_bytes += (uint64_t)get_reg32(dev->bar, E1000_GOTCH) << 32;
}

// SDM 13.4.22: RCTL's filter bits may change while the receiver runs (as on the 82576).
static int e1000_set_promisc(struct ixy_device* ixy, bool enabled) {
	struct e1000_device* dev = IXY_TO_DRIVER(struct e1000_device, ixy);
	// Promiscuous: accept all unicast (UPE) and all multicast (MPE) frames.
	uint32_t rctl = get_reg32(dev->bar, E1000_RCTL) & ~(E1000_RCTL_MPE | E1000_RCTL_UPE);
	set_reg32(dev->bar, E1000_RCTL, enabled ? rctl | E1000_RCTL_MPE | E1000_RCTL_UPE : rctl);
	return 0;
}

// STATUS.SPEED (SDM 13.4.2) is 00b for 10 Mb/s, 01b for 100 Mb/s, 10b or 11b for 1 Gb/s.
static uint32_t e1000_get_link_speed(const struct ixy_device* ixy) {
	const struct e1000_device* dev = IXY_TO_DRIVER(const struct e1000_device, ixy);
	static const uint32_t speed_mbit[4] = {10, 100, 1000, 1000};
	uint32_t status = get_reg32(dev->bar, E1000_STATUS), speed = (status & E1000_STATUS_SPEED_MASK) >> 6;
	return (status & E1000_STATUS_LU) ? speed_mbit[speed] : 0;
}

// Receive address entry 0 holds the NIC's own MAC address (RAL0, RAH0), lowest byte first.
static int e1000_get_mac_addr(const struct ixy_device* ixy, uint8_t mac[6]) {
	const struct e1000_device* dev = IXY_TO_DRIVER(const struct e1000_device, ixy);
	uint64_t addr = get_reg32(dev->bar, E1000_RAL0) | (uint64_t)get_reg32(dev->bar, E1000_RAH0) << 32;
	for (int i = 0; i < 6; i++) {
		mac[i] = (uint8_t)(addr >> (8 * i));
	}
	return 0;
}

static int e1000_set_mac_addr(struct ixy_device* ixy, const uint8_t mac[6]) {
	struct e1000_device* dev = IXY_TO_DRIVER(struct e1000_device, ixy);
	set_reg32(dev->bar, E1000_RAL0, mac[0] | mac[1] << 8 | mac[2] << 16 | (uint32_t)mac[3] << 24);
	set_reg32(dev->bar, E1000_RAH0, mac[4] | mac[5] << 8 | E1000_RAH_AV);
	return 0;
}

// Gives descriptors first .. end - 1 of the RX ring to the NIC with the buffers in the ring's table. Unlike an
// advanced descriptor, a legacy one keeps its address when the NIC writes back: the status (with DD) must be cleared
// by software (SDM 3.2.3).
static void rx_give_buffers(struct e1000_rx_queue* queue, size_t first, size_t end) {
	for (size_t i = first; i < end; i++) {
		queue->descriptors[i].buffer_addr = queue->bufs[i]->buf_addr_phy + offsetof(struct pkt_buf, data);
		queue->descriptors[i].status = 0;
	}
}

// Receives up to num_bufs packets (SDM 3.2): the NIC sets DD in a descriptor's status once the packet is in memory.
// The same steps as igb_rx_batch: take the packets, replace their buffers with one batch allocation, give all back
// with one tail write.
// (queue_id is 0: e1000_init refuses more queues.)
static uint32_t e1000_rx_batch(struct ixy_device* ixy, uint16_t queue_id __attribute__((unused)),
			       struct pkt_buf* bufs[], uint32_t num_bufs) {
	struct e1000_device* dev = IXY_TO_DRIVER(struct e1000_device, ixy);
	struct e1000_rx_queue* queue = &dev->rx_queue;
	struct pkt_buf** ring_bufs = queue->bufs; // a local: read once per batch, not per packet
	size_t first = queue->rx_index, index = first, received = 0;
	// A call stops at the ring's end, so that no index wraps (the next call starts at 0). It never looks at all
	// ring_size descriptors (the NIC fills at most ring_size - 1): a NIC that keeps setting DD cannot keep it here.
	size_t end = dev->ring_size - (first == 0);
	// Only as many packets as the pool can replace: the rest wait in their descriptors until the app frees buffers.
	size_t wanted = num_bufs < queue->mempool->free_stack_top ? num_bufs : queue->mempool->free_stack_top;
	// The status bit that ends a frame: EOP, or none while the rest of a frame that spans descriptors is dropped.
	uint32_t frame_end_bit = queue->in_multi_desc_packet ? 0 : E1000_RXD_STAT_EOP;
	while (received < wanted && index < end) {
		// Acquire: the length and the packet's bytes are read only after DD was seen set.
		uint32_t status = __atomic_load_n(&queue->descriptors[index].status, __ATOMIC_ACQUIRE);
		if (!(status & E1000_RXD_STAT_DD)) {
			break;
		}
		uint32_t length = queue->descriptors[index].length;
		struct pkt_buf* buf = ring_bufs[index];
		// A frame larger than one buffer spans several descriptors, only the last with EOP: not supported, so
		// all its parts are dropped. A length of 0 (length - 1 wraps around) or beyond the buffer is a NIC bug.
		if (__builtin_expect((status & frame_end_bit) && length - 1 < RX_BUF_DATA_ROOM, 1)) {
			buf->size = length;
			bufs[received++] = buf;
		} else {
			frame_end_bit = status & E1000_RXD_STAT_EOP; // the next descriptor starts a frame after an EOP
			__atomic_store_n(&queue->dropped, queue->dropped + (frame_end_bit != 0), __ATOMIC_RELAXED);
			// The buffer is reused: it moves in front of the descriptors taken so far (as in igb.c).
			ring_bufs[index - received] = buf;
		}
		index++;
	}
	// Fresh buffers for the run of taken descriptors; the pool has them (received <= wanted).
	pkt_buf_alloc_batch(queue->mempool, &ring_bufs[index - received], received);
	rx_give_buffers(queue, first, index);
	if (index != first) {
		// Release: the descriptors' new addresses and cleared status are in memory before the NIC may use them.
		// The tail is the last descriptor given back: one always stays with the driver, so head == tail means
		// "ring empty" to the NIC, never "full".
		__atomic_thread_fence(__ATOMIC_RELEASE);
		set_reg32(dev->bar, E1000_RDT, index - 1);
		queue->rx_index = (uint16_t)ring_index(index, dev->ring_size);
		queue->in_multi_desc_packet = !frame_end_bit;
	}
	return received;
}

// Frees the buffers of sent packets, TX_CLEAN_BATCH descriptors at a time: with RS set on every descriptor, the
// NIC sets DD on each sent one, in order, so DD on the last of a batch means the whole batch is done (SDM 3.3.3.2).
static void tx_clean(struct e1000_tx_queue* queue, uint32_t ring_size) {
	// clean_index stays a multiple of TX_CLEAN_BATCH, which divides every ring size (64 .. 4096): no batch wraps.
	while (ring_index(queue->tx_index - queue->clean_index, ring_size) >= TX_CLEAN_BATCH &&
	       (__atomic_load_n(&queue->descriptors[queue->clean_index + TX_CLEAN_BATCH - 1].status, __ATOMIC_ACQUIRE) &
		E1000_TXD_STAT_DD)) {
		pkt_buf_free_batch(&queue->bufs[queue->clean_index], TX_CLEAN_BATCH);
		queue->clean_index = ring_index(queue->clean_index + TX_CLEAN_BATCH, ring_size);
	}
}

// Queues up to num_bufs packets for sending (SDM 3.3), one legacy descriptor each (3.3.3). Returns how many it took;
// the rest stay with the caller. A packet the NIC cannot send (empty, longer than its buffer or E1000_TX_MAX_LEN) ends
// the batch.
static uint32_t e1000_tx_batch(struct ixy_device* ixy, uint16_t queue_id __attribute__((unused)),
			       struct pkt_buf* bufs[], uint32_t num_bufs) {
	struct e1000_device* dev = IXY_TO_DRIVER(struct e1000_device, ixy);
	struct e1000_tx_queue* queue = &dev->tx_queue;
	tx_clean(queue, dev->ring_size);
	struct pkt_buf** ring_bufs = queue->bufs; // a local: read once per batch, not per packet
	size_t index = queue->tx_index, mask = dev->ring_size - 1u, sent = 0;
	// One descriptor stays free: tail == head means an empty ring to the NIC.
	size_t wanted = (queue->clean_index - index - 1) & mask;
	wanted = num_bufs < wanted ? num_bufs : wanted;
	while (sent < wanted) {
		struct pkt_buf* buf = bufs[sent];
		// size - 1 wraps around for an empty packet; a longer one than 3.3.3 allows would spill into CSO/CMD
		uint32_t size = buf->size;
		if (size - 1 >= buf->mempool->buf_size - offsetof(struct pkt_buf, data) || size > E1000_TX_MAX_LEN) {
			break;
		}
		volatile struct e1000_tx_desc* desc = &queue->descriptors[index];
		desc->buffer_addr = buf->buf_addr_phy + offsetof(struct pkt_buf, data);
		desc->cmd_len = E1000_TXD_CMD_EOP | E1000_TXD_CMD_IFCS | E1000_TXD_CMD_RS | size;
		desc->status = 0; // DD is written back once sent
		ring_bufs[index] = buf;
		index = (index + 1) & mask;
		sent++;
	}
	if (sent > 0) {
		__atomic_thread_fence(__ATOMIC_RELEASE); // the descriptors are in memory before the tail moves
		set_reg32(dev->bar, E1000_TDT, index);
		queue->tx_index = (uint16_t)index;
	}
	return sent;
}

// Allocates a descriptor ring of ring_size 16 byte descriptors, physically contiguous, and its buffer table, then
// tells the NIC where the ring is and that it is empty (head = tail = 0). base_reg is RDBAL or TDBAL (SDM 14.4,
// 14.5). Returns the descriptors, or NULL with a message.
static void* setup_ring(struct e1000_device* dev, uint32_t base_reg, struct dma_memory* ring, struct pkt_buf*** bufs) {
	*bufs = calloc(dev->ring_size, sizeof(**bufs));
	if (!*bufs || memory_allocate_dma(dev->ring_size * 16, true, ring) != 0) {
		ixy_error("%s: cannot allocate a ring of %u descriptors", dev->ixy.pci_addr, dev->ring_size);
		return NULL;
	}
	set_reg32(dev->bar, base_reg + E1000_RING_BAL, (uint32_t)ring->phy);
	set_reg32(dev->bar, base_reg + E1000_RING_BAH, (uint32_t)((uint64_t)ring->phy >> 32));
	set_reg32(dev->bar, base_reg + E1000_RING_LEN, dev->ring_size * 16u);
	set_reg32(dev->bar, base_reg + E1000_RING_HEAD, 0);
	set_reg32(dev->bar, base_reg + E1000_RING_TAIL, 0);
	return ring->virt;
}

// SDM 14.4, 74 4.6.5: the ring, its buffers, then RCTL in one write: the receiver on, broadcasts and promiscuous
// mode, buffers of 2048 bytes (BSIZE 00b, BSEX 0), no long packets, the CRC stripped. Then the ring is handed to the
// NIC by moving its tail.
static bool init_rx(struct e1000_device* dev) {
	struct e1000_rx_queue* queue = &dev->rx_queue;
	queue->descriptors = setup_ring(dev, E1000_RDBAL, &queue->ring_memory, &queue->bufs);
	queue->mempool = memory_allocate_mempool(RX_POOL_ENTRIES(dev->ring_size), RX_BUF_SIZE);
	if (!queue->descriptors || !queue->mempool) {
		return false;
	}
	pkt_buf_alloc_batch(queue->mempool, queue->bufs, dev->ring_size);
	rx_give_buffers(queue, 0, dev->ring_size);
	uint32_t rctl = get_reg32(dev->bar, E1000_RCTL) & ~(E1000_RCTL_BSIZE_MASK | E1000_RCTL_BSEX | E1000_RCTL_LPE);
	set_reg32(dev->bar, E1000_RCTL,
		  rctl | E1000_RCTL_EN | E1000_RCTL_BAM | E1000_RCTL_MPE | E1000_RCTL_UPE | E1000_RCTL_SECRC);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	set_reg32(dev->bar, E1000_RDT, dev->ring_size - 1u);
	return true;
}

// SDM 14.5, 74 4.6.6: the ring, then TCTL: the transmitter on, short frames padded, the recommended collision
// threshold and distance; the inter-packet gap of IEEE 802.3. The 82574L's quirk bits (74 10.2.6).
static bool init_tx(struct e1000_device* dev) {
	struct e1000_tx_queue* queue = &dev->tx_queue;
	queue->descriptors = setup_ring(dev, E1000_TDBAL, &queue->ring_memory, &queue->bufs);
	if (!queue->descriptors) {
		return false;
	}
	if (dev->model->quirks & QUIRK_TX_BITS) {
		set_flags32(dev->bar, E1000_TXDCTL, E1000_TXDCTL_82574_BIT22);
		set_flags32(dev->bar, E1000_TARC0, E1000_TARC_ENABLE);
	}
	set_reg32(dev->bar, E1000_TIPG, E1000_TIPG_IEEE);
	set_reg32(dev->bar, E1000_TCTL, E1000_TCTL_EN | E1000_TCTL_PSP | E1000_TCTL_CT_COLD);
	return true;
}

// Stops all DMA, then gives the buffers in the rings back to their pools: each RX descriptor holds one, TX
// descriptors from clean_index to tx_index hold packets not cleaned yet.
static void e1000_stop(struct ixy_device* ixy) {
	struct e1000_device* dev = IXY_TO_DRIVER(struct e1000_device, ixy);
	if (dev->stopped) {
		return;
	}
	dev->stopped = true;
	// Receiver off; the TX ring may first drain (head reaches tail; mask 0: no ring, nothing to wait for), then the
	// transmitter off, then the reset.
	clear_flags32(dev->bar, E1000_RCTL, E1000_RCTL_EN);
	wait_for_reg(dev, E1000_TDH, dev->tx_queue.descriptors ? ~0u : 0, dev->tx_queue.tx_index, 100, "TX to drain");
	clear_flags32(dev->bar, E1000_TCTL, E1000_TCTL_EN);
	reset_device(dev);
	// A failed init may leave a ring without buffers, or without its buffer table.
	for (uint32_t d = 0; dev->rx_queue.bufs && d < dev->ring_size && dev->rx_queue.bufs[d]; d++) {
		pkt_buf_free(dev->rx_queue.bufs[d]);
	}
	for (uint32_t d = dev->tx_queue.clean_index; d != dev->tx_queue.tx_index;
	     d = ring_index(d + 1, dev->ring_size)) {
		pkt_buf_free(dev->tx_queue.bufs[d]);
	}
}

// Stops the device unless it is stopped already, ends its bus mastering and frees everything. Rings never allocated
// are all zero: freeing them does nothing.
static void e1000_close(struct ixy_device* ixy) {
	struct e1000_device* dev = IXY_TO_DRIVER(struct e1000_device, ixy);
	e1000_stop(ixy);
	pci_set_bus_master(dev->pci, false);
	struct mempool* pool = dev->rx_queue.mempool;
	if (pool) { // the tests check that every buffer came back
		ixy_info("%s: closed; RX mempool: %u of %u buffers free; RX queue 0", dev->ixy.pci_addr,
			 pool->free_stack_top, pool->num_entries);
	}
	memory_free_dma(&dev->rx_queue.ring_memory);
	memory_free_mempool(pool);
	free(dev->rx_queue.bufs);
	memory_free_dma(&dev->tx_queue.ring_memory);
	free(dev->tx_queue.bufs);
	pci_close(dev->pci); // closes the interrupts' eventfds too
	free(dev->ixy.interrupts);
	free(dev);
}

// Writes a register of the copper PHY through MDIC (SDM 13.4.7) and waits until the NIC has done it.
static bool write_phy_reg(struct e1000_device* dev, uint32_t reg, uint16_t value) {
	uint32_t mdic = value | reg << E1000_MDIC_REG_SHIFT | E1000_PHY_ADDRESS << E1000_MDIC_PHY_SHIFT;
	set_reg32(dev->bar, E1000_MDIC, mdic | E1000_MDIC_OP_WRITE);
	return wait_for_reg(dev, E1000_MDIC, E1000_MDIC_READY, E1000_MDIC_READY, 1000, "a PHY register write") &&
	       !(get_reg32(dev->bar, E1000_MDIC) & E1000_MDIC_ERROR);
}

// Which of the two NICs pci is (its device ID, from config space), if config asks for no more queues than the driver
// has; NULL with a message if not.
static const struct e1000_model* find_model(const struct ixy_config* config, struct pci_device* pci) {
	// One ring each way: the 82540EM has no more. The 82574L has two of each, but spreads received packets over
	// both only with RSS, which needs its extended descriptors (74 7.1.2.10); QEMU's model agrees.
	if (config->rx_queues > 1 || config->tx_queues > 1) {
		ixy_error(
		    "%s: the e1000 driver has 1 RX and 1 TX queue (no RSS with legacy descriptors), %u and %u asked",
		    pci->addr, config->rx_queues, config->tx_queues);
		return NULL;
	}
	uint16_t id = 0;
	for (size_t i = 0; pci->access->config(pci, &id, sizeof(id), PCI_DEVICE_ID, false) == 0 && i < 2; i++) {
		if (models[i].device_id == id) {
			return &models[i];
		}
	}
	ixy_error("%s: cannot read its device ID, or 0x%04x is not an 82540EM or 82574L", pci->addr, id);
	return NULL;
}

// Promiscuous mode, link speed, MAC address (ixy/settings.h).
static const struct ixy_settings e1000_settings = {.set_promisc = e1000_set_promisc,
						   .get_link_speed = e1000_get_link_speed,
						   .get_mac_addr = e1000_get_mac_addr,
						   .set_mac_addr = e1000_set_mac_addr};

static struct ixy_device* e1000_init(const struct ixy_config* config, struct pci_device* pci,
				     const struct driver_features* features) {
	(void)features; // (ixgbe's init takes its features from the entries; this driver calls its own)
	const struct e1000_model* model = find_model(config, pci);
	struct e1000_device* dev = model ? calloc(1, sizeof(*dev)) : NULL;
	uint8_t* bar = dev ? pci->bar0 : NULL; // mapped by ixy_init (pci_map_bar0)
	if (!bar) {
		if (model) { // (else find_model said why)
			ixy_error("%s: e1000 init failed: out of memory", pci->addr);
		}
		free(dev);
		pci_set_bus_master(pci, false);
		pci_close(pci);
		return NULL;
	}
	ixy_trace_bar(pci->addr, &e1000_reg_names, bar, pci->bar0_size); // IXY_TRACE=1 (src/trace.h)
	dev->pci = pci;
	dev->bar = bar;
	dev->model = model;
	dev->ixy = (struct ixy_device){
	    .pci_addr = pci->addr,
	    .driver_name = "e1000",
	    .num_rx_queues = config->rx_queues,
	    .num_tx_queues = config->tx_queues,
	    .rx_batch = e1000_rx_batch,
	    .tx_batch = e1000_tx_batch,
	    .read_stats = e1000_read_stats,
	    .settings = &e1000_settings,
	    .stop = e1000_stop,
	    .close = e1000_close,
	};
	dev->ring_size = config->ring_size ? (uint16_t)config->ring_size : IXY_DEFAULT_RING_SIZE; // ixy_init checked it
	// SDM 14.3-14.5, 74 4.6: reset, then link, statistics, TX, interrupts, and RX started last. (injected_failure:
	// a test hook.)
	bool ok = reset_device(dev) && !injected_failure(config, "reset");
	if (ok) {
		// SDM 14.3, 74 4.6.3: copper link through the PHY's auto-negotiation: the MAC takes speed and duplex
		// from the PHY (SLU set, nothing forced), and the PHY restarts it.
		uint32_t ctrl = get_reg32(dev->bar, E1000_CTRL) & ~(E1000_CTRL_FRCSPD | E1000_CTRL_FRCDPX);
		set_reg32(dev->bar, E1000_CTRL, ctrl | E1000_CTRL_SLU);
		ok = write_phy_reg(dev, E1000_PHY_CONTROL, E1000_PHY_CONTROL_AN_ENABLE | E1000_PHY_CONTROL_RESTART_AN);
		e1000_read_stats(&dev->ixy, NULL); // SDM 14.3: reading clears the counters
		// No ring for a direction without a queue (ixy-pktgen receives nothing).
		ok = ok && (config->tx_queues == 0 || init_tx(dev)) && !injected_failure(config, "memory") &&
		     !injected_failure(config, "queue") &&
		     e1000_setup_interrupts(dev->bar, pci, config, &dev->ixy.interrupts) == 0 &&
		     (config->rx_queues == 0 || init_rx(dev));
	}
	if (!ok) {
		ixy_error("%s: e1000 init failed", dev->ixy.pci_addr);
		e1000_close(&dev->ixy); // stops the NIC and frees what init allocated
		return NULL;
	}
	// Auto-negotiation takes a while (QEMU's models: 500 ms). Without a link, nothing is sent or received, but the
	// device works: init continues after the warning, and the link may still come up later.
	wait_for_reg(dev, E1000_STATUS, E1000_STATUS_LU, E1000_STATUS_LU, LINK_TIMEOUT_MS, "the link");
	return &dev->ixy;
}

// The DMA memory e1000_init allocates: the RX ring (one huge page) and pool, the TX ring.
static uint32_t e1000_huge_pages_needed(const struct ixy_config* config) {
	uint32_t ring_size = config->ring_size ? config->ring_size : IXY_DEFAULT_RING_SIZE;
	uint32_t pool = memory_mempool_huge_pages(RX_POOL_ENTRIES(ring_size), RX_BUF_SIZE);
	return config->rx_queues * (1 + pool) + config->tx_queues;
}

const struct ixy_driver e1000_driver = {.name = "e1000",
					.vendor_id = 0x8086,
					.device_ids = nic_ids,
					.num_device_ids = sizeof(nic_ids) / sizeof(nic_ids[0]),
					.init = e1000_init,
					.huge_pages_needed = e1000_huge_pages_needed};
