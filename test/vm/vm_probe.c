// Small tools the fail-safe tests run inside the QEMU test guest (test/vm/guest-*.sh). Never run them on a host:
// they read and write device registers.
//
//   vm_probe regs <pci>            prints the state of a VirtIO NIC and what it amounts to, e.g. "legacy status=0x00
//                                  pfn0=0 pfn1=0 pfn2=0 bus_master=0 => quiet". Legacy interface: the device status,
//                                  the page frame number of virtqueues 0-2 and Bus Master Enable; modern interface
//                                  (when the device has it): the status, queue_enable and the descriptor table
//                                  address of virtqueues 0-2, and Bus Master Enable. "quiet": reset, no queue, no bus
//                                  mastering; "live": driver OK, all three queues set up, bus mastering on; anything
//                                  else "neither". Writes only the queue select register (to read each queue's state).
//                                  An Intel 82576 (igb, 8086:10c9): RCTL.EN, TCTL.EN, and of queue 0 the RX and TX
//                                  queue enable bits and ring lengths, and Bus Master Enable, e.g. "igb rctl.en=0
//                                  tctl.en=0 rxq0=0 txq0=0 rdlen0=0 tdlen0=0 bus_master=0 => quiet". "quiet": all of
//                                  them 0; "live": all set; anything else "neither". Reads registers only.
//                                  An 82540EM or 82574L (e1000, 8086:100e, 8086:10d3): RCTL.EN, TCTL.EN and Bus Master
//                                  Enable, e.g. "e1000 rctl.en=0 tctl.en=0 bus_master=0 => quiet" (no queue enable
//                                  bits; QEMU's 82540EM keeps its ring registers across a reset).
//   vm_probe bus-master <pci>      prints 1 if Bus Master Enable is set in the command register, else 0 (config
//                                  space only: works while vfio-pci keeps the BARs to itself).
//   vm_probe guard-fill <file>     creates <file> in hugetlbfs holding every free huge page and fills it with a
//                                  pattern that depends on the offset. The pages stay taken until guard-check.
//   vm_probe guard-check <file>    checks the pattern, removes the file; exit 1 if any byte changed (a device wrote
//                                  into memory it no longer owns: DMA after stop).
//   vm_probe hold <file> <n>       creates <file> in hugetlbfs holding n huge pages (touched, so they are taken); they
//                                  stay taken until the file is removed. Takes pages without resizing the pool, which
//                                  may not grow back once memory is fragmented.
//   vm_probe send <ifname> <n>     sends n 60 byte broadcast frames (EtherType 0x88b5) on a kernel interface
//                                  through an AF_PACKET socket: traffic from a NIC that is not ixy's.
//   vm_probe no-seccomp <program> [args...]  runs program (execvp) where seccomp filters cannot be installed: under
//                                  a filter of its own that makes prctl(PR_SET_SECCOMP) and seccomp() fail with EINVAL,
//                                  as on a kernel without CONFIG_SECCOMP_FILTER (sets no_new_privs to install it).
#include <arpa/inet.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

// Legacy VirtIO register block in IO BAR0 (VirtIO 1.0, 4.1.4.8): queue PFN 32 bit, queue select 16 bit, status 8 bit.
#define REG_QUEUE_PFN 0x08
#define REG_QUEUE_SELECT 0x0e
#define REG_STATUS 0x12
#define NUM_QUEUES 3 // RX, TX, control
// Modern VirtIO (4.1.4): the vendor capability (type, BAR, offset) of the common configuration, and in it the
// status, queue_select, queue_enable and queue_desc (low half) fields (4.1.4.3).
#define VIRTIO_CAP_COMMON_CFG 1
#define COMMON_STATUS 0x14
#define COMMON_QUEUE_SELECT 0x16
#define COMMON_QUEUE_ENABLE 0x1c
#define COMMON_QUEUE_DESC 0x20
// PCI config space: command register and its Bus Master Enable bit (PCI Local Bus 3.0, 6.2.2), status register and
// its capability list bit, the first capability's offset, the vendor-specific capability ID (6.7).
#define PCI_COMMAND 0x04
#define PCI_COMMAND_BUS_MASTER 0x4
#define PCI_STATUS 0x06
#define PCI_STATUS_CAP_LIST 0x10
#define PCI_CAPABILITY_LIST 0x34
#define PCI_CAP_ID_VNDR 0x09

