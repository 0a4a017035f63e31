// vm_rss: receive side scaling on QEMU's igb (guest only; the rss scenario runs it, test/vm/scenario-rss.sh).
//
//   vm_rss <pci> <queues> <idle_ms>
//
// Opens the NIC with <queues> RX queues and the default RSS (ixy_config.rss NULL), prints "rss ready queues=N", then
// polls every queue in turn until idle_ms pass without a frame after the first one (or 120 s pass without any). For
// each frame, in the order a queue delivers them: "rss frame queue=Q seq=S len=L", where S is the number the host's
// sender put into the frame's last 8 bytes ("IXYR" and a 32 bit big-endian number; -1 if a frame has no such tag).
// At the end one line per queue, "rss queue=Q packets=N", and "rss total packets=N untagged=N". The host predicts
// each frame's queue with a Toeplitz hash of its own (check_rss.py) and compares.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ixy/ixy.h>

#define MAX_QUEUES 16
#define BATCH 32
#define TAG_LEN 8 // "IXYR" and the sequence number
#define MAX_WAIT_MS 120000

static uint64_t now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

// The sender's tag in the last TAG_LEN bytes of a frame of len bytes: its sequence number, or -1 if it has none.
static long frame_seq(const uint8_t* frame, uint32_t len) {
	if (len < TAG_LEN) {
		return -1;
	}
	const uint8_t* tag = frame + len - TAG_LEN;
	if (memcmp(tag, "IXYR", 4) != 0) {
		return -1;
	}
	return (long)((uint32_t)tag[4] << 24 | (uint32_t)tag[5] << 16 | (uint32_t)tag[6] << 8 | tag[7]);
}

int main(int argc, char* argv[]) {
	if (argc != 4) {
		fprintf(stderr, "usage: %s <pci> <queues> <idle_ms>\n", argv[0]);
		return 2;
	}
	int queues = atoi(argv[2]);
	int idle_ms = atoi(argv[3]);
	if (queues < 1 || queues > MAX_QUEUES || idle_ms < 1) {
		fprintf(stderr, "vm_rss: queues 1..%d, idle_ms > 0\n", MAX_QUEUES);
		return 2;
	}
	struct ixy_config config = {.pci_addr = argv[1], .rx_queues = (uint16_t)queues, .tx_queues = 1};
	struct ixy_device* dev = ixy_init_config(&config);
	if (!dev) {
		return 1;
	}
	printf("rss ready queues=%d\n", queues);
	fflush(stdout);
	uint64_t per_queue[MAX_QUEUES] = {0};
	uint64_t total = 0, untagged = 0;
	uint64_t start = now_ms(), last = start;
	struct pkt_buf* bufs[BATCH];
	while (total == 0 ? now_ms() - start < MAX_WAIT_MS : now_ms() - last < (uint64_t)idle_ms) {
		for (uint16_t q = 0; q < queues; q++) {
			uint32_t n = ixy_rx_batch(dev, q, bufs, BATCH);
			for (uint32_t i = 0; i < n; i++) {
				long seq = frame_seq(bufs[i]->data, bufs[i]->size);
				printf("rss frame queue=%u seq=%ld len=%u\n", q, seq, bufs[i]->size);
				untagged += seq < 0;
			}
			if (n > 0) {
				pkt_buf_free_batch(bufs, n);
				per_queue[q] += n;
				total += n;
				last = now_ms();
			}
		}
	}
	for (int q = 0; q < queues; q++) {
		printf("rss queue=%d packets=%llu\n", q, (unsigned long long)per_queue[q]);
	}
	printf("rss total packets=%llu untagged=%llu\n", (unsigned long long)total, (unsigned long long)untagged);
	fflush(stdout);
	ixy_close(dev);
	return 0;
}
