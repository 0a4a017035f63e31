// AF_XDP: a kernel network interface as an ixy device (xdp.h). The kernel's way of handing packets to user space,
// next to ixy's own drivers, with libc and the kernel's uapi headers only (no libbpf, no libxdp).
//
// Per device: an XSKMAP (queue index -> socket), a hand-assembled XDP program that redirects each packet to the
// socket of its RX queue, and a BPF link attaching the program to the interface (the link dies with the process).
// Per queue: an AF_XDP socket bound to the interface and queue, with its four rings (xdp_ring.h).
// Per process: one UMEM, shared by all sockets of all AF_XDP devices (XDP_SHARED_UMEM), so that ixy-fwd between two
// AF_XDP devices sends the buffer it received without a copy. Shared nothing between queues: the UMEM is cut into
// slices, each with a pool of its own, and queue i of every device uses only slice i (its fill ring, RX ring, TX
// copies and completions), so that queues of different indices may run in different threads (ixy.h) without a lock,
// while ixy-fwd's thread i still forwards between the two devices' queues i without a copy.
// Beside PCI devices (ixy's own drivers) the UMEM is the process's DMA memory (huge pages with physical addresses, or
// IO virtual addresses under VFIO), and a frame's pkt_buf has the device address as any other: a PCI NIC sends a
// UMEM frame as it is, and a frame is found by its place in the UMEM, not by buf_addr_phy. A PCI NIC's own buffers
// are copied into a UMEM frame to be sent over AF_XDP (counted: tx_copied).
//
// Linux Documentation/networking/af_xdp.rst describes the socket, Documentation/bpf/ the program and its loading.
#include <ctype.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ixy/interrupts.h>
#include <ixy/settings.h>

#include "../access.h"
#include "driver.h"
#include "xdp.h"
#include "xdp_ring.h"

#ifndef AF_XDP
#define AF_XDP 44 // linux/socket.h
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif

// Frames of each slice of the UMEM beyond those its queues' rings can hold: a PCI NIC's TX ring full of the slice's
// frames at the largest ring size (ixy-fwd from AF_XDP to a PCI NIC, queue i to queue i), and the app's batches.
#define UMEM_SPARE_FRAMES 4096u
// Sockets that can share it at once (slots for xsk_slice.held).
#define MAX_SOCKETS 256
// Descriptors per ring where the app asks for no size (ring_size 0), the largest ixy allows. A forwarder that polls
// loses its CPU now and then; the kernel keeps filling its RX ring meanwhile and drops what does not fit. 512
// descriptors hold about 0.6 ms of traffic at 800 kpps: with the source on the forwarder's CPU (bench/xdp_veth.sh
// --contended) ixy-fwd lost 81 % of what reached it, with 2048 (libxdp's and DPDK's default) 37 %, with 4096 2 %
// (issue 29; docs/benchmark.md, "The AF_XDP ring default"). The UMEM grows with the rings (queue_frames).
#define XDP_DEFAULT_RING_SIZE 4096u

struct xdp_device {
	struct ixy_device ixy;
	char name[IF_NAMESIZE + sizeof(XDP_NAME_PREFIX)]; // "xdp:<ifname>"
	const char* ifname;                               // inside name
	int ifindex;
	int map_fd, prog_fd, link_fd; // -1 when not open
	bool zero_copy, native, started, stopped, kick_warned;
	uint16_t num_queues;
	uint32_t ring_size;
	bool promised; // frames of the UMEM's slices to this device's rings (queue_frames)
	struct xsk_queue* queues;
	int* fds;              // the queues' sockets
	struct xdp_seen* seen; // per queue: what read_stats saw at its last call (its own: the queues may be others')
	struct ixy_interrupts interrupts; // the waiter's (ixy.interrupts, if the app asked): the queues' sockets
};

// A queue's counters and the kernel's, as read_stats saw them last: it adds what they grew by since.
struct xdp_seen {
	struct xsk_counters counters;
	struct xdp_statistics kernel;
};

// The process's UMEM, made by its first AF_XDP device and freed with its last.
static struct {
	struct dma_memory mem; // the UMEM: its slices one after the other, each a whole number of huge pages
	uint32_t num_frames;
	uint16_t num_slices; // 0: no UMEM
	struct xsk_slice slices[IXY_MAX_QUEUES];
	uint32_t promised[IXY_MAX_QUEUES]; // per slice: frames the rings of the open devices' queues can hold
	uint16_t* held;                    // the slices' held, one after the other
	int fds[MAX_SOCKETS + 1]; // by slot: a bound socket of the UMEM, -2 before it is bound, -1 free (0 unused)
	unsigned sockets;
	bool zero_copy;       // the mode of its sockets (the first one's)
	struct xdp_plan plan; // what it is made for, if the app's devices were checked together (xdp_adopt_plan)
	bool planned;
} process_umem;