// Intel 82576 (82576 datasheet rev 2.63, igb_regs.h): vendor, device, registers in BAR0 and their enable bits.
#define INTEL_VENDOR 0x8086
#define IGB_DEVICE 0x10c9
#define IGB_RCTL 0x00100
#define IGB_TCTL 0x00400
#define IGB_RCTL_TCTL_EN (1u << 1)
#define IGB_RDLEN0 0x0c008
#define IGB_RXDCTL0 0x0c028
#define IGB_TDLEN0 0x0e008
#define IGB_TXDCTL0 0x0e028
#define IGB_QUEUE_ENABLE (1u << 25)
// The 82540EM and 82574L (8254x manual, 82574 datasheet, e1000_regs.h): RCTL and TCTL at igb's offsets.
#define E1000_82540EM 0x100e
#define E1000_82574L 0x10d3

#define HUGE_PAGE_SIZE (2u << 20)
#define FREE_HUGE_PAGES "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages"
#define GUARD_SALT 0x9e3779b97f4a7c15ull

static int fail(const char* what) {
	fprintf(stderr, "vm_probe: %s: %s\n", what, strerror(errno));
	return 1;
}

static int open_device_file(const char* pci, const char* file, int flags) {
	char path[256];
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", pci, file);
	return open(path, flags);
}

// The modern common configuration: BAR and offset from the first VirtIO capability of type 1, if there is one.
static bool find_common_cfg(const uint8_t config[256], unsigned* bar, uint32_t* offset) {
	uint8_t at = (config[PCI_STATUS] & PCI_STATUS_CAP_LIST) ? config[PCI_CAPABILITY_LIST] : 0;
	for (int n = 0; at >= 0x40 && at <= 256 - 16 && n < 48; n++) {
		if (config[at] == PCI_CAP_ID_VNDR && config[at + 3] == VIRTIO_CAP_COMMON_CFG) {
			*bar = config[at + 4];
			memcpy(offset, &config[at + 8], 4);
			return true;
		}
		at = config[at + 1] & ~3u;
	}
	return false;
}

static int modern_regs(const char* pci, unsigned bar_index, uint32_t offset, bool bus_master) {
	char file[16];
	snprintf(file, sizeof(file), "resource%u", bar_index);
	int fd = open_device_file(pci, file, O_RDWR);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		return fail("cannot open the BAR of the common configuration");
	}
	volatile uint8_t* bar = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (bar == MAP_FAILED) {
		// vfio-pci claims the BAR while a process has the device open: only config space can be read then.
		printf("modern BAR%u not readable (%s) bus_master=%d => neither\n", bar_index, strerror(errno),
		       bus_master);
		return 0;
	}
	volatile uint8_t* common = bar + offset;
	uint8_t status = common[COMMON_STATUS];
	uint16_t enable[NUM_QUEUES];
	uint32_t desc[NUM_QUEUES];
	bool all_enabled = true, none_enabled = true;
	for (uint16_t q = 0; q < NUM_QUEUES; q++) {
		*(volatile uint16_t*)(common + COMMON_QUEUE_SELECT) = q;
		enable[q] = *(volatile uint16_t*)(common + COMMON_QUEUE_ENABLE);
		desc[q] = *(volatile uint32_t*)(common + COMMON_QUEUE_DESC);
		all_enabled = all_enabled && enable[q] == 1 && desc[q] != 0;
		none_enabled = none_enabled && enable[q] == 0 && desc[q] == 0;
	}
	munmap((void*)bar, (size_t)st.st_size);
	const char* verdict = status == 0 && none_enabled && !bus_master    ? "quiet"
			      : status == 0x0f && all_enabled && bus_master ? "live"
									    : "neither";
	printf("modern status=0x%02x enable=%u,%u,%u desc=0x%x,0x%x,0x%x bus_master=%d => %s\n", status, enable[0],
	       enable[1], enable[2], desc[0], desc[1], desc[2], bus_master, verdict);
	return 0;
}

