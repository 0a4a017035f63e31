// Least privilege once the devices run (include/ixy/sandbox.h): root and every capability dropped, no_new_privs set
// and a seccomp filter that allows only what the rest of an app's life needs.
//
// The filter is classic BPF (Documentation/userspace-api/seccomp_filter.rst, Documentation/networking/filter.rst):
// for each system call the kernel runs it on a struct seccomp_data (number, architecture, arguments) and acts on the
// value it returns. Nothing here is on the packet path: receiving and sending are loads and stores to the rings and
// MMIO registers, which the kernel never sees. Two drivers make a system call per batch: the legacy VirtIO transport
// (a pwrite on its IO-port BAR to notify the device; pwrite64 is the first call on the filter's list) and AF_XDP (its
// wake-up kicks, sendto and recvfrom on its sockets).
//
// Refused calls fail with EPERM rather than killing the process, calls through another architecture's ABI too.
// Through sysfs, the process's own teardown (ixy_stop: reset; ixy_close: bus mastering off) is all that quiets a NIC:
// a killed process leaves it DMAing into memory the kernel hands to others (test/vm/scenario-quiet.sh shows it). With
// EPERM, a bug that tries a forbidden call sees an error, and the app still stops its devices on its way out.
// (Through VFIO the kernel would quiet the NIC of a killed process; one rule for both ways keeps the library simple.)
//
// Capabilities are dropped in every thread: capset changes the calling thread's only, and a thread starts with its
// creator's, so an app that starts threads before the filter (ixy-fwd --queues: TSYNC covers them) drops them first
// (ixy_sandbox_drop_privileges), and the drop refuses to go on if any thread of the process holds one.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <linux/vfio.h>
#include <pwd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ixy/sandbox.h>
#ifdef IXY_ASAN
#include <sanitizer/lsan_interface.h> // sanitizer builds (cmake -DIXY_SANITIZE=ON) only
#endif

#include "checks.h"
#include "log.h"

// The system call numbers below are those of x86-64; another architecture has other numbers (and aarch64 lacks
// some of these calls), so its filter would be a list of its own.
#define IXY_PASSWD_PATH "/etc/passwd"

#if defined(__x86_64__)
#define SANDBOX_AUDIT_ARCH AUDIT_ARCH_X86_64
#endif

// /etc/passwd read with fgetpwent, not getpwnam: getpwnam goes through NSS, which in a statically linked program
// (the apps are, for the VM guests) loads the shared modules nsswitch.conf names (systemd, ldap, ...) and crashes
// on a machine whose glibc differs. So only users of /etc/passwd can be named; a user only NSS knows (LDAP, ...) is
// given by number instead: "<uid>" (its group the same number) or "<uid>:<gid>".
static bool numeric_user(struct ixy_sandbox_config* config, const char* name) {
	unsigned long uid, gid;
	char* end;
	if (name[0] < '0' || name[0] > '9') {
		return false;
	}
	uid = strtoul(name, &end, 10);
	gid = uid;
	if (*end == ':' && end[1] >= '0' && end[1] <= '9') {
		gid = strtoul(end + 1, &end, 10);
	}
	if (*end != '\0' || uid >= UINT32_MAX || gid >= UINT32_MAX) {
		return false;
	}
	*config = (struct ixy_sandbox_config){.disabled = config->disabled, .drop_user = true, .uid = uid, .gid = gid};
	return true;
}

int ixy_sandbox_user(struct ixy_sandbox_config* config, const char* name) {
	if (numeric_user(config, name)) {
		return 0;
	}
	FILE* passwd = fopen(IXY_PASSWD_PATH, "re");
	if (!passwd) {
		ixy_error("cannot read %s to look up user '%s': %s", IXY_PASSWD_PATH, name, strerror(errno));
		return -1;
	}
	const struct passwd* user;
	while ((user = fgetpwent(passwd)) && strcmp(user->pw_name, name) != 0) {
	}
	if (user) {
		config->drop_user = true;
		config->uid = user->pw_uid;
		config->gid = user->pw_gid;
	} else {
		ixy_error("no user '%s' in %s to run as after the devices are up", name, IXY_PASSWD_PATH);
	}
	fclose(passwd);
	return user ? 0 : -1;
}

