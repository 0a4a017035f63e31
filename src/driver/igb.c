// igb: driver for the Intel 82576 1 GbE NIC (copper), the NIC that QEMU's "igb" device models.
//
// Read it side by side with ixgbe.c: the same functions in the same order, the same rings and advanced descriptors
// (intel_adv_desc.h). What differs is the 82576's: RCTL and TCTL switch the receiver and transmitter (instead of
// RXCTRL and DMATXCTL), SRRCTL sets each queue's buffer size, the link comes up through the copper PHY's
// auto-negotiation (reached through MDIC), and a few register offsets. igb_init() follows the order of 82576
// datasheet section 4.5.3 (revision 2.63; all section numbers here refer to it), with one receive and one transmit
// descriptor ring per queue. Registers are in igb_regs.h; register access goes through driver.h.
//
// Where to start reading (after ixgbe.c, as in docs/book/05-the-igb-driver.md): igb_init() at the bottom, then
// igb_rx_batch() and igb_tx_batch(), which differ from ixgbe's only in register names; then igb_stop().
#include <stdlib.h>

#include <ixy/settings.h>

#include "../trace.h" // ixy_trace_bar: the register trace for students
#include "driver.h"
#include "injected_failure.h"
#include "igb_interrupts.h"
#include "igb_regs.h"
#include "intel_rss.h"

// Packet buffers of the receive pools, as in ixgbe.c: the NIC writes up to BSIZEPACKET bytes (whole KB) at the data
// offset, so 3 KB after the 64 byte header hold any frame the MAC accepts without jumbo frames (1522 bytes).
#define RX_BUF_SIZE (64 + 3 * 1024)
#define RX_BUF_DATA_ROOM (RX_BUF_SIZE - offsetof(struct pkt_buf, data))
// Buffers per RX pool: enough to refill the ring while the app holds a ring's worth (e.g. in another NIC's TX ring).
#define RX_POOL_ENTRIES(ring_size) (2 * (ring_size) + 1024)
// Sent descriptors are cleaned (their buffers freed) in batches of this many: less often touching the ring.
#define TX_CLEAN_BATCH 32
// Every wait for the NIC polls a register once per millisecond, up to a timeout: 1 s for the NIC's own steps
// (reset, queue enable, PHY access), 100 ms for queues to stop, LINK_TIMEOUT_MS for auto-negotiation.
#define POLL_INTERVAL_US 1000
#define LINK_TIMEOUT_MS 10000

// The PCI device IDs of the NICs this driver takes (vendor 0x8086; igb_regs.h lists them).
static const uint16_t nic_ids[] = {IGB_DEVICE_IDS};

// All rings of a device have the same number of descriptors, igb_device.ring_size.
// Each queue's state starts a cache line of its own (_Alignas), as in ixgbe.c: queue i and i + 1 may be two threads'.
// Only the queue's thread writes it; what the statistics reader writes lives in the device (rx_dropped_read).
struct igb_rx_queue {
	// the ring: NIC reads buffer addresses, writes back status (_Alignas: the queue starts a cache line)
	_Alignas(IXY_CACHE_LINE) volatile union intel_adv_rx_desc* descriptors;
	struct dma_memory ring_memory;
	struct mempool* mempool;   // buffers for this queue's descriptors
	struct pkt_buf** bufs;     // bufs[i]: the buffer descriptor i points to
	uint16_t rx_index;         // next descriptor to look at for a received packet
	bool in_multi_desc_packet; // the last descriptor seen had no EOP: drop up to and including the next EOP
	uint64_t dropped;          // packets the driver dropped (spanning descriptors, bad length); only grows
};
_Static_assert(sizeof(struct igb_rx_queue) == IXY_CACHE_LINE, "an RX queue's state is one cache line");

struct igb_tx_queue {
	// the ring: NIC reads packet addresses, writes back DD (_Alignas: the queue starts a cache line)
	_Alignas(IXY_CACHE_LINE) volatile union intel_adv_tx_desc* descriptors;
	struct dma_memory ring_memory;
	struct pkt_buf** bufs; // bufs[i]: the buffer descriptor i sends, freed once sent
	uint16_t clean_index;  // oldest descriptor not yet cleaned
	uint16_t tx_index;     // next descriptor to fill
};
_Static_assert(sizeof(struct igb_tx_queue) == IXY_CACHE_LINE, "a TX queue's state is one cache line");