// igb's state, or with e1000 set the e1000's (RCTL and TCTL only).
static int intel_regs(const char* pci, bool bus_master, bool e1000) {
	int fd = open_device_file(pci, "resource0", O_RDWR);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		return fail("cannot open resource0");
	}
	volatile uint8_t* bar = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (bar == MAP_FAILED) {
		printf("igb BAR0 not readable (%s) bus_master=%d => neither\n", strerror(errno), bus_master);
		return 0;
	}
	bool rx_on = *(volatile uint32_t*)(bar + IGB_RCTL) & IGB_RCTL_TCTL_EN;
	bool tx_on = *(volatile uint32_t*)(bar + IGB_TCTL) & IGB_RCTL_TCTL_EN;
	bool rxq = *(volatile uint32_t*)(bar + IGB_RXDCTL0) & IGB_QUEUE_ENABLE;
	bool txq = *(volatile uint32_t*)(bar + IGB_TXDCTL0) & IGB_QUEUE_ENABLE;
	uint32_t rdlen = *(volatile uint32_t*)(bar + IGB_RDLEN0);
	uint32_t tdlen = *(volatile uint32_t*)(bar + IGB_TDLEN0);
	munmap((void*)bar, (size_t)st.st_size);
	if (e1000) {
		const char* state = !rx_on && !tx_on && !bus_master ? "quiet"
				    : rx_on && tx_on && bus_master  ? "live"
								    : "neither";
		printf("e1000 rctl.en=%d tctl.en=%d bus_master=%d => %s\n", rx_on, tx_on, bus_master, state);
		return 0;
	}
	const char* verdict = !rx_on && !tx_on && !rxq && !txq && !rdlen && !tdlen && !bus_master ? "quiet"
			      : rx_on && tx_on && rxq && txq && rdlen && tdlen && bus_master      ? "live"
												  : "neither";
	printf("igb rctl.en=%d tctl.en=%d rxq0=%d txq0=%d rdlen0=%" PRIu32 " tdlen0=%" PRIu32 " bus_master=%d => %s\n",
	       rx_on, tx_on, rxq, txq, rdlen, tdlen, bus_master, verdict);
	return 0;
}

static int regs(const char* pci) {
	int config_fd = open_device_file(pci, "config", O_RDONLY);
	uint8_t config[256];
	if (config_fd < 0 || pread(config_fd, config, sizeof(config), 0) != (ssize_t)sizeof(config)) {
		return fail("cannot read the config space");
	}
	close(config_fd);
	bool bus_master = config[PCI_COMMAND] & PCI_COMMAND_BUS_MASTER;
	uint16_t device = config[2] | config[3] << 8;
	if ((config[0] | config[1] << 8) == INTEL_VENDOR &&
	    (device == IGB_DEVICE || device == E1000_82540EM || device == E1000_82574L)) {
		return intel_regs(pci, bus_master, device != IGB_DEVICE);
	}
	unsigned bar_index;
	uint32_t offset;
	if (find_common_cfg(config, &bar_index, &offset)) {
		return modern_regs(pci, bar_index, offset, bus_master);
	}
	int bar = open_device_file(pci, "resource0", O_RDWR);
	if (bar < 0) {
		return fail("cannot open resource0");
	}
	uint8_t status;
	uint32_t pfn[NUM_QUEUES];
	if (pread(bar, &status, 1, REG_STATUS) != 1) {
		return fail("cannot read the status register");
	}
	for (uint16_t q = 0; q < NUM_QUEUES; q++) {
		if (pwrite(bar, &q, 2, REG_QUEUE_SELECT) != 2 || pread(bar, &pfn[q], 4, REG_QUEUE_PFN) != 4) {
			return fail("cannot read a queue PFN");
		}
	}
	close(bar);
	const char* verdict = status == 0 && !pfn[0] && !pfn[1] && !pfn[2] && !bus_master  ? "quiet"
			      : status == 0x07 && pfn[0] && pfn[1] && pfn[2] && bus_master ? "live"
											   : "neither";
	printf("legacy status=0x%02x pfn0=%" PRIu32 " pfn1=%" PRIu32 " pfn2=%" PRIu32 " bus_master=%d => %s\n", status,
	       pfn[0], pfn[1], pfn[2], bus_master, verdict);
	return 0;
}

// Maps the guard file; creates it with `pages` huge pages (0: all free ones) if create is set. Returns NULL on failure.
static uint64_t* map_guard(const char* path, bool create, unsigned long pages, size_t* size) {
	int fd = open(path, create ? O_RDWR | O_CREAT | O_EXCL : O_RDWR, 0600);
	if (fd < 0) {
		return NULL;
	}
	struct stat st;
	if (create) {
		FILE* f = pages ? NULL : fopen(FREE_HUGE_PAGES, "r");
		if (!pages && (!f || fscanf(f, "%lu", &pages) != 1 || pages == 0)) {
			errno = ENOMEM;
			if (f) {
				fclose(f);
			}
			close(fd);
			return NULL;
		}
		if (f) {
			fclose(f);
		}
		*size = pages * HUGE_PAGE_SIZE;
		if (ftruncate(fd, (off_t)*size) != 0) {
			close(fd);
			return NULL;
		}
	} else if (fstat(fd, &st) == 0) {
		*size = (size_t)st.st_size;
	} else {
		close(fd);
		return NULL;
	}
	void* mem = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
	close(fd);
	return mem == MAP_FAILED ? NULL : mem;
}

