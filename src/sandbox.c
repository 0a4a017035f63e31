// Least privilege once the devices run (include/ixy/sandbox.h): root dropped, no_new_privs set and a seccomp
// filter that allows only what the rest of an app's life needs.
//
// The filter is classic BPF (Documentation/userspace-api/seccomp_filter.rst, Documentation/networking/filter.rst):
// for each system call the kernel runs it on a struct seccomp_data (number, architecture, arguments) and acts on the
// value it returns. Nothing here is on the packet path: receiving and sending are loads and stores to the rings and
// MMIO registers, which the kernel never sees. Only the legacy VirtIO transport makes a system call per batch (a
// pwrite on its IO-port BAR to notify the device), and pwrite64 is the first call on the filter's list.
//
// Refused calls fail with EPERM rather than killing the process. Through sysfs, the process's own teardown (ixy_stop:
// reset; ixy_close: bus mastering off) is all that quiets a NIC: a killed process leaves it DMAing into memory the
// kernel hands to others (test/vm/scenario-quiet.sh shows it). With EPERM, a bug that tries a forbidden call sees an
// error, and the app still stops its devices on its way out. (Through VFIO the kernel would quiet the NIC of a killed
// process; one rule for both ways keeps the library simple.)
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
#ifdef __SANITIZE_ADDRESS__
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

// Capabilities (man 7 capabilities) through the raw system calls, as libc has no wrapper for them: version 3 has
// two 32 bit words per set (capabilities 0..63).
static int capabilities(struct __user_cap_data_struct data[2], bool set) {
	struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	return (int)syscall(set ? SYS_capset : SYS_capget, &header, data);
}

// Becomes uid and gid. As root: groups first (only root may set them), then the group, the user last (then nothing
// can be changed back); setresuid to another user than root clears the permitted and effective capabilities (man 7
// capabilities, "Effect of user ID changes on capabilities"). Not as root, the process must be that user already, in
// its three user ids and group ids (under VFIO the apps run as the user who owns the NICs); its supplementary groups
// then stay as they are (only root can drop them).
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

// Drops every capability the process still holds as uid, a user other than root (a file capability on the binary, a
// kept set), and checks that capget shows none left and that root cannot be had back.
static int drop_capabilities(uid_t uid) {
	struct __user_cap_data_struct caps[2] = {{0}};
	if (capabilities(caps, true) != 0 || capabilities(caps, false) != 0) {
		ixy_error("became uid %u, but cannot drop its capabilities: %s", (unsigned)uid, strerror(errno));
		return -1;
	}
	if (caps[0].permitted | caps[1].permitted | caps[0].effective | caps[1].effective | caps[0].inheritable |
	    caps[1].inheritable) {
		ixy_error("became uid %u, but capabilities remain: refusing to go on", (unsigned)uid);
		return -1;
	}
	if (setuid(0) == 0 || seteuid(0) == 0) {
		ixy_error("became uid %u, but root could be had back: refusing to go on", (unsigned)uid);
		return -1;
	}
	return 0;
}

// Becomes config's user; for a user other than root, without any capability.
static int drop_root(const struct ixy_sandbox_config* config) {
	if (become_user(config->uid, config->gid) != 0) {
		return -1;
	}
	if (config->uid == 0) {
		return 0; // --user root: nothing dropped
	}
	return drop_capabilities(config->uid);
}

// Jumps and returns, written out so that each rule below reads as one line.
#define RET(action) BPF_STMT(BPF_RET | BPF_K, (action))
#define ALLOW RET(SECCOMP_RET_ALLOW)
#define DENY RET(SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
// Accumulator = the system call number, or the low 32 bits of argument i (x86-64 is little endian; flags, prot and
// ioctl requests are 32 bit values in the kernel).
#define LOAD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define LOAD_ARG(i) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[i]))
// "If the accumulator is nr, allow": two instructions.
#define ALLOW_NR(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), ALLOW

