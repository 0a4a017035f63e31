// The guest side of the rss-tap scenario: opens a VirtIO NIC (QEMU's mq=on,rss=on) with several queue pairs through
// ixy, with the default RSS configuration (ixy/rss.h: the published key, table entry i = i % queues, IPv4, TCPv4,
// UDPv4), says "rss ready", and polls every RX queue until it has the test frames the host sends, or a timeout.
// Prints key=value lines for the host's checks (host-rss-tap.sh), which predicts each frame's queue on its own:
//   rss_frame queue=Q flow=F seq=S   one per test frame, in the order queue Q gave them to the app
//   rss_queue queue=Q frames=N other=M   per queue: test frames, and other frames (not the host's)
//   rss_done frames=N timeout=0|1
// A test frame is IPv4 TCP or UDP with the payload "IXYRSS", then the flow and the sequence number (16 bit each, big
// endian), right after the 8 byte L4 header part the host writes (ports, then 4 bytes of zeros).
//
// usage: vm_rss_tap PCI_ADDR QUEUES FRAMES TIMEOUT_S
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ixy/ixy.h>
#include <ixy/memory.h>

#define MAX_QUEUES 16
#define BATCH 64

static double now_s(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

// The flow and sequence number of a test frame; 0 if it is none.
static int test_frame(const uint8_t* f, uint32_t len, unsigned* flow, unsigned* seq) {
	if (len < 14 + 20 + 8 + 10 || f[12] != 0x08 || f[13] != 0x00 || f[14] != 0x45 || (f[23] != 6 && f[23] != 17)) {
		return 0;
	}
	const uint8_t* payload = f + 14 + 20 + 8;
	if (memcmp(payload, "IXYRSS", 6) != 0) {
		return 0;
	}
	*flow = (unsigned)(payload[6] << 8 | payload[7]);
	*seq = (unsigned)(payload[8] << 8 | payload[9]);
	return 1;
}

int main(int argc, char** argv) {
	if (argc != 5) {
		fprintf(stderr, "usage: %s PCI_ADDR QUEUES FRAMES TIMEOUT_S\n", argv[0]);
		return 2;
	}
	unsigned queues = (unsigned)strtoul(argv[2], NULL, 10);
	unsigned wanted = (unsigned)strtoul(argv[3], NULL, 10);
	double timeout_s = strtod(argv[4], NULL);
	if (queues < 1 || queues > MAX_QUEUES) {
		fprintf(stderr, "vm_rss_tap: 1 to %d queues\n", MAX_QUEUES);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0); // whole lines: ixy's messages on stderr go to the same file
	struct ixy_config config = {.pci_addr = argv[1], .rx_queues = (uint16_t)queues, .tx_queues = (uint16_t)queues};
	struct ixy_device* dev = ixy_init_config(&config);
	if (!dev) {
		return 1;
	}
	printf("rss ready queues=%u\n", queues);
	fflush(stdout);
	unsigned frames[MAX_QUEUES] = {0}, other[MAX_QUEUES] = {0}, total = 0;
	double end = now_s() + timeout_s;
	while (total < wanted && now_s() < end) {
		for (unsigned q = 0; q < queues; q++) {
			struct pkt_buf* bufs[BATCH];
			uint32_t n = ixy_rx_batch(dev, (uint16_t)q, bufs, BATCH);
			for (uint32_t i = 0; i < n; i++) {
				unsigned flow, seq;
				if (test_frame(bufs[i]->data, bufs[i]->size, &flow, &seq)) {
					printf("rss_frame queue=%u flow=%u seq=%u\n", q, flow, seq);
					frames[q]++;
					total++;
				} else {
					other[q]++;
				}
				pkt_buf_free(bufs[i]);
			}
		}
	}
	for (unsigned q = 0; q < queues; q++) {
		printf("rss_queue queue=%u frames=%u other=%u\n", q, frames[q], other[q]);
	}
	printf("rss_done frames=%u timeout=%d\n", total, total < wanted);
	ixy_close(dev);
	return 0;
}