static int guard(const char* path, bool fill) {
	size_t size = 0;
	uint64_t* mem = map_guard(path, fill, 0, &size);
	if (!mem) {
		return fail(fill ? "cannot create the guard file with all free huge pages"
				 : "cannot map the guard file");
	}
	size_t words = size / sizeof(uint64_t);
	size_t changed = 0;
	for (size_t i = 0; i < words; i++) {
		uint64_t expected = (i + 1) * GUARD_SALT;
		if (fill) {
			mem[i] = expected;
		} else if (mem[i] != expected) {
			if (changed++ < 5) {
				printf("guard: byte offset 0x%zx holds 0x%016" PRIx64 ", expected 0x%016" PRIx64 "\n",
				       i * sizeof(uint64_t), mem[i], expected);
			}
		}
	}
	munmap(mem, size);
	if (fill) {
		printf("guard: %zu huge pages filled\n", size / HUGE_PAGE_SIZE);
		return 0;
	}
	if (unlink(path) != 0) {
		return fail("cannot remove the guard file");
	}
	printf("guard: %zu huge pages, %zu changed 8 byte words\n", size / HUGE_PAGE_SIZE, changed);
	return changed ? 1 : 0;
}

static int send_frames(const char* ifname, long count) {
	int sock = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	unsigned int ifindex = if_nametoindex(ifname);
	if (sock < 0 || ifindex == 0) {
		return fail("cannot open an AF_PACKET socket on the interface");
	}
	struct sockaddr_ll to = {.sll_family = AF_PACKET, .sll_ifindex = (int)ifindex, .sll_halen = 6};
	memset(to.sll_addr, 0xff, 6);
	uint8_t frame[60] = {0};
	memset(frame, 0xff, 6);                           // broadcast
	memcpy(frame + 6, "\x02\x00\x00\x00\x00\x42", 6); // locally administered source
	frame[12] = 0x88;                                 // EtherType 0x88b5: IEEE local experimental
	frame[13] = 0xb5;
	long sent = 0;
	for (long i = 0; i < count; i++) {
		memcpy(frame + 14, &i, sizeof(i));
		if (sendto(sock, frame, sizeof(frame), 0, (struct sockaddr*)&to, sizeof(to)) == sizeof(frame)) {
			sent++;
		} else if (errno == ENOBUFS) {
			usleep(100); // the interface's queue is full: let it drain
			i--;
		} else {
			return fail("sendto");
		}
	}
	close(sock);
	printf("send: %ld frames on %s\n", sent, ifname);
	return 0;
}

// no-seccomp: every system call allowed, but installing a seccomp filter fails with EINVAL.
static int without_seccomp(char* argv[]) {
	struct sock_filter filter[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_seccomp, 4, 0), // seccomp(): EINVAL
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 0, 2),   // prctl(PR_SET_SECCOMP, ...): EINVAL, others pass
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_SECCOMP, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
	};
	struct sock_fprog program = {.len = sizeof(filter) / sizeof(filter[0]), .filter = filter};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
		return fail("cannot install the filter that forbids seccomp");
	}
	execvp(argv[0], argv);
	return fail("cannot run the program");
}

int main(int argc, char* argv[]) {
	if (argc >= 3 && strcmp(argv[1], "no-seccomp") == 0) {
		return without_seccomp(argv + 2);
	}
	if (argc == 3 && strcmp(argv[1], "regs") == 0) {
		return regs(argv[2]);
	}
	if (argc == 3 && strcmp(argv[1], "bus-master") == 0) {
		int fd = open_device_file(argv[2], "config", O_RDONLY);
		uint16_t command;
		if (fd < 0 || pread(fd, &command, 2, PCI_COMMAND) != 2) {
			return fail("cannot read the command register");
		}
		close(fd);
		printf("%d\n", (command & PCI_COMMAND_BUS_MASTER) ? 1 : 0);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "guard-fill") == 0) {
		return guard(argv[2], true);
	}
	if (argc == 3 && strcmp(argv[1], "guard-check") == 0) {
		return guard(argv[2], false);
	}
	if (argc == 4 && strcmp(argv[1], "hold") == 0) {
		size_t size = 0;
		unsigned long pages = strtoul(argv[3], NULL, 10);
		uint64_t* mem = pages ? map_guard(argv[2], true, pages, &size) : NULL;
		if (!mem) {
			return fail("cannot create the file with that many huge pages");
		}
		munmap(mem, size);
		printf("hold: %lu huge pages in %s\n", pages, argv[2]);
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "send") == 0) {
		return send_frames(argv[2], strtol(argv[3], NULL, 10));
	}
	fprintf(stderr, "usage: vm_probe regs <pci> | bus-master <pci> | guard-fill <file> | guard-check <file> | "
			"hold <file> <n> | send <ifname> <n> | no-seccomp <program> [args...]\n");
	return 2;
}