struct igb_device {
	struct ixy_device ixy;
	struct pci_device* pci; // ixy.pci_addr points to its address
	uint8_t* bar;           // BAR0: the NIC's registers
	uint16_t ring_size;     // descriptors per ring, a power of two
	struct igb_rx_queue rx_queues[IGB_MAX_QUEUES];
	struct igb_tx_queue tx_queues[IGB_MAX_QUEUES];
	// rx_queues[i].dropped at the last read_stats: the reader's, on lines of their own (_Alignas)
	_Alignas(IXY_CACHE_LINE) uint64_t rx_dropped_read[IGB_MAX_QUEUES];
	bool stopped; // no DMA any more: igb_stop ran, and the rings hold no buffers
};

// Polls until (reg & mask) == expected, every POLL_INTERVAL_US, for at most timeout_ms. On timeout warns that the
// NIC did not do `what` (unless what is NULL) and returns false; the caller decides whether that is fatal.
static bool wait_for_reg(const struct igb_device* dev, uint32_t reg, uint32_t mask, uint32_t expected,
			 uint32_t timeout_ms, const char* what) {
	for (uint32_t waited_us = 0; waited_us <= timeout_ms * 1000; waited_us += POLL_INTERVAL_US) {
		if ((get_reg32(dev->bar, reg) & mask) == expected) {
			return true;
		}
		ixy_usleep(POLL_INTERVAL_US);
	}
	if (what) {
		ixy_warn("%s: timeout after %u ms waiting for %s", dev->ixy.pci_addr, timeout_ms, what);
	}
	return false;
}

static uint32_t ring_index(uint32_t index, uint32_t ring_size) {
	return index & (ring_size - 1); // ring sizes are powers of two
}

// 4.5.4 and 4.5.5: mask all interrupts (ixy polls), stop the NIC's DMA (CTRL.GIO_MASTER_DISABLE), reset the whole
// device, mask interrupts again, then give the NIC up to 10 ms to read its EEPROM (MAC address, settings). QEMU's
// model has no EEPROM and never sets EECD.AUTO_RD, so that wait is not an error (Linux's igb does the same).
static bool reset_device(struct igb_device* dev) {
	set_reg32(dev->bar, IGB_IMC, IGB_IRQ_ALL);
	set_reg32(dev->bar, IGB_EIMC, IGB_IRQ_ALL);
	set_flags32(dev->bar, IGB_CTRL, IGB_CTRL_GIO_MASTER_DISABLE);
	wait_for_reg(dev, IGB_STATUS, IGB_STATUS_GIO_MASTER_ENABLE, 0, 100, "DMA to stop before the reset");
	set_flags32(dev->bar, IGB_CTRL, IGB_CTRL_RST);
	// 4.2.1.6.1: wait at least 1 ms after a global reset before touching the device again.
	ixy_usleep(10000);
	if (!wait_for_reg(dev, IGB_CTRL, IGB_CTRL_RST, 0, 1000, "the reset")) {
		return false;
	}
	set_reg32(dev->bar, IGB_IMC, IGB_IRQ_ALL);
	set_reg32(dev->bar, IGB_EIMC, IGB_IRQ_ALL);
	wait_for_reg(dev, IGB_EECD, IGB_EECD_AUTO_RD, IGB_EECD_AUTO_RD, 10, NULL);
	return true;
}

// Adds the NIC's counters since the last call to *stats (NULL: just restart counting). They clear on read (8.19):
// init reads them once.
static void igb_read_stats(struct ixy_device* ixy, struct device_stats* stats) {
	struct igb_device* dev = IXY_TO_DRIVER(struct igb_device, ixy);
	struct device_stats discarded = {0};
	stats = stats ? stats : &discarded;
	// Drops: packet buffer full (MPC), no free descriptor in a DROP_EN queue (RQDPC), packets the driver dropped.
	stats->rx_dropped += get_reg32(dev->bar, IGB_MPC);
	for (uint16_t i = 0; i < ixy->num_rx_queues; i++) {
		uint64_t dropped = __atomic_load_n(&dev->rx_queues[i].dropped, __ATOMIC_RELAXED);
		stats->rx_dropped += get_reg32(dev->bar, IGB_RQDPC(i)) + dropped - dev->rx_dropped_read[i];
		dev->rx_dropped_read[i] = dropped;
	}
	stats->rx_pkts += get_reg32(dev->bar, IGB_GPRC);
	stats->tx_pkts += get_reg32(dev->bar, IGB_GPTC);
	// The low half first: reading the high half clears the 64 bit counter.
	stats->rx_bytes += get_reg32(dev->bar, IGB_GORCL);
	stats->rx_bytes += (uint64_t)get_reg32(dev->bar, IGB_GORCH) << 32;
	stats->tx_bytes += get_reg32(dev->bar, IGB_GOTCL);
	stats->tx_bytes += (uint64_t)get_reg32(dev->bar, IGB_GOTCH) << 32;
}

