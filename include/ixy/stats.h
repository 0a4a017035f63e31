// Per-device packet and byte counters and a rate printer.
#ifndef IXY_STATS_H
#define IXY_STATS_H

#include <stdint.h>
#include <stdio.h>

struct ixy_device;

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

void stats_init(struct device_stats* stats, const struct ixy_device* dev);

// Prints the rates between two snapshots taken elapsed_ns apart: "[<pci addr>] RX: <n> Mbit/s <n> Mpps" and the same
// line for TX. Mbit/s includes IXY_WIRE_OVERHEAD_BYTES per packet: 64 byte frames at 10 Gbit/s line rate show 10000.
void print_stats_diff(FILE* out, const struct device_stats* now, const struct device_stats* before,
		      uint64_t elapsed_ns);
// Prints totals: packets, bytes and drops.
void print_stats_total(FILE* out, const struct device_stats* stats);
// Monotonic clock in nanoseconds.
uint64_t monotonic_time_ns(void);

#endif
