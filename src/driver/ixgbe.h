// The ixgbe driver's state (ixgbe.c), shared with its settings (ixgbe_settings.c): a device and its queues.
#ifndef IXY_IXGBE_H
#define IXY_IXGBE_H

#include "driver.h"
#include "ixgbe_regs.h"

// All rings of a device have the same number of descriptors, ixgbe_device.ring_size.
//
// A queue may be another thread's than its neighbour's (ixy-fwd --queues): each queue's state starts a cache line of
// its own (_Alignas), so that two threads never write the same line (driver.h, IXY_CACHE_LINE). Only the queue's
// thread writes it; what the statistics reader writes lives in the device (rx_dropped_read).
struct ixgbe_rx_queue {
	// the ring: NIC reads buffer addresses, writes back status (_Alignas: the queue starts a cache line)
	_Alignas(IXY_CACHE_LINE) volatile union intel_adv_rx_desc* descriptors;
	struct dma_memory ring_memory;
	struct mempool* mempool;   // buffers for this queue's descriptors
	struct pkt_buf** bufs;     // bufs[i]: the buffer descriptor i points to (its own allocation, see ixy #30)
	uint16_t rx_index;         // next descriptor to look at for a received packet
	bool in_multi_desc_packet; // the last descriptor seen had no EOP: drop up to and including the next EOP
	uint64_t dropped;          // packets the driver dropped (spanning descriptors, bad length); only grows
};
// One line: the packet path touches one line of queue state per batch.
_Static_assert(sizeof(struct ixgbe_rx_queue) == IXY_CACHE_LINE, "an RX queue's state is one cache line");

struct ixgbe_tx_queue {
	// the ring: NIC reads packet addresses, writes back DD (_Alignas: as an RX queue, TX queue i + 1 may be
	// another thread's)
	_Alignas(IXY_CACHE_LINE) volatile union intel_adv_tx_desc* descriptors;
	struct dma_memory ring_memory;
	struct pkt_buf** bufs; // bufs[i]: the buffer descriptor i sends, freed once sent
	uint16_t clean_index;  // oldest descriptor not yet cleaned
	uint16_t tx_index;     // next descriptor to fill
};
_Static_assert(sizeof(struct ixgbe_tx_queue) == IXY_CACHE_LINE, "a TX queue's state is one cache line");

struct ixgbe_device {
	struct ixy_device ixy;
	struct pci_device* pci; // ixy.pci_addr points to its address
	uint8_t* bar;           // BAR0: the NIC's registers
	uint16_t ring_size;     // descriptors per ring, a power of two: any index & (ring_size - 1) lies in the ring
	struct ixgbe_rx_queue rx_queues[IXY_MAX_QUEUES];
	struct ixgbe_tx_queue tx_queues[IXY_MAX_QUEUES];
	// rx_queues[i].dropped at the last read_stats. The reader's, on lines of their own (_Alignas): its writes do
	// not take a queue's line away from the thread that forwards it.
	_Alignas(IXY_CACHE_LINE) uint64_t rx_dropped_read[IXY_MAX_QUEUES];
	bool stopped; // no DMA any more: ixgbe_stop ran, and the rings hold no buffers
};

// 4.6.7: sets RXEN while the receive data path is halted (ixgbe.c).
void ixgbe_enable_receiver(struct ixgbe_device* dev);

#endif