static long sys_bpf(enum bpf_cmd cmd, union bpf_attr* attr) {
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static const char* ifname_of(const char* name) {
	return name + strlen(XDP_NAME_PREFIX);
}

// ---- Refusals (xdp_check) ----

// The capabilities this process has in its effective set (capget, linux/capability.h).
static bool has_capability(int cap) {
	struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {{0}};
	if (syscall(SYS_capget, &header, data) != 0) {
		return false;
	}
	return data[CAP_TO_INDEX(cap)].effective & CAP_TO_MASK(cap);
}

// An ioctl on the interface through a throwaway socket; -1 with errno on failure.
static int interface_ioctl(const char* ifname, unsigned long request, struct ifreq* ifr) {
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		return -1;
	}
	snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", ifname);
	int ret = ioctl(fd, request, ifr);
	int saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

// Which XDP program the interface has (rtnetlink RTM_GETLINK, attribute IFLA_XDP): its IFLA_XDP_ATTACHED value
// (XDP_ATTACHED_NONE: none), or -1 if the kernel's answer cannot be had.
static int attached_xdp(int ifindex) {
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	struct {
		struct nlmsghdr header;
		struct ifinfomsg info;
	} request = {.header = {.nlmsg_len = sizeof(request), .nlmsg_type = RTM_GETLINK, .nlmsg_flags = NLM_F_REQUEST},
		     .info = {.ifi_family = AF_UNSPEC, .ifi_index = ifindex}};
	static char answer[32768];
	ssize_t got = fd < 0 || send(fd, &request, sizeof(request), 0) < 0 ? -1 : recv(fd, answer, sizeof(answer), 0);
	if (fd >= 0) {
		close(fd);
	}
	struct nlmsghdr* msg = (struct nlmsghdr*)answer;
	if (got < (ssize_t)NLMSG_LENGTH(sizeof(struct ifinfomsg)) || !NLMSG_OK(msg, (size_t)got) ||
	    msg->nlmsg_type != RTM_NEWLINK) {
		return -1;
	}
	// The attributes after the ifinfomsg, each bounded by what is left of the message.
	int left = (int)msg->nlmsg_len - (int)NLMSG_LENGTH(sizeof(struct ifinfomsg));
	for (struct rtattr* attr = IFLA_RTA(NLMSG_DATA(msg)); RTA_OK(attr, left); attr = RTA_NEXT(attr, left)) {
		if (attr->rta_type != IFLA_XDP) {
			continue;
		}
		int inner_left = (int)RTA_PAYLOAD(attr);
		for (struct rtattr* x = RTA_DATA(attr); RTA_OK(x, inner_left); x = RTA_NEXT(x, inner_left)) {
			if (x->rta_type == IFLA_XDP_ATTACHED && RTA_PAYLOAD(x) >= 1) {
				return *(uint8_t*)RTA_DATA(x);
			}
		}
	}
	return XDP_ATTACHED_NONE;
}

// A queue the interface has: its directory in sysfs (the namespace's own sysfs under ip netns exec).
static bool has_queue(const char* ifname, const char* kind, unsigned queue) {
	char path[128];
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues/%s-%u", ifname, kind, queue);
	return access(path, F_OK) == 0;
}

static unsigned count_queues(const char* ifname, const char* kind) {
	unsigned n = 0;
	while (n < 1024 && has_queue(ifname, kind, n)) {
		n++;
	}
	return n;
}

// The frames queue q of a device can hold, its rings all full: as an RX queue its fill and RX rings, as a TX queue
// its TX and completion rings.
static uint32_t queue_frames(uint32_t ring_size, uint16_t rx_queues, uint16_t tx_queues, uint16_t q) {
	return 2 * ring_size * ((uint32_t)(q < rx_queues) + (q < tx_queues));
}

// Adds the frames of the device of config, queue by queue, to plan.
static void plan_frames(const struct ixy_config* config, struct xdp_plan* plan) {
	uint32_t ring = config->ring_size ? config->ring_size : XDP_DEFAULT_RING_SIZE;
	uint16_t queues = config->rx_queues > config->tx_queues ? config->rx_queues : config->tx_queues;
	queues = queues ? queues : 1; // a device of no queues has one (new_device)
	for (uint16_t q = 0; q < queues; q++) {
		plan->frames[q] += queue_frames(ring, config->rx_queues, config->tx_queues, q);
	}
	plan->queues = queues > plan->queues ? queues : plan->queues;
}

// Slice q of the UMEM for plan: its frames, a whole number of huge pages' worth (a pool's buffers must not span
// huge pages, and each slice's pool begins at one).
static uint32_t slice_frames(const struct xdp_plan* plan, uint16_t q) {
	uint32_t per_page = IXY_HUGE_PAGE_SIZE / XSK_FRAME_SIZE;
	return (plan->frames[q] + UMEM_SPARE_FRAMES + per_page - 1) / per_page * per_page;
}

// The UMEM for plan: the frames of all its slices.
static uint32_t umem_frames(const struct xdp_plan* plan) {
	uint32_t frames = 0;
	for (uint16_t q = 0; q < plan->queues; q++) {
		frames += slice_frames(plan, q);
	}
	return frames;
}

uint32_t xdp_umem_huge_pages(const struct xdp_plan* plan) {
	return process_umem.num_slices ? 0 : umem_frames(plan) / (IXY_HUGE_PAGE_SIZE / XSK_FRAME_SIZE);
}

void xdp_adopt_plan(const struct xdp_plan* plan) {
	if (!process_umem.num_slices) {
		process_umem.plan = *plan;
		process_umem.planned = true;
	}
}

// AF_XDP sockets need CAP_NET_RAW, attaching the program to an interface CAP_NET_ADMIN; loading an XDP program (a
// networking program type) CAP_BPF together with CAP_NET_ADMIN, or CAP_SYS_ADMIN, which stands for both (Linux's
// bpf_prog_load). Asking for CAP_NET_ADMIN and CAP_BPF (or CAP_SYS_ADMIN) covers all of it.
static bool check_capabilities(const char* name) {
	const char* missing = !has_capability(CAP_NET_RAW)     ? "CAP_NET_RAW (for AF_XDP sockets)"
			      : !has_capability(CAP_NET_ADMIN) ? "CAP_NET_ADMIN (to attach an XDP program)"
			      : !has_capability(CAP_BPF) && !has_capability(CAP_SYS_ADMIN)
				  ? "CAP_BPF (to load an XDP program and its map)"
				  : NULL;
	if (missing) {
		ixy_error("%s: not permitted: this process lacks %s; run it as root", name, missing);
		return false;
	}
	return true;
}

// The kernel has AF_XDP sockets and BPF links.
static bool check_kernel(const char* name, unsigned ifindex) {
	int probe = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (probe < 0) {
		ixy_error("%s: this kernel has no AF_XDP sockets (%s): needs Linux >= 4.18 with CONFIG_XDP_SOCKETS",
			  name, strerror(errno));
		return false;
	}
	close(probe);
	// BPF_LINK_CREATE with no program: a kernel that knows the command asks for the program (EBADF), an older one
	// does not know the command (EINVAL). Nothing is created either way.
	union bpf_attr attr = {
	    .link_create = {.prog_fd = (uint32_t)-1, .target_ifindex = ifindex, .attach_type = BPF_XDP}};
	if (sys_bpf(BPF_LINK_CREATE, &attr) >= 0 || errno == EINVAL || errno == ENOSYS) {
		ixy_error(
		    "%s: this kernel has no BPF links (%s): needs Linux >= 5.9, so that the XDP program goes away "
		    "with the process",
		    name, strerror(errno));
		return false;
	}
	return true;
}

// A frame holds XSK_MAX_PACKET bytes of packet: the MTU plus the Ethernet header (14) and one VLAN tag (4).
static bool check_mtu(const char* name, const char* ifname) {
	struct ifreq ifr = {0};
	if (interface_ioctl(ifname, SIOCGIFMTU, &ifr) != 0) {
		ixy_error("%s: cannot read the MTU of %s: %s", name, ifname, strerror(errno));
		return false;
	}
	if ((unsigned)ifr.ifr_mtu + 18 > XSK_MAX_PACKET) {
		ixy_error("%s: MTU %d is above what an AF_XDP frame of ixy holds (%u bytes of frame: MTU at most %u). "
			  "Lower it: ip link set %s mtu %u",
			  name, ifr.ifr_mtu, XSK_MAX_PACKET, XSK_MAX_PACKET - 18, ifname, XSK_MAX_PACKET - 18);
		return false;
	}
	return true;
}

// The interface has the RX and TX queues config asks for.
static bool check_queues(const struct ixy_config* config, const char* ifname) {
	unsigned queues = config->rx_queues > config->tx_queues ? config->rx_queues : config->tx_queues;
	for (unsigned q = 0; q < queues; q++) {
		if (!has_queue(ifname, q < config->rx_queues ? "rx" : "tx", q) ||
		    (q < config->tx_queues && !has_queue(ifname, "tx", q))) {
			ixy_error("%s: %u queue(s) asked, but %s has %u RX and %u TX queue(s)", config->pci_addr,
				  queues, ifname, count_queues(ifname, "rx"), count_queues(ifname, "tx"));
			return false;
		}
	}
	return true;
}

// The interface has no XDP program yet, or config->force (IXY_FORCE=1) lets ixy try beside it.
static bool check_no_program(const struct ixy_config* config, const char* ifname, unsigned ifindex) {
	const char* name = config->pci_addr;
	int attached = attached_xdp((int)ifindex);
	if (attached < 0) {
		ixy_error("%s: cannot ask the kernel (rtnetlink) whether %s has an XDP program", name, ifname);
		return false;
	}
	if (attached != XDP_ATTACHED_NONE && !config->force) {
		ixy_error("%s: %s has an XDP program attached already (ip link shows it): refusing to touch it. "
			  "IXY_FORCE=1 tries anyway (the kernel refuses ixy's program beside another one)",
			  name, ifname);
		return false;
	}
	return true;
}

// Adds the device to plan: its rings' frames, and its kernel driver (ethtool -i), which decides whether it has zero
// copy.
static void plan_device(const struct ixy_config* config, const char* ifname, struct xdp_plan* plan) {
	struct ethtool_drvinfo info = {.cmd = ETHTOOL_GDRVINFO};
	struct ifreq ifr = {.ifr_data = (char*)&info};
	if (interface_ioctl(ifname, SIOCETHTOOL, &ifr) != 0) {
		info.driver[0] = '\0'; // unknown: taken as a driver of its own
	}
	if (plan->queues == 0) {
		snprintf(plan->driver, sizeof(plan->driver), "%s", info.driver);
	} else if (strcmp(plan->driver, info.driver) != 0 || !info.driver[0]) {
		plan->drivers_differ = true;
	}
	plan_frames(config, plan);
}

// The kernel pins the UMEM when it is registered, counted against RLIMIT_MEMLOCK unless the process has
// CAP_IPC_LOCK (Linux net/xdp/xdp_umem.c, xdp_umem_account_pages).
static bool check_memlock(const char* name, const struct xdp_plan* plan) {
	struct rlimit memlock;
	uint64_t umem_bytes = (uint64_t)umem_frames(plan) * XSK_FRAME_SIZE;
	if (!process_umem.num_slices && !has_capability(CAP_IPC_LOCK) && getrlimit(RLIMIT_MEMLOCK, &memlock) == 0 &&
	    memlock.rlim_cur != RLIM_INFINITY && memlock.rlim_cur < umem_bytes) {
		ixy_error("%s: not permitted: the UMEM (%llu KiB) is locked in memory, and this process lacks "
			  "CAP_IPC_LOCK with a locked-memory limit of %llu KiB (ulimit -l); run it as root or raise it",
			  name, (unsigned long long)(umem_bytes / 1024), (unsigned long long)(memlock.rlim_cur / 1024));
		return false;
	}
	return true;
}

bool xdp_check(const struct ixy_config* config, struct xdp_plan* plan) {
	const char* name = config->pci_addr;
	const char* ifname = ifname_of(name);
	unsigned ifindex = if_nametoindex(ifname);
	if (ifindex == 0) {
		ixy_error("%s: no network interface %s in this network namespace (ip link lists them)", name, ifname);
		return false;
	}
	if (!check_capabilities(name) || !check_kernel(name, ifindex) || !check_mtu(name, ifname) ||
	    !check_queues(config, ifname) || !check_no_program(config, ifname, ifindex)) {
		return false;
	}
	plan_device(config, ifname, plan);
	return check_memlock(name, plan);
}

// ---- The XDP program ----

// The program, hand-assembled (Documentation/bpf/standardization/instruction-set.rst). On entry r1 points to the
// struct xdp_md of the packet (linux/bpf.h). It returns bpf_redirect_map(xskmap, rx_queue_index, XDP_PASS): the
// packet goes to the socket in the map's entry for its RX queue; if that entry is empty, the helper returns the low
// bits of its flags argument, XDP_PASS, and the packet goes on to the kernel's stack.
static void assemble_program(struct bpf_insn prog[6], int map_fd) {
	// r2 = *(u32 *)(r1 + offsetof(struct xdp_md, rx_queue_index)): the key, the packet's RX queue.
	prog[0] = (struct bpf_insn){.code = BPF_LDX | BPF_MEM | BPF_W,
				    .dst_reg = BPF_REG_2,
				    .src_reg = BPF_REG_1,
				    .off = offsetof(struct xdp_md, rx_queue_index)};
	// r1 = the XSKMAP: a 64 bit load of an immediate over two instructions, whose source register
	// BPF_PSEUDO_MAP_FD tells the verifier that the immediate is a map's file descriptor (it puts the map's
	// address there). The second instruction carries the upper 32 bits of the immediate, 0.
	prog[1] = (struct bpf_insn){
	    .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = BPF_REG_1, .src_reg = BPF_PSEUDO_MAP_FD, .imm = map_fd};
	prog[2] = (struct bpf_insn){0};
	// r3 = XDP_PASS: the flags, whose low two bits are the action when the map has no socket for the key.
	prog[3] = (struct bpf_insn){.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_3, .imm = XDP_PASS};
	// r0 = bpf_redirect_map(r1, r2, r3): XDP_REDIRECT if the entry holds a socket, else XDP_PASS.
	prog[4] = (struct bpf_insn){.code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_redirect_map};
	// return r0
	prog[5] = (struct bpf_insn){.code = BPF_JMP | BPF_EXIT};
}

// Loads the program for map_fd; prints the verifier's log if the kernel refuses it. The fd, or -1.
static int load_program(const char* name, int map_fd) {
	struct bpf_insn prog[6];
	assemble_program(prog, map_fd);
	static char log[8192];
	union bpf_attr attr = {.prog_type = BPF_PROG_TYPE_XDP,
			       .insn_cnt = 6,
			       .insns = (uintptr_t)prog,
			       .license = (uintptr_t) "BSD",
			       .expected_attach_type = BPF_XDP};
	snprintf(attr.prog_name, sizeof(attr.prog_name), "ixy_xsk_redir");
	int fd = (int)sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0) {
		int load_errno = errno;
		attr.log_buf = (uintptr_t)log; // again, with the verifier's log
		attr.log_size = sizeof(log);
		attr.log_level = 1;
		log[0] = '\0';
		fd = (int)sys_bpf(BPF_PROG_LOAD, &attr);
		if (fd < 0) {
			ixy_error("%s: the kernel refused ixy's XDP program (%s); the verifier's log:\n%s", name,
				  strerror(load_errno), log);
		}
	}
	return fd;
}

