// xdp_open: opens one AF_XDP device with the queues asked for and closes it again, for test_xdp_veth.sh: the
// refusals the apps cannot reach (they always ask for one queue), and a kernel without AF_XDP or without BPF links,
// imitated with a seccomp filter that fails those system calls as such a kernel does. With --attach-netlink it
// instead attaches a program of its own to an interface the old way, through rtnetlink (IFLA_XDP), as `ip link set
// dev <ifname> xdp obj ...` does: no BPF link, so the program stays attached after this process exits, until
// `ip link set dev <ifname> xdp off`. It passes every packet on (XDP_PASS); it prints its id.
//
//   xdp_open [--no-af-xdp | --no-bpf-links | --send <ring size>] <xdp:ifname> <rx_queues> <tx_queues>
//   xdp_open --attach-netlink native|generic <ifname>
//   xdp_open --two planned|unplanned <xdp:ifname> <xdp:ifname>
//   xdp_open --bad-queue <xdp:ifname>
//
// --send: rings of that size, and once the device is open a batch of SEND_BATCH packets from a pool of the app's own
// (copied into the UMEM) on each TX queue: every queue must take all of them. The UMEM must hold what the rings
// give the kernel and frames to send besides. Then it prints "sent" and waits for the end of its standard input
// before it closes the device (so that a test can change the interface in between: ixy_close sends what is left).
// --two: two AF_XDP devices in one process, the first with rings of 64, the second of 4096 descriptors; "planned"
// checks both together first (ixy_check_configs, as the apps do), "unplanned" opens them one after the other with
// ixy_init_config alone, so that the UMEM is made for the first one only.
// --bad-queue: one RX and one TX queue, then a batch on queue 1 of each way (issue 34: refused in ixy.h's wrappers,
// 0 packets, one error line); prints "bad_queue rx=<received> tx=<taken>", and "queue0 tx=<taken>" for a packet on
// queue 0 after it.
//
// Exit status: 0 opened (and sent) and closed (attached), 1 refused (ixy or the kernel, which printed why), 2 usage,
// 3 a queue took fewer packets, 77 seccomp filters not available here.
#include <errno.h>
#include <linux/audit.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ixy/checks.h>
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

static long sys_bpf(enum bpf_cmd cmd, union bpf_attr* attr) {
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

// Appends an attribute of len bytes of data at *at (the buffer has room); returns it, to nest others in.
static struct rtattr* add_attr(char** at, unsigned short type, const void* data, unsigned short len) {
	struct rtattr* attr = (struct rtattr*)*at;
	attr->rta_type = type;
	attr->rta_len = (unsigned short)RTA_LENGTH(len);
	if (len) {
		memcpy(RTA_DATA(attr), data, len);
	}
	*at += RTA_ALIGN(attr->rta_len);
	return attr;
}

// Loads a program that returns XDP_PASS and attaches it to ifname with RTM_SETLINK, in the driver's own XDP mode
// (native) or the generic one every interface has. 0, or 1 with a message.
static int attach_netlink(const char* mode, const char* ifname) {
	unsigned ifindex = if_nametoindex(ifname);
	uint32_t flags = strcmp(mode, "native") == 0 ? XDP_FLAGS_DRV_MODE : XDP_FLAGS_SKB_MODE;
	if (ifindex == 0) {
		fprintf(stderr, "xdp_open: no interface %s\n", ifname);
		return 1;
	}
	struct bpf_insn prog[] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_PASS}, // r0 = XDP_PASS
	    {.code = BPF_JMP | BPF_EXIT},                                                 // return r0
	};
	union bpf_attr attr = {.prog_type = BPF_PROG_TYPE_XDP,
			       .insn_cnt = sizeof(prog) / sizeof(prog[0]),
			       .insns = (uintptr_t)prog,
			       .license = (uintptr_t) "BSD"};
	snprintf(attr.prog_name, sizeof(attr.prog_name), "test_pass");
	int prog_fd = (int)sys_bpf(BPF_PROG_LOAD, &attr);
	if (prog_fd < 0) {
		fprintf(stderr, "xdp_open: loading the program failed: %s\n", strerror(errno));
		return 1;
	}
	struct bpf_prog_info info = {0};
	attr =
	    (union bpf_attr){.info = {.bpf_fd = (uint32_t)prog_fd, .info_len = sizeof(info), .info = (uintptr_t)&info}};
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) != 0) {
		fprintf(stderr, "xdp_open: the program's id: %s\n", strerror(errno));
		close(prog_fd);
		return 1;
	}
	// RTM_SETLINK of the interface with IFLA_XDP { IFLA_XDP_FD, IFLA_XDP_FLAGS }, and the kernel's answer.
	struct {
		struct nlmsghdr header;
		struct ifinfomsg info;
		char attrs[64];
	} request = {.header = {.nlmsg_type = RTM_SETLINK, .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK},
		     .info = {.ifi_family = AF_UNSPEC, .ifi_index = (int)ifindex}};
	char* at = request.attrs;
	struct rtattr* xdp = add_attr(&at, IFLA_XDP | NLA_F_NESTED, NULL, 0);
	add_attr(&at, IFLA_XDP_FD, &prog_fd, sizeof(prog_fd));
	add_attr(&at, IFLA_XDP_FLAGS, &flags, sizeof(flags));
	xdp->rta_len = (unsigned short)(at - (char*)xdp);
	request.header.nlmsg_len = (uint32_t)(at - (char*)&request);
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	struct {
		struct nlmsghdr header;
		struct nlmsgerr error;
		char rest[512];
	} answer;
	ssize_t got =
	    fd < 0 || send(fd, &request, request.header.nlmsg_len, 0) < 0 ? -1 : recv(fd, &answer, sizeof(answer), 0);
	int err = got < 0 ? errno
		  : got < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) || answer.header.nlmsg_type != NLMSG_ERROR
		      ? EPROTO
		      : -answer.error.error;
	if (fd >= 0) {
		close(fd);
	}
	close(prog_fd); // the interface holds the program now
	if (err != 0) {
		fprintf(stderr, "xdp_open: attaching the program to %s (%s) failed: %s\n", ifname, mode, strerror(err));
		return 1;
	}
	printf("attached: ifname=%s mode=%s id=%u\n", ifname, mode, info.id);
	return 0;
}

