// ixgbe: driver for the Intel 82599 10 GbE NIC family (also X540 and X550).
//
// ixgbe_init() brings the NIC up in the order of datasheet section 4.6.3 (82599 datasheet rev 3.3; all section
// numbers here refer to it), with one receive and one transmit descriptor ring per queue. The fast path is
// ixgbe_rx_batch() and ixgbe_tx_batch(): they exchange packet buffers with the NIC through the rings and write the
// tail register once per batch. Only CRC offloading is used. Registers and descriptors are in ixgbe_regs.h;
// register access goes through driver.h, so tests can run this file against a software model of the NIC.
//
// Where to start reading (the order of docs/book/04-the-ixgbe-driver.md): ixgbe_init() at the bottom, which calls
// reset_device(), init_link(), init_rx(), init_tx() and start_rx(); then the packet path, ixgbe_rx_batch() and
// ixgbe_tx_batch(); then ixgbe_stop() and ixgbe_close(). The small functions above them are what these call.
#include <stdlib.h>

#include "ixgbe.h"

// Packet buffers of the receive pools. The NIC writes up to BSIZEPACKET bytes (whole KB) at the data offset, so the
// buffer holds 3 KB after its 64 byte header: more than any frame the MAC accepts with jumbo frames off (1522 bytes).
// Not 4096: buffers a power of two apart share a few L1 cache sets and evict each other (docs/benchmark.md).
#define RX_BUF_SIZE (64 + 3 * 1024)
#define RX_BUF_DATA_ROOM (RX_BUF_SIZE - offsetof(struct pkt_buf, data))
// Buffers per RX pool: enough to refill the ring while the app holds a ring's worth (e.g. in another NIC's TX ring).
#define RX_POOL_ENTRIES(ring_size) (2 * (ring_size) + 1024)
// Sent descriptors are cleaned (their buffers freed) in batches of this many: less often touching the ring.
#define TX_CLEAN_BATCH 32
// Every wait for the NIC polls a register once per millisecond, up to a timeout: 1 s for the NIC's own steps
// (reset, queue enable), 100 ms for queues to stop, LINK_TIMEOUT_MS for the link.
#define POLL_INTERVAL_US 1000
#define LINK_TIMEOUT_MS 10000

// The PCI device IDs of the NICs this driver takes (vendor 0x8086; ixgbe_regs.h lists them).
static const uint16_t nic_ids[] = {IXGBE_DEVICE_IDS};

