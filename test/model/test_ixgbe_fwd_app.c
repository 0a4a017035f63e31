// ixy-fwd's own main() (apps/ixy-fwd.c, compiled into this test with main renamed ixy_fwd_main) against two modelled
// 82599s: its command line reaches the driver. With --ring 64 both devices' RX and TX rings get 64 descriptors (the
// driver writes RDLEN(0) and TDLEN(0) = 64 * 16 bytes, 82599 datasheet 8.2.3.8.2 and 8.2.3.9.7), without --ring the
// default 512; ixy-fwd stops on SIGTERM (sent by a second thread once its handler is installed) and exits 0.
//
// With --queues 2 and 4 (the threaded forwarder, issue 20): a feeder thread offers frames of many UDP flows to both
// NICs as their RX rings have room; each NIC spreads them by RSS. Every frame must leave the other NIC exactly once,
// on the TX queue with the number of the RX queue the software hash (ixy/rss.h, the default table) predicts, each
// flow in order, and ixy-fwd's per-queue totals lines must count what that prediction says. A ThreadSanitizer build
// (IXY_TSAN) runs these too (scripts/test.sh).
//
// IXY_TEST_FWD_DEFAULT_ONLY=1 (test_ixgbe_fwd_app_default; scripts/coverage-paper.sh measures it): only ixy-fwd's
// default run, with no option but --no-sandbox (see main) and the two addresses, the feeder's frames forwarded both
// ways, stopped by SIGTERM, its totals lines checked. In a gcov build the counts cover only ixy-fwd's main (and the
// feeder, which meanwhile calls only the model: its frames and their queues are made before).
// Without --poll or --wait ixy-fwd polls, the paper's path: no waiter, no waiter line (with --poll neither).
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ixy/ixy.h>
#include <ixy/rss.h>
#include <ixy/sandbox.h>

#include "common/packet.h"
#include "common/signals.h"
#include "fwd.h"

#include "../check.h"
#include "gcov_window.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "seam.h"
#include "test_regs.h"

#define PORT_A "0000:0a:00.0"
#define PORT_B "0000:0a:00.1"

int ixy_fwd_main(int argc, char* argv[]);

static pthread_t main_thread; // runs ixy-fwd's main: SIGTERM goes to it, as Ctrl-C would to the app's process

// Waits until ixy-fwd has installed its SIGTERM handler (apps/common/signals.c), lets it forward a while, stops it.
static void* stop_fwd(void* unused) {
	(void)unused;
	struct timespec tick = {.tv_sec = 0, .tv_nsec = 10 * 1000 * 1000};
	for (;;) {
		struct sigaction now;
		if (sigaction(SIGTERM, NULL, &now) == 0 && now.sa_handler != SIG_DFL) {
			break;
		}
		nanosleep(&tick, NULL);
	}
	for (int i = 0; i < 10; i++) { // (a tenth of a second of polling: no time is checked)
		nanosleep(&tick, NULL);
	}
	pthread_kill(main_thread, SIGTERM);
	return NULL;
}

// Runs ixy-fwd with args (NULL-terminated, the two ports appended) and checks the ring lengths it gave both ports.
static void run_fwd(const char* name, const char* const options[], uint32_t expected_ring) {
	model_test_begin(name);
	struct model_ixgbe* nics[2] = {model_ixgbe_add(PORT_A), model_ixgbe_add(PORT_B)};
	char* argv[10];
	int argc = 0;
	argv[argc++] = "ixy-fwd";
	for (int i = 0; options[i]; i++) {
		argv[argc++] = (char*)options[i];
	}
	argv[argc++] = PORT_A;
	argv[argc++] = PORT_B;
	argv[argc] = NULL;
	pthread_t stopper;
	CHECK_EQ(pthread_create(&stopper, NULL, stop_fwd, NULL), 0);
	CHECK_EQ(ixy_fwd_main(argc, argv), 0);
	CHECK_EQ(pthread_join(stopper, NULL), 0);
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(model_ixgbe_last_write(nics[i], R_RDLEN(0)), expected_ring * 16);
		CHECK_EQ(model_ixgbe_last_write(nics[i], R_TDLEN(0)), expected_ring * 16);
	}
	CHECK_EQ(seam_dma_live_allocations(), 0);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
	signal(SIGTERM, SIG_DFL); // (SA_RESETHAND did already; for the next run's stopper)
}

