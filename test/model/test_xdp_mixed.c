// An AF_XDP device beside an ixy-driven NIC in one process (issue 22): the 82599 model on one side, xdp:lo on the
// other, in a network namespace of the test's own (unshare), where lo gets an MTU a UMEM frame holds. Whatever goes
// out on xdp:lo comes back in on it (loopback), so ixy-fwd's forwarding step (apps/fwd.h) runs both ways:
//   82599 RX -> AF_XDP TX: the NIC's buffer is copied into a UMEM frame (counted: tx_copied at close);
//   AF_XDP RX -> 82599 TX: the UMEM frame is sent as it is, by its device address (buf_addr_phy), which the model
//   checks lies in live DMA memory.
// ixy_check_configs picks the PCI way although the AF_XDP device is named (and taken) first. A PCI device after an
// AF_XDP device taken on ordinary memory is refused in one line (in a child process: the way is the process's;
// and in its own namespace).
// Needs root and a kernel with AF_XDP and BPF links: exit 77 (skipped) without.
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ixy/checks.h>
#include <ixy/ixy.h>

#include "../check.h"
#include "access.h"
#include "fwd.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "seam.h"

#define NIC_ADDR "0000:09:00.0"
#define XDP_NAME "xdp:lo"
#define FRAMES 100u

// lo of this namespace: up, with an MTU a frame holds. 0 or -1.
static int setup_lo(void) {
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct ifreq ifr = {.ifr_mtu = 1500};
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	int ret = fd < 0 || ioctl(fd, SIOCSIFMTU, &ifr) != 0 ? -1 : 0;
	ifr.ifr_flags = IFF_UP;
	ret = ret != 0 || ioctl(fd, SIOCSIFFLAGS, &ifr) != 0 ? -1 : 0;
	if (fd >= 0) {
		close(fd);
	}
	return ret;
}

static uint32_t frame_len_for(uint32_t seq) {
	return 60 + (seq * 37) % 1455; // 60..1514
}

static void sleep_ms(long ms) {
	struct timespec t = {.tv_sec = 0, .tv_nsec = ms * 1000000};
	nanosleep(&t, NULL);
}

