// Rate arithmetic and the totals line (src/stats.c) and the apps' once-per-second printing (apps/common/rates.h).
#include <stdlib.h>
#include <string.h>

#include <ixy/ixy.h>

#include "../check.h"
#include "common/queue_rate.h"
#include "common/rates.h"

// What print_stats_diff prints for the difference between two snapshots taken elapsed_ns apart.
static char* printed_rates(const struct device_stats* now, const struct device_stats* before, uint64_t elapsed_ns) {
	char* text = NULL;
	size_t len = 0;
	FILE* out = open_memstream(&text, &len);
	if (!out) {
		abort();
	}
	print_stats_diff(out, now, before, elapsed_ns);
	fclose(out);
	return text;
}

static void check_printed(const struct device_stats* now, const struct device_stats* before, uint64_t elapsed_ns,
			  const char* expected) {
	char* text = printed_rates(now, before, elapsed_ns);
	CHECK(strcmp(text, expected) == 0);
	if (strcmp(text, expected) != 0) {
		fprintf(stderr, "expected:\n%sgot:\n%s", expected, text);
	}
	free(text);
}

static struct ixy_device test_device = {.pci_addr = "0000:03:00.0"};

static void test_line_rate(void) {
	// 10 Gbit/s line rate with 64 byte frames: 10^10 / ((64 + 20) * 8) = 14880952 packets per second.
	// The counters hold 64 bytes per packet (60 bytes of data + 4 byte CRC, like the hardware counters).
	struct device_stats before = {.device = &test_device}, now = {.device = &test_device};
	now.rx_pkts = 14880952;
	now.rx_bytes = 14880952ull * (60 + IXY_ETHER_CRC_BYTES);
	now.tx_pkts = 14880952 / 2;
	now.tx_bytes = 14880952ull / 2 * 64;
	check_printed(&now, &before, 1000000000ull,
		      "[0000:03:00.0] RX: 10000 Mbit/s 14.88 Mpps\n[0000:03:00.0] TX: 5000 Mbit/s 7.44 Mpps\n");
	// The same packets over 2 s: half the rate. Differences: only what happened between the snapshots counts.
	before.rx_pkts = 1000;
	before.rx_bytes = 64000;
	now.rx_pkts += 1000;
	now.rx_bytes += 64000;
	check_printed(&now, &before, 2000000000ull,
		      "[0000:03:00.0] RX: 5000 Mbit/s 7.44 Mpps\n[0000:03:00.0] TX: 2500 Mbit/s 3.72 Mpps\n");
	// 1518 byte frames: (1518 + 20) * 8 bits each, 812743 per second at 10 Gbit/s.
	struct device_stats big = {.device = &test_device, .rx_pkts = 812743, .rx_bytes = 812743ull * 1518};
	check_printed(&big, &(struct device_stats){0}, 1000000000ull,
		      "[0000:03:00.0] RX: 10000 Mbit/s 0.81 Mpps\n[0000:03:00.0] TX: 0 Mbit/s 0.00 Mpps\n");
}

static void test_zero_elapsed(void) {
	struct device_stats before = {.device = &test_device};
	struct device_stats now = {
	    .device = &test_device, .rx_pkts = 100, .rx_bytes = 6400, .tx_pkts = 5, .tx_bytes = 320};
	const char* zero = "[0000:03:00.0] RX: 0 Mbit/s 0.00 Mpps\n[0000:03:00.0] TX: 0 Mbit/s 0.00 Mpps\n";
	check_printed(&now, &before, 0, zero);
	check_printed(&before, &before, 1000000000ull, zero);
}

// A device whose read_stats adds a fixed amount each call, to drive the rate meter.
static void fake_read_stats(struct ixy_device* dev, struct device_stats* stats) {
	(void)dev;
	stats->rx_pkts += 14880952;
	stats->rx_bytes += 14880952ull * 64;
	stats->tx_pkts += 1000000;
	stats->tx_bytes += 1000000ull * 64;
}