// 8.10.1: unlike the 82599's FCTRL, RCTL's filter bits may change while the receiver runs.
static int igb_set_promisc(struct ixy_device* ixy, bool enabled) {
	struct igb_device* dev = IXY_TO_DRIVER(struct igb_device, ixy);
	// Promiscuous: accept all unicast (UPE) and all multicast (MPE) frames.
	uint32_t rctl = get_reg32(dev->bar, IGB_RCTL) & ~(IGB_RCTL_MPE | IGB_RCTL_UPE);
	set_reg32(dev->bar, IGB_RCTL, enabled ? rctl | IGB_RCTL_MPE | IGB_RCTL_UPE : rctl);
	return 0;
}

// STATUS.SPEED (8.2.2) is 00b for 10 Mb/s, 01b for 100 Mb/s, 10b or 11b for 1 Gb/s.
static uint32_t igb_get_link_speed(const struct ixy_device* ixy) {
	const struct igb_device* dev = IXY_TO_DRIVER(const struct igb_device, ixy);
	static const uint32_t speed_mbit[4] = {10, 100, 1000, 1000};
	uint32_t status = get_reg32(dev->bar, IGB_STATUS);
	return (status & IGB_STATUS_LU) ? speed_mbit[(status & IGB_STATUS_SPEED_MASK) >> IGB_STATUS_SPEED_SHIFT] : 0;
}

// Receive address entry 0 holds the NIC's own MAC address (RAL0, RAH0), lowest byte first.
static int igb_get_mac_addr(const struct ixy_device* ixy, uint8_t mac[6]) {
	const struct igb_device* dev = IXY_TO_DRIVER(const struct igb_device, ixy);
	uint64_t addr = get_reg32(dev->bar, IGB_RAL0) | (uint64_t)get_reg32(dev->bar, IGB_RAH0) << 32;
	for (int i = 0; i < 6; i++) {
		mac[i] = (uint8_t)(addr >> (8 * i));
	}
	return 0;
}

static int igb_set_mac_addr(struct ixy_device* ixy, const uint8_t mac[6]) {
	struct igb_device* dev = IXY_TO_DRIVER(struct igb_device, ixy);
	set_reg32(dev->bar, IGB_RAL0, mac[0] | mac[1] << 8 | mac[2] << 16 | (uint32_t)mac[3] << 24);
	set_reg32(dev->bar, IGB_RAH0, mac[4] | mac[5] << 8 | IGB_RAH_AV);
	return 0;
}

// Gives descriptors first .. end - 1 of an RX ring to the NIC with the buffers in the ring's table, in read format
// (7.1.5.1). Rewriting the read format also clears DD (bit 0 of hdr_addr) for the next round.
static void rx_give_buffers(struct igb_rx_queue* queue, size_t first, size_t end) {
	for (size_t i = first; i < end; i++) {
		queue->descriptors[i].read.pkt_addr = queue->bufs[i]->buf_addr_phy + offsetof(struct pkt_buf, data);
		queue->descriptors[i].read.hdr_addr = 0;
	}
}

