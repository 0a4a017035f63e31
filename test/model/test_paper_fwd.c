// The paper's forwarder alone (issue 35): ixy-fwd's main() (apps/ixy-fwd.c, main renamed ixy_fwd_main) built from
// the ledger's paper line only (cmake -DIXY_PAPER_ONLY=ON: its app files and libixy's, the seam and the device model
// in place of sysfs and hugetlbfs), forwarding between two modelled 82599s. A thread offers frames to both NICs as
// their RX rings have room; every frame must leave the other NIC once, in order, with byte 45 one higher (fwd.h), and
// the totals lines ixy-fwd prints at SIGTERM must count them. The full build runs the same test against its library
// with the paper's app entry, so that the paper's files are checked both alone and beside the features.
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ixy/ixy.h>

#include "../check.h"
#include "gcov_window.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "seam.h"

#define PORT_A "0000:0a:00.0"
#define PORT_B "0000:0a:00.1"
#define FRAMES 3000 // per NIC: several times a ring of the default 512 descriptors
#define FRAME_LEN 64
#define MODIFIED_BYTE 45 // apps/fwd.h, FWD_MODIFIED_BYTE (a paper header the test does not include: it checks it)

int ixy_fwd_main(int argc, char* argv[]);

static pthread_t main_thread; // runs ixy-fwd's main: SIGTERM goes to it
static struct model_ixgbe* nics[2];
static atomic_bool all_sent;

// Waits until ixy-fwd installed its SIGTERM handler (the devices are up then), offers FRAMES frames to each NIC in
// order as its RX ring has room, waits until both NICs sent all of them (at most 60 s), stops ixy-fwd.
static void* feed(void* unused) {
	(void)unused;
	struct timespec tick = {.tv_nsec = 100 * 1000};
	for (struct sigaction now; sigaction(SIGTERM, NULL, &now) == 0 && now.sa_handler == SIG_DFL;) {
		nanosleep(&tick, NULL);
	}
	static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x01};
	uint32_t next[2] = {0, 0};
	uint64_t sent = 0;
	for (int rounds = 0; rounds < 600000 && sent < 2 * FRAMES; rounds++) {
		for (int n = 0; n < 2; n++) {
			uint8_t frame[FRAME_LEN];
			for (; next[n] < FRAMES; next[n]++) {
				model_test_frame(frame, sizeof(frame), mac, 2 * next[n] + (uint32_t)n);
				model_lock();
				bool room =
				    model_ixgbe_rx_descriptors_available(nics[n], 0) > 0 &&
				    model_ixgbe_inject_rx(nics[n], 0, frame, sizeof(frame)) == MODEL_RX_DELIVERED;
				model_unlock();
				if (!room) {
					break;
				}
			}
		}
		model_lock();
		sent = model_ixgbe_counters(nics[0]).tx_frames + model_ixgbe_counters(nics[1]).tx_frames;
		model_unlock();
		nanosleep(&tick, NULL);
	}
	atomic_store(&all_sent, sent == 2 * FRAMES);
	pthread_kill(main_thread, SIGTERM);
	return NULL;
}

// The value of key=<n> on the totals line of pci in text, or -1.
static int64_t totals_value(const char* text, const char* pci, const char* key) {
	char line_start[64], wanted[32];
	snprintf(line_start, sizeof(line_start), "totals app=ixy-fwd pci=%s ", pci);
	snprintf(wanted, sizeof(wanted), " %s=", key);
	const char* line = strstr(text, line_start);
	const char* end = line ? strchr(line, '\n') : NULL;
	const char* at = line ? strstr(line, wanted) : NULL;
	return at && end && at < end ? strtoll(at + strlen(wanted), NULL, 10) : -1;
}

