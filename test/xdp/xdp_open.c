// xdp_open: opens one AF_XDP device with the queues asked for and closes it again, for test_xdp_veth.sh: the
// refusals the apps cannot reach (they always ask for one queue), and a kernel without AF_XDP or without BPF links,
// imitated with a seccomp filter that fails those system calls as such a kernel does.
//
//   xdp_open [--no-af-xdp | --no-bpf-links] <xdp:ifname> <rx_queues> <tx_queues>
//
// Exit status: 0 opened and closed, 1 refused (ixy printed why), 2 usage, 77 seccomp filters not available here.
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
	if (argc == 5 && strcmp(argv[1], "--no-af-xdp") == 0) {
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
			"usage: xdp_open [--no-af-xdp | --no-bpf-links] <xdp:ifname> <rx_queues> <tx_queues>\n");
		return 2;
	}
	struct ixy_config config = {.pci_addr = argv[first],
				    .rx_queues = (uint16_t)atoi(argv[first + 1]),
				    .tx_queues = (uint16_t)atoi(argv[first + 2])};
	struct ixy_device* dev = ixy_check_configs(&config, 1, 0) ? ixy_init_config(&config) : NULL;
	if (!dev) {
		return 1;
	}
	ixy_close(dev);
	return 0;
}