// Receives up to num_bufs packets (7.1): the NIC sets DD in a descriptor's write-back once the packet is in
// memory. First the packets are taken from their descriptors, then the descriptors taken get fresh buffers from one
// batch allocation, then all go back to the NIC with one tail write.
static uint32_t igb_rx_batch(struct ixy_device* ixy, uint16_t queue_id, struct pkt_buf* bufs[], uint32_t num_bufs) {
	struct igb_device* dev = IXY_TO_DRIVER(struct igb_device, ixy);
	struct igb_rx_queue* queue = &dev->rx_queues[queue_id];
	struct pkt_buf** ring_bufs = queue->bufs; // a local: read once per batch, not per packet
	size_t first = queue->rx_index, index = first, received = 0;
	// A call stops at the ring's end, so that no index wraps (the next call starts at 0). It never looks at all
	// ring_size descriptors (the NIC fills at most ring_size - 1): a NIC that keeps setting DD cannot keep it here.
	size_t end = dev->ring_size - (first == 0);
	// Only as many packets as the pool can replace: the rest wait in their descriptors until the app frees buffers.
	size_t wanted = num_bufs < queue->mempool->free_stack_top ? num_bufs : queue->mempool->free_stack_top;
	// The status bit that ends a frame: EOP, or none while the rest of a frame that spans descriptors is dropped.
	uint32_t frame_end_bit = queue->in_multi_desc_packet ? 0 : ADV_RXD_STAT_EOP;
	while (received < wanted && index < end) {
		// Acquire: the length and the frame are read after the status that says the NIC wrote them.
		uint32_t status = __atomic_load_n(&queue->descriptors[index].wb.status_error, __ATOMIC_ACQUIRE);
		if (!(status & ADV_RXD_STAT_DD)) {
			break;
		}
		uint32_t length = queue->descriptors[index].wb.length;
		struct pkt_buf* buf = ring_bufs[index];
		// A frame larger than one buffer spans several descriptors, only the last with EOP: not supported, so
		// all its parts are dropped. A length of 0 (length - 1 wraps around) or beyond the buffer is a NIC bug.
		// __builtin_expect: drops are rare, the straight path is the packet.
		if (__builtin_expect((status & frame_end_bit) && length - 1 < RX_BUF_DATA_ROOM, 1)) {
			buf->size = length;
			bufs[received++] = buf;
		} else {
			frame_end_bit = status & ADV_RXD_STAT_EOP; // the next descriptor starts a frame after an EOP
			__atomic_store_n(&queue->dropped, queue->dropped + (frame_end_bit != 0), __ATOMIC_RELAXED);
			// The buffer is reused: it moves in front of the descriptors taken so far, so that those
			// needing a fresh buffer stay one run, for one batch allocation.
			ring_bufs[index - received] = buf;
		}
		index++;
	}
	// Fresh buffers for the run of taken descriptors; the pool has them (received <= wanted).
	pkt_buf_alloc_batch(queue->mempool, &ring_bufs[index - received], received);
	rx_give_buffers(queue, first, index);
	if (index != first) {
		// The tail is the last descriptor given back: the NIC may fill everything before it. One descriptor
		// always stays with the driver, so head == tail means "ring empty" to the NIC, never "full".
		set_reg32(dev->bar, IGB_RDT(queue_id), index - 1);
		queue->rx_index = (uint16_t)ring_index(index, dev->ring_size);
		queue->in_multi_desc_packet = !frame_end_bit;
	}
	return received;
}

// Frees the buffers of sent packets, TX_CLEAN_BATCH descriptors at a time: with RS set on every descriptor, the
// NIC sets DD on each sent one, and DD on the last of a batch means the whole batch is done (7.2.2.3).
static void tx_clean(struct igb_tx_queue* queue, uint32_t ring_size) {
	// clean_index stays a multiple of TX_CLEAN_BATCH, which divides every ring size (64 .. 4096): no batch wraps.
	while (
	    ring_index(queue->tx_index - queue->clean_index, ring_size) >= TX_CLEAN_BATCH &&
	    (__atomic_load_n(&queue->descriptors[queue->clean_index + TX_CLEAN_BATCH - 1].wb.status, __ATOMIC_ACQUIRE) &
	     ADV_TXD_STAT_DD)) {
		pkt_buf_free_batch(&queue->bufs[queue->clean_index], TX_CLEAN_BATCH);
		queue->clean_index = ring_index(queue->clean_index + TX_CLEAN_BATCH, ring_size);
	}
}