// ---- The process's UMEM ----

// Frees the slices' pools, then the UMEM. The pools' memory is the UMEM's, freed whole: each pool is told it has
// none of its own (memory_free_mempool still says if buffers are missing).
static void umem_free(void) {
	for (uint16_t q = 0; q < process_umem.num_slices; q++) {
		struct mempool* pool = process_umem.slices[q].pool;
		if (pool) {
			pool->dma = (struct dma_memory){0};
			memory_free_mempool(pool);
		}
		process_umem.slices[q] = (struct xsk_slice){0};
	}
	memory_free_dma(&process_umem.mem);
	free(process_umem.held);
	process_umem.held = NULL;
	process_umem.num_frames = 0;
	process_umem.num_slices = 0;
}

// Lays slice q over the UMEM's frames from `first` on: a pool whose buffer i is frame i of the slice, its pkt_buf at
// XSK_BUF_OFFSET into the frame, so that its data is the packet. 0, or -1 with a message.
static int slice_make(uint16_t q, uint32_t first, uint32_t frames) {
	size_t offset = (size_t)first * XSK_FRAME_SIZE;
	struct dma_memory part = {.virt = (uint8_t*)process_umem.mem.virt + offset,
				  .phy = process_umem.mem.phy + offset,
				  .size = (size_t)frames * XSK_FRAME_SIZE};
	struct xsk_slice* slice = &process_umem.slices[q];
	slice->pool = memory_mempool_in(&part, frames, XSK_FRAME_SIZE - XSK_BUF_OFFSET, XSK_BUF_OFFSET, XSK_FRAME_SIZE);
	slice->offset = offset;
	slice->num_frames = frames;
	slice->held = process_umem.held + first;
	return slice->pool ? 0 : -1;
}

