// Statistics: counters per device and the rate printer used by the apps.
#include <time.h>

#include <ixy/ixy.h>

void stats_init(struct device_stats* stats, const struct ixy_device* dev) {
	*stats = (struct device_stats){.device = dev};
}

uint64_t monotonic_time_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

// Packets and bytes between two snapshots, per second: Mpps and Mbit/s, the latter with the wire overhead.
static void print_rate(FILE* out, const char* name, const char* direction, uint64_t pkts, uint64_t bytes,
		       uint64_t elapsed_ns) {
	double per_us = elapsed_ns ? 1000.0 / (double)elapsed_ns : 0.0; // no time passed: rates 0
	double mbit = (double)(bytes + pkts * IXY_WIRE_OVERHEAD_BYTES) * 8.0 * per_us;
	fprintf(out, "[%s] %s: %.0f Mbit/s %.2f Mpps\n", name, direction, mbit, (double)pkts * per_us);
}

void print_stats_diff(FILE* out, const struct device_stats* now, const struct device_stats* before,
		      uint64_t elapsed_ns) {
	print_rate(out, now->device->pci_addr, "RX", now->rx_pkts - before->rx_pkts, now->rx_bytes - before->rx_bytes,
		   elapsed_ns);
	print_rate(out, now->device->pci_addr, "TX", now->tx_pkts - before->tx_pkts, now->tx_bytes - before->tx_bytes,
		   elapsed_ns);
}

void print_stats_totals(FILE* out, const char* app, const struct device_stats* stats) {
	fprintf(out, "totals app=%s pci=%s rx_packets=%llu rx_bytes=%llu tx_packets=%llu tx_bytes=%llu rx_dropped=%llu",
		app, stats->device->pci_addr, (unsigned long long)stats->rx_pkts, (unsigned long long)stats->rx_bytes,
		(unsigned long long)stats->tx_pkts, (unsigned long long)stats->tx_bytes,
		(unsigned long long)stats->rx_dropped);
}