// Polls until (reg & mask) == expected, every POLL_INTERVAL_US, for at most timeout_ms. On timeout warns that the
// NIC did not do `what` and returns false; the caller decides whether that is fatal.
static bool wait_for_reg(const struct ixgbe_device* dev, uint32_t reg, uint32_t mask, uint32_t expected,
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

// 4.6.3.1 and 4.6.3.2: mask all interrupts (ixy polls), reset the whole device, mask them again, then wait until
// the NIC has read its EEPROM (MAC address, settings) and initialised its DMA unit. False if it did not finish.
static bool reset_device(struct ixgbe_device* dev) {
	set_reg32(dev->bar, IXGBE_EIMC, IXGBE_EIMC_ALL);
	set_flags32(dev->bar, IXGBE_CTRL, IXGBE_CTRL_RST | IXGBE_CTRL_LRST);
	// 4.6.3.2: wait at least 10 ms after a global reset before touching the device again.
	ixy_usleep(10000);
	if (!wait_for_reg(dev, IXGBE_CTRL, IXGBE_CTRL_RST | IXGBE_CTRL_LRST, 0, 1000, "the reset")) {
		return false;
	}
	set_reg32(dev->bar, IXGBE_EIMC, IXGBE_EIMC_ALL);
	return wait_for_reg(dev, IXGBE_EEC, IXGBE_EEC_ARD, IXGBE_EEC_ARD, 1000, "EEPROM auto-read") &&
	       wait_for_reg(dev, IXGBE_RDRXCTL, IXGBE_RDRXCTL_DMAIDONE, IXGBE_RDRXCTL_DMAIDONE, 1000, "DMA init");
}

// Adds the NIC's counters since the last call to *stats. They clear on read (8.2.3.23): init reads them once.
static void ixgbe_read_stats(struct ixy_device* ixy, struct device_stats* stats) {
	struct ixgbe_device* dev = IXY_TO_DRIVER(struct ixgbe_device, ixy);
	// Drops: packet buffer full (MPC; only packet buffer 0 is in use), no free descriptor in a DROP_EN queue
	// (QPRDC; RQSMR keeps its reset value, so every queue counts in counter 0), and packets the driver dropped.
	stats->rx_dropped += get_reg32(dev->bar, IXGBE_MPC(0)) + get_reg32(dev->bar, IXGBE_QPRDC(0));
	for (uint16_t i = 0; i < ixy->num_rx_queues; i++) {
		uint64_t dropped = __atomic_load_n(&dev->rx_queues[i].dropped, __ATOMIC_RELAXED);
		stats->rx_dropped += dropped - dev->rx_dropped_read[i];
		dev->rx_dropped_read[i] = dropped;
	}
	stats->rx_pkts += get_reg32(dev->bar, IXGBE_GPRC);
	stats->tx_pkts += get_reg32(dev->bar, IXGBE_GPTC);
	// The low half first: reading the high half clears the 36 bit counter.
	stats->rx_bytes += get_reg32(dev->bar, IXGBE_GORCL);
	stats->rx_bytes += (uint64_t)get_reg32(dev->bar, IXGBE_GORCH) << 32;
	stats->tx_bytes += get_reg32(dev->bar, IXGBE_GOTCL);
	stats->tx_bytes += (uint64_t)get_reg32(dev->bar, IXGBE_GOTCH) << 32;
}

// 4.6.7: RXEN may only be set while the receive data path is halted (SECRXCTRL.RX_DIS): the 82599's RX DMA can
// hang otherwise (specification update). Waits up to 1 s for the path to drain, then enables anyway, as Linux does.
void ixgbe_enable_receiver(struct ixgbe_device* dev) {
	set_flags32(dev->bar, IXGBE_SECRXCTRL, IXGBE_SECRXCTRL_RX_DIS);
	wait_for_reg(dev, IXGBE_SECRXSTAT, IXGBE_SECRXSTAT_SECRX_RDY, IXGBE_SECRXSTAT_SECRX_RDY, 1000, "SECRX_RDY");
	set_flags32(dev->bar, IXGBE_RXCTRL, IXGBE_RXCTRL_RXEN);
	clear_flags32(dev->bar, IXGBE_SECRXCTRL, IXGBE_SECRXCTRL_RX_DIS);
}

// Gives descriptors first .. end - 1 of an RX ring to the NIC with the buffers in the ring's table, in read format
// (7.1.6.1). Rewriting the read format also clears DD (bit 0 of hdr_addr) for the next round.
static void rx_give_buffers(struct ixgbe_rx_queue* queue, size_t first, size_t end) {
	for (size_t i = first; i < end; i++) {
		queue->descriptors[i].read.pkt_addr = queue->bufs[i]->buf_addr_phy + offsetof(struct pkt_buf, data);
		queue->descriptors[i].read.hdr_addr = 0;
	}
}

// Receives up to num_bufs packets (1.8.2, 7.1): the NIC sets DD in a descriptor's write-back once the packet is in
// memory. First the packets are taken from their descriptors, then the descriptors taken get fresh buffers from one
// batch allocation, then all go back to the NIC with one tail write. A worked example, a ring of 8 descriptors from
// descriptor 5 on: docs/book/04-the-ixgbe-driver.md, "Receive, step by step".
static uint32_t ixgbe_rx_batch(struct ixy_device* ixy, uint16_t queue_id, struct pkt_buf* bufs[], uint32_t num_bufs) {
	struct ixgbe_device* dev = IXY_TO_DRIVER(struct ixgbe_device, ixy);
	struct ixgbe_rx_queue* queue = &dev->rx_queues[queue_id];
	struct pkt_buf** ring_bufs = queue->bufs; // a local: read once per batch, not per packet
	size_t first = queue->rx_index, index = first, received = 0;
	// end: one past the last descriptor this call may look at. A call stops at the ring's end, so that no index
	// wraps (the next call starts at 0). A call from 0 stops one earlier: the tail is then ring_size - 1 (the last
	// call or start_rx wrote it), a descriptor the NIC cannot have filled. So no call looks at all ring_size
	// descriptors, and a NIC that keeps setting DD cannot keep it here.
	size_t end = dev->ring_size - (first == 0);
	// Only as many packets as the pool can replace: the rest wait in their descriptors until the app frees buffers.
	size_t wanted = num_bufs < queue->mempool->free_stack_top ? num_bufs : queue->mempool->free_stack_top;
	// frame_end_bit: the status bit a descriptor needs to be taken as a packet. EOP (end of packet: the frame ends
	// in this descriptor), or 0 while the rest of a frame that spans descriptors is dropped: then no descriptor is
	// taken, up to and including the one with EOP (the else branch below sets it back to EOP there).
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
			// needing a fresh buffer stay one run, for one batch allocation. So far ring_bufs[first ..
			// index - received - 1] hold the reused buffers and ring_bufs[index - received .. index - 1]
			// the buffers the app got (stale pointers): buf overwrites the first of those, and with
			// index++ below the run moves up by one, to end at this descriptor.
			ring_bufs[index - received] = buf;
		}
		index++;
	}
	// Fresh buffers for the run of taken descriptors, the last `received` before index; the pool has them
	// (received <= wanted). Then descriptors first .. index - 1 go back to the NIC, each with ring_bufs[i].
	pkt_buf_alloc_batch(queue->mempool, &ring_bufs[index - received], received);
	rx_give_buffers(queue, first, index);
	if (index != first) {
		// The tail is the last descriptor given back: the NIC may fill everything before it. One descriptor
		// always stays with the driver, so head == tail means "ring empty" to the NIC, never "full".
		set_reg32(dev->bar, IXGBE_RDT(queue_id), index - 1);
		queue->rx_index = (uint16_t)(index & (dev->ring_size - 1u));
		queue->in_multi_desc_packet = !frame_end_bit;
	}
	return received;
}

