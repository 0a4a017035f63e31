// Statistics: counters per device and the rate printer used by the apps.
#include <time.h>

#include <ixy/ixy.h>
#include <ixy/stats.h>

void stats_init(struct device_stats* stats, const struct ixy_device* dev) {
	*stats = (struct device_stats){.device = dev};
}

uint64_t monotonic_time_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double mbit_per_s(uint64_t bytes, uint64_t pkts, uint64_t elapsed_ns) {
	// bytes per ns * 1000 = Mbyte/s; * 8 = Mbit/s
	return (double)(bytes + pkts * IXY_WIRE_OVERHEAD_BYTES) * 8.0 * 1000.0 / (double)elapsed_ns;
}

struct stats_rates stats_compute_rates(const struct device_stats* now, const struct device_stats* before,
				       uint64_t elapsed_ns) {
	struct stats_rates rates = {0};
	if (elapsed_ns == 0) {
		return rates;
	}
	uint64_t rx_pkts = now->rx_pkts - before->rx_pkts;
	uint64_t tx_pkts = now->tx_pkts - before->tx_pkts;
	rates.rx_mpps = (double)rx_pkts * 1000.0 / (double)elapsed_ns;
	rates.tx_mpps = (double)tx_pkts * 1000.0 / (double)elapsed_ns;
	rates.rx_mbit = mbit_per_s(now->rx_bytes - before->rx_bytes, rx_pkts, elapsed_ns);
	rates.tx_mbit = mbit_per_s(now->tx_bytes - before->tx_bytes, tx_pkts, elapsed_ns);
	return rates;
}

static const char* device_name(const struct device_stats* stats) {
	return stats->device ? stats->device->pci_addr : "?";
}

void print_stats_diff(FILE* out, const struct device_stats* now, const struct device_stats* before,
		      uint64_t elapsed_ns) {
	struct stats_rates r = stats_compute_rates(now, before, elapsed_ns);
	fprintf(out, "[%s] RX: %.0f Mbit/s %.2f Mpps\n", device_name(now), r.rx_mbit, r.rx_mpps);
	fprintf(out, "[%s] TX: %.0f Mbit/s %.2f Mpps\n", device_name(now), r.tx_mbit, r.tx_mpps);
}

void print_stats_total(FILE* out, const struct device_stats* stats) {
	fprintf(out, "[%s] total: RX %llu packets %llu bytes, TX %llu packets %llu bytes, RX dropped by NIC %llu\n",
		device_name(stats), (unsigned long long)stats->rx_pkts, (unsigned long long)stats->rx_bytes,
		(unsigned long long)stats->tx_pkts, (unsigned long long)stats->tx_bytes,
		(unsigned long long)stats->rx_dropped);
}
