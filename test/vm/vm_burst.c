// vm_burst: the sender and judge of the interrupts scenario (guest only). Sends bursts of packets from one NIC, each
// followed by silence, and checks after each burst that a capture file written by ixy-pcap (receiving on another NIC,
// waiting for interrupts between bursts) holds every packet so far, in order, one second after the burst was sent.
//
//   vm_burst <pci> <capture.pcap> <burst size>...
//
// The packets are ixy-pktgen's (apps/common/packet.h) with sequence numbers 0, 1, 2, ... across all bursts. Prints
// one line per burst: "burst <n>: sent <n>, captured <total> of <expected> after 1 s, in order: yes|no"; exit code 0
// if every burst arrived complete and in order, 1 otherwise. A burst is sent once the TX queue took all its
// packets; the next burst starts after 3 s of silence, long enough for the receiver to go to sleep.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <ixy/ixy.h>
#include <ixy/settings.h>

#include "common/generator.h"
#include "common/packet.h"

#define PCAP_FILE_HEADER 24
#define PCAP_RECORD_HEADER 16
#define SILENCE_S 3
#define SEND_LIMIT_S 20 // a burst the TX queue has not taken by then never will be: fail instead of hanging

// Counts the packets in the capture and whether their sequence numbers are 0, 1, 2, ... in order.
static uint64_t count_captured(const char* path, int* in_order) {
	FILE* file = fopen(path, "rb");
	uint8_t header[PCAP_FILE_HEADER], record[PCAP_RECORD_HEADER], pkt[PACKET_SIZE];
	uint64_t packets = 0;
	*in_order = file && fread(header, sizeof(header), 1, file) == 1;
	while (*in_order && fread(record, sizeof(record), 1, file) == 1) {
		uint32_t len = (uint32_t)record[8] | (uint32_t)record[9] << 8 | (uint32_t)record[10] << 16 |
			       (uint32_t)record[11] << 24;
		if (len != PACKET_SIZE || fread(pkt, sizeof(pkt), 1, file) != 1 || packet_read_seq(pkt) != packets) {
			*in_order = 0;
			break;
		}
		packets++;
	}
	if (file) {
		fclose(file);
	}
	return packets;
}

int main(int argc, char* argv[]) {
	if (argc < 4) {
		fprintf(stderr, "usage: vm_burst <pci> <capture.pcap> <burst size>...\n");
		return 2;
	}
	struct ixy_device* dev = ixy_init(argv[1], 1, 1);
	struct mempool* pool = memory_allocate_mempool(4096, 0);
	struct generator gen;
	uint8_t mac[6];
	if (!dev || !pool || ixy_get_mac_addr(dev, mac) != 0 || generator_init(&gen, pool, mac) != 0) {
		return 1;
	}
	int all_good = 1;
	uint64_t expected = 0;
	for (int b = 3; b < argc; b++) {
		uint64_t burst = strtoull(argv[b], NULL, 10);
		uint64_t goal = gen.sent + burst;
		time_t give_up = time(NULL) + SEND_LIMIT_S;
		while (gen.sent < goal) {
			if (time(NULL) > give_up) {
				printf("burst %llu: the TX queue took only %llu packets in %d s\n",
				       (unsigned long long)burst, (unsigned long long)(burst - (goal - gen.sent)),
				       SEND_LIMIT_S);
				return 1;
			}
			// The burst's end: a last batch of what is left of it.
			uint64_t left = goal - gen.sent;
			generator_send(&gen, dev, 0, monotonic_time_ns(),
				       left < GENERATOR_BATCH_SIZE ? (uint32_t)left : GENERATOR_BATCH_SIZE, NULL);
		}
		expected += burst;
		sleep(1);
		int in_order;
		uint64_t captured = count_captured(argv[2], &in_order);
		printf("burst %llu: sent %llu, captured %llu of %llu after 1 s, in order: %s\n",
		       (unsigned long long)burst, (unsigned long long)burst, (unsigned long long)captured,
		       (unsigned long long)expected, in_order ? "yes" : "no");
		fflush(stdout);
		all_good = all_good && in_order && captured == expected;
		sleep(SILENCE_S - 1);
	}
	struct device_stats stats;
	stats_init(&stats, dev);
	ixy_read_stats(dev, &stats);
	print_stats_totals(stdout, "vm_burst", &stats);
	printf("\n");
	ixy_close(dev);
	memory_free_mempool(pool);
	return all_good ? 0 : 1;
}