// Frees the buffers of sent packets, TX_CLEAN_BATCH descriptors at a time: with RS set on every descriptor, the
// NIC sets DD on each sent one, and DD on the last of a batch means the whole batch is done (7.2.3.5).
static void tx_clean(struct ixgbe_tx_queue* queue, uint32_t ring_size) {
	// clean_index stays a multiple of TX_CLEAN_BATCH, which divides every ring size (64 .. 4096): no batch wraps.
	while (
	    ((queue->tx_index - queue->clean_index) & (ring_size - 1)) >= TX_CLEAN_BATCH &&
	    (__atomic_load_n(&queue->descriptors[queue->clean_index + TX_CLEAN_BATCH - 1].wb.status, __ATOMIC_ACQUIRE) &
	     ADV_TXD_STAT_DD)) {
		pkt_buf_free_batch(&queue->bufs[queue->clean_index], TX_CLEAN_BATCH);
		queue->clean_index = (queue->clean_index + TX_CLEAN_BATCH) & (ring_size - 1);
	}
}

// Queues up to num_bufs packets for sending (7.2), one advanced data descriptor each (7.2.3.2.4). Returns how many it
// took; the rest stay with the caller. A packet the NIC cannot send (empty, or longer than its buffer) ends the batch.
static uint32_t ixgbe_tx_batch(struct ixy_device* ixy, uint16_t queue_id, struct pkt_buf* bufs[], uint32_t num_bufs) {
	struct ixgbe_device* dev = IXY_TO_DRIVER(struct ixgbe_device, ixy);
	struct ixgbe_tx_queue* queue = &dev->tx_queues[queue_id];
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
		set_reg32(dev->bar, IXGBE_TDT(queue_id), index);
		queue->tx_index = (uint16_t)index;
	}
	return sent;
}