// Becomes uid and gid. As root: groups first (only root may set them), then the group, the user last (then nothing
// can be changed back); setresuid to another user than root clears the permitted and effective capabilities (man 7
// capabilities, "Effect of user ID changes on capabilities"). Not as root, the process must be that user already, in
// its three user ids and group ids (under VFIO the apps run as the user who owns the NICs); its supplementary groups
// then stay as they are (only root can drop them). glibc makes every thread of the process take the new ids (POSIX
// wants them the process's), so threads started before are that user too.
static int become_user(uid_t uid, gid_t gid) {
	uid_t ruid, euid, suid;
	gid_t rgid, egid, sgid;
	if (getresuid(&ruid, &euid, &suid) != 0 || getresgid(&rgid, &egid, &sgid) != 0) {
		ixy_error("cannot read the process's user and group ids: %s", strerror(errno));
		return -1;
	}
	if (euid == 0) {
		if (setgroups(1, &gid) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0) {
			ixy_error("cannot become uid %u gid %u: %s", (unsigned)uid, (unsigned)gid, strerror(errno));
			return -1;
		}
	} else if (ruid != uid || euid != uid || suid != uid || rgid != gid || egid != gid || sgid != gid) {
		ixy_error("cannot become uid %u gid %u: only root can switch to another user", (unsigned)uid,
			  (unsigned)gid);
		return -1;
	}
	return 0;
}

// Capabilities (man 7 capabilities) through the raw system calls, as libc has no wrapper for them: version 3 has
// two 32 bit words per set (capabilities 0..63). Whether thread tid holds one: permitted, effective or inheritable
// (the ambient set lies within the permitted one). -1 if capget fails (a thread that ended meanwhile: ESRCH).
static int holds_capabilities(pid_t tid) {
	struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = tid};
	struct __user_cap_data_struct caps[2] = {{0}};
	if (syscall(SYS_capget, &header, caps) != 0) {
		return -1;
	}
	return (caps[0].permitted | caps[1].permitted | caps[0].effective | caps[1].effective | caps[0].inheritable |
		caps[1].inheritable) != 0;
}

// Capabilities belong to each thread (capset changes the caller's only), and a thread starts with its creator's. So
// the process holds none only if every thread dropped its own or started after the drop: checked for each thread
// listed in /proc/self/task, the calling one too. One that holds some (started before ixy_sandbox_drop_privileges)
// is refused, not fixed: only the thread itself could drop them. (readdir fails only on a bad stream.)
static int no_thread_holds_capabilities(void) {
	DIR* tasks = opendir("/proc/self/task");
	if (!tasks) {
		ixy_error("cannot list the threads in /proc/self/task, to check their capabilities: %s",
			  strerror(errno));
		return -1;
	}
	pid_t holder = 0;
	const struct dirent* task;
	while (holder == 0 && (task = readdir(tasks))) {
		pid_t tid = (pid_t)strtol(task->d_name, NULL, 10); // 0 for "." and ".."
		if (tid > 0 && holds_capabilities(tid) == 1) {
			holder = tid;
		}
	}
	(void)closedir(tasks); // (a directory only read: nothing to lose)
	if (holder != 0) {
		ixy_error("thread %d holds capabilities: it started before ixy_sandbox_drop_privileges", (int)holder);
		return -1;
	}
	return 0;
}

// Drops every capability the calling thread holds (a file capability on the binary, a kept or an ambient set, root's
// own), checks that no thread holds one and, for a user other than root, that root cannot be had back. This is the
// thread's own setresuid, not glibc's, which would make every thread call it and abort if their results differed.
static int drop_capabilities(void) {
	struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct none[2] = {{0}};
	if (syscall(SYS_capset, &header, none) != 0) {
		ixy_error("cannot drop the capabilities of uid %u: %s", (unsigned)getuid(), strerror(errno));
		return -1;
	}
	if (no_thread_holds_capabilities() != 0) {
		return -1;
	}
	if (getuid() != 0 && syscall(SYS_setresuid, -1, 0, -1) == 0) {
		ixy_error("dropped to uid %u, but root could be had back: refusing to go on", (unsigned)getuid());
		return -1;
	}
	return 0;
}