// Queues up to num_bufs packets for sending (7.2), one advanced data descriptor each (7.2.2.3). Returns how many it
// took; the rest stay with the caller. A packet the NIC cannot send (empty, or longer than its buffer) ends the batch.
static uint32_t igb_tx_batch(struct ixy_device* ixy, uint16_t queue_id, struct pkt_buf* bufs[], uint32_t num_bufs) {
	struct igb_device* dev = IXY_TO_DRIVER(struct igb_device, ixy);
	struct igb_tx_queue* queue = &dev->tx_queues[queue_id];
	tx_clean(queue, dev->ring_size);
	struct pkt_buf** ring_bufs = queue->bufs; // a local: read once per batch, not per packet
	size_t index = queue->tx_index, mask = dev->ring_size - 1u, sent = 0;
	// One descriptor stays free: tail == head means an empty ring to the NIC.
	size_t wanted = (queue->clean_index - index - 1) & mask;
	wanted = num_bufs < wanted ? num_bufs : wanted;
	while (sent < wanted) {
		struct pkt_buf* buf = bufs[sent];
		uint32_t size = buf->size; // size - 1 wraps around for an empty packet
		if (size - 1 >= buf->mempool->buf_size - offsetof(struct pkt_buf, data)) {
			break;
		}
		volatile union intel_adv_tx_desc* desc = &queue->descriptors[index];
		desc->read.buffer_addr = buf->buf_addr_phy + offsetof(struct pkt_buf, data);
		desc->read.cmd_type_len = ADV_TXD_DCMD_EOP | ADV_TXD_DCMD_RS | ADV_TXD_DCMD_IFCS | ADV_TXD_DCMD_DEXT |
					  ADV_TXD_DTYP_DATA | size;
		desc->read.olinfo_status = size << ADV_TXD_PAYLEN_SHIFT;
		ring_bufs[index] = buf;
		index = (index + 1) & mask;
		sent++;
	}
	if (sent > 0) {
		set_reg32(dev->bar, IGB_TDT(queue_id), index);
		queue->tx_index = (uint16_t)index;
	}
	return sent;
}

// Allocates a descriptor ring of ring_size 16 byte descriptors, physically contiguous, and its buffer table, then
// tells the NIC where the ring is and that it is empty (head = tail = 0). base_reg is the queue's RDBAL(n) or
// TDBAL(n): the other ring registers follow it at the same offsets for RX and TX (4.5.9, 4.5.10). Returns the
// descriptors, or NULL with a message.
static void* setup_ring(struct igb_device* dev, uint32_t base_reg, struct dma_memory* ring, struct pkt_buf*** bufs) {
	*bufs = calloc(dev->ring_size, sizeof(**bufs));
	if (!*bufs || memory_allocate_dma(dev->ring_size * 16, true, ring) != 0) {
		ixy_error("%s: cannot allocate a ring of %u descriptors", dev->ixy.pci_addr, dev->ring_size);
		return NULL;
	}
	set_reg32(dev->bar, base_reg + IGB_RING_BAL, (uint32_t)ring->phy);
	set_reg32(dev->bar, base_reg + IGB_RING_BAH, (uint32_t)((uint64_t)ring->phy >> 32));
	set_reg32(dev->bar, base_reg + IGB_RING_LEN, dev->ring_size * 16u);
	set_reg32(dev->bar, base_reg + IGB_RING_HEAD, 0);
	set_reg32(dev->bar, base_reg + IGB_RING_TAIL, 0);
	return ring->virt;
}

// 4.5.9: global receive setup and each queue's registers. The receiver stays off (RCTL.EN = 0) until start_rx().
static bool init_rx(struct igb_device* dev) {
	// Broadcasts and promiscuous mode; the CRC is stripped (8.10.1). One queue: every packet goes to queue 0; more:
	// RSS spreads them (intel_rss.c).
	uint32_t rctl = get_reg32(dev->bar, IGB_RCTL) & ~IGB_RCTL_EN;
	set_reg32(dev->bar, IGB_RCTL, rctl | IGB_RCTL_BAM | IGB_RCTL_MPE | IGB_RCTL_UPE | IGB_RCTL_SECRC);
	for (uint16_t i = 0; i < dev->ixy.num_rx_queues; i++) {
		struct igb_rx_queue* queue = &dev->rx_queues[i];
		queue->descriptors = setup_ring(dev, IGB_RDBAL(i), &queue->ring_memory, &queue->bufs);
		queue->mempool = memory_allocate_mempool(RX_POOL_ENTRIES(dev->ring_size), RX_BUF_SIZE);
		if (!queue->descriptors || !queue->mempool) {
			return false;
		}
		// Advanced descriptors, one buffer of BSIZEPACKET KB each (whole KB that fit the buffer); when the ring
		// is full, drop packets instead of stalling (8.10.2).
		uint32_t srrctl = get_reg32(dev->bar, IGB_SRRCTL(i));
		srrctl &= ~(IGB_SRRCTL_DESCTYPE_MASK | IGB_SRRCTL_BSIZEPACKET_MASK);
		srrctl |= IGB_SRRCTL_DESCTYPE_ADV_ONEBUF | IGB_SRRCTL_DROP_EN | RX_BUF_DATA_ROOM / 1024;
		set_reg32(dev->bar, IGB_SRRCTL(i), srrctl);
	}
	return true;
}