// Allocates a descriptor ring of ring_size 16 byte descriptors, physically contiguous (4096 of them fill 64 KB),
// and its buffer table, then tells the NIC where the ring is and that it is empty (head = tail = 0). base_reg is the
// queue's RDBAL(n) or TDBAL(n): the other ring registers follow it at the same offsets for RX and TX (4.6.7, 4.6.8).
// Returns the descriptors, or NULL with a message.
static void* setup_ring(struct ixgbe_device* dev, uint32_t base_reg, struct dma_memory* ring, struct pkt_buf*** bufs) {
	*bufs = calloc(dev->ring_size, sizeof(**bufs));
	if (!*bufs || memory_allocate_dma(dev->ring_size * 16, true, ring) != 0) {
		ixy_error("%s: cannot allocate a ring of %u descriptors", dev->ixy.pci_addr, dev->ring_size);
		return NULL;
	}
	set_reg32(dev->bar, base_reg + IXGBE_RING_BAL, (uint32_t)ring->phy);
	set_reg32(dev->bar, base_reg + IXGBE_RING_BAH, (uint32_t)((uint64_t)ring->phy >> 32));
	set_reg32(dev->bar, base_reg + IXGBE_RING_LEN, dev->ring_size * 16u);
	set_reg32(dev->bar, base_reg + IXGBE_RING_HEAD, 0);
	set_reg32(dev->bar, base_reg + IXGBE_RING_TAIL, 0);
	return ring->virt;
}

// 4.6.4: 10 Gb/s serial link (SFI/KR), then restart auto-negotiation; copper X540/X550 negotiate in their PHY.
// Then 4.6.5: reading the statistics clears them. Always true: the link may take seconds, and ixgbe_init waits for
// it last.
static bool init_link(struct ixgbe_device* dev) {
	uint32_t autoc = get_reg32(dev->bar, IXGBE_AUTOC) & ~IXGBE_AUTOC_LMS_MASK;
	set_reg32(dev->bar, IXGBE_AUTOC, autoc | IXGBE_AUTOC_LMS_10G_SERIAL);
	set_reg32(dev->bar, IXGBE_AUTOC, autoc | IXGBE_AUTOC_LMS_10G_SERIAL | IXGBE_AUTOC_AN_RESTART);
	ixgbe_read_stats(&dev->ixy, &(struct device_stats){0});
	return true;
}

// 4.6.7: global receive setup and each queue's registers. The receiver stays off (RXEN = 0) until start_rx().
static bool init_rx(struct ixgbe_device* dev) {
	// Without DCB or virtualisation all traffic goes through packet buffer 0 (4.6.11.3.4): 128 KB for RX, and the
	// other seven buffers get no memory.
	for (int i = 0; i < 8; i++) {
		set_reg32(dev->bar, IXGBE_RXPBSIZE(i), i == 0 ? 128 << 10 : 0);
	}
	clear_flags32(dev->bar, IXGBE_RXCTRL, IXGBE_RXCTRL_RXEN);
	set_flags32(dev->bar, IXGBE_HLREG0, IXGBE_HLREG0_RXCRCSTRP);
	set_flags32(dev->bar, IXGBE_RDRXCTL, IXGBE_RDRXCTL_CRCSTRIP);
	// Broadcasts and promiscuous mode: FCTRL is set here, while RXEN is 0 (8.2.3.7.1).
	set_flags32(dev->bar, IXGBE_FCTRL, IXGBE_FCTRL_BAM | IXGBE_FCTRL_MPE | IXGBE_FCTRL_UPE);
	// 4.6.7: No Snoop off; RDRXCTL fields the datasheet says software must set (8.2.3.8.8).
	set_flags32(dev->bar, IXGBE_CTRL_EXT, IXGBE_CTRL_EXT_NS_DIS);
	uint32_t rdrxctl = get_reg32(dev->bar, IXGBE_RDRXCTL) & ~IXGBE_RDRXCTL_RSCFRSTSIZE;
	set_reg32(dev->bar, IXGBE_RDRXCTL, rdrxctl | IXGBE_RDRXCTL_RSCACKC | IXGBE_RDRXCTL_FCOE_WRFIX);
	for (uint16_t i = 0; i < dev->ixy.num_rx_queues; i++) {
		struct ixgbe_rx_queue* queue = &dev->rx_queues[i];
		queue->descriptors = setup_ring(dev, IXGBE_RDBAL(i), &queue->ring_memory, &queue->bufs);
		queue->mempool = memory_allocate_mempool(RX_POOL_ENTRIES(dev->ring_size), RX_BUF_SIZE);
		if (!queue->descriptors || !queue->mempool) {
			return false;
		}
		// Advanced descriptors, one buffer of BSIZEPACKET KB each (whole KB that fit the buffer); when the ring
		// is full, drop packets instead of stalling.
		uint32_t srrctl = get_reg32(dev->bar, IXGBE_SRRCTL(i));
		srrctl &= ~(IXGBE_SRRCTL_DESCTYPE_MASK | IXGBE_SRRCTL_BSIZEPACKET_MASK);
		srrctl |= IXGBE_SRRCTL_DESCTYPE_ADV_ONEBUF | IXGBE_SRRCTL_DROP_EN | RX_BUF_DATA_ROOM / 1024;
		set_reg32(dev->bar, IXGBE_SRRCTL(i), srrctl);
		// 4.6.7: bit 12 of DCA_RXCTRL resets to 1 but must be 0.
		clear_flags32(dev->bar, IXGBE_DCA_RXCTRL(i), IXGBE_DCA_RXCTRL_BIT12);
	}
	return true;
}