// Makes the UMEM for plan if there is none: its memory, then a slice per queue index. 0, or -1 with a message.
static int umem_make(const char* name, const struct xdp_plan* plan) {
	if (process_umem.num_slices) {
		return 0;
	}
	uint32_t frames = umem_frames(plan);
	if (memory_allocate_dma((size_t)frames * XSK_FRAME_SIZE, false, &process_umem.mem) != 0) {
		return -1;
	}
	process_umem.num_frames = frames;
	process_umem.num_slices = plan->queues;
	process_umem.held = calloc(frames, sizeof(process_umem.held[0]));
	uint32_t first = 0;
	for (uint16_t q = 0; q < process_umem.num_slices && process_umem.held; q++) {
		if (slice_make(q, first, slice_frames(plan, q)) != 0) {
			break;
		}
		first += slice_frames(plan, q);
	}
	if (first != frames) {
		umem_free();
		ixy_error("%s: no memory for the UMEM", name);
		return -1;
	}
	process_umem.zero_copy = !plan->drivers_differ; // tried at the first bind; it says what it got
	process_umem.planned = false;
	for (int slot = 0; slot <= MAX_SOCKETS; slot++) {
		process_umem.fds[slot] = -1;
	}
	return 0;
}

// Takes a slot of the UMEM for a new socket. The slot, or 0 with a message.
static uint16_t umem_join(const char* name) {
	for (uint16_t slot = 1; slot <= MAX_SOCKETS; slot++) {
		if (process_umem.fds[slot] == -1) {
			process_umem.fds[slot] = -2; // taken; the socket's fd once it is bound
			process_umem.sockets++;
			return slot;
		}
	}
	ixy_error("%s: more than %d AF_XDP sockets in one process", name, MAX_SOCKETS);
	return 0;
}

// A socket's slot is free again (its frames are back).
static void umem_leave(uint16_t slot) {
	process_umem.fds[slot] = -1;
	process_umem.sockets--;
}

// The UMEM goes with the last device that promised frames of it, at its close: not at its stop, since a PCI NIC
// stopped after it may still hold UMEM frames in its TX ring (ixy-fwd stops both devices before closing either).
static void umem_free_unused(void) {
	for (uint16_t q = 0; q < process_umem.num_slices; q++) {
		if (process_umem.promised[q] != 0) {
			return;
		}
	}
	if (process_umem.num_slices && process_umem.sockets == 0) {
		umem_free();
	}
}

// A bound socket of the UMEM, to share it; -1 if there is none (this socket registers it).
static int umem_socket(void) {
	for (int slot = 1; slot <= MAX_SOCKETS; slot++) {
		if (process_umem.fds[slot] >= 0) {
			return process_umem.fds[slot];
		}
	}
	return -1;
}

// ---- Sockets ----

// Maps one of the socket's rings (offsets from XDP_MMAP_OFFSETS). 0 or -1.
static int map_ring(int fd, struct xsk_ring* ring, const struct xdp_ring_offset* off, uint32_t size, size_t desc_size,
		    uint64_t pgoff) {
	size_t len = off->desc + size * desc_size;
	uint8_t* map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, (off_t)pgoff);
	if (map == MAP_FAILED) {
		return -1;
	}
	*ring = (struct xsk_ring){.producer = (uint32_t*)(map + off->producer),
				  .consumer = (uint32_t*)(map + off->consumer),
				  .flags = (uint32_t*)(map + off->flags),
				  .descs = map + off->desc,
				  .size = size,
				  .map = map,
				  .map_len = len};
	return 0;
}

static void unmap_ring(const char* name, struct xsk_ring* ring) {
	if (ring->map && munmap(ring->map, ring->map_len) != 0) {
		ixy_warn("%s: unmapping an AF_XDP ring failed: %s", name, strerror(errno));
	}
	*ring = (struct xsk_ring){0};
}