// ---- --queues ----

#define FLOWS 64
#define FRAMES_PER_FLOW 48
#define FRAMES (FLOWS * FRAMES_PER_FLOW) // per NIC

// Frame j of NIC `nic`: ixy-pktgen's packet of flow j % FLOWS, UDP source port 1000 + 7 nic + flow^2 (not a block of
// consecutive ports, which the Toeplitz hash, being linear, spreads exactly evenly, so that per-queue counts that
// were swapped would still match), destination port 2000 + nic, the flow's number in payload byte 48 and the flow's
// sequence number j / FLOWS in its last 4 bytes.
#define FLOW_BYTE 48
static void queue_test_frame(uint8_t frame[PACKET_SIZE], int nic, uint32_t j) {
	static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x09};
	packet_build_template(frame, mac);
	uint16_t sport = (uint16_t)(1000 + 7 * nic + (j % FLOWS) * (j % FLOWS)), dport = (uint16_t)(2000 + nic);
	frame[PACKET_UDP_HEADER_OFFSET] = (uint8_t)(sport >> 8);
	frame[PACKET_UDP_HEADER_OFFSET + 1] = (uint8_t)sport;
	frame[PACKET_UDP_HEADER_OFFSET + 2] = (uint8_t)(dport >> 8);
	frame[PACKET_UDP_HEADER_OFFSET + 3] = (uint8_t)dport;
	frame[FLOW_BYTE] = (uint8_t)(j % FLOWS);
	packet_stamp_seq(frame, j / FLOWS);
}

// Each NIC's frames and the RX queue the hash predicts for each, made before ixy-fwd starts.
static uint8_t test_frames[2][FRAMES][PACKET_SIZE];
static uint16_t test_queues[2][FRAMES];

struct feeder {
	struct model_ixgbe* nics[2];
	struct ixy_rss rss;  // what the NICs should apply: the default for the queue count
	bool all_forwarded;  // every frame came out of the other NIC before the time limit
	bool linger;         // then wait until ixy-fwd printed its rates once before stopping it
	int out_fd;          // ixy-fwd's stdout, a file (flushed once a second, after the rates)
	unsigned queues;     // ixy-fwd's --queues: a rate line per queue and device each second
	atomic_bool stopped; // SIGTERM sent; all_forwarded is set (the thread is detached: no join, which under the
			     // sandbox would need futex)
};

// Whether ixy-fwd's stdout (the file fd) holds the rate lines of every queue of both devices, a second's worth:
// "[<pci>] queue <q> RX: <rate> Mpps"; with one queue the devices' own, "[<pci>] RX: <rate> Mbit/s <rate> Mpps". (A
// fixed 1.2 s after the last frame assumed that ixy-fwd's main thread ran in the 0.2 s after its first second: not so
// on a busy machine.)
static bool rates_printed(int fd, unsigned queues) {
	static char text[1 << 20]; // the lines of a minute and more
	ssize_t len = pread(fd, text, sizeof(text) - 1, 0);
	if (len <= 0) {
		return false;
	}
	text[len] = '\0';
	unsigned lines = 0;
	const char* marker = queues > 1 ? "] queue " : "] RX: ";
	for (const char* at = strstr(text, marker); at; at = strstr(at + 1, marker)) {
		const char* end = strchr(at, '\n');
		lines += end && end - at > 5 && strncmp(end - 5, " Mpps", 5) == 0;
	}
	return lines >= 2 * queues;
}

// Offers each NIC's frames in order, each only once the RX queue the hash predicts has a free descriptor (the model
// drops a frame that finds none), then waits until both NICs sent all (at most 60 s) and stops ixy-fwd.
static void* feed(void* arg) {
	struct feeder* feeder = arg;
	struct timespec tick = {.tv_nsec = 100 * 1000};
	uint32_t next[2] = {0, 0}, sent = 0;
	for (int rounds = 0; rounds < 600000 && sent < 2 * FRAMES; rounds++) {
		for (int n = 0; n < 2; n++) {
			for (int burst = 0; burst < 64 && next[n] < FRAMES; burst++) {
				const uint8_t* frame = test_frames[n][next[n]];
				uint16_t q = test_queues[n][next[n]], got;
				model_lock();
				bool room = model_ixgbe_rx_descriptors_available(feeder->nics[n], q) > 0 &&
					    model_ixgbe_receive(feeder->nics[n], frame, PACKET_SIZE, &got) ==
						MODEL_RX_DELIVERED;
				model_unlock();
				if (!room) {
					break;
				}
				CHECK_EQ(got, q);
				next[n]++;
			}
		}
		model_lock();
		sent =
		    model_ixgbe_counters(feeder->nics[0]).tx_frames + model_ixgbe_counters(feeder->nics[1]).tx_frames;
		model_unlock();
		nanosleep(&tick, NULL);
	}
	feeder->all_forwarded = sent == 2 * FRAMES;
	for (int i = 0; feeder->linger && i < 600 && !rates_printed(feeder->out_fd, feeder->queues); i++) { // <= 60 s
		nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
	}
	pthread_kill(main_thread, SIGTERM);
	atomic_store(&feeder->stopped, true);
	return NULL;
}