// The UMEM is DMA memory: frames forwarded from xdp:lo to the 82599 leave it byte-exact, in order, each with the
// forwarded byte incremented twice (once per forwarding step); the NIC's buffers were copied, once each.
static void test_forward_both_ways(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_config configs[] = {{.pci_addr = XDP_NAME, .rx_queues = 1, .tx_queues = 1},
				       {.pci_addr = NIC_ADDR, .rx_queues = 1, .tx_queues = 1}};
	CHECK(ixy_check_configs(configs, 2, 0));
	CHECK(access_of_process() == &pci_sysfs_access); // chosen for both, before the AF_XDP device is taken
	struct ixy_device* xdp = ixy_init_config(&configs[0]);
	struct ixy_device* dev = ixy_init_config(&configs[1]);
	CHECK(xdp != NULL && dev != NULL);
	if (!xdp || !dev) {
		ixy_close(xdp);
		ixy_close(dev);
		model_pci_remove_all();
		return;
	}
	model_advance_us(1000000); // link up
	static const uint8_t mac[6] = {0x02, 0x00, 0x00, 0x09, 0x00, 0x00};
	uint8_t frame[1514], expected[1514];
	struct fwd_counters to_xdp = {0}, to_nic = {0};
	uint32_t checked = 0, errors = 0;
	for (uint32_t seq = 0; seq < FRAMES; seq++) {
		model_test_frame(frame, frame_len_for(seq), mac, seq);
		errors += model_ixgbe_inject_rx(nic, 0, frame, frame_len_for(seq)) != MODEL_RX_DELIVERED;
	}
	// The kernel delivers lo's packets in its own time: wait for them, a bounded number of rounds.
	for (int round = 0; round < 2000 && to_nic.forwarded < FRAMES; round++) {
		forward(dev, 0, xdp, 0, &to_xdp);
		if (forward(xdp, 0, dev, 0, &to_nic) == 0) {
			sleep_ms(1);
		}
	}
	forward(xdp, 0, dev, 0, &to_nic); // the 82599 cleans its TX ring: the frames go back to the UMEM
	// No packets, no array: only takes back what the kernel sent (as ixy-pktgen cleans its queue).
	CHECK_EQ(ixy_tx_batch(xdp, 0, NULL, 0), 0);
	CHECK_EQ(to_xdp.forwarded, FRAMES);
	CHECK_EQ(to_nic.forwarded, FRAMES);
	uint32_t count = model_ixgbe_tx_frame_count(nic);
	CHECK_EQ(count, FRAMES);
	for (uint32_t i = 0; i < count; i++, checked++) {
		uint32_t len;
		const uint8_t* sent = model_ixgbe_tx_frame(nic, i, &len, NULL);
		model_test_frame(expected, frame_len_for(i), mac, i);
		expected[FWD_MODIFIED_BYTE] += 2;
		if (len != frame_len_for(i) || memcmp(sent, expected, len) != 0) {
			if (errors++ < 5) {
				fprintf(stderr, "frame %u wrong: %u bytes, seq 0x%08x\n", i, len,
					model_test_frame_seq(sent, len));
			}
		}
	}
	CHECK_EQ(errors, 0);
	CHECK_EQ(checked, FRAMES);
	CHECK_NO_NEW_VIOLATIONS(); // every frame the NIC read lay in live DMA memory
	// As ixy-fwd stops (apps/ixy-fwd.c): both devices before either is closed, the AF_XDP device first. UMEM frames
	// may still sit in the 82599's TX ring when the AF_XDP device stops: the UMEM must outlive its stop.
	ixy_stop(xdp);
	ixy_stop(dev);
	CHECK_NO_NEW_VIOLATIONS(); // the 82599 read only live memory while it stopped
	ixy_close(dev);
	model_test_capture_start();
	ixy_close(xdp);
	char* closing = model_test_capture_end();
	char words[64];
	snprintf(words, sizeof(words), "tx_copied=%u ", FRAMES);
	CHECK(closing && strstr(closing, words) != NULL);
	free(closing);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// A process that took its AF_XDP device on ordinary memory first (no ixy_check_configs) cannot take a PCI device:
// refused in one line, nothing taken. Runs in a child, since the way it chooses is the process's.
static void test_pci_after_xdp_refused(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	pid_t pid = fork();
	if (pid == 0) {
		// A namespace of its own: the kernel releases a closed socket's hold on lo's queue a little later, and
		// the parent binds its own socket to lo right after.
		if (unshare(CLONE_NEWNET) != 0 || setup_lo() != 0) {
			_exit(1);
		}
		struct ixy_config xdp_config = {.pci_addr = XDP_NAME, .rx_queues = 1, .tx_queues = 1};
		struct ixy_device* xdp = ixy_init_config(&xdp_config);
		model_test_capture_start();
		struct ixy_device* dev = ixy_init(NIC_ADDR, 1, 1);
		char* said = model_test_capture_end();
		bool refused = xdp && !dev && said && strstr(said, "AF_XDP devices on ordinary memory") &&
			       !model_pci_unbound(model_ixgbe_pci(nic)) && !model_pci_bus_master(model_ixgbe_pci(nic));
		ixy_close(xdp);
		_exit(refused ? 0 : 1);
	}
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	model_pci_remove_all();
}

int main(void) {
	if (geteuid() != 0 || unshare(CLONE_NEWNET) != 0 || setup_lo() != 0) {
		fprintf(stderr, "test_xdp_mixed: skipped: needs root for a network namespace (%s)\n", strerror(errno));
		return 77;
	}
	int probe = socket(44 /* AF_XDP */, SOCK_RAW, 0);
	if (probe < 0) {
		fprintf(stderr, "test_xdp_mixed: skipped: no AF_XDP sockets here (%s)\n", strerror(errno));
		return 77;
	}
	close(probe);
	test_pci_after_xdp_refused();
	test_forward_both_ways();
	return model_test_summary();
}