// Creates the socket of queue q (dev->fds[q]): the UMEM registered, unless the socket shares it (share: the fd of a
// bound socket of the UMEM, or -1), then its four rings sized and mapped. The fd, or -1 with a message.
static int create_socket(struct xdp_device* dev, uint16_t q, uint32_t ring_size, int share) {
	struct xsk_queue* queue = &dev->queues[q];
	int fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	dev->fds[q] = fd;
	const char* step = "socket";
	struct xdp_umem_reg reg = {.addr = (uintptr_t)process_umem.mem.virt,
				   .len = (uint64_t)process_umem.num_frames * XSK_FRAME_SIZE,
				   .chunk_size = XSK_FRAME_SIZE};
	struct xdp_mmap_offsets off;
	socklen_t off_len = sizeof(off);
	if (fd < 0 ||
	    (step = "UMEM registration", share < 0 && setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof(reg))) ||
	    (step = "ring sizes", setsockopt(fd, SOL_XDP, XDP_UMEM_FILL_RING, &ring_size, sizeof(ring_size))) ||
	    setsockopt(fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &ring_size, sizeof(ring_size)) ||
	    setsockopt(fd, SOL_XDP, XDP_RX_RING, &ring_size, sizeof(ring_size)) ||
	    setsockopt(fd, SOL_XDP, XDP_TX_RING, &ring_size, sizeof(ring_size)) ||
	    (step = "ring offsets", getsockopt(fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &off_len)) ||
	    (step = "ring mapping",
	     map_ring(fd, &queue->fill, &off.fr, ring_size, sizeof(uint64_t), XDP_UMEM_PGOFF_FILL_RING)) ||
	    map_ring(fd, &queue->completion, &off.cr, ring_size, sizeof(uint64_t), XDP_UMEM_PGOFF_COMPLETION_RING) ||
	    map_ring(fd, &queue->rx, &off.rx, ring_size, sizeof(struct xdp_desc), XDP_PGOFF_RX_RING) ||
	    map_ring(fd, &queue->tx, &off.tx, ring_size, sizeof(struct xdp_desc), XDP_PGOFF_TX_RING)) {
		ixy_error("%s: AF_XDP socket of queue %u: %s failed: %s", dev->name, q, step, strerror(errno));
		return -1;
	}
	return fd;
}

// Binds socket fd to the interface's queue q: sharing the UMEM of socket share, or (share -1) in zero copy if the
// UMEM is to have it and the driver offers it. Notes the mode it got (dev->zero_copy). 0, or -1 with a message.
static int bind_socket(struct xdp_device* dev, uint16_t q, int fd, int share) {
	struct sockaddr_xdp addr = {.sxdp_family = AF_XDP, .sxdp_ifindex = (uint32_t)dev->ifindex, .sxdp_queue_id = q};
	if (share >= 0) {
		// Another socket registered the UMEM: share it. The kernel takes the mode (copy or zero copy) and
		// need_wakeup from that socket; no other flags are allowed.
		addr.sxdp_flags = XDP_SHARED_UMEM;
		addr.sxdp_shared_umem_fd = (uint32_t)share;
	} else {
		// Zero copy only if every interface of the UMEM has the same driver (xdp_plan): sockets that share it
		// later must bind in the mode of this one, and another driver may have no zero copy.
		addr.sxdp_flags = XDP_USE_NEED_WAKEUP | (process_umem.zero_copy ? XDP_ZEROCOPY : XDP_COPY);
	}
	int ret = bind(fd, (struct sockaddr*)&addr, sizeof(addr));
	if (ret != 0 && share < 0 && process_umem.zero_copy) { // the driver has no zero copy: the kernel copies
		addr.sxdp_flags = XDP_USE_NEED_WAKEUP | XDP_COPY;
		ret = bind(fd, (struct sockaddr*)&addr, sizeof(addr));
	}
	struct xdp_options options = {0};
	socklen_t options_len = sizeof(options);
	if (ret != 0 || getsockopt(fd, SOL_XDP, XDP_OPTIONS, &options, &options_len) != 0) {
		// Sharing a UMEM with a socket of another queue or interface needs Linux >= 5.10 (EINVAL before); a
		// zero copy UMEM cannot take an interface whose driver has none (EOPNOTSUPP).
		ixy_error("%s: binding the AF_XDP socket of queue %u%s failed: %s%s", dev->name, q,
			  share >= 0 ? " to the shared UMEM" : "", strerror(errno),
			  errno == EBUSY                  ? " (another AF_XDP socket has this queue)"
			  : share >= 0 && errno == EINVAL ? " (sharing a UMEM across queues needs Linux >= 5.10)"
			  : share >= 0 && process_umem.zero_copy
			      ? " (the UMEM is in zero copy mode: check all devices together first, as the apps do)"
			      : "");
		return -1;
	}
	dev->zero_copy = options.flags & XDP_OPTIONS_ZEROCOPY;
	return 0;
}

// Puts socket fd into the XSKMAP as the one of RX queue q: from then on the program redirects the queue's packets
// to it. 0, or -1 with a message.
static int add_to_map(struct xdp_device* dev, uint16_t q, int fd) {
	uint32_t key = q, value = (uint32_t)fd;
	union bpf_attr attr = {.map_fd = (uint32_t)dev->map_fd, .key = (uintptr_t)&key, .value = (uintptr_t)&value};
	if (sys_bpf(BPF_MAP_UPDATE_ELEM, &attr) != 0) {
		ixy_error("%s: putting the socket of queue %u into the XSKMAP failed: %s", dev->name, q,
			  strerror(errno));
		return -1;
	}
	return 0;
}

// Opens the socket of queue q: rings, bind (zero copy if the driver offers it), fill ring filled. 0 or -1.
static int open_socket(struct xdp_device* dev, uint16_t q, uint32_t ring_size) {
	struct xsk_queue* queue = &dev->queues[q];
	int share = umem_socket();
	int fd = create_socket(dev, q, ring_size, share);
	if (fd < 0 || bind_socket(dev, q, fd, share) != 0) {
		return -1;
	}
	if (share < 0) {
		process_umem.zero_copy = dev->zero_copy;
	}
	process_umem.fds[queue->slot] = fd;
	if (q >= dev->ixy.num_rx_queues) {
		return 0; // a TX queue only: the program passes this queue's packets on to the kernel, no fill
	}
	xsk_refill(queue);
	return add_to_map(dev, q, fd);
}

static void close_fd(const char* name, int* fd) {
	if (*fd >= 0 && close(*fd) != 0) {
		ixy_warn("%s: close: %s", name, strerror(errno));
	}
	*fd = -1;
}

// Frames of this queue the kernel has not sent yet: in its TX ring or on their way to the completion ring.
static uint32_t unsent(const struct xsk_queue* queue) {
	uint32_t n = 0;
	for (uint32_t frame = 0; frame < queue->slice->num_frames; frame++) {
		n += queue->slice->held[frame] == XSK_HELD(queue->slot, 1);
	}
	return n;
}