int ixy_sandbox_drop_privileges(const struct ixy_sandbox_config* config) {
	if (config->drop_user && become_user(config->uid, config->gid) != 0) {
		return -1;
	}
	// Also with --no-sandbox (config->disabled), which is about the filter: capset works where seccomp may not.
	return drop_capabilities();
}

#ifdef SANDBOX_AUDIT_ARCH
// A system call the filter allows: always (no checks), or if each of its checks holds (else it is refused). A check
// looks at one 32 bit word of the call's struct seccomp_data.
enum test {
	TEST_NONE,       // the end of a rule's checks
	TEST_ANY_BIT,    // a bit of the mask set
	TEST_NO_BIT,     // no bit of the mask set
	TEST_IS,         // equal to the value
	TEST_IS_EITHER,  // equal to one of the two values
	TEST_IS_OWN_PID, // equal to the id of the process that installs the filter
};
struct check {
	enum test test;
	uint32_t word; // its offset in struct seccomp_data
	uint32_t values[2];
};
#define MAX_CHECKS 2
struct rule {
	uint32_t nr;
	struct check checks[MAX_CHECKS];
};

// The words: ARG(i) is the low half of argument i (x86-64 is little endian; flags, prot, ioctl requests and futex
// operations are 32 bit values in the kernel), ARG_HIGH(i) its high half.
#define ARG(i) offsetof(struct seccomp_data, args[i])
#define ARG_HIGH(i) (ARG(i) + 4)
// Rules and checks as the table below writes them, one rule a line (clang-format would spread each macro over five).
// clang-format off
#define ALLOW(call) {.nr = (call)}
#define ALLOW_IF(call, ...) {.nr = (call), .checks = {__VA_ARGS__}}
#define ANY_BIT(word, mask) {TEST_ANY_BIT, (word), {(mask)}}
#define NO_BIT(word, mask) {TEST_NO_BIT, (word), {(mask)}}
#define IS(word, value) {TEST_IS, (word), {(value)}}
#define IS_EITHER(word, a, b) {TEST_IS_EITHER, (word), {(a), (b)}}
#define IS_OWN_PID(word) {TEST_IS_OWN_PID, (word), {0}}
// clang-format on

