// Many cores: with more than one queue, ixy-fwd and ixy-pcap print each queue's rate before their device's rates
// (print_stats_diff).
#ifndef IXY_APPS_QUEUE_RATE_H
#define IXY_APPS_QUEUE_RATE_H

#include <stdint.h>
#include <stdio.h>

// "[<pci addr>] queue <q> RX: <n> Mpps": the packets received (count, a total) since *last over elapsed_ns; then
// *last = count.
static inline void print_queue_rate(FILE* out, const char* pci_addr, uint16_t q, uint64_t count, uint64_t* last,
				    uint64_t elapsed_ns) {
	fprintf(out, "[%s] queue %u RX: %.2f Mpps\n", pci_addr, q,
		(double)(count - *last) * 1000.0 / (double)elapsed_ns);
	*last = count;
}

#endif