// Runs ixy-fwd --poll --queues <queues> and checks what came out of each NIC and what ixy-fwd printed. sandbox: with
// the seccomp filter (the caller forks first: it stays on the process). interrupts: the NICs offer MSI-X (as through
// VFIO) and ixy-fwd runs with --wait 10 instead of --poll: each thread's waiter sleeps on its own two RX queues.
// poll_option: pass --poll (else ixy-fwd polls by default). defaults: ixy-fwd's default run instead (queues "1"): no
// --poll, --wait or --queues.
static void run_fwd_queues(const char* name, const char* queues, bool sandbox, bool interrupts, bool poll_option,
			   bool defaults) {
	model_test_begin(name);
	uint16_t n = (uint16_t)atoi(queues);
	// (the default run lasts until it printed its rates: the once-a-second path is the paper's too)
	struct feeder feeder = {.nics = {model_ixgbe_add(PORT_A), model_ixgbe_add(PORT_B)},
				.linger = interrupts || defaults};
	ixy_rss_default(&feeder.rss, n);
	for (int nic = 0; nic < 2; nic++) {
		for (uint32_t j = 0; j < FRAMES; j++) {
			queue_test_frame(test_frames[nic][j], nic, j);
			test_queues[nic][j] = ixy_rss_queue(&feeder.rss, test_frames[nic][j], PACKET_SIZE);
		}
	}
	char* argv[10] = {"ixy-fwd"};
	int argc = 1;
	if (!sandbox) {
		argv[argc++] = "--no-sandbox";
	}
	if (defaults) {
		CHECK(n == 1 && !interrupts);
	} else if (interrupts) {
		model_pci_offer_msix(model_ixgbe_pci(feeder.nics[0]), true);
		model_pci_offer_msix(model_ixgbe_pci(feeder.nics[1]), true);
		argv[argc++] = "--wait";
		argv[argc++] = "10";
	} else if (poll_option) {
		argv[argc++] = "--poll";
	}
	if (!defaults) {
		argv[argc++] = "--queues";
		argv[argc++] = (char*)queues;
	}
	argv[argc++] = PORT_A;
	argv[argc++] = PORT_B;
	// ixy-fwd's stdout into a file, for the totals lines
	FILE* out = tmpfile();
	int saved = dup(STDOUT_FILENO);
	CHECK(out && saved >= 0 && fflush(stdout) == 0 && dup2(fileno(out), STDOUT_FILENO) == STDOUT_FILENO);
	feeder.out_fd = out ? fileno(out) : -1;
	feeder.queues = n;
	cpu_set_t cpus; // ixy-fwd pins the thread it runs in: this one; restored below
	CHECK_EQ(sched_getaffinity(0, sizeof(cpus), &cpus), 0);
	pthread_t feeder_thread;
	stop_signal = 0; // (the SIGTERM that stopped the run before)
	CHECK(pthread_create(&feeder_thread, NULL, feed, &feeder) == 0 && pthread_detach(feeder_thread) == 0);
	if (defaults) {
		gcov_window_open();
	}
	int status = ixy_fwd_main(argc, argv);
	if (defaults) {
		gcov_window_close();
	}
	CHECK_EQ(status, 0);
	while (!atomic_load(&feeder.stopped)) {
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
	}
	CHECK(sandbox || sched_setaffinity(0, sizeof(cpus), &cpus) == 0); // (the filter refuses it)
	// (under the filter dup2 is refused: the child's stdout stays the file, and the lines are shown on stderr)
	CHECK(fflush(stdout) == 0 && (sandbox || (dup2(saved, STDOUT_FILENO) == STDOUT_FILENO && close(saved) == 0)));
	CHECK(feeder.all_forwarded);

	// Frames received per NIC and RX queue, as predicted; and every frame out of the other NIC, once, in order.
	uint64_t predicted[2][IXY_MAX_QUEUES] = {{0}};
	for (int rx = 0; rx < 2; rx++) {
		uint32_t next_seq[FLOWS] = {0};
		const struct model_ixgbe* tx_nic = feeder.nics[1 - rx];
		uint32_t count = model_ixgbe_tx_frame_count(tx_nic), mismatches = 0;
		CHECK_EQ(count, FRAMES);
		for (uint32_t i = 0; i < count; i++) {
			uint32_t len;
			uint16_t tx_queue;
			const uint8_t* sent = model_ixgbe_tx_frame(tx_nic, i, &len, &tx_queue);
			uint8_t expected[PACKET_SIZE];
			uint32_t flow = sent[FLOW_BYTE]; // (the whole frame is compared below)
			if (len != PACKET_SIZE || flow >= FLOWS) {
				mismatches++;
				continue;
			}
			// the flow's next frame (in order, none twice, none left out), with ixy-fwd's one byte changed
			queue_test_frame(expected, rx, next_seq[flow]++ * FLOWS + flow);
			uint16_t q = ixy_rss_queue(&feeder.rss, expected, sizeof(expected));
			expected[FWD_MODIFIED_BYTE]++;
			mismatches += memcmp(sent, expected, PACKET_SIZE) != 0 || tx_queue != q;
			predicted[rx][q]++;
		}
		CHECK_EQ(mismatches, 0);
	}
	// The totals lines: per device as always, and per device and queue what the hash predicted.
	char line[512], pci[32], device_counts[64];
	snprintf(device_counts, sizeof(device_counts), " forwarded=%d tx_full=0\n", FRAMES);
	unsigned queue_lines = 0, used_queues = 0, probes = 0, waiters = 0, interrupt_waiters = 0,
		 rate_lines[2] = {0, 0}, totals = 0, device_rate_lines = 0;
	CHECK_EQ(fseek(out, 0, SEEK_SET), 0);
	while (fgets(line, sizeof(line), out)) {
		fputs(line, sandbox ? stderr : stdout);
		unsigned q;
		uint64_t rx, fwd, full;
		if (sscanf(line,
			   "queue app=ixy-fwd pci=%31s queue=%u rx_packets=%" SCNu64 " forwarded=%" SCNu64
			   " tx_full=%" SCNu64,
			   pci, &q, &rx, &fwd, &full) == 5) {
			int dev = strcmp(pci, PORT_B) == 0;
			CHECK(q < n);
			CHECK_EQ(rx, predicted[dev][q % n]);
			CHECK_EQ(fwd, rx);
			CHECK_EQ(full, 0);
			queue_lines++;
			used_queues += rx > 0;
		} else if (strcmp(line, "sandbox probe=1 open_errno=1 execve_errno=1\n") == 0) {
			probes++;
		} else if (sscanf(line, "[%31[^]]] queue %u RX: ", pci, &q) == 2) { // the rates, every second
			CHECK(q < n && (strcmp(pci, PORT_A) == 0 || strcmp(pci, PORT_B) == 0));
			rate_lines[strcmp(pci, PORT_B) == 0] += q < n && strstr(line, " Mpps\n") != NULL;
		} else if (line[0] == '[' && strstr(line, "] RX: ") && strstr(line, " Mpps\n")) { // a device's
			device_rate_lines++;
		} else if (strncmp(line, "waiter app=ixy-fwd ", 19) == 0) {
			// the waiter of thread k (printed in order) watches queue k of both NICs, and nothing else
			char own[2][64];
			snprintf(own[0], sizeof(own[0]), " interrupts/%s/%u=", PORT_A, waiters);
			snprintf(own[1], sizeof(own[1]), " interrupts/%s/%u=", PORT_B, waiters);
			unsigned entries = 0;
			for (const char* at = strstr(line, " interrupts/"); at; at = strstr(at + 1, " interrupts/")) {
				entries++;
			}
			CHECK(strstr(line, own[0]) && strstr(line, own[1]) && entries == 2);
			waiters++;
			interrupt_waiters += strstr(line, " polls_only=0 ") != NULL;
		} else if (strncmp(line, "totals app=ixy-fwd", 18) == 0) {
			CHECK(strstr(line, device_counts) != NULL);
			totals++;
		}
	}
	fclose(out);
	CHECK_EQ(totals, 2u);                       // one per device
	CHECK_EQ(queue_lines, n > 1 ? 2u * n : 0u); // with one queue, none
	CHECK_EQ(probes, sandbox ? 1u : 0u);        // under the filter: open and execve refused (EPERM)
	CHECK_EQ(waiters, interrupts ? n : 0u);     // one per thread with --wait; polling (the default, --poll): none
	CHECK_EQ(interrupt_waiters, interrupts ? n : 0u);
	if (interrupts) { // (the run that lasts more than a second) at least one rate line per device and queue
		CHECK(rate_lines[0] >= n && rate_lines[1] >= n && rate_lines[0] % n == 0 && rate_lines[1] % n == 0);
	}
	CHECK(!defaults || device_rate_lines >= 2); // a second passed: both devices' rates
	CHECK_EQ(used_queues, n > 1 ? 2u * n : 0u); // the flows are spread: every queue of both NICs had some
	CHECK_EQ(seam_dma_live_allocations(), 0);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
	signal(SIGTERM, SIG_DFL);
}