// 4.6.7.1: give every descriptor a buffer (the pool is larger than the ring), enable each queue, then hand the
// ring to the NIC by moving the tail. Then the receiver is turned on.
static bool start_rx(struct ixgbe_device* dev) {
	for (uint16_t i = 0; i < dev->ixy.num_rx_queues; i++) {
		pkt_buf_alloc_batch(dev->rx_queues[i].mempool, dev->rx_queues[i].bufs, dev->ring_size);
		rx_give_buffers(&dev->rx_queues[i], 0, dev->ring_size);
		set_flags32(dev->bar, IXGBE_RXDCTL(i), IXGBE_RXDCTL_ENABLE);
		if (!wait_for_reg(dev, IXGBE_RXDCTL(i), IXGBE_RXDCTL_ENABLE, IXGBE_RXDCTL_ENABLE, 1000, "RX queue")) {
			return false;
		}
		set_reg32(dev->bar, IXGBE_RDT(i), dev->ring_size - 1u);
	}
	ixgbe_enable_receiver(dev);
	return true;
}

// 4.6.8: global transmit setup, each queue's registers, then the transmit path on and each queue enabled.
static bool init_tx(struct ixgbe_device* dev) {
	// As for RX (4.6.11.3.4): 160 KB in packet buffer 0, none in the other seven.
	for (int i = 0; i < 8; i++) {
		set_reg32(dev->bar, IXGBE_TXPBSIZE(i), i == 0 ? 160 << 10 : 0);
	}
	set_flags32(dev->bar, IXGBE_HLREG0, IXGBE_HLREG0_TXCRCEN | IXGBE_HLREG0_TXPADEN);
	// The descriptor arbiter is off while the DMA configuration changes (4.6.8).
	set_flags32(dev->bar, IXGBE_RTTDCS, IXGBE_RTTDCS_ARBDIS);
	set_reg32(dev->bar, IXGBE_DTXMXSZRQ, IXGBE_DTXMXSZRQ_MAX);
	for (uint16_t i = 0; i < dev->ixy.num_tx_queues; i++) {
		struct ixgbe_tx_queue* queue = &dev->tx_queues[i];
		queue->descriptors = setup_ring(dev, IXGBE_TDBAL(i), &queue->ring_memory, &queue->bufs);
		if (!queue->descriptors) {
			return false;
		}
		// Prefetch, host and write-back thresholds as Intel's driver sets them: write-back in groups of 4.
		uint32_t txdctl = get_reg32(dev->bar, IXGBE_TXDCTL(i)) & ~IXGBE_TXDCTL_THRESH_MASK;
		set_reg32(dev->bar, IXGBE_TXDCTL(i), txdctl | IXGBE_TXDCTL_THRESH(36, 8, 4));
	}
	clear_flags32(dev->bar, IXGBE_RTTDCS, IXGBE_RTTDCS_ARBDIS);
	set_flags32(dev->bar, IXGBE_DMATXCTL, IXGBE_DMATXCTL_TE);
	for (uint16_t i = 0; i < dev->ixy.num_tx_queues; i++) {
		set_flags32(dev->bar, IXGBE_TXDCTL(i), IXGBE_TXDCTL_ENABLE);
		if (!wait_for_reg(dev, IXGBE_TXDCTL(i), IXGBE_TXDCTL_ENABLE, IXGBE_TXDCTL_ENABLE, 1000, "TX queue")) {
			return false;
		}
	}
	return true;
}

