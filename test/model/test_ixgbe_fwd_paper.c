// The paper's ixy-fwd (apps/ixy-fwd.c with apps/fwd_paper.c, the IXY_PAPER_ONLY build's files; main renamed
// ixy_fwd_main) against two modelled 82599s, linked without the apps' library: it takes exactly two PCI addresses
// (anything else: its usage line, exit 2), polls (no waiter line), prints the totals lines tests parse and exits 0 on
// SIGTERM; if the second device cannot be taken it closes the first and exits 1, nothing left allocated.
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "seam.h"

#define PORT_A "0000:0c:00.0"
#define PORT_B "0000:0c:00.1"

int ixy_fwd_main(int argc, char* argv[]);

static pthread_t main_thread;

// Waits until ixy-fwd has installed its SIGTERM handler, lets it poll a tenth of a second, stops it.
static void* stop_fwd(void* unused) {
	(void)unused;
	struct timespec tick = {.tv_nsec = 10 * 1000 * 1000};
	struct sigaction now = {0};
	while (sigaction(SIGTERM, NULL, &now) == 0 && now.sa_handler == SIG_DFL) {
		nanosleep(&tick, NULL);
	}
	for (int i = 0; i < 10; i++) {
		nanosleep(&tick, NULL);
	}
	pthread_kill(main_thread, SIGTERM);
	return NULL;
}

// Runs ixy-fwd on argv (argc entries) with stdout and stderr into one file; returns its exit code, the output in out.
static int run(int argc, char* argv[], bool stopper, char* out, size_t out_size) {
	FILE* file = tmpfile();
	int saved[2] = {dup(STDOUT_FILENO), dup(STDERR_FILENO)};
	CHECK(file && fflush(stdout) == 0 && fflush(stderr) == 0);
	CHECK(dup2(fileno(file), STDOUT_FILENO) >= 0 && dup2(fileno(file), STDERR_FILENO) >= 0);
	pthread_t thread;
	CHECK(!stopper || pthread_create(&thread, NULL, stop_fwd, NULL) == 0);
	int code = ixy_fwd_main(argc, argv);
	CHECK(!stopper || pthread_join(thread, NULL) == 0);
	fflush(stdout);
	fflush(stderr);
	CHECK(dup2(saved[0], STDOUT_FILENO) >= 0 && dup2(saved[1], STDERR_FILENO) >= 0);
	close(saved[0]);
	close(saved[1]);
	rewind(file);
	size_t n = fread(out, 1, out_size - 1, file);
	out[n] = '\0';
	fclose(file);
	fputs(out, stdout); // (for the log)
	signal(SIGTERM, SIG_DFL);
	return code;
}

static void test_usage(void) {
	model_test_begin("the paper's ixy-fwd takes exactly two PCI addresses");
	static char out[4096];
	static const char usage[] = "usage: ixy-fwd <pci1> <pci2>";
	CHECK_EQ(run(1, (char*[]){"ixy-fwd", NULL}, false, out, sizeof(out)), 2);
	CHECK(strncmp(out, usage, strlen(usage)) == 0);
	CHECK_EQ(run(2, (char*[]){"ixy-fwd", PORT_A, NULL}, false, out, sizeof(out)), 2);
	CHECK(strncmp(out, usage, strlen(usage)) == 0);
	// no options: --poll is an address here, and one argument too many
	CHECK_EQ(run(4, (char*[]){"ixy-fwd", "--poll", PORT_A, PORT_B, NULL}, false, out, sizeof(out)), 2);
	CHECK(strncmp(out, usage, strlen(usage)) == 0);
	CHECK_EQ(seam_dma_live_allocations(), 0);
}

static void test_run(void) {
	model_test_begin("the paper's ixy-fwd polls, prints its totals lines and stops on SIGTERM");
	model_ixgbe_add(PORT_A);
	model_ixgbe_add(PORT_B);
	static char out[1 << 16];
	CHECK_EQ(run(3, (char*[]){"ixy-fwd", PORT_A, PORT_B, NULL}, true, out, sizeof(out)), 0);
	CHECK(strstr(out, "totals app=ixy-fwd pci=" PORT_A " ") != NULL);
	CHECK(strstr(out, "totals app=ixy-fwd pci=" PORT_B " ") != NULL);
	CHECK(strstr(out, " forwarded=0 tx_full=0\n") != NULL);
	CHECK(strstr(out, "waiter") == NULL && strstr(out, "queue app=") == NULL);
	CHECK_EQ(seam_dma_live_allocations(), 0);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

static void test_second_missing(void) {
	model_test_begin("the paper's ixy-fwd closes the first device when the second cannot be taken");
	model_ixgbe_add(PORT_A);
	static char out[1 << 14];
	CHECK_EQ(run(3, (char*[]){"ixy-fwd", PORT_A, PORT_B, NULL}, false, out, sizeof(out)), 1);
	CHECK(strstr(out, "totals") == NULL);
	CHECK_EQ(seam_dma_live_allocations(), 0);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

int main(void) {
	main_thread = pthread_self();
	test_usage();
	test_run();
	test_second_missing();
	return model_test_summary();
}