// --two: 0 if both devices opened, 1 if one was refused (ixy printed why).
static int open_two(bool planned, const char* first, const char* second) {
	struct ixy_config configs[] = {{.pci_addr = first, .rx_queues = 1, .tx_queues = 1, .ring_size = 64},
				       {.pci_addr = second, .rx_queues = 1, .tx_queues = 1, .ring_size = 4096}};
	struct ixy_device* devs[2] = {NULL, NULL};
	if (!planned || ixy_check_configs(configs, 2, 0)) {
		devs[0] = ixy_init_config(&configs[0]);
		devs[1] = devs[0] ? ixy_init_config(&configs[1]) : NULL;
	}
	printf("opened=%d\n", (devs[0] != NULL) + (devs[1] != NULL));
	fflush(stdout);
	for (int i = 1; i >= 0; i--) {
		if (devs[i]) {
			ixy_close(devs[i]);
		}
	}
	return devs[1] ? 0 : 1;
}

// --bad-queue: 0 if the device opened (what the batches returned is printed), 1 if it was refused.
static int bad_queue(const char* name) {
	struct ixy_config config = {.pci_addr = name, .rx_queues = 1, .tx_queues = 1, .ring_size = 64};
	struct ixy_device* dev = ixy_check_configs(&config, 1, 0) ? ixy_init_config(&config) : NULL;
	struct mempool* pool = dev ? memory_allocate_mempool(SEND_BATCH, 2048) : NULL;
	if (!pool) {
		ixy_close(dev);
		return 1;
	}
	struct pkt_buf* bufs[4];
	uint32_t n = pkt_buf_alloc_batch(pool, bufs, 1);
	memset(bufs[0]->data, 0xff, 60); // a broadcast frame, 60 bytes
	bufs[0]->size = 60;
	uint32_t rx = ixy_rx_batch(dev, 1, bufs + 1, 3), tx = ixy_tx_batch(dev, 1, bufs, n);
	printf("bad_queue rx=%u tx=%u\n", rx, tx);
	uint32_t taken = ixy_tx_batch(dev, 0, bufs + tx, n - tx); // the buffer is still the caller's
	printf("queue0 tx=%u\n", taken);
	ixy_close(dev);
	memory_free_mempool(pool);
	return 0;
}

int main(int argc, char* argv[]) {
	int first = 1;
	if (argc == 3 && strcmp(argv[1], "--bad-queue") == 0) {
		return bad_queue(argv[2]);
	}
	uint32_t send_ring = 0;
	if (argc == 4 && strcmp(argv[1], "--attach-netlink") == 0 &&
	    (strcmp(argv[2], "native") == 0 || strcmp(argv[2], "generic") == 0)) {
		return attach_netlink(argv[2], argv[3]);
	}
	if (argc == 5 && strcmp(argv[1], "--two") == 0) {
		return open_two(strcmp(argv[2], "planned") == 0, argv[3], argv[4]);
	}
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
		fprintf(stderr, "usage: xdp_open [--no-af-xdp | --no-bpf-links | --send <ring size>] <xdp:ifname> "
				"<rx_queues> <tx_queues>\n"
				"       xdp_open --attach-netlink native|generic <ifname>\n"
				"       xdp_open --two planned|unplanned <xdp:ifname> <xdp:ifname>\n"
				"       xdp_open --bad-queue <xdp:ifname>\n");
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
	if (send_ring) {
		printf("sent\n");
		fflush(stdout);
		while (getchar() != EOF) {
		}
	}
	ixy_close(dev);
	if (pool) {
		memory_free_mempool(pool);
	}
	return send_ring && !pool ? 1 : status;
}