// Stops all DMA, then gives the buffers in the rings back to their pools: each RX descriptor holds one, TX
// descriptors from clean_index to tx_index hold packets not cleaned yet.
static void ixgbe_stop(struct ixy_device* ixy) {
	struct ixgbe_device* dev = IXY_TO_DRIVER(struct ixgbe_device, ixy);
	if (dev->stopped) {
		return;
	}
	dev->stopped = true;
	// Receiver off, then each RX queue; each TX queue may first drain (head reaches tail). The global reset
	// afterwards stops any queue that did not stop in time.
	clear_flags32(dev->bar, IXGBE_RXCTRL, IXGBE_RXCTRL_RXEN);
	for (uint16_t i = 0; i < ixy->num_rx_queues; i++) {
		clear_flags32(dev->bar, IXGBE_RXDCTL(i), IXGBE_RXDCTL_ENABLE);
		wait_for_reg(dev, IXGBE_RXDCTL(i), IXGBE_RXDCTL_ENABLE, 0, 100, "RX queue to stop");
	}
	for (uint16_t i = 0; i < ixy->num_tx_queues; i++) {
		wait_for_reg(dev, IXGBE_TDH(i), ~0u, dev->tx_queues[i].tx_index, 100, "TX queue to drain");
		clear_flags32(dev->bar, IXGBE_TXDCTL(i), IXGBE_TXDCTL_ENABLE);
		wait_for_reg(dev, IXGBE_TXDCTL(i), IXGBE_TXDCTL_ENABLE, 0, 100, "TX queue to stop");
	}
	reset_device(dev);
	// A failed init may leave a ring without buffers, or without its buffer table.
	for (uint16_t i = 0; i < ixy->num_rx_queues; i++) {
		for (uint32_t d = 0; dev->rx_queues[i].bufs && d < dev->ring_size && dev->rx_queues[i].bufs[d]; d++) {
			pkt_buf_free(dev->rx_queues[i].bufs[d]);
		}
	}
	for (uint16_t i = 0; i < ixy->num_tx_queues; i++) {
		struct ixgbe_tx_queue* queue = &dev->tx_queues[i];
		for (uint32_t d = queue->clean_index; d != queue->tx_index; d = (d + 1) & (dev->ring_size - 1u)) {
			pkt_buf_free(queue->bufs[d]);
		}
	}
}

// Stops the device unless it is stopped already, ends its bus mastering and frees everything. Queue slots beyond
// the ones in use, and rings never allocated, are all zero: freeing them does nothing.
static void ixgbe_close(struct ixy_device* ixy) {
	struct ixgbe_device* dev = IXY_TO_DRIVER(struct ixgbe_device, ixy);
	ixgbe_stop(ixy);
	pci_set_bus_master(dev->pci, false);
	for (uint16_t i = 0; i < IXY_MAX_QUEUES; i++) {
		memory_free_dma(&dev->rx_queues[i].ring_memory);
		memory_free_mempool(dev->rx_queues[i].mempool);
		free(dev->rx_queues[i].bufs);
		memory_free_dma(&dev->tx_queues[i].ring_memory);
		free(dev->tx_queues[i].bufs);
	}
	pci_close(dev->pci); // closes the interrupts' eventfds too
	free(dev->ixy.interrupts);
	free(dev);
}

