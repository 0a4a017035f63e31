// The ixy device API: open a NIC by PCI address, receive and transmit batches of packets, read statistics.
//
// ixy_init() reads the PCI IDs of the device, picks the driver (the paper-only build has ixgbe alone; the full build
// also igb, e1000, VirtIO and AF_XDP) and returns a struct ixy_device whose function pointers lead straight into that
// driver: an app is one call away from the descriptor rings.
#ifndef IXY_IXY_H
#define IXY_IXY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "memory.h"

// ---- Statistics: per-device packet and byte counters, and a rate printer (stats.c) ----

// Counters since the device was opened. read_stats() adds to them, so keep one struct per device.
struct device_stats {
	const struct ixy_device* device;
	uint64_t rx_pkts;
	uint64_t tx_pkts;
	uint64_t rx_bytes;   // frame bytes including the 4 byte CRC, as hardware counters count them
	uint64_t tx_bytes;   // frame bytes including the 4 byte CRC
	uint64_t rx_dropped; // packets the device dropped because the RX ring was full (missed)
};

// Bytes per packet on the wire but not in the frame: preamble and start delimiter (8) and inter-frame gap (12).
// The Mbit/s rates count them, so minimum-sized (64 byte) frames at 10 Gbit/s line rate show 10000 Mbit/s.
#define IXY_WIRE_OVERHEAD_BYTES 20
// The Ethernet CRC the NIC appends/strips; software counters add it to match hardware counters.
#define IXY_ETHER_CRC_BYTES 4

// Zeroes the counters of dev's stats; the printers name the device by its PCI address.
void stats_init(struct device_stats* stats, const struct ixy_device* dev);

// Prints the rates between two snapshots taken elapsed_ns apart: "[<pci addr>] RX: <n> Mbit/s <n> Mpps" and the same
// line for TX. Mbit/s includes IXY_WIRE_OVERHEAD_BYTES per packet: 64 byte frames at 10 Gbit/s line rate show 10000.
void print_stats_diff(FILE* out, const struct device_stats* now, const struct device_stats* before,
		      uint64_t elapsed_ns);
// Starts an app's totals line, printed at exit for scripts to read (the VM tests do): "totals app=<app> pci=<addr>
// rx_packets=<n> rx_bytes=<n> tx_packets=<n> tx_bytes=<n> rx_dropped=<n>". The app appends its own " key=<n>" and
// ends the line.
void print_stats_totals(FILE* out, const char* app, const struct device_stats* stats);
// Monotonic clock in nanoseconds.
uint64_t monotonic_time_ns(void);

// ---- Devices ----

#define IXY_MAX_QUEUES 64
#define IXY_DRIVER_NAME_MAX 64 // a kernel driver's name, with its terminating zero

// Threads (a feature: many cores, ixy-fwd --queues, book chapter 11). The paper's forwarder has one thread; with
// more, ixy shares nothing between them, and these rules say who may call what:
// - A queue belongs to one thread: rx_batch and tx_batch on it from that thread only. So do the pools its buffers
//   come from (tx_batch frees sent buffers into their pools, memory.h): a buffer travels only between queues of
//   one thread. Different queues of one device may be used by different threads at once.
// - read_stats: one reader per device, from one thread (ixy-fwd: the main one), while other threads use the
//   queues. ixgbe and igb read clear-on-read NIC counters and add what each queue's count of frames the driver
//   dropped (a bad descriptor; only the queue's thread writes it) grew by since the last call. VirtIO and AF_XDP
//   count in their rx_batch/tx_batch, per queue, and read_stats only reads those counts: nothing is lost, but a
//   packet sent counts once a tx_batch on its queue saw it done (an empty tx_batch counts the last ones).
// - AF_XDP (xdp:<ifname>, chapter 10) shares more: queue i of every AF_XDP device of the process uses one slice of
//   the process's UMEM (src/driver/xdp.c), so queue i of all of them belongs to one thread (ixy-fwd: thread i).
// - Everything else (init, settings, stop, close) from one thread while no other uses the device. An interrupt
//   waiter (interrupts.h, chapter 8) is one thread's: each thread makes its own for its own RX queues.

struct ixy_device {
	const char* pci_addr;    // "0000:03:00.0", owned by the device
	const char* driver_name; // "ixgbe", "igb" or "virtio"
	uint16_t num_rx_queues;
	uint16_t num_tx_queues;
	// Receives up to num_bufs packets from an RX queue into bufs; returns how many. The caller owns them.
	uint32_t (*rx_batch)(struct ixy_device* dev, uint16_t queue_id, struct pkt_buf* bufs[], uint32_t num_bufs);
	// Queues up to num_bufs packets for sending; returns how many it took. The driver frees those once sent;
	// the caller still owns bufs[ret ..].
	uint32_t (*tx_batch)(struct ixy_device* dev, uint16_t queue_id, struct pkt_buf* bufs[], uint32_t num_bufs);
	// Adds the counters since the last call to *stats.
	void (*read_stats)(struct ixy_device* dev, struct device_stats* stats);
	// Promiscuous mode, link speed and MAC address, which no app of ixy changes (ixy/settings.h); NULL: none.
	const struct ixy_settings* settings;
	// Stops all DMA of the device and gives the buffers its rings hold back to their pools. Afterwards only close.
	void (*stop)(struct ixy_device* dev);
	// Stops the device if it is not stopped yet, then frees its memory and the struct itself.
	void (*close)(struct ixy_device* dev);
	struct ixy_interrupts* interrupts; // NULL: the device polls; else what ixy_waiter needs (ixy/interrupts.h)
	// The kernel driver ixy_init unbound from the device, set by ixy_init: "" if none (through VFIO the device
	// stays bound to vfio-pci; AF_XDP takes nothing). ixy_give_back (ixy/checks.h) binds it again.
	char kernel_driver[IXY_DRIVER_NAME_MAX];
};