#ifdef SANDBOX_AUDIT_ARCH
static int install_filter(void) {
	struct sock_filter filter[] = {
	    // A call through another ABI (i386's int 0x80 on an x86-64 kernel) has other numbers: the list below would
	    // mean something else. Kill.
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_AUDIT_ARCH, 1, 0),
	    RET(SECCOMP_RET_KILL_PROCESS),
	    // x32 calls share the architecture but have bit 30 set in the number (__X32_SYSCALL_BIT): every rule below
	    // compares the whole number, so none matches one and they end at the last rule, refused.
	    LOAD_NR,
	    // I/O on files the process has open: the legacy VirtIO transport's IO-port BAR (every TX batch notifies
	    // with pwrite64; stop and reset write it too), config space (bus mastering off at ixy_close: pread64 and
	    // pwrite64 on the sysfs config file or the VFIO device file), the interrupt eventfds (read after a
	    // wake-up), stdout and stderr (rates, totals, messages: write), ixy-pcap's file (write, on fflush).
	    // No call below can open a file, so these reach only what was open before.
	    ALLOW_NR(SYS_pwrite64),
	    ALLOW_NR(SYS_pread64),
	    ALLOW_NR(SYS_read),
	    ALLOW_NR(SYS_write),
	    // stdio asks what stdout is the first time an app prints to it (glibc: newfstatat(1, "", AT_EMPTY_PATH);
	    // older ones fstat), to choose its buffering; lseek for a stream's position (fclose, ftell).
	    ALLOW_NR(SYS_fstat),
	    ALLOW_NR(SYS_newfstatat),
	    ALLOW_NR(SYS_lseek),
	    // Teardown: the devices' files, the eventfds, the epoll instance and ixy-pcap's file are closed.
	    ALLOW_NR(SYS_close),
	    // Waiting for interrupts (src/interrupts.c): epoll_wait on the eventfds (glibc may use epoll_pwait).
	    ALLOW_NR(SYS_epoll_wait),
	    ALLOW_NR(SYS_epoll_pwait),
	    // Clocks (vDSO normally, the system call where the vDSO cannot) and sleeps: the rates' ticker, ixy-pcap's
	    // timestamps, the drivers' waits in stop and reset (usleep: clock_nanosleep in glibc, nanosleep in others).
	    ALLOW_NR(SYS_clock_gettime),
	    ALLOW_NR(SYS_gettimeofday),
	    ALLOW_NR(SYS_clock_nanosleep),
	    ALLOW_NR(SYS_nanosleep),
	    // Memory: malloc and free (brk for the heap, munmap and madvise for large blocks and trimming, mremap for
	    // realloc), and freeing DMA memory and BARs at close (munmap). mmap and mprotect are allowed below with
	    // conditions.
	    ALLOW_NR(SYS_brk),
	    ALLOW_NR(SYS_munmap),
	    ALLOW_NR(SYS_madvise),
	    ALLOW_NR(SYS_mremap),
	    // Signals: returning from the SIGINT/SIGTERM handler, a sleep interrupted by SIGSTOP/SIGCONT going on, and
	    // abort() (ixy_panic: blocks signals, resets SIGABRT's action, raises it at itself with tgkill below).
	    ALLOW_NR(SYS_rt_sigreturn),
	    ALLOW_NR(SYS_restart_syscall),
	    ALLOW_NR(SYS_rt_sigprocmask),
	    ALLOW_NR(SYS_rt_sigaction),
	    // The thread's own signal stack: AddressSanitizer asks for it before each call that does not return.
	    ALLOW_NR(SYS_sigaltstack),
	    // Who the process is: nothing it does not know (abort() and raise() ask for the ids of the process and
	    // the thread to signal; the library's message below asks for the user).
	    ALLOW_NR(SYS_getpid),
	    ALLOW_NR(SYS_gettid),
	    ALLOW_NR(SYS_getuid),
	    ALLOW_NR(SYS_geteuid),
	    ALLOW_NR(SYS_getgid),
	    ALLOW_NR(SYS_getegid),
	    // The end.
	    ALLOW_NR(SYS_exit_group),
	    ALLOW_NR(SYS_exit),
	    // mmap: anonymous memory only (malloc's large blocks), never executable. Mapping a file (a device's BAR,
	    // /dev/mem) or code is refused.
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 0, 6),
	    LOAD_ARG(3), // flags
	    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MAP_ANONYMOUS, 0, 3),
	    LOAD_ARG(2), // prot
	    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 1, 0),
	    ALLOW,
	    DENY,
	    // mprotect: never to executable (glibc's malloc changes the protection of its arenas' memory).
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mprotect, 0, 4),
	    LOAD_ARG(2), // prot
	    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1),
	    DENY,
	    ALLOW,
	    // ioctl: two requests. VFIO_IOMMU_UNMAP_DMA when DMA memory is freed through VFIO (vfio_free), and TCGETS
	    // (isatty), with which stdio decides to line-buffer a terminal. Not VFIO_IOMMU_MAP_DMA: no new memory for
	    // the devices.
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 5),
	    LOAD_ARG(1), // request
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, VFIO_IOMMU_UNMAP_DMA, 2, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TCGETS, 1, 0),
	    DENY,
	    ALLOW,
	    // AF_XDP devices (driver/xdp.c): the wake-up kicks of the packet path (sendto with no address, recvfrom),
	    // and getsockopt for the sockets' statistics and options (read_stats). No call here can open or
	    // connect a socket, so these reach only the sockets opened before, as write and read do. sendto to an
	    // address is refused; what is sent is not checked (a kick sends no data, but write could anyway).
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sendto, 0, 6),
	    LOAD_ARG(4), // dest_addr: NULL, both halves of the pointer
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[4]) + 4),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
	    DENY,
	    ALLOW,
	    ALLOW_NR(SYS_recvfrom),
	    ALLOW_NR(SYS_getsockopt),
	    // futex: only waiting and waking on the process's own private words (FUTEX_WAIT_PRIVATE,
	    // FUTEX_WAKE_PRIVATE),
	    // for glibc's internal locks when contended between threads (ixy-fwd --queues): a thread that ends takes
	    // the lock of the stack cache, malloc and stdio take theirs; refused, glibc aborts. Not the shared
	    // operations
	    // (pthread_join waits on a thread's id with one: threads must not be joined under the filter), requeue or
	    // priority inheritance (where the kernel's futex bugs were, CVE-2014-3153).
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_futex, 0, 5),
	    LOAD_ARG(1), // futex_op
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FUTEX_WAIT_PRIVATE, 2, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FUTEX_WAKE_PRIVATE, 1, 0),
	    DENY,
	    ALLOW,
	    // tgkill: only at this process (abort() raising SIGABRT), not at others.
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_tgkill, 0, 4),
	    LOAD_ARG(0), // thread group
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)getpid(), 1, 0),
	    DENY,
	    ALLOW,
	    // Everything else: open, openat, execve, socket, connect, fork, clone, ptrace, mount, kill, setuid, prctl,
	    // seccomp, ioctl requests that map DMA memory or reset devices, ... fail with EPERM.
	    DENY,
	};
	struct sock_fprog program = {.len = sizeof(filter) / sizeof(filter[0]), .filter = filter};
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
#ifdef __SANITIZE_ADDRESS__
	// AddressSanitizer builds: LeakSanitizer's check at exit stops the process with ptrace and clone, which the
	// filter refuses (the process would die with "LeakSanitizer has encountered a fatal error", its buffered output
	// lost). Look for leaks now instead, once: the check at exit is then skipped, so leaks made after this point
	// are not reported in a sandboxed process (run it with --no-sandbox for that).
	if (!config->disabled) {
		__lsan_do_leak_check();
	}
#endif
	if ((config->drop_user && drop_root(config) != 0) || (!config->disabled && install_filter() != 0)) {
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