// The rules, tried in this order (pwrite64 first: the legacy VirtIO transport makes it once per TX batch). No rule
// can open a file, map one or start a program, so the I/O they allow reaches only what was open before.
static const struct rule rules[] = {
    // I/O on files the process has open.
    ALLOW(SYS_pwrite64),   // legacy VirtIO's IO-port BAR (a notify per TX batch, stop, reset), config space
    ALLOW(SYS_pread64),    // config space (bus mastering off at ixy_close), in sysfs or the VFIO device file
    ALLOW(SYS_read),       // the interrupt eventfds, after a wake-up
    ALLOW(SYS_write),      // stdout and stderr (rates, totals, messages), ixy-pcap's file (on fflush)
    ALLOW(SYS_fstat),      // stdio asks what stdout is before its first print, to choose its buffering (older libcs)
    ALLOW(SYS_newfstatat), // the same in glibc: newfstatat(1, "", AT_EMPTY_PATH)
    ALLOW(SYS_lseek),      // a stream's position (fclose, ftell)
    ALLOW(SYS_close),      // teardown: the devices' files, the eventfds, the epoll instance, ixy-pcap's file
    // Waiting for interrupts (src/interrupts.c), clocks (the vDSO's calls where it cannot) and sleeps.
    ALLOW(SYS_epoll_wait),      // on the eventfds
    ALLOW(SYS_epoll_pwait),     // the same; glibc may make this one
    ALLOW(SYS_clock_gettime),   // the apps' once-a-second rates, ixy-pcap's timestamps
    ALLOW(SYS_gettimeofday),    // the time of day, for libc
    ALLOW(SYS_clock_nanosleep), // usleep in glibc: the drivers' waits in stop and reset
    ALLOW(SYS_nanosleep),       // usleep in other libcs
    // Memory: malloc and free, and freeing DMA memory and BARs at close.
    ALLOW(SYS_brk),     // the heap
    ALLOW(SYS_munmap),  // large blocks; DMA memory and BARs at close
    ALLOW(SYS_madvise), // trimming the heap
    ALLOW(SYS_mremap),  // realloc of large blocks
    // Signals, and abort() (ixy_panic: it blocks signals, resets SIGABRT's action and raises it with tgkill below).
    ALLOW(SYS_rt_sigreturn),    // returning from the SIGINT/SIGTERM handler
    ALLOW(SYS_restart_syscall), // a sleep interrupted by SIGSTOP/SIGCONT going on
    ALLOW(SYS_rt_sigprocmask),  // abort()
    ALLOW(SYS_rt_sigaction),    // abort()
    ALLOW(SYS_sigaltstack),     // the thread's own: AddressSanitizer asks before each call that does not return
    // Who the process is: nothing it does not know.
    ALLOW(SYS_getpid),  // abort() and raise(): the process to signal
    ALLOW(SYS_gettid),  // and its thread
    ALLOW(SYS_getuid),  // the library's message once the filter is in
    ALLOW(SYS_geteuid), // its own ids
    ALLOW(SYS_getgid),  // its own ids
    ALLOW(SYS_getegid), // its own ids
    // The end.
    ALLOW(SYS_exit_group), // of the process
    ALLOW(SYS_exit),       // of a thread
    // Anonymous memory only (malloc's large blocks), never executable: a file (a device's BAR, /dev/mem) is refused.
    ALLOW_IF(SYS_mmap, ANY_BIT(ARG(3), MAP_ANONYMOUS), NO_BIT(ARG(2), PROT_EXEC)), // flags, prot
    // glibc's malloc changes the protection of its arenas' memory, never to executable.
    ALLOW_IF(SYS_mprotect, NO_BIT(ARG(2), PROT_EXEC)), // prot
    // vfio_free when DMA memory is freed through VFIO, and isatty (stdio line-buffers a terminal). Not
    // VFIO_IOMMU_MAP_DMA: no new memory for the devices.
    ALLOW_IF(SYS_ioctl, IS_EITHER(ARG(1), VFIO_IOMMU_UNMAP_DMA, TCGETS)), // request
    // AF_XDP devices (driver/xdp.c), on the sockets opened before: the wake-up kicks of the packet path, sendto only
    // with no address (NULL: both halves of the pointer); what is sent is not checked (a kick sends no data, but write
    // could anyway).
    ALLOW_IF(SYS_sendto, IS(ARG(4), 0), IS(ARG_HIGH(4), 0)), // dest_addr
    ALLOW(SYS_recvfrom),                                     // the RX kick
    ALLOW(SYS_getsockopt),                                   // the sockets' statistics and options (read_stats)
    // Waiting and waking on the process's own private words only, for glibc's internal locks when contended between
    // threads (ixy-fwd --queues): a thread that ends takes the lock of the stack cache, malloc and stdio take theirs;
    // refused, glibc aborts. Not the shared operations (pthread_join waits on a thread's id with one: threads must not
    // be joined under the filter), requeue or priority inheritance (where the kernel's futex bugs were, CVE-2014-3153).
    ALLOW_IF(SYS_futex, IS_EITHER(ARG(1), FUTEX_WAIT_PRIVATE, FUTEX_WAKE_PRIVATE)), // futex_op
    // Signals at this process only (abort() raising SIGABRT), not at others.
    ALLOW_IF(SYS_tgkill, IS_OWN_PID(ARG(0))), // thread group
};

// The longest program the rules can make: each rule compares the number, loads a word and makes up to two
// comparisons per check, then refuses or allows; the architecture check, the number's load and the last refusal.
#define LONGEST_RULE (1 + MAX_CHECKS * 3 + 2)
_Static_assert(sizeof(rules) / sizeof(rules[0]) * LONGEST_RULE + 5 <= IXY_SANDBOX_FILTER_MAX,
	       "IXY_SANDBOX_FILTER_MAX is too small for the rules");

