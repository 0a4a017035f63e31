// An 82599 (ixgbe_model.c) run the way the apps run it under their sandbox (include/ixy/sandbox.h): ixy_init, then
// ixy_sandbox_enter, then packets received and sent, then ixy_stop and ixy_close, all in a forked child whose stderr
// the parent reads. Under the filter the driver's packet path, statistics and teardown must work: every frame
// forwarded, the NIC reset at ixy_stop and bus mastering off at ixy_close, no DMA memory left, and not one warning or
// error.
//
// What this proves and what not: in this build the driver reaches the model through test/seam (seam.h), so PCI
// config space, BARs and DMA memory are function calls into this process, not pread/pwrite on sysfs or VFIO files,
// mmap of BARs, munmap of huge pages or VFIO's UNMAP_DMA ioctl. It proves that the driver's own code from the packet
// path to ixy_close makes no system call the filter refuses (clock and sleep calls, memory, messages); the calls the
// real pci.c, vfio.c and memory.c make at stop and close are exercised by test/vm (scenario-e2e.sh,
// scenario-quiet.sh), and each allowed call by test/unit/test_sandbox.c.
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ixy/ixy.h>
#include <ixy/sandbox.h>

#include "../check.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "seam.h"

#define PORT "0000:08:00.0"
#define FRAMES 500

static const uint8_t mac[6] = {0x02, 0x00, 0x00, 0x08, 0x00, 0x00};

// In the child: the device up, the sandbox entered, FRAMES frames received and sent back out, stop and close.
static void run_under_filter(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(PORT);
	struct ixy_device* dev = ixy_init(PORT, 1, 1);
	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	model_advance_us(1000000);
	struct ixy_sandbox_config sandbox = {0};
	int entered = ixy_sandbox_enter(&sandbox);
	CHECK_EQ(entered, 0);
	if (entered != 0) {
		return;
	}
	uint8_t frame[128];
	uint32_t injected = 0, forwarded = 0;
	struct pkt_buf* bufs[32];
	for (int idle = 0; forwarded < FRAMES && idle < 1000;) {
		for (uint32_t i = 0; i < 32 && injected < FRAMES && model_ixgbe_rx_descriptors_available(nic, 0) > 0;
		     i++, injected++) {
			model_test_frame(frame, sizeof(frame), mac, injected);
			CHECK_EQ(model_ixgbe_inject_rx(nic, 0, frame, sizeof(frame)), MODEL_RX_DELIVERED);
		}
		uint32_t n = ixy_rx_batch(dev, 0, bufs, 32);
		uint32_t sent = ixy_tx_batch(dev, 0, bufs, n);
		for (uint32_t i = sent; i < n; i++) {
			pkt_buf_free(bufs[i]);
		}
		forwarded += sent;
		idle = n == 0 ? idle + 1 : 0;
		model_ixgbe_clear_tx_frames(nic);
	}
	CHECK_EQ(forwarded, FRAMES);
	struct device_stats stats;
	stats_init(&stats, dev);
	ixy_read_stats(dev, &stats);
	CHECK_EQ(stats.rx_pkts, FRAMES);
	uint64_t resets = model_ixgbe_counters(nic).resets;
	ixy_stop(dev);
	CHECK(model_ixgbe_counters(nic).resets > resets);
	CHECK(model_pci_bus_master(model_ixgbe_pci(nic)));
	ixy_close(dev);
	CHECK(!model_pci_bus_master(model_ixgbe_pci(nic)));
	CHECK_EQ(seam_dma_live_allocations(), 0);
	CHECK_NO_NEW_VIOLATIONS();
}

int main(void) {
	int out[2];
	CHECK_EQ(pipe(out), 0);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		if (dup2(out[1], STDERR_FILENO) < 0) {
			_exit(100);
		}
		close(out[0]);
		close(out[1]);
		run_under_filter();
		int failures = check_failures + (int)model_violation_count();
		fflush(stderr);
		_exit(failures > 99 ? 99 : failures);
	}
	close(out[1]);
	// The child's messages, passed on; warnings, errors and panics of the library and the seam must be none.
	char text[65536];
	size_t len = 0;
	ssize_t n;
	while ((n = read(out[0], text + len, sizeof(text) - 1 - len)) > 0) {
		len += (size_t)n;
	}
	text[len] = '\0';
	close(out[0]);
	fputs(text, stderr);
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	int failed = WIFEXITED(status) ? WEXITSTATUS(status) : 100;
	printf("under the filter: %d check(s) failed in the child%s\n", failed,
	       WIFSIGNALED(status) ? " (it was killed by a signal)" : "");
	CHECK_EQ(failed, 0);
	CHECK(strstr(text, "least privilege: seccomp filter") != NULL);
	const char* bad[] = {"ixy: warning", "ixy: error", "BUG", "seam:"}; // seam: the test build's DMA memory
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (strstr(text, bad[i])) {
			fprintf(stderr, "the child printed '%s'\n", bad[i]);
			check_failures++;
		}
	}
	return check_summary();
}