int main(void) {
	model_test_begin("paper_fwd");
	nics[0] = model_ixgbe_add(PORT_A);
	nics[1] = model_ixgbe_add(PORT_B);
	// Requests ixy_init must refuse before it reads the device (check_request, src/entries.h): more queues than a
	// driver has room for, a ring size that is no power of two, an address that is no PCI address's shape.
	const struct ixy_config refused[] = {{.pci_addr = PORT_A, .rx_queues = IXY_MAX_QUEUES + 1, .tx_queues = 1},
					     {.pci_addr = PORT_A, .rx_queues = 1, .tx_queues = 1, .ring_size = 100},
					     {.pci_addr = "../" PORT_A, .rx_queues = 1, .tx_queues = 1},
					     {.pci_addr = NULL, .rx_queues = 1, .tx_queues = 1}};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		CHECK(ixy_init_config(&refused[i]) == NULL);
		CHECK(!model_pci_unbound(model_ixgbe_pci(nics[0])) && !model_pci_bar_mapped(model_ixgbe_pci(nics[0])));
	}
	CHECK_EQ(seam_dma_live_allocations(), 0);
	model_ixgbe_record_tx(nics[0], true);
	model_ixgbe_record_tx(nics[1], true);
	main_thread = pthread_self();
	// ixy-fwd's stdout into a file: its rates and totals lines.
	FILE* out = tmpfile();
	int saved = dup(1);
	CHECK(out && saved >= 0 && fflush(stdout) == 0 && dup2(fileno(out), 1) == 1);
	pthread_t feeder;
	CHECK_EQ(pthread_create(&feeder, NULL, feed, NULL), 0);
	char* argv[] = {"ixy-fwd", PORT_A, PORT_B, NULL};
	gcov_window_open(); // (a coverage build counts ixy-fwd's run, not this test: scripts/coverage-paper.sh)
	int rc = ixy_fwd_main(3, argv);
	gcov_window_close();
	CHECK_EQ(pthread_join(feeder, NULL), 0);
	CHECK(fflush(stdout) == 0 && dup2(saved, 1) == 1 && close(saved) == 0);
	CHECK_EQ(rc, 0);
	CHECK(atomic_load(&all_sent));

	static char text[1 << 16];
	size_t len = fseek(out, 0, SEEK_SET) == 0 ? fread(text, 1, sizeof(text) - 1, out) : 0;
	text[len] = '\0';
	fclose(out);
	fputs(text, stdout);
	// Frames of NIC n leave NIC 1 - n: all of them, in order, byte 45 one higher, nothing else changed.
	for (int n = 0; n < 2; n++) {
		const struct model_ixgbe* tx = nics[1 - n];
		CHECK_EQ(model_ixgbe_tx_frame_count(tx), FRAMES);
		for (uint32_t i = 0; i < model_ixgbe_tx_frame_count(tx) && i < FRAMES; i++) {
			uint32_t got_len;
			uint16_t queue;
			const uint8_t* got = model_ixgbe_tx_frame(tx, i, &got_len, &queue);
			uint8_t want[FRAME_LEN];
			static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x01};
			model_test_frame(want, sizeof(want), mac, 2 * i + (uint32_t)n);
			want[MODIFIED_BYTE]++;
			CHECK(got_len == FRAME_LEN && queue == 0 && memcmp(got, want, FRAME_LEN) == 0);
		}
		// ixy-fwd's totals line of the receiving NIC: what it received and forwarded.
		const char* pci = n == 0 ? PORT_A : PORT_B;
		CHECK_EQ(totals_value(text, pci, "rx_packets"), FRAMES);
		CHECK_EQ(totals_value(text, pci, "forwarded"), FRAMES);
		CHECK_EQ(totals_value(text, pci, "tx_full"), 0);
		CHECK_EQ(totals_value(text, n == 0 ? PORT_B : PORT_A, "tx_packets"), FRAMES);
	}
	CHECK(strstr(text, "waiter") == NULL); // the paper polls: no waiter took part
	CHECK_EQ(seam_dma_live_allocations(), 0);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
	return model_test_summary();
}