// The instructions other than jumps: load a 32 bit word of struct seccomp_data into the accumulator, return.
#define LOAD(word) ((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (word)))
#define RET(action) ((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, (action)))
#define RET_ALLOW RET(SECCOMP_RET_ALLOW)
#define RET_DENY RET(SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))

// The program being written; len is where the next instruction goes.
struct program {
	struct sock_filter* insns;
	size_t len;
};

static void emit(struct program* p, struct sock_filter insn) {
	p->insns[p->len] = insn;
	p->len++;
}

// A comparison of the accumulator with k (op: BPF_JEQ or BPF_JSET), to the instruction at index if_true or if_false
// (forward only, as classic BPF jumps, counted from the next instruction).
static void jump(struct program* p, uint16_t op, uint32_t k, size_t if_true, size_t if_false) {
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | op | BPF_K, k, if_true - p->len - 1, if_false - p->len - 1));
}

static size_t check_length(const struct check* check) {
	return check->test == TEST_IS_EITHER ? 3 : 2;
}

// One check: its word loaded and compared, then on to the instruction at index pass if the check holds, deny if not.
static void emit_check(struct program* p, const struct check* check, size_t pass, size_t deny, pid_t pid) {
	emit(p, LOAD(check->word));
	switch (check->test) {
		case TEST_ANY_BIT:
			jump(p, BPF_JSET, check->values[0], pass, deny);
			break;
		case TEST_NO_BIT:
			jump(p, BPF_JSET, check->values[0], deny, pass);
			break;
		case TEST_IS_EITHER:
			jump(p, BPF_JEQ, check->values[0], pass, p->len + 1);
			jump(p, BPF_JEQ, check->values[1], pass, deny);
			break;
		case TEST_IS:
			jump(p, BPF_JEQ, check->values[0], pass, deny);
			break;
		case TEST_IS_OWN_PID:
			jump(p, BPF_JEQ, (uint32_t)pid, pass, deny);
			break;
		case TEST_NONE: // not a check: emit_rule stops before it
			break;
	}
}

// One rule, with the number in the accumulator: another number jumps past the rule's block to the next rule. The
// block allows the call, or makes its checks one after the other and ends in a refusal and an allowance: a failed
// check goes to the refusal, the last check's pass to the allowance.
static void emit_rule(struct program* p, const struct rule* rule, pid_t pid) {
	size_t checks = 0;
	size_t length = 0;
	while (checks < MAX_CHECKS && rule->checks[checks].test != TEST_NONE) {
		length += check_length(&rule->checks[checks]);
		checks++;
	}
	size_t block = p->len + 1;
	if (checks == 0) {
		jump(p, BPF_JEQ, rule->nr, block, block + 1);
		emit(p, RET_ALLOW);
		return;
	}
	size_t deny = block + length;
	size_t allow = deny + 1;
	jump(p, BPF_JEQ, rule->nr, block, allow + 1);
	for (size_t i = 0; i < checks; i++) {
		size_t next = p->len + check_length(&rule->checks[i]);
		emit_check(p, &rule->checks[i], i + 1 < checks ? next : allow, deny, pid);
	}
	emit(p, RET_DENY);
	emit(p, RET_ALLOW);
}

size_t ixy_sandbox_filter(struct sock_filter* program, pid_t pid) {
	struct program p = {.insns = program, .len = 0};
	// A call through another ABI (i386's int 0x80 on an x86-64 kernel) has other numbers: the rules would mean
	// something else, so none is tried on it. Refused, not killed, as any call the rules do not allow: only code
	// that took the process over makes such a call, and killing it would leave a NIC reached through sysfs DMAing
	// into memory the kernel hands to others (the top of this file); refused, the call does nothing, and the app
	// still stops its devices on its way out.
	emit(&p, LOAD(offsetof(struct seccomp_data, arch)));
	jump(&p, BPF_JEQ, SANDBOX_AUDIT_ARCH, p.len + 2, p.len + 1);
	emit(&p, RET_DENY);
	// x32 calls share the architecture but have bit 30 set in the number (__X32_SYSCALL_BIT): every rule compares
	// the whole number, so none matches one and they end at the last instruction, refused.
	emit(&p, LOAD(offsetof(struct seccomp_data, nr)));
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		emit_rule(&p, &rules[i], pid);
	}
	// Everything else: open, openat, execve, socket, connect, fork, clone, ptrace, mount, kill, setuid, prctl,
	// seccomp, ioctl requests that map DMA memory or reset devices, ... fail with EPERM.
	emit(&p, RET_DENY);
	return p.len;
}