// features: the register trace, RSS and interrupts (driver.h), NULL in the paper-only build.
static struct ixy_device* ixgbe_init(const struct ixy_config* config, struct pci_device* pci,
				     const struct driver_features* features) {
	size_t bar_size = pci->bar0_size;
	struct ixgbe_device* dev = aligned_alloc(IXY_CACHE_LINE, sizeof(*dev)); // (its queues are cache line aligned)
	uint8_t* bar = dev ? pci->bar0 : NULL;                                  // mapped by ixy_init (pci_map_bar0)
	if (!bar) {
		ixy_error("%s: ixgbe init failed%s", pci->addr, dev ? "" : ": out of memory");
		free(dev);
		pci_set_bus_master(pci, false);
		pci_close(pci);
		return NULL;
	}
	memset(dev, 0, sizeof(*dev)); // (as calloc would)
	dev->pci = pci;
	dev->bar = bar;
	if (features) {
		features->trace(pci->addr, bar, bar_size); // IXY_TRACE=1 (src/trace.h)
	}
	dev->ixy = (struct ixy_device){
	    .pci_addr = pci->addr,
	    .driver_name = "ixgbe",
	    .num_rx_queues = config->rx_queues,
	    .num_tx_queues = config->tx_queues,
	    .rx_batch = ixgbe_rx_batch,
	    .tx_batch = ixgbe_tx_batch,
	    .read_stats = ixgbe_read_stats,
	    .settings = features ? features->settings : NULL, // promiscuous mode, link speed, MAC (ixgbe_settings.c)
	    .stop = ixgbe_stop,
	    .close = ixgbe_close,
	};
	dev->ring_size = config->ring_size ? (uint16_t)config->ring_size : IXY_DEFAULT_RING_SIZE; // ixy_init checked it
	// 4.6.3: reset (and wait for the EEPROM and DMA init), then link and statistics, RX, TX, and RX started last.
	// Where features take part: RSS after RX, interrupts before RX starts.
	bool ok = reset_device(dev) && init_link(dev) && init_rx(dev) &&
		  (!features || features->setup_rss(dev->bar, config)) && init_tx(dev) &&
		  (!features || features->setup_interrupts(dev->bar, pci, config, &dev->ixy.interrupts) == 0) &&
		  start_rx(dev);
	if (!ok) {
		ixy_error("%s: ixgbe init failed", dev->ixy.pci_addr);
		ixgbe_close(&dev->ixy); // stops the NIC and frees what init allocated
		return NULL;
	}
	// 4.6.4: the link may take seconds (auto-negotiation, SFP+ modules). Without it, nothing is sent or received,
	// but the device works: init continues after the warning, and the link may still come up later.
	wait_for_reg(dev, IXGBE_LINKS, IXGBE_LINKS_UP, IXGBE_LINKS_UP, LINK_TIMEOUT_MS, "the link");
	return &dev->ixy;
}

// The DMA memory ixgbe_init allocates: each RX queue's ring (one huge page) and pool, each TX queue's ring.
static uint32_t ixgbe_huge_pages_needed(const struct ixy_config* config) {
	uint32_t ring_size = config->ring_size ? config->ring_size : IXY_DEFAULT_RING_SIZE;
	uint32_t pool = memory_mempool_huge_pages(RX_POOL_ENTRIES(ring_size), RX_BUF_SIZE);
	return config->rx_queues * (1 + pool) + config->tx_queues;
}

const struct ixy_driver ixgbe_driver = {.name = "ixgbe",
					.vendor_id = 0x8086,
					.device_ids = nic_ids,
					.num_device_ids = sizeof(nic_ids) / sizeof(nic_ids[0]),
					.init = ixgbe_init,
					.huge_pages_needed = ixgbe_huge_pages_needed};