// 4.5.9: give every descriptor a buffer (the pool is larger than the ring) and enable each queue, then turn the
// receiver on: the 82576 shows a queue as enabled only once RCTL.EN is set (8.10.10). Then each ring is handed to
// the NIC by moving its tail (the NIC ignores tail writes to a disabled queue).
static bool start_rx(struct igb_device* dev) {
	for (uint16_t i = 0; i < dev->ixy.num_rx_queues; i++) {
		pkt_buf_alloc_batch(dev->rx_queues[i].mempool, dev->rx_queues[i].bufs, dev->ring_size);
		rx_give_buffers(&dev->rx_queues[i], 0, dev->ring_size);
		set_flags32(dev->bar, IGB_RXDCTL(i), IGB_RXDCTL_ENABLE);
	}
	set_flags32(dev->bar, IGB_RCTL, IGB_RCTL_EN);
	for (uint16_t i = 0; i < dev->ixy.num_rx_queues; i++) {
		if (!wait_for_reg(dev, IGB_RXDCTL(i), IGB_RXDCTL_ENABLE, IGB_RXDCTL_ENABLE, 1000, "RX queue")) {
			return false;
		}
		set_reg32(dev->bar, IGB_RDT(i), dev->ring_size - 1u);
	}
	return true;
}

// 4.5.10: each queue's registers and enable bit, then the transmitter on; a queue shows as enabled once TCTL.EN is
// set (8.12.13).
static bool init_tx(struct igb_device* dev) {
	for (uint16_t i = 0; i < dev->ixy.num_tx_queues; i++) {
		struct igb_tx_queue* queue = &dev->tx_queues[i];
		queue->descriptors = setup_ring(dev, IGB_TDBAL(i), &queue->ring_memory, &queue->bufs);
		if (!queue->descriptors) {
			return false;
		}
		// Prefetch and host thresholds as Intel's driver sets them; write-back of every descriptor (8.12.13).
		uint32_t txdctl = get_reg32(dev->bar, IGB_TXDCTL(i)) & ~IGB_TXDCTL_THRESH_MASK;
		set_reg32(dev->bar, IGB_TXDCTL(i), txdctl | IGB_TXDCTL_THRESH(8, 1, 1) | IGB_TXDCTL_ENABLE);
	}
	// 8.12.1: pad short frames, the recommended collision threshold (the collision distance keeps its default).
	uint32_t tctl = get_reg32(dev->bar, IGB_TCTL) & ~IGB_TCTL_CT_MASK;
	set_reg32(dev->bar, IGB_TCTL, tctl | IGB_TCTL_PSP | IGB_TCTL_CT_DEFAULT | IGB_TCTL_EN);
	for (uint16_t i = 0; i < dev->ixy.num_tx_queues; i++) {
		if (!wait_for_reg(dev, IGB_TXDCTL(i), IGB_TXDCTL_ENABLE, IGB_TXDCTL_ENABLE, 1000, "TX queue")) {
			return false;
		}
	}
	return true;
}