static int install_filter(void) {
	struct sock_filter filter[IXY_SANDBOX_FILTER_MAX];
	struct sock_fprog program = {.len = (unsigned short)ixy_sandbox_filter(filter, getpid()), .filter = filter};
	// no_new_privs first: the kernel lets a process without CAP_SYS_ADMIN install a filter only with it, and an
	// execve can then never grant privileges (setuid binaries, file capabilities).
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		ixy_error("cannot set no_new_privs: %s. The sandbox is not installed; the app stops. Run it with "
			  "--no-sandbox to go on without it",
			  strerror(errno));
		return -1;
	}
	// The seccomp system call (Linux 3.17), not prctl: with TSYNC the filter applies to every thread of the process
	// (threads an app or a library started before are not left outside it); it fails rather than leave one out.
	long failed = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program);
	if (failed > 0) {
		ixy_error(
		    "cannot install the seccomp filter in thread %ld, which has another filter. The app stops; run "
		    "it with --no-sandbox to go on without the filter",
		    failed);
		return -1;
	}
	if (failed != 0) {
		ixy_error(
		    "cannot install the seccomp filter: %s (%s). The app stops; run it with --no-sandbox to go on "
		    "without the filter",
		    strerror(errno),
		    errno == EINVAL || errno == ENOSYS
			? "the kernel has no seccomp filters, CONFIG_SECCOMP_FILTER, or is older than Linux 3.17"
			: "a container or a security policy forbids seccomp, or a filter in place forbids it");
		return -1;
	}
	return 0;
}
#else
size_t ixy_sandbox_filter(struct sock_filter* program, pid_t pid) {
	(void)program;
	(void)pid;
	return 0;
}

static int install_filter(void) {
	ixy_error("ixy's seccomp filter is written for x86-64 only, not for this architecture. The app stops; run it "
		  "with --no-sandbox to go on without the filter");
	return -1;
}
#endif

// The test hook (IXY_TEST_SANDBOX_PROBE=1, read by check_sandbox_probe): tries what the filter forbids, harmless
// without it, and prints the errno of each attempt for the tests (0: it worked). Opening /etc/passwd for reading,
// and executing a file that does not exist (ENOENT without the filter, EPERM before the path is looked at with it).
static void probe(void) {
	int fd = open("/etc/passwd", O_RDONLY | O_CLOEXEC);
	int open_errno = fd < 0 ? errno : 0;
	if (fd >= 0) {
		close(fd);
	}
	char* const argv[] = {"ixy-sandbox-probe", NULL};
	char* const envp[] = {NULL};
	execve("/nonexistent/ixy-sandbox-probe", argv, envp);
	printf("sandbox probe=1 open_errno=%d execve_errno=%d\n", open_errno, errno);
	fflush(stdout);
}

int ixy_sandbox_enter(const struct ixy_sandbox_config* config) {
#ifdef IXY_ASAN
	// AddressSanitizer builds: LeakSanitizer's check at exit stops the process with ptrace and clone, which the
	// filter refuses (the process would die with "LeakSanitizer has encountered a fatal error", its buffered output
	// lost). Look for leaks now instead, once: the check at exit is then skipped, so leaks made after this point
	// are not reported in a sandboxed process (run it with --no-sandbox for that).
	if (!config->disabled) {
		__lsan_do_leak_check();
	}
#endif
	if (ixy_sandbox_drop_privileges(config) != 0 || (!config->disabled && install_filter() != 0)) {
		return -1;
	}
	ixy_info("least privilege: %s, running as uid %u",
		 config->disabled ? "no seccomp filter (--no-sandbox)" : "seccomp filter and no_new_privs on",
		 (unsigned)getuid());
	if (check_sandbox_probe()) {
		probe();
	}
	return 0;
}