// The apps' rates, as their loops print them: read the counters, print the difference to the last print, remember.
static void test_rates_output(void) {
	struct ixy_device dev = {.pci_addr = "0000:03:00.0", .read_stats = fake_read_stats};
	struct device_stats stats, stats_old;
	stats_init(&stats, &dev);
	stats_init(&stats_old, &dev);
	char* text = NULL;
	size_t len = 0;
	FILE* out = open_memstream(&text, &len);
	CHECK(out != NULL);
	if (!out) {
		return;
	}
	for (uint64_t elapsed_ns = 1000000000ull; elapsed_ns <= 2000000000ull; elapsed_ns += 1000000000ull) {
		ixy_read_stats(&dev, &stats);
		print_stats_diff(out, &stats, &stats_old, elapsed_ns);
		stats_old = stats;
	}
	ixy_read_stats(&dev, &stats);
	print_stats_totals(out, "ixy-test", &stats);
	fclose(out);
	const char* expected_start = "[0000:03:00.0] RX: 10000 Mbit/s 14.88 Mpps\n"
				     "[0000:03:00.0] TX: 672 Mbit/s 1.00 Mpps\n"
				     "[0000:03:00.0] RX: 5000 Mbit/s 7.44 Mpps\n"
				     "[0000:03:00.0] TX: 336 Mbit/s 0.50 Mpps\n"
				     "totals app=ixy-test pci=0000:03:00.0 rx_packets=44642856 ";
	CHECK(strncmp(text, expected_start, strlen(expected_start)) == 0);
	if (strncmp(text, expected_start, strlen(expected_start)) != 0) {
		fprintf(stderr, "got:\n%s", text);
	}
	CHECK_EQ(stats.rx_pkts, 3 * 14880952ull);
	free(text);
}

// A queue's rate line (ixy-fwd and ixy-pcap with several queues): the packets since the last line, then the count is
// remembered for the next.
static void test_queue_rate(void) {
	char* text = NULL;
	size_t len = 0;
	FILE* out = open_memstream(&text, &len);
	CHECK(out != NULL);
	if (!out) {
		return;
	}
	uint64_t last = 0;
	print_queue_rate(out, "0000:03:00.0", 2, 1500000, &last, 1000000000ull);
	CHECK_EQ(last, 1500000);
	print_queue_rate(out, "0000:03:00.0", 2, 2500000, &last, 500000000ull);
	fclose(out);
	CHECK(strcmp(text, "[0000:03:00.0] queue 2 RX: 1.50 Mpps\n[0000:03:00.0] queue 2 RX: 2.00 Mpps\n") == 0);
	CHECK_EQ(last, 2500000);
	free(text);
}

// What print_stats_totals prints: the device counters under fixed keys (the app then adds its own).
static char* printed_totals(const struct device_stats* stats) {
	char* text = NULL;
	size_t len = 0;
	FILE* out = open_memstream(&text, &len);
	if (!out) {
		abort();
	}
	print_stats_totals(out, "ixy-fwd", stats);
	fclose(out);
	return text;
}

static void test_totals_line(void) {
	// Each counter a different value, all beyond 32 bits: a swapped or truncated key shows.
	struct device_stats stats = {.device = &test_device,
				     .rx_pkts = 5000000001ull,
				     .rx_bytes = 320000000064ull,
				     .tx_pkts = 5000000002ull,
				     .tx_bytes = 320000000128ull,
				     .rx_dropped = 5000000003ull};
	char* text = printed_totals(&stats);
	// Nothing after the last number: the app appends " key=value" and ends the line.
	const char* expected = "totals app=ixy-fwd pci=0000:03:00.0 rx_packets=5000000001 rx_bytes=320000000064 "
			       "tx_packets=5000000002 tx_bytes=320000000128 rx_dropped=5000000003";
	CHECK(strcmp(text, expected) == 0);
	if (strcmp(text, expected) != 0) {
		fprintf(stderr, "expected:\n%s\ngot:\n%s\n", expected, text);
	}
	free(text);
}

static void test_second_passed(void) {
	uint64_t last_ns = monotonic_time_ns(), elapsed = 12345;
	uint64_t round = 1;
	for (int i = 0; i < 3; i++) {
		// A second and more has passed, but the clock is read only every ROUNDS_PER_CLOCK_READ rounds.
		last_ns -= 2 * ONE_SECOND_NS;
		int due_early = 0;
		for (; round % ROUNDS_PER_CLOCK_READ != 0; round++) {
			due_early += second_passed(&last_ns, &elapsed, round, false);
		}
		CHECK_EQ(due_early, 0);
		CHECK(second_passed(&last_ns, &elapsed, round++, false));
		CHECK(elapsed >= 2 * ONE_SECOND_NS);
	}
	// After a sleep the clock is read at once.
	last_ns -= 2 * ONE_SECOND_NS;
	CHECK(second_passed(&last_ns, &elapsed, 1, true));
	// Less than a second: not due within a few thousand rounds (they take far less), and elapsed is left alone.
	elapsed = 12345;
	int due = 0;
	for (int i = 0; i < 10 * ROUNDS_PER_CLOCK_READ; i++) {
		due += second_passed(&last_ns, &elapsed, round++, i % 7 == 0);
	}
	CHECK_EQ(due, 0);
	CHECK_EQ(elapsed, 12345);
}

int main(void) {
	test_line_rate();
	test_zero_elapsed();
	test_rates_output();
	test_queue_rate();
	test_totals_line();
	test_second_passed();
	return check_summary();
}