// Stops all DMA, then gives the buffers in the rings back to their pools: each RX descriptor holds one, TX
// descriptors from clean_index to tx_index hold packets not cleaned yet.
static void igb_stop(struct ixy_device* ixy) {
	struct igb_device* dev = IXY_TO_DRIVER(struct igb_device, ixy);
	if (dev->stopped) {
		return;
	}
	dev->stopped = true;
	// Receiver off, then each RX queue; each TX queue may first drain (head reaches tail), then the transmitter
	// off. The global reset afterwards stops any queue that did not stop in time.
	clear_flags32(dev->bar, IGB_RCTL, IGB_RCTL_EN);
	for (uint16_t i = 0; i < ixy->num_rx_queues; i++) {
		clear_flags32(dev->bar, IGB_RXDCTL(i), IGB_RXDCTL_ENABLE);
		wait_for_reg(dev, IGB_RXDCTL(i), IGB_RXDCTL_ENABLE, 0, 100, "RX queue to stop");
	}
	for (uint16_t i = 0; i < ixy->num_tx_queues; i++) {
		wait_for_reg(dev, IGB_TDH(i), ~0u, dev->tx_queues[i].tx_index, 100, "TX queue to drain");
		clear_flags32(dev->bar, IGB_TXDCTL(i), IGB_TXDCTL_ENABLE);
		wait_for_reg(dev, IGB_TXDCTL(i), IGB_TXDCTL_ENABLE, 0, 100, "TX queue to stop");
	}
	clear_flags32(dev->bar, IGB_TCTL, IGB_TCTL_EN);
	reset_device(dev);
	// The reset enables queue 0 again (its default, 8.10.10, 8.12.13): without a ring, but disabled is clearer.
	clear_flags32(dev->bar, IGB_RXDCTL(0), IGB_RXDCTL_ENABLE);
	clear_flags32(dev->bar, IGB_TXDCTL(0), IGB_TXDCTL_ENABLE);
	// A failed init may leave a ring without buffers, or without its buffer table.
	for (uint16_t i = 0; i < ixy->num_rx_queues; i++) {
		for (uint32_t d = 0; dev->rx_queues[i].bufs && d < dev->ring_size && dev->rx_queues[i].bufs[d]; d++) {
			pkt_buf_free(dev->rx_queues[i].bufs[d]);
		}
	}
	for (uint16_t i = 0; i < ixy->num_tx_queues; i++) {
		struct igb_tx_queue* queue = &dev->tx_queues[i];
		for (uint32_t d = queue->clean_index; d != queue->tx_index; d = ring_index(d + 1, dev->ring_size)) {
			pkt_buf_free(queue->bufs[d]);
		}
	}
}

// Stops the device unless it is stopped already, ends its bus mastering and frees everything. Queue slots beyond
// the ones in use, and rings never allocated, are all zero: freeing them does nothing.
static void igb_close(struct ixy_device* ixy) {
	struct igb_device* dev = IXY_TO_DRIVER(struct igb_device, ixy);
	igb_stop(ixy);
	pci_set_bus_master(dev->pci, false);
	for (uint16_t i = 0; i < IGB_MAX_QUEUES; i++) {
		struct mempool* pool = dev->rx_queues[i].mempool;
		if (pool) { // the tests check that every buffer came back
			ixy_info("%s: closed; RX mempool: %u of %u buffers free; RX queue %u", dev->ixy.pci_addr,
				 pool->free_stack_top, pool->num_entries, i);
		}
		memory_free_dma(&dev->rx_queues[i].ring_memory);
		memory_free_mempool(pool);
		free(dev->rx_queues[i].bufs);
		memory_free_dma(&dev->tx_queues[i].ring_memory);
		free(dev->tx_queues[i].bufs);
	}
	pci_close(dev->pci); // closes the interrupts' eventfds too
	free(dev->ixy.interrupts);
	free(dev);
}

// Writes a register of the copper PHY through MDIC (8.2.4) and waits until the NIC has done it.
static bool write_phy_reg(struct igb_device* dev, uint32_t reg, uint16_t value) {
	set_reg32(dev->bar, IGB_MDIC,
		  value | reg << IGB_MDIC_REG_SHIFT | IGB_PHY_ADDRESS << IGB_MDIC_PHY_SHIFT | IGB_MDIC_OP_WRITE);
	return wait_for_reg(dev, IGB_MDIC, IGB_MDIC_READY, IGB_MDIC_READY, 1000, "a PHY register write") &&
	       !(get_reg32(dev->bar, IGB_MDIC) & IGB_MDIC_ERROR);
}

// Promiscuous mode, link speed, MAC address (ixy/settings.h).
static const struct ixy_settings igb_settings = {.set_promisc = igb_set_promisc,
						 .get_link_speed = igb_get_link_speed,
						 .get_mac_addr = igb_get_mac_addr,
						 .set_mac_addr = igb_set_mac_addr};