struct ixy_config {
	// The paper's four fields (book chapters 1-4): which device, how many queues, how many descriptors a ring has.
	const char* pci_addr;
	uint16_t rx_queues; // 0..IXY_MAX_QUEUES (the paper's forwarder: 1)
	uint16_t tx_queues; // 0..IXY_MAX_QUEUES (the paper's forwarder: 1)
	// Descriptors per queue: a power of two, 64..4096, or 0 for the default (IXY_DEFAULT_RING_SIZE; VirtIO: the
	// device's largest, at most 1024, and its legacy interface fixes it; AF_XDP: 4096, src/driver/xdp.c).
	uint32_t ring_size;

	// The features' fields, each named with its feature and chapter. Zero (false, NULL) is the paper's way.
	// Interrupts (chapter 8): 0, the app polls. Otherwise, for a device reached through VFIO, each RX queue gets
	// an interrupt (an AF_XDP device: its socket, which the kernel wakes), and an ixy_waiter sleeps while the
	// queues are idle: at most this many ms (-1: until a packet comes). Devices reached through sysfs always poll.
	int32_t interrupt_timeout_ms;
	// Many cores (chapter 11): receive side scaling (ixy/rss.h), how the NIC spreads packets over several RX
	// queues. NULL: ixy_rss_default when rx_queues > 1; with one RX queue RSS is off. The driver copies it.
	const struct ixy_rss* rss;
	// Switches an app may set; ixy_init also switches each on if its environment variable is 1 (check_config in
	// src/checks.c reads them, nowhere else does).
	bool force;         // fail safety (ch. 12), IXY_FORCE: take a NIC even if its interface is up or has an address
	bool virtio_legacy; // VirtIO (ch. 6), IXY_VIRTIO_LEGACY: a transitional VirtIO NIC through its legacy interface
	bool virtio_split;  // VirtIO (ch. 6), IXY_VIRTIO_SPLIT: split virtqueues even where packed ones are offered
	bool trace;         // the register trace (ch. 13), IXY_TRACE: print every register access (-DIXY_TRACE=ON)
	// Testing without hardware (chapter 9), for tests only, set by ixy_init (an app's value is ignored): the step
	// at which the init of igb, e1000 or VirtIO is to fail, from IXY_TEST_FAIL_INIT=<pci addr>:<step> for this
	// device, else NULL (src/driver/injected_failure.h).
	const char* test_fail_step;
};

#define IXY_DEFAULT_RING_SIZE 512

// Opens the device with rx_queues and tx_queues queues, in promiscuous mode (every driver switches it on; VirtIO only
// if the device has a control queue, and it warns if not). Returns NULL with a message on stderr if it cannot;
// nothing is left half-initialised. A malformed address, queue counts or a ring size out of range are refused in
// every build. The full build's fail safety (ixy/checks.h) also refuses a NIC whose kernel interface is up or has an
// IP address, unless config.force (IXY_FORCE=1); and there the first device decides how the process reaches all of
// them: through VFIO if it is bound to vfio-pci, else through sysfs; a later device reached the other way is refused.
// The paper-only build takes every NIC through sysfs, unbinding whatever kernel driver it has.
struct ixy_device* ixy_init(const char* pci_addr, uint16_t rx_queues, uint16_t tx_queues);
struct ixy_device* ixy_init_config(const struct ixy_config* config);

// A queue number the device does not have (queue >= num_rx_queues or num_tx_queues: the app's bug) reaches no
// driver: ixy_rx_batch and ixy_tx_batch then return 0 (no packet received; none taken, the caller still owns bufs),
// and the first such call of the process prints one error line (src/no_queue.c). The check is one compare per batch.
uint32_t ixy_no_queue(const struct ixy_device* dev, uint16_t queue, const char* way);

static inline uint32_t ixy_rx_batch(struct ixy_device* dev, uint16_t queue, struct pkt_buf* bufs[], uint32_t num_bufs) {
	return queue < dev->num_rx_queues ? dev->rx_batch(dev, queue, bufs, num_bufs) : ixy_no_queue(dev, queue, "RX");
}

static inline uint32_t ixy_tx_batch(struct ixy_device* dev, uint16_t queue, struct pkt_buf* bufs[], uint32_t num_bufs) {
	return queue < dev->num_tx_queues ? dev->tx_batch(dev, queue, bufs, num_bufs) : ixy_no_queue(dev, queue, "TX");
}

static inline void ixy_read_stats(struct ixy_device* dev, struct device_stats* stats) {
	dev->read_stats(dev, stats);
}

// Stops the device: no DMA after this returns, and every buffer it held is back in its pool.
// Apps that pass packets between devices stop them all before closing any (ixy-fwd): a buffer of one device's pool
// may sit in another device's TX ring, and that device must not read it after the pool is gone.
static inline void ixy_stop(struct ixy_device* dev) {
	dev->stop(dev);
}

// Stops the device if needed and frees everything ixy_init allocated. dev may be NULL.
static inline void ixy_close(struct ixy_device* dev) {
	if (dev) {
		dev->close(dev);
	}
}

#endif