int main(void) {
	main_thread = pthread_self();
	// test_ixgbe_fwd_app_sandbox (not under valgrind: the filter would refuse valgrind's own calls)
	if (getenv("IXY_TEST_FWD_SANDBOX")) {
		pid_t child = fork();
		if (child == 0) {
			setenv("IXY_TEST_SANDBOX_PROBE", "1", 1); // the filter proves itself on stdout (sandbox.h)
			// The feeder thread starts before ixy-fwd's main: without capabilities, as ixy-fwd's own
			// threads, or ixy_sandbox_enter refuses to go on (it checks every thread of the process).
			struct ixy_sandbox_config drop = {0};
			CHECK_EQ(ixy_sandbox_drop_privileges(&drop), 0);
			run_fwd_queues("ixy-fwd --queues 4 under the seccomp filter", "4", true, false, true, false);
			fflush(stdout);
			_exit(model_test_summary());
		}
		int status = 0;
		CHECK(child > 0 && waitpid(child, &status, 0) == child);
		CHECK_EQ(status, 0); // (exit code << 8, or the signal that killed it)
		return model_test_summary();
	}
	// --no-sandbox: the seccomp filter would stay on this test process after ixy-fwd's main returns. Capabilities
	// are dropped all the same (ixy/sandbox.h): this process drops its own before its feeder threads start, or
	// ixy_sandbox_enter refuses to go on.
	struct ixy_sandbox_config drop = {0};
	CHECK_EQ(ixy_sandbox_drop_privileges(&drop), 0);
	static const char* const ring64[] = {"--no-sandbox", "--poll", "--ring", "64", NULL};
	static const char* const ring4096[] = {"--no-sandbox", "--poll", "--ring", "4096", NULL};
	static const char* const plain[] = {"--no-sandbox", "--poll", NULL};
	if (getenv("IXY_TEST_FWD_DEFAULT_ONLY")) {
		// The sandbox is the default too, but its filter would refuse the open() with which gcov writes this
		// process's counts at exit (and in a forked child the counts would be lost): --no-sandbox, said on
		// stdout.
		printf(
		    "note: ixy-fwd's default run here passes --no-sandbox: the seccomp filter would stay on the test "
		    "process and refuse gcov's writes at exit\n");
		run_fwd_queues("ixy-fwd's default run (--no-sandbox)", "1", false, false, false, true);
		return model_test_summary();
	}
	run_fwd("ixy-fwd --ring 64", ring64, 64);
	run_fwd("ixy-fwd --ring 4096", ring4096, 4096);
	run_fwd("ixy-fwd without --ring: 512", plain, 512);
	run_fwd_queues("ixy-fwd --queues 2 --poll", "2", false, false, true, false);
	run_fwd_queues("ixy-fwd --queues 4, polling by default: no waiter line", "4", false, false, false, false);
	run_fwd_queues("ixy-fwd --queues 2 --wait 10, MSI-X", "2", false, true, false, false);
	return model_test_summary();
}