// A system call the kernel asked for (need_wakeup). Busy or out of buffers for a moment is normal; other errors are
// reported once.
static void kick(struct xdp_device* dev, int fd, bool tx) {
	ssize_t ret = tx ? sendto(fd, NULL, 0, MSG_DONTWAIT, NULL, 0) : recvfrom(fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
	// (The queues' threads share kick_warned: the first to fail says so.)
	if (ret < 0 && errno != EAGAIN && errno != EBUSY && errno != ENOBUFS && errno != ENETDOWN &&
	    !__atomic_exchange_n(&dev->kick_warned, true, __ATOMIC_RELAXED)) {
		ixy_warn("%s: waking the kernel up for %s failed: %s", dev->name, tx ? "TX" : "RX", strerror(errno));
	}
}

// What the app handed tx_batch goes out before the socket closes, as ixgbe_stop waits for its TX queues: the kernel
// is woken up and completions are taken back until none is left, or for 100 ms without progress (a link down).
static void drain_tx(struct xdp_device* dev, uint16_t q) {
	struct xsk_queue* queue = &dev->queues[q];
	uint32_t left = unsent(queue);
	for (int idle = 0; left > 0 && idle < 1000;) {
		kick(dev, dev->fds[q], true);
		xsk_tx(queue, NULL, 0); // takes back (and counts) what was sent
		uint32_t now = unsent(queue);
		idle = now < left ? 0 : idle + 1;
		if (now == left) {
			usleep(100);
		}
		left = now;
	}
	if (left > 0) {
		ixy_warn("%s: queue %u: %u packet(s) given to the kernel were not sent before the stop", dev->name, q,
			 left);
	}
}

// Ends the program (closing the link detaches it), sends what waits in the TX rings, closes the sockets and gives
// their frames back to the pool.
static void xdp_stop(struct ixy_device* ixy) {
	struct xdp_device* dev = IXY_TO_DRIVER(struct xdp_device, ixy);
	if (dev->stopped) {
		return;
	}
	dev->stopped = true;
	close_fd(dev->name, &dev->link_fd);
	close_fd(dev->name, &dev->prog_fd);
	close_fd(dev->name, &dev->map_fd);
	for (uint16_t q = 0; q < dev->num_queues; q++) {
		struct xsk_queue* queue = &dev->queues[q];
		if (queue->slot == 0) {
			continue; // never joined the UMEM
		}
		if (dev->fds[q] >= 0 && queue->tx.map && queue->completion.map) {
			drain_tx(dev, q);
		}
		unmap_ring(dev->name, &queue->fill);
		unmap_ring(dev->name, &queue->completion);
		unmap_ring(dev->name, &queue->rx);
		unmap_ring(dev->name, &queue->tx);
		close_fd(dev->name, &dev->fds[q]); // the kernel is done with its frames once the socket is released
		xsk_take_back(queue);
		umem_leave(queue->slot);
		queue->slot = 0;
	}
}

// A queue's counters as they are now: relaxed atomic loads, as the queue's thread may store them meanwhile.
static struct xsk_counters load_counters(const struct xsk_counters* c) {
	return (struct xsk_counters){.rx_packets = __atomic_load_n(&c->rx_packets, __ATOMIC_RELAXED),
				     .rx_bytes = __atomic_load_n(&c->rx_bytes, __ATOMIC_RELAXED),
				     .tx_packets = __atomic_load_n(&c->tx_packets, __ATOMIC_RELAXED),
				     .tx_bytes = __atomic_load_n(&c->tx_bytes, __ATOMIC_RELAXED),
				     .tx_copied = __atomic_load_n(&c->tx_copied, __ATOMIC_RELAXED),
				     .tx_dropped = __atomic_load_n(&c->tx_dropped, __ATOMIC_RELAXED),
				     .bad = __atomic_load_n(&c->bad, __ATOMIC_RELAXED)};
}

// Adds what each queue counted since the last call. A queue's counters only grow, written by the thread of the queue
// (xdp_ring.c); read_stats keeps what it saw (dev->seen) and touches no ring, so that it may run in another thread
// than the queues' (ixy.h). A packet sent counts once a tx_batch on its queue took its completion back.
static void xdp_read_stats(struct ixy_device* ixy, struct device_stats* stats) {
	struct xdp_device* dev = IXY_TO_DRIVER(struct xdp_device, ixy);
	for (uint16_t q = 0; q < dev->num_queues && stats; q++) {
		struct xsk_counters now = load_counters(&dev->queues[q].counters), *seen = &dev->seen[q].counters;
		uint64_t rx = now.rx_packets - seen->rx_packets, tx = now.tx_packets - seen->tx_packets;
		// Software counters: the 4 byte CRC added, as hardware counters count it (ixy.h).
		stats->rx_pkts += rx;
		stats->tx_pkts += tx;
		stats->rx_bytes += now.rx_bytes - seen->rx_bytes + rx * IXY_ETHER_CRC_BYTES;
		stats->tx_bytes += now.tx_bytes - seen->tx_bytes + tx * IXY_ETHER_CRC_BYTES;
		*seen = now;
		// Packets the kernel dropped for this socket: RX ring full, or no frame in the fill ring.
		struct xdp_statistics kernel, *before = &dev->seen[q].kernel;
		socklen_t len = sizeof(kernel);
		if (dev->fds[q] >= 0 && getsockopt(dev->fds[q], SOL_XDP, XDP_STATISTICS, &kernel, &len) == 0) {
			stats->rx_dropped +=
			    (kernel.rx_dropped - before->rx_dropped) + (kernel.rx_ring_full - before->rx_ring_full);
			*before = kernel;
		}
	}
}

static void xdp_close(struct ixy_device* ixy) {
	struct xdp_device* dev = IXY_TO_DRIVER(struct xdp_device, ixy);
	xdp_stop(ixy);
	struct xsk_counters totals = {0}; // for the words below, after the stop sent what was left
	for (uint16_t q = 0; q < dev->num_queues; q++) {
		totals.tx_copied += dev->queues[q].counters.tx_copied;
		totals.tx_dropped += dev->queues[q].counters.tx_dropped;
		totals.bad += dev->queues[q].counters.bad;
	}
	for (uint16_t q = 0; q < dev->num_queues && dev->promised; q++) {
		process_umem.promised[q] -=
		    queue_frames(dev->ring_size, dev->ixy.num_rx_queues, dev->ixy.num_tx_queues, q);
	}
	umem_free_unused();
	// tx_copied: packets copied into a UMEM frame to be sent; tx_too_large: freed unsent; refused: descriptors and
	// indices from the kernel side that were out of bounds. Words "key=value", for scripts (test/xdp).
	// A device that never started says nothing here (its init printed why).
	if (dev->started) {
		ixy_info("%s: closed: tx_copied=%llu tx_too_large=%llu refused=%llu", dev->name,
			 (unsigned long long)totals.tx_copied, (unsigned long long)totals.tx_dropped,
			 (unsigned long long)totals.bad);
	}
	free(dev->queues);
	free(dev->fds);
	free(dev->seen);
	free(dev);
}

// ---- Receive and send ----

static uint32_t xdp_rx_batch(struct ixy_device* ixy, uint16_t queue_id, struct pkt_buf* bufs[], uint32_t num_bufs) {
	struct xdp_device* dev = IXY_TO_DRIVER(struct xdp_device, ixy);
	if (dev->stopped) { // (a queue it does not have never comes here: ixy_rx_batch refuses it, ixy.h)
		return 0;
	}
	uint32_t n = xsk_rx(&dev->queues[queue_id], bufs, num_bufs);
	if (xsk_needs_wakeup(&dev->queues[queue_id].fill)) {
		kick(dev, dev->fds[queue_id], false);
	}
	return n;
}

static uint32_t xdp_tx_batch(struct ixy_device* ixy, uint16_t queue_id, struct pkt_buf* bufs[], uint32_t num_bufs) {
	struct xdp_device* dev = IXY_TO_DRIVER(struct xdp_device, ixy);
	if (dev->stopped) {
		return 0;
	}
	struct xsk_queue* queue = &dev->queues[queue_id];
	uint32_t n = xsk_tx(queue, bufs, num_bufs);
	// Copy mode sends only in the system call, and a call sends at most 32 packets (Linux net/xdp/xsk.c,
	// TX_BATCH_SIZE): while anything waits in the TX ring and the kernel asks, kick again as long as it takes some
	// (bounded: a ring's worth of calls).
	for (uint32_t kicks = 0; kicks <= queue->tx.size / 32; kicks++) {
		uint32_t consumer = __atomic_load_n(queue->tx.consumer, __ATOMIC_ACQUIRE);
		if (queue->tx.head == consumer || !xsk_needs_wakeup(&queue->tx)) {
			break;
		}
		kick(dev, dev->fds[queue_id], true);
		if (__atomic_load_n(queue->tx.consumer, __ATOMIC_ACQUIRE) == consumer) {
			break; // no progress: the kernel is busy; the next call tries again
		}
	}
	return n;
}

static int xdp_set_promisc(struct ixy_device* ixy, bool enabled) {
	struct xdp_device* dev = IXY_TO_DRIVER(struct xdp_device, ixy);
	ixy_error("%s: promiscuous mode is the kernel's to set: ip link set %s promisc %s", dev->name, dev->ifname,
		  enabled ? "on" : "off");
	return -1;
}

static uint32_t xdp_get_link_speed(const struct ixy_device* ixy) {
	const struct xdp_device* dev = IXY_TO_DRIVER(const struct xdp_device, ixy);
	struct ifreq ifr = {0};
	if (interface_ioctl(dev->ifname, SIOCGIFFLAGS, &ifr) != 0 || !(ifr.ifr_flags & IFF_RUNNING)) {
		return 0;
	}
	struct ethtool_cmd cmd = {.cmd = ETHTOOL_GSET};
	ifr.ifr_data = (char*)&cmd;
	uint32_t speed = interface_ioctl(dev->ifname, SIOCETHTOOL, &ifr) == 0 ? ethtool_cmd_speed(&cmd) : 0;
	return speed == (uint32_t)SPEED_UNKNOWN ? 0 : speed;
}

static int xdp_get_mac_addr(const struct ixy_device* ixy, uint8_t mac[6]) {
	const struct xdp_device* dev = IXY_TO_DRIVER(const struct xdp_device, ixy);
	struct ifreq ifr = {0};
	if (interface_ioctl(dev->ifname, SIOCGIFHWADDR, &ifr) != 0) {
		ixy_error("%s: cannot read the MAC address: %s", dev->name, strerror(errno));
		return -1;
	}
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

static int xdp_set_mac_addr(struct ixy_device* ixy, const uint8_t mac[6]) {
	struct xdp_device* dev = IXY_TO_DRIVER(struct xdp_device, ixy);
	(void)mac;
	ixy_error("%s: the MAC address is the kernel's to set: ip link set %s address ...", dev->name, dev->ifname);
	return -1;
}

// ---- Init ----

// Attaches the program with a BPF link: in the driver's own XDP mode if it has one, else in the generic (SKB) mode
// every interface has. The link's fd, or -1.
static int attach(struct xdp_device* dev) {
	union bpf_attr attr = {.link_create = {.prog_fd = (uint32_t)dev->prog_fd,
					       .target_ifindex = (uint32_t)dev->ifindex,
					       .attach_type = BPF_XDP,
					       .flags = XDP_FLAGS_DRV_MODE}};
	int fd = (int)sys_bpf(BPF_LINK_CREATE, &attr);
	dev->native = fd >= 0;
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EINVAL)) {
		attr.link_create.flags = XDP_FLAGS_SKB_MODE;
		fd = (int)sys_bpf(BPF_LINK_CREATE, &attr);
	}
	if (fd < 0) {
		ixy_error("%s: attaching the XDP program to %s failed: %s%s", dev->name, dev->ifname, strerror(errno),
			  errno == EBUSY || errno == EEXIST ? " (another XDP program is attached)" : "");
	}
	return fd;
}

