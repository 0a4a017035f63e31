// Ticker and per-device rate printing for the apps (see rates.h).
#include "rates.h"

void ticker_start(struct ticker* ticker) {
	*ticker = (struct ticker){.last_ns = monotonic_time_ns(), .until_check = TICKER_CHECK_EVERY};
}

bool ticker_due(struct ticker* ticker, bool slept, uint64_t* elapsed_ns) {
	if (--ticker->until_check > 0 && !slept) {
		return false;
	}
	ticker->until_check = TICKER_CHECK_EVERY;
	uint64_t now = monotonic_time_ns();
	if (now - ticker->last_ns < ONE_SECOND_NS) {
		return false;
	}
	*elapsed_ns = now - ticker->last_ns;
	ticker->last_ns = now;
	return true;
}

void rate_meter_init(struct rate_meter* meter, struct ixy_device* dev) {
	meter->dev = dev;
	stats_init(&meter->total, dev);
	stats_init(&meter->at_last_print, dev);
}

void rate_meter_print(struct rate_meter* meter, uint64_t elapsed_ns, FILE* out) {
	ixy_read_stats(meter->dev, &meter->total);
	print_stats_diff(out, &meter->total, &meter->at_last_print, elapsed_ns);
	meter->at_last_print = meter->total;
	(void)fflush(out); // so that a pipe or log file shows each second; a failing stdout must not stop the loop
}

void print_queue_rate(FILE* out, const char* pci_addr, uint16_t q, uint64_t count, uint64_t* last,
		      uint64_t elapsed_ns) {
	fprintf(out, "[%s] queue %u RX: %.2f Mpps\n", pci_addr, q,
		(double)(count - *last) * 1000.0 / (double)elapsed_ns);
	*last = count;
}
