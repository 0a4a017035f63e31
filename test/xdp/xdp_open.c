// xdp_open: opens one AF_XDP device with the queues asked for and closes it again, for test_xdp_veth.sh: the
// refusals the apps cannot reach (they always ask for one queue), and a kernel without AF_XDP or without BPF links,
// imitated with a seccomp filter that fails those system calls as such a kernel does.
//
//   xdp_open [--no-af-xdp | --no-bpf-links | --send <ring size>] <xdp:ifname> <rx_queues> <tx_queues>
//
// --send: rings of that size, and once the device is open a batch of SEND_BATCH packets from a pool of the app's own
// (copied into the UMEM) on each TX queue: every queue must take all of them. The UMEM must hold what the rings
// give the kernel and frames to send besides.
//
// Exit status: 0 opened (and sent) and closed, 1 refused (ixy printed why), 2 usage, 3 a queue took fewer packets,
// 77 seccomp filters not available here.
#include <errno.h>
#include <linux/audit.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <ixy/ixy.h>
#include <ixy/memory.h>

#define SEND_BATCH 64u

#ifndef AF_XDP
#define AF_XDP 44
#endif

// Fails syscall nr with errno err when its first argument is arg0 (low 32 bits), allows everything else.
static int fail_syscall(long nr, unsigned arg0, int err) {
#ifdef __x86_64__
	struct sock_filter filter[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 3),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])), // low half (little endian)
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arg0, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)err),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(filter) / sizeof(filter[0]), .filter = filter};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		fprintf(stderr, "xdp_open: seccomp: %s\n", strerror(errno));
		return -1;
	}
	return 0;
#else
	(void)nr, (void)arg0, (void)err;
	fprintf(stderr, "xdp_open: the seccomp filter is written for x86-64 only\n");
	return -1;
#endif
}

int main(int argc, char* argv[]) {
	int first = 1;
	uint32_t send_ring = 0;
	if (argc == 6 && strcmp(argv[1], "--send") == 0) {
		first = 3;
		send_ring = (uint32_t)atoi(argv[2]);
	} else if (argc == 5 && strcmp(argv[1], "--no-af-xdp") == 0) {
		first = 2; // a kernel without CONFIG_XDP_SOCKETS: socket(AF_XDP, ...) fails with EAFNOSUPPORT
		if (fail_syscall(SYS_socket, AF_XDP, EAFNOSUPPORT) != 0) {
			return 77;
		}
	} else if (argc == 5 && strcmp(argv[1], "--no-bpf-links") == 0) {
		first = 2; // a kernel before 5.7 does not know the command BPF_LINK_CREATE: EINVAL
		if (fail_syscall(SYS_bpf, BPF_LINK_CREATE, EINVAL) != 0) {
			return 77;
		}
	} else if (argc != 4) {
		fprintf(stderr,
			"usage: xdp_open [--no-af-xdp | --no-bpf-links | --send <ring size>] <xdp:ifname> <rx_queues> "
			"<tx_queues>\n");
		return 2;
	}
	struct ixy_config config = {.pci_addr = argv[first],
				    .rx_queues = (uint16_t)atoi(argv[first + 1]),
				    .tx_queues = (uint16_t)atoi(argv[first + 2]),
				    .ring_size = send_ring};
	struct ixy_device* dev = ixy_check_configs(&config, 1, 0) ? ixy_init_config(&config) : NULL;
	if (!dev) {
		return 1;
	}
	int status = 0;
	struct mempool* pool = send_ring ? memory_allocate_mempool(SEND_BATCH, 2048) : NULL;
	for (uint16_t q = 0; pool && q < config.tx_queues; q++) {
		struct pkt_buf* bufs[SEND_BATCH];
		uint32_t n = pkt_buf_alloc_batch(pool, bufs, SEND_BATCH);
		for (uint32_t i = 0; i < n; i++) {
			memset(bufs[i]->data, 0xff, 60); // a broadcast frame, 60 bytes
			bufs[i]->size = 60;
		}
		uint32_t taken = ixy_tx_batch(dev, q, bufs, n);
		printf("send queue=%u taken=%u of=%u\n", q, taken, SEND_BATCH);
		status = taken == SEND_BATCH ? status : 3;
		pkt_buf_free_batch(bufs + taken, n - taken);
	}
	ixy_close(dev);
	if (pool) {
		memory_free_mempool(pool);
	}
	return send_ring && !pool ? 1 : status;
}