// Promiscuous mode, link speed, MAC address (ixy/settings.h).
static const struct ixy_settings xdp_settings = {.set_promisc = xdp_set_promisc,
						 .get_link_speed = xdp_get_link_speed,
						 .get_mac_addr = xdp_get_mac_addr,
						 .set_mac_addr = xdp_set_mac_addr};

// The device for config, its queues' sockets, program, map and link not open yet. NULL with a message if out of
// memory.
static struct xdp_device* new_device(const struct ixy_config* config) {
	uint16_t num_queues = config->rx_queues > config->tx_queues ? config->rx_queues : config->tx_queues;
	num_queues = num_queues ? num_queues : 1;
	struct xdp_device* dev = calloc(1, sizeof(*dev));
	if (!dev || !(dev->queues = aligned_alloc(IXY_CACHE_LINE, num_queues * sizeof(dev->queues[0]))) ||
	    !(dev->fds = calloc(num_queues, sizeof(dev->fds[0]))) ||
	    !(dev->seen = calloc(num_queues, sizeof(dev->seen[0])))) {
		ixy_error("%s: out of memory", config->pci_addr);
		if (dev) {
			free(dev->queues);
			free(dev->fds);
		}
		free(dev);
		return NULL;
	}
	memset(dev->queues, 0, num_queues * sizeof(dev->queues[0])); // (aligned_alloc: queues start cache lines)
	snprintf(dev->name, sizeof(dev->name), "%s", config->pci_addr);
	dev->ifname = ifname_of(dev->name);
	dev->ifindex = (int)if_nametoindex(dev->ifname);
	dev->num_queues = num_queues;
	dev->ring_size = config->ring_size ? config->ring_size : XDP_DEFAULT_RING_SIZE;
	dev->link_fd = dev->prog_fd = -1;
	for (uint16_t q = 0; q < num_queues; q++) {
		dev->fds[q] = -1;
	}
	dev->ixy = (struct ixy_device){.pci_addr = dev->name,
				       .driver_name = "xdp",
				       .num_rx_queues = config->rx_queues,
				       .num_tx_queues = config->tx_queues,
				       .rx_batch = xdp_rx_batch,
				       .tx_batch = xdp_tx_batch,
				       .read_stats = xdp_read_stats,
				       .settings = &xdp_settings,
				       .stop = xdp_stop,
				       .close = xdp_close};
	return dev;
}