static struct ixy_device* igb_init(const struct ixy_config* config, struct pci_device* pci,
				   const struct driver_features* features) {
	(void)features; // (ixgbe's init takes its features from the entries; this driver calls its own)
	if (config->rx_queues > IGB_MAX_QUEUES || config->tx_queues > IGB_MAX_QUEUES) {
		ixy_error("%s: the 82576 has %d RX and %d TX queues, %u and %u were requested", pci->addr,
			  IGB_MAX_QUEUES, IGB_MAX_QUEUES, config->rx_queues, config->tx_queues);
		pci_set_bus_master(pci, false);
		pci_close(pci);
		return NULL;
	}
	size_t bar_size = pci->bar0_size;
	struct igb_device* dev = aligned_alloc(IXY_CACHE_LINE, sizeof(*dev)); // (its queues are cache line aligned)
	uint8_t* bar = dev ? pci->bar0 : NULL;                                // mapped by ixy_init (pci_map_bar0)
	if (!bar) {
		ixy_error("%s: igb init failed%s", pci->addr, dev ? "" : ": out of memory");
		free(dev);
		pci_set_bus_master(pci, false);
		pci_close(pci);
		return NULL;
	}
	memset(dev, 0, sizeof(*dev)); // (as calloc would)
	dev->pci = pci;
	dev->bar = bar;
	ixy_trace_bar(pci->addr, &igb_reg_names, bar, bar_size); // IXY_TRACE=1 (src/trace.h)
	dev->ixy = (struct ixy_device){
	    .pci_addr = pci->addr,
	    .driver_name = "igb",
	    .num_rx_queues = config->rx_queues,
	    .num_tx_queues = config->tx_queues,
	    .rx_batch = igb_rx_batch,
	    .tx_batch = igb_tx_batch,
	    .read_stats = igb_read_stats,
	    .settings = &igb_settings,
	    .stop = igb_stop,
	    .close = igb_close,
	};
	dev->ring_size = config->ring_size ? (uint16_t)config->ring_size : IXY_DEFAULT_RING_SIZE; // ixy_init checked it
	// 4.5.3: reset, then link, statistics, RX (and RSS, intel_rss.c), TX, and RX started last. (injected_failure: a
	// test hook.)
	bool ok = reset_device(dev) && !injected_failure(config, "reset");
	if (ok) {
		// 4.5.7: copper link through the PHY's auto-negotiation: the MAC takes speed and duplex from the PHY
		// (SLU set, nothing forced), and the PHY (IEEE 802.3 clause 22 control register) restarts it.
		uint32_t ctrl = get_reg32(dev->bar, IGB_CTRL) & ~(IGB_CTRL_FRCSPD | IGB_CTRL_FRCDPX);
		set_reg32(dev->bar, IGB_CTRL, ctrl | IGB_CTRL_SLU);
		ok = write_phy_reg(dev, IGB_PHY_CONTROL, IGB_PHY_CONTROL_AN_ENABLE | IGB_PHY_CONTROL_RESTART_AN);
		igb_read_stats(&dev->ixy, NULL); // 4.5.8: reading clears the counters
		ok = ok && init_rx(dev) && !injected_failure(config, "memory") &&
		     intel_setup_rss(dev->bar, config, &intel_rss_82576) && init_tx(dev) &&
		     !injected_failure(config, "queue") &&
		     igb_setup_interrupts(dev->bar, pci, config, &dev->ixy.interrupts) == 0 && start_rx(dev);
	}
	if (!ok) {
		ixy_error("%s: igb init failed", dev->ixy.pci_addr);
		igb_close(&dev->ixy); // stops the NIC and frees what init allocated
		return NULL;
	}
	// 4.5.7: auto-negotiation takes a while (QEMU's model: 500 ms). Without a link, nothing is sent or received,
	// but the device works: init continues after the warning, and the link may still come up later.
	wait_for_reg(dev, IGB_STATUS, IGB_STATUS_LU, IGB_STATUS_LU, LINK_TIMEOUT_MS, "the link");
	return &dev->ixy;
}

// The DMA memory igb_init allocates: each RX queue's ring (one huge page) and pool, each TX queue's ring.
static uint32_t igb_huge_pages_needed(const struct ixy_config* config) {
	uint32_t ring_size = config->ring_size ? config->ring_size : IXY_DEFAULT_RING_SIZE;
	uint32_t pool = memory_mempool_huge_pages(RX_POOL_ENTRIES(ring_size), RX_BUF_SIZE);
	return config->rx_queues * (1 + pool) + config->tx_queues;
}

const struct ixy_driver igb_driver = {.name = "igb",
				      .vendor_id = 0x8086,
				      .device_ids = nic_ids,
				      .num_device_ids = sizeof(nic_ids) / sizeof(nic_ids[0]),
				      .init = igb_init,
				      .huge_pages_needed = igb_huge_pages_needed};