// The XSKMAP, an entry per queue for its socket. The fd, or -1 with a message.
static int create_map(const struct xdp_device* dev) {
	union bpf_attr map = {
	    .map_type = BPF_MAP_TYPE_XSKMAP, .key_size = 4, .value_size = 4, .max_entries = dev->num_queues};
	snprintf(map.map_name, sizeof(map.map_name), "ixy_xsks");
	int fd = (int)sys_bpf(BPF_MAP_CREATE, &map);
	if (fd < 0) {
		ixy_error("%s: creating the XSKMAP failed: %s", dev->name, strerror(errno));
	}
	return fd;
}

// The UMEM: made for the app's plan (ixy_check_configs) or this device; a later device must fit the spare of each
// slice its queues use. The frames each of this device's queues can hold are promised to it in the queue's slice. 0,
// or -1 with a message.
static int umem_promise(struct xdp_device* dev, const struct ixy_config* config) {
	struct xdp_plan own = {0};
	plan_frames(config, &own);
	if (umem_make(dev->name, process_umem.planned ? &process_umem.plan : &own) != 0) {
		return -1;
	}
	bool fits = dev->num_queues <= process_umem.num_slices;
	uint32_t frames = 0; // of all the device's queues
	for (uint16_t q = 0; q < dev->num_queues; q++) {
		frames += own.frames[q];
		fits = fits && process_umem.promised[q] + own.frames[q] <=
				   process_umem.slices[q].num_frames - UMEM_SPARE_FRAMES;
	}
	if (!fits) {
		ixy_error("%s: the process's UMEM of %u frames cannot also hold the %u frames of this device's rings: "
			  "check all devices together first (ixy_check_configs, as the apps do), or use smaller rings",
			  dev->name, process_umem.num_frames, frames);
		return -1;
	}
	for (uint16_t q = 0; q < dev->num_queues; q++) {
		process_umem.promised[q] += own.frames[q];
	}
	dev->promised = true;
	return 0;
}

// A socket per queue, each in a slot of the UMEM, queue q on slice q. 0 or -1.
static int open_sockets(struct xdp_device* dev, uint32_t ring_size) {
	for (uint16_t q = 0; q < dev->num_queues; q++) {
		dev->queues[q].slice = &process_umem.slices[q];
		if ((dev->queues[q].slot = umem_join(dev->name)) == 0 || open_socket(dev, q, ring_size) != 0) {
			return -1;
		}
	}
	return 0;
}

// What the device runs on: XDP mode, zero copy or copy mode, the frames; and what PCI NICs beside it do.
static void print_started(const struct xdp_device* dev, uint32_t ring_size) {
	uint32_t filled = 0; // frames given to the kernel through the fill rings (RX queues only)
	for (uint16_t q = 0; q < dev->num_queues; q++) {
		filled += dev->queues[q].fill.head;
	}
	ixy_info("%s: AF_XDP on %s, %u queue(s) of %u descriptors, %s XDP, %s; umem_frames=%u fill_frames=%u",
		 dev->name, dev->ifname, dev->num_queues, ring_size,
		 dev->native ? "the driver's (native)" : "generic (SKB)",
		 dev->zero_copy ? "zero copy" : "copy mode (the kernel copies each packet into the UMEM)",
		 process_umem.num_frames, filled);
	if (access_of_process() != &xdp_memory_access) {
		ixy_info("%s: the UMEM is DMA memory (%s): PCI NICs send its frames as they are; their own buffers are "
			 "copied into a frame to be sent here (tx_copied at close)",
			 dev->name, access_of_process()->name);
	}
}

// The map, the UMEM, the program, the sockets, then the link that attaches the program.
bool xdp_claims(const char* s) {
	size_t prefix = strlen(XDP_NAME_PREFIX);
	if (!s || strncmp(s, XDP_NAME_PREFIX, prefix) != 0) {
		return false;
	}
	// An interface name as the kernel takes it (net/core/dev.c dev_valid_name): 1 to 15 bytes, not "." or "..",
	// no '/', ':' or white space.
	const char* ifname = s + prefix;
	size_t len = strlen(ifname);
	if (len == 0 || len >= IF_NAMESIZE || strcmp(ifname, ".") == 0 || strcmp(ifname, "..") == 0) {
		return false;
	}
	for (size_t i = 0; i < len; i++) {
		if (ifname[i] == '/' || ifname[i] == ':' || isspace((unsigned char)ifname[i])) {
			return false;
		}
	}
	return true;
}

static struct ixy_device* xdp_init(const struct ixy_config* config, struct pci_device* pci,
				   const struct driver_features* features) {
	(void)features; // none joins AF_XDP's init
	(void)pci;      // none: the interface stays the kernel's
	struct xdp_device* dev = new_device(config);
	if (!dev) {
		return NULL;
	}
	dev->map_fd = create_map(dev);
	if (config->force && attached_xdp(dev->ifindex) != XDP_ATTACHED_NONE) { // xdp_check let it pass
		ixy_warn("%s: %s has an XDP program attached already; IXY_FORCE=1: trying anyway", dev->name,
			 dev->ifname);
	}
	bool ok = dev->map_fd >= 0 && umem_promise(dev, config) == 0;
	ok = ok && (dev->prog_fd = load_program(dev->name, dev->map_fd)) >= 0;
	ok = ok && open_sockets(dev, dev->ring_size) == 0;
	// Last: from now on the interface's packets come to the sockets.
	ok = ok && (dev->link_fd = attach(dev)) >= 0;
	if (!ok) {
		xdp_close(&dev->ixy);
		return NULL;
	}
	dev->started = true;
	// A waiter sleeps on the RX queues' sockets: the kernel wakes a poll on one when its RX ring has packets (and
	// the poll itself wakes the kernel if need_wakeup asks for it). Nothing to arm (set_rx_interrupt NULL).
	if (config->interrupt_timeout_ms != 0 && config->rx_queues > 0) {
		dev->interrupts = (struct ixy_interrupts){dev->fds, config->interrupt_timeout_ms, NULL};
		dev->ixy.interrupts = &dev->interrupts;
	}
	print_started(dev, dev->ring_size);
	return &dev->ixy;
}

const struct ixy_driver xdp_driver = {.name = "xdp", .init = xdp_init, .claims = xdp_claims};
