// The sandbox (include/ixy/sandbox.h): in a child process, ixy_sandbox_enter installs its filter; what an app needs
// afterwards still works, what it must not do (open, execve, sockets, executable or file mappings, other ioctls, a
// second filter) fails with EPERM. Each allowed call is made once, in a way that tells the filter's EPERM from the
// kernel's own answer (a pread on a pipe: ESPIPE), so that removing any rule fails a check. The state the kernel
// reports is read from /proc/self/status (NoNewPrivs, Seccomp, for a thread started before too), and a call through
// the i386 ABI must be refused. No task of the child may hold a capability afterwards (CapInh, CapPrm, CapEff, CapAmb
// of every /proc/self/task/*/status), as root without --user, with --user's drop to nobody (then also its ids and
// groups), and as uid 65534 holding ambient capabilities; a thread that still holds some makes ixy_sandbox_enter fail.
// Each child counts its failed checks into its exit status; the parent prints them. First, the filter's program
// (ixy_sandbox_filter, nothing installed) must be the listing in the book; test_sandbox --print-filter prints it.
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <linux/vfio.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <ixy/sandbox.h>

#include "../check.h"

// errno of a call that failed, 0 if it worked.
#define ERRNO_OF(failed) ((failed) ? errno : 0)

static void forbidden_calls_fail(pid_t parent) {
	int fd = open("/etc/passwd", O_RDONLY);
	CHECK_EQ(ERRNO_OF(fd < 0), EPERM);
	CHECK_EQ(ERRNO_OF(openat(AT_FDCWD, "/etc/passwd", O_RDONLY) < 0), EPERM);
	// A path that does not exist: without the filter ENOENT (and never a program run in place of this test).
	char* const argv[] = {"none", NULL};
	char* const envp[] = {NULL};
	CHECK_EQ(ERRNO_OF(execve("/nonexistent/ixy-test", argv, envp) != 0), EPERM);
	CHECK_EQ(ERRNO_OF(socket(AF_INET, SOCK_DGRAM, 0) < 0), EPERM);
	// getpid's number with the x32 bit (__X32_SYSCALL_BIT): refused, though getpid is allowed.
	CHECK_EQ(ERRNO_OF(syscall(0x40000000 | SYS_getpid) < 0), EPERM);
	pid_t child = fork();
	if (child == 0) {
		_exit(0); // without the filter
	}
	CHECK_EQ(ERRNO_OF(child < 0), EPERM);
	if (child > 0) {
		waitpid(child, NULL, 0);
	}
	// Executable memory, by mmap and by mprotect (of memory mapped without PROT_EXEC, as the filter allows).
	void* code = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK_EQ(ERRNO_OF(code == MAP_FAILED), EPERM);
	void* data = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(data != MAP_FAILED);
	if (data != MAP_FAILED) {
		CHECK_EQ(ERRNO_OF(mprotect(data, 4096, PROT_READ | PROT_EXEC) != 0), EPERM);
		CHECK_EQ(munmap(data, 4096), 0);
	}
	// A file mapping (stdin, whatever it is: the filter refuses before the kernel looks at the file).
	void* file = mmap(NULL, 4096, PROT_READ, MAP_SHARED, 0, 0);
	CHECK_EQ(ERRNO_OF(file == MAP_FAILED), EPERM);
	// ioctl requests other than the two allowed: mapping DMA memory, and FIONREAD.
	CHECK_EQ(ERRNO_OF(ioctl(0, VFIO_IOMMU_MAP_DMA, NULL) != 0), EPERM);
	int n;
	CHECK_EQ(ERRNO_OF(ioctl(0, FIONREAD, &n) != 0), EPERM);
	// Signals at another process (the parent): refused.
	CHECK_EQ(ERRNO_OF(kill(parent, 0) != 0), EPERM);
	CHECK_EQ(ERRNO_OF(syscall(SYS_tgkill, parent, parent, 0) != 0), EPERM);
	// Root cannot come back, nor can a second filter replace this one (ixy_sandbox_enter again; prctl and seccomp).
	// (The system call itself: glibc's setuid would make every thread call it and wait for them with futex, which
	// the filter refuses too; glibc then aborts.)
	// futex other than private wait and wake: shared wait (pthread_join's), requeue, priority inheritance.
	uint32_t word = 0;
	CHECK_EQ(ERRNO_OF(syscall(SYS_futex, &word, FUTEX_WAIT, 1, NULL, NULL, 0) != 0), EPERM);
	CHECK_EQ(ERRNO_OF(syscall(SYS_futex, &word, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 1, NULL, NULL, ~0u) != 0),
		 EPERM);
	CHECK_EQ(ERRNO_OF(syscall(SYS_futex, &word, FUTEX_REQUEUE_PRIVATE, 1, NULL, &word, 0) != 0), EPERM);
	CHECK_EQ(ERRNO_OF(syscall(SYS_futex, &word, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0) != 0), EPERM);
	CHECK_EQ(ERRNO_OF(syscall(SYS_setuid, 0) != 0), EPERM);
	struct ixy_sandbox_config again = {0};
	CHECK_EQ(ixy_sandbox_enter(&again), (uint64_t)-1); // (it stops at capset, which the filter refuses too)
	CHECK_EQ(ERRNO_OF(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0), EPERM);
	struct sock_filter allow_all = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog second = {.len = 1, .filter = &allow_all};
	CHECK_EQ(ERRNO_OF(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &second) != 0), EPERM);
}

// A thread started before the filter, and what it is told and answers through (blocking pipes).
struct thread_before {
	bool stays;        // it waits for ever after answering (the process's exit_group ends it), or ends (exit)
	int kick_fds[2];   // to the thread: the filter is in
	int answer_fds[2]; // from the thread: its id, then the errno of its open
	int status_fd;     // its /proc status
};

// What a child opens and starts before the filter, as an app opens its files before: a pipe (non-blocking: a write
// the filter refuses must not leave a read waiting), an epoll instance, its /proc status, two threads.
struct before {
	int pipe_fds[2];
	int epoll_fd;
	int status_fd;
	struct thread_before threads[2];
};

// The value of the line "key:\t<value>" of a /proc status file opened before, read with pread from its start,
// without the trailing blanks (Groups: ends with one).
static bool status_field(int fd, const char* key, char* value, size_t size) {
	char text[8192];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
	if (n <= 0) {
		return false;
	}
	text[n] = '\0';
	size_t key_len = strlen(key);
	for (const char* line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (strncmp(line, key, key_len) == 0 && line[key_len] == ':' && line[key_len + 1] == '\t') {
			const char* v = line + key_len + 2;
			size_t len = strcspn(v, "\n");
			while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t')) {
				len--;
			}
			snprintf(value, size, "%.*s", (int)len, v);
			return true;
		}
	}
	return false;
}

#define CHECK_STATUS(fd, key, expected)                                                                                \
	do {                                                                                                           \
		char value_[256] = "";                                                                                 \
		bool found_ = status_field((fd), (key), value_, sizeof(value_));                                       \
		if (!found_ || strcmp(value_, (expected)) != 0) {                                                      \
			fprintf(stderr, "status %s: '%s', expected '%s'\n", (key), value_, (expected));                \
		}                                                                                                      \
		CHECK(found_&& strcmp(value_, (expected)) == 0);                                                       \
	} while (0)

// A thread started before the filter: says who it is, waits for the filter, tries an open, answers its errno, then
// waits for ever or ends.
static void* thread_before(void* arg) {
	const struct thread_before* b = arg;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	char go;
	if (write(b->answer_fds[1], &tid, sizeof(tid)) != sizeof(tid) || read(b->kick_fds[0], &go, 1) != 1) {
		return NULL;
	}
	int fd = open("/etc/passwd", O_RDONLY | O_CLOEXEC);
	int open_errno = fd < 0 ? errno : 0;
	if (fd >= 0) {
		close(fd);
	}
	if (write(b->answer_fds[1], &open_errno, sizeof(open_errno)) == sizeof(open_errno) && b->stays) {
		while (read(b->kick_fds[0], &go, 1) >= 0) {
		}
	}
	return NULL;
}

static volatile sig_atomic_t signals_handled;
static void on_signal(int sig) {
	(void)sig;
	signals_handled++;
}

// Every call the filter allows, each once, as its own system call where glibc could make another one.
static void allowed_calls_work(const struct before* b) {
	// Files opened before: write (stdout too), read, and pread and pwrite, which the kernel refuses on a pipe with
	// ESPIPE (the filter would with EPERM).
	CHECK_EQ(write(STDOUT_FILENO, "", 0), 0);
	char byte = 'x';
	CHECK_EQ(write(b->pipe_fds[1], &byte, 1), 1);
	CHECK_EQ(read(b->pipe_fds[0], &byte, 1), 1);
	CHECK_EQ(ERRNO_OF(pread(b->pipe_fds[0], &byte, 1, 0) < 0), ESPIPE);
	CHECK_EQ(ERRNO_OF(pwrite(b->pipe_fds[1], &byte, 1, 0) < 0), ESPIPE);
	// stdio's questions: fstat, newfstatat (glibc's fstat may be either), lseek (ESPIPE on a pipe), TCGETS
	// (ENOTTY).
	struct stat st;
	CHECK_EQ(syscall(SYS_fstat, b->pipe_fds[0], &st), 0);
	CHECK_EQ(syscall(SYS_newfstatat, b->pipe_fds[0], "", &st, AT_EMPTY_PATH), 0);
	CHECK(S_ISFIFO(st.st_mode));
	CHECK_EQ(ERRNO_OF(syscall(SYS_lseek, b->pipe_fds[0], 0, SEEK_CUR) < 0), ESPIPE);
	struct termios term;
	CHECK_EQ(ERRNO_OF(ioctl(b->pipe_fds[0], TCGETS, &term) != 0), ENOTTY);
	// vfio_free's ioctl: the kernel's ENOTTY on a pipe, not EPERM.
	struct vfio_iommu_type1_dma_unmap unmap = {.argsz = sizeof(unmap)};
	CHECK_EQ(ERRNO_OF(ioctl(b->pipe_fds[0], VFIO_IOMMU_UNMAP_DMA, &unmap) != 0), ENOTTY);
	// Waiting for interrupts on the epoll instance made before: nothing is ready, timeout 0.
	struct epoll_event event;
	CHECK_EQ(syscall(SYS_epoll_wait, b->epoll_fd, &event, 1, 0), 0);
	CHECK_EQ(syscall(SYS_epoll_pwait, b->epoll_fd, &event, 1, 0, NULL, 8), 0);
	// futex on a private word: a wait whose value is not there any more (EAGAIN, the kernel's), a wake of nobody.
	uint32_t word = 1;
	CHECK_EQ(ERRNO_OF(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0) != 0), EAGAIN);
	CHECK_EQ(syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 0);
	// Clocks and sleeps as system calls (the vDSO makes none); restart_syscall without a sleep to go on: EINTR.
	struct timespec ts;
	CHECK_EQ(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts), 0);
	struct timeval tv;
	CHECK_EQ(syscall(SYS_gettimeofday, &tv, NULL), 0);
	struct timespec nap = {.tv_nsec = 1000};
	CHECK_EQ(syscall(SYS_nanosleep, &nap, NULL), 0);
	CHECK_EQ(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &nap, NULL), 0);
	CHECK_EQ(usleep(1), 0);
	CHECK_EQ(ERRNO_OF(syscall(SYS_restart_syscall) != 0), EINTR);
	// Memory: the heap's end (brk), malloc's small and large blocks, anonymous mappings advised, grown, protected.
	CHECK(syscall(SYS_brk, 0) > 0);
	char* small = malloc(100);
	char* large = malloc(16 << 20);
	CHECK(small && large);
	if (large) {
		memset(large, 1, 16 << 20);
	}
	free(large);
	free(small);
	void* anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(anon != MAP_FAILED);
	size_t anon_size = 4096;
	if (anon != MAP_FAILED) {
		CHECK_EQ(madvise(anon, 4096, MADV_DONTNEED), 0);
		void* grown = mremap(anon, 4096, 8192, MREMAP_MAYMOVE);
		CHECK(grown != MAP_FAILED);
		if (grown != MAP_FAILED) {
			anon = grown;
			anon_size = 8192;
		}
		CHECK_EQ(mprotect(anon, anon_size, PROT_READ), 0);
		CHECK_EQ(munmap(anon, anon_size), 0);
	}
	// Signals: a handler set (rt_sigaction), the signal unblocked (rt_sigprocmask), the signal stack asked for, a
	// signal at itself (abort() raises SIGABRT so: getpid, gettid, tgkill) handled and returned from
	// (rt_sigreturn).
	struct sigaction action = {.sa_handler = on_signal};
	CHECK_EQ(sigaction(SIGUSR1, &action, NULL), 0);
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	CHECK_EQ(sigprocmask(SIG_UNBLOCK, &usr1, NULL), 0);
	stack_t stack;
	CHECK_EQ(sigaltstack(NULL, &stack), 0);
	CHECK_EQ(syscall(SYS_tgkill, syscall(SYS_getpid), syscall(SYS_gettid), SIGUSR1), 0);
	CHECK_EQ(signals_handled, 1);
	// Who the process is.
	const long ids[] = {SYS_getuid, SYS_geteuid, SYS_getgid, SYS_getegid};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		CHECK(syscall(ids[i]) >= 0);
	}
	// AF_XDP's kicks and statistics (driver/xdp.c), on a pipe: the kernel answers ENOTSOCK, not the filter EPERM.
	CHECK_EQ(ERRNO_OF(sendto(b->pipe_fds[1], NULL, 0, MSG_DONTWAIT, NULL, 0) < 0), ENOTSOCK);
	CHECK_EQ(ERRNO_OF(recvfrom(b->pipe_fds[0], NULL, 0, MSG_DONTWAIT, NULL, NULL) < 0), ENOTSOCK);
	int value = 0;
	socklen_t len = sizeof(value);
	CHECK_EQ(ERRNO_OF(getsockopt(b->pipe_fds[0], SOL_SOCKET, SO_TYPE, &value, &len) < 0), ENOTSOCK);
	// A datagram to an address: refused, whatever the socket; also an address whose low 32 bits are 0.
	struct sockaddr_in to = {.sin_family = AF_INET};
	CHECK_EQ(ERRNO_OF(sendto(b->pipe_fds[1], &byte, 1, MSG_DONTWAIT, (struct sockaddr*)&to, sizeof(to)) < 0),
		 EPERM);
	const struct sockaddr* high = (const struct sockaddr*)(uintptr_t)0x100000000ull;
	CHECK_EQ(ERRNO_OF(sendto(b->pipe_fds[1], &byte, 1, MSG_DONTWAIT, high, sizeof(to)) < 0), EPERM);
	CHECK_EQ(close(b->pipe_fds[0]), 0);
	CHECK_EQ(close(b->pipe_fds[1]), 0);
}

// The kernel's view: no_new_privs and seccomp filter mode (2), for this thread and those started before, whose open
// must fail as this thread's do. The thread that ends must be gone (its status unreadable, ESRCH) in a while.
static void kernel_state(const struct before* b) {
	CHECK_STATUS(b->status_fd, "NoNewPrivs", "1");
	CHECK_STATUS(b->status_fd, "Seccomp", "2");
	for (size_t i = 0; i < sizeof(b->threads) / sizeof(b->threads[0]); i++) {
		const struct thread_before* t = &b->threads[i];
		CHECK_STATUS(t->status_fd, "NoNewPrivs", "1");
		CHECK_STATUS(t->status_fd, "Seccomp", "2");
		int open_errno = -1;
		ssize_t kicked = write(t->kick_fds[1], "", 1);
		CHECK_EQ(kicked, 1);
		if (kicked == 1) { // else the thread could not answer either
			CHECK_EQ(read(t->answer_fds[0], &open_errno, sizeof(open_errno)), sizeof(open_errno));
		}
		CHECK_EQ(open_errno, EPERM);
		char text[64];
		bool gone = false;
		struct timespec nap = {.tv_nsec = 1000000};
		for (int polls = 0; polls < 5000 && !t->stays && !gone; polls++) {
			gone = pread(t->status_fd, text, sizeof(text), 0) < 0 && errno == ESRCH;
			nanosleep(&nap, NULL);
		}
		CHECK(t->stays || gone);
	}
}

// After --user's drop (as root): the user's ids in all four places (real, effective, saved, filesystem), its group
// as the only one, no capabilities.
static void dropped_state(const struct before* b, const struct ixy_sandbox_config* config) {
	char ids[64];
	snprintf(ids, sizeof(ids), "%u\t%u\t%u\t%u", config->uid, config->uid, config->uid, config->uid);
	CHECK_STATUS(b->status_fd, "Uid", ids);
	snprintf(ids, sizeof(ids), "%u\t%u\t%u\t%u", config->gid, config->gid, config->gid, config->gid);
	CHECK_STATUS(b->status_fd, "Gid", ids);
	snprintf(ids, sizeof(ids), "%u", config->gid);
	CHECK_STATUS(b->status_fd, "Groups", ids);
}

// No capability in any task of the process: the main thread and both threads started before (all three still run:
// kernel_state lets one end).
static void no_capabilities(const struct before* b) {
	const char* none = "0000000000000000";
	const char* const sets[] = {"CapInh", "CapPrm", "CapEff", "CapAmb"};
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		CHECK_STATUS(b->status_fd, sets[i], none);
		for (size_t t = 0; t < sizeof(b->threads) / sizeof(b->threads[0]); t++) {
			CHECK_STATUS(b->threads[t].status_fd, sets[i], none);
		}
	}
}

// The number of tasks (threads) the process has, from /proc/self/task (before the filter: it refuses openat).
static int tasks(void) {
	DIR* dir = opendir("/proc/self/task");
	int n = 0;
	CHECK(dir != NULL);
	while (dir && readdir(dir)) {
		n++;
	}
	if (dir) {
		closedir(dir);
	}
	return n - 2; // "." and ".."
}

static void open_before(struct before* b) {
	CHECK_EQ(pipe2(b->pipe_fds, O_NONBLOCK | O_CLOEXEC), 0);
	b->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	CHECK(b->epoll_fd >= 0);
	b->status_fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	CHECK(b->status_fd >= 0);
	for (size_t i = 0; i < sizeof(b->threads) / sizeof(b->threads[0]); i++) {
		struct thread_before* t = &b->threads[i];
		t->stays = i == 0;
		CHECK_EQ(pipe2(t->kick_fds, O_CLOEXEC), 0);
		CHECK_EQ(pipe2(t->answer_fds, O_CLOEXEC), 0);
		pthread_t thread;
		pid_t tid = 0;
		CHECK_EQ(pthread_create(&thread, NULL, thread_before, t), 0);
		CHECK_EQ(read(t->answer_fds[0], &tid, sizeof(tid)), sizeof(tid));
		char path[64];
		snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
		t->status_fd = open(path, O_RDONLY | O_CLOEXEC);
		CHECK(t->status_fd >= 0);
	}
}

// Waits for the child; one that does not end (a refused exit_group leaves the other thread running) is killed after
// a generous while and counts as 101.
static int child_result(pid_t pid) {
	int status = 0;
	for (int polls = 0; polls < 2000; polls++) {
		pid_t done = waitpid(pid, &status, WNOHANG);
		if (done == pid) {
			return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
		}
		CHECK_EQ(done, 0);
		if (done != 0) {
			return 102;
		}
		usleep(10000);
	}
	fprintf(stderr, "the child did not end: killed\n");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return 101;
}

// Who the child is when it calls ixy_sandbox_drop_privileges: root (with all of root's capabilities), root that asked
// to keep its permitted capabilities across the change of user (PR_SET_KEEPCAPS, which ixy_sandbox_enter must then
// drop itself), or uid and gid 65534 holding capabilities in all its sets, ambient too (as a service manager starts a
// program with AmbientCapabilities=), which it must drop although it changes no user.
enum start { START_ROOT, START_KEEP_CAPS, START_NOBODY_WITH_CAPS };

// The capabilities the uid 65534 child holds: AF_XDP's (ixy/xdp.h) and locking memory.
static const int held_caps[] = {CAP_NET_ADMIN, CAP_NET_RAW, CAP_IPC_LOCK, CAP_BPF};

// In the child, as root: becomes uid and gid 65534 with held_caps permitted, effective, inheritable and ambient.
static void become_nobody_with_caps(void) {
	gid_t nogroup = 65534;
	CHECK_EQ(prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0), 0);
	CHECK(setgroups(1, &nogroup) == 0 && setresgid(65534, 65534, 65534) == 0 &&
	      setresuid(65534, 65534, 65534) == 0);
	struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct caps[2] = {{0}};
	for (size_t i = 0; i < sizeof(held_caps) / sizeof(held_caps[0]); i++) {
		caps[CAP_TO_INDEX(held_caps[i])].permitted |= CAP_TO_MASK(held_caps[i]);
	}
	for (int i = 0; i < 2; i++) {
		caps[i].effective = caps[i].inheritable = caps[i].permitted;
	}
	CHECK_EQ(syscall(SYS_capset, &header, caps), 0);
	for (size_t i = 0; i < sizeof(held_caps) / sizeof(held_caps[0]); i++) {
		CHECK_EQ(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, held_caps[i], 0, 0), 0);
	}
}

// Runs body(arg) in a forked child with a count of failed checks of its own; returns that count (100: it died).
static int checks_in_child(void (*body)(const void* arg), const void* arg) {
	pid_t pid = fork();
	if (pid == 0) {
		check_failures = 0; // the child's own, not the parent's so far
		body(arg);
		fflush(stderr);
		_exit(check_failures > 99 ? 99 : check_failures);
	}
	CHECK(pid > 0);
	return pid > 0 ? child_result(pid) : 100;
}

// In the child: who it is when it calls ixy_sandbox_drop_privileges (enum start).
static void become(enum start start) {
	CHECK(start != START_KEEP_CAPS || prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) == 0);
	if (start == START_NOBODY_WITH_CAPS) {
		become_nobody_with_caps();
	}
}

struct filter_case {
	const struct ixy_sandbox_config* config;
	bool root_dropped;
	enum start start;
};

// The checks under a filter_case: the child drops its privileges, then starts its threads and opens its files (as
// ixy-fwd --queues does), then enters.
static void filter_checks(const void* arg) {
	const struct filter_case* c = arg;
	struct before b;
	pid_t parent = getppid();
	become(c->start);
	CHECK_EQ(ixy_sandbox_drop_privileges(c->config), 0);
	open_before(&b);
	CHECK_EQ(tasks(), 3); // the threads' status files and the process's are every task's
	int entered = ixy_sandbox_enter(c->config);
	CHECK_EQ(entered, 0);
	if (entered == 0) {
		no_capabilities(&b);
		allowed_calls_work(&b);
		forbidden_calls_fail(parent);
		kernel_state(&b);
		if (c->root_dropped) {
			dropped_state(&b, c->config);
		}
	}
}

// Runs the checks in a child under config; returns the number of checks that failed there (or 100: it died).
static int in_child(const struct ixy_sandbox_config* config, bool root_dropped, enum start start) {
	struct filter_case c = {config, root_dropped, start};
	return checks_in_child(filter_checks, &c);
}

// --no-sandbox (config.disabled) leaves out the filter, not the capabilities' drop: after ixy_sandbox_enter no task
// of the child holds one, and there is no filter.
static void no_filter_checks(const void* arg) {
	struct before b;
	become(*(const enum start*)arg);
	struct ixy_sandbox_config config = {.disabled = true};
	CHECK_EQ(ixy_sandbox_drop_privileges(&config), 0);
	open_before(&b);
	CHECK_EQ(ixy_sandbox_enter(&config), 0);
	no_capabilities(&b);
	CHECK_STATUS(b.status_fd, "Seccomp", "0");
}

// A thread that holds capabilities (started, as root, before any drop) makes ixy_sandbox_enter fail, before the
// filter: it cannot drop the thread's (capset acts on the caller only).
static void thread_with_caps_refused(const void* unused) {
	(void)unused;
	struct before b;
	open_before(&b);
	struct ixy_sandbox_config config = {0};
	CHECK_EQ(ixy_sandbox_enter(&config), (uint64_t)-1);
	CHECK_STATUS(b.status_fd, "Seccomp", "0");
}

// Says how many of a child's checks failed (what: the case), and fails one check here if any did.
static void child_passed(const char* what, int failed) {
	printf("%s: %d check(s) failed in the child\n", what, failed);
	CHECK_EQ(failed, 0);
}

// The filter's program as the book lists it (docs/book/14-least-privilege.md, between its two marker lines), so
// that a rule changed in src/sandbox.c and not in the book fails here. The program is generated for LISTING_PID, which
// the listing shows as "pid" (tgkill's rule compares the thread group with the process's own id).
#define LISTING_PID 4194303 // the largest pid Linux gives (PID_MAX_LIMIT - 1): no constant of the filter
#define LISTING_BEGIN "<!-- begin: the seccomp filter's program, as test_sandbox --print-filter prints it -->\n"
#define LISTING_END "<!-- end: the seccomp filter's program -->\n"

// The system calls the filter names, by their x86-64 numbers (a call missing here is listed by number only).
#define CALL(name)                                                                                                     \
	{ SYS_##name, #name }
static const struct {
	uint32_t nr;
	const char* name;
} calls[] = {
    CALL(pwrite64),        CALL(pread64),      CALL(read),          CALL(write),
    CALL(fstat),           CALL(newfstatat),   CALL(lseek),         CALL(close),
    CALL(epoll_wait),      CALL(epoll_pwait),  CALL(clock_gettime), CALL(gettimeofday),
    CALL(clock_nanosleep), CALL(nanosleep),    CALL(brk),           CALL(munmap),
    CALL(madvise),         CALL(mremap),       CALL(rt_sigreturn),  CALL(restart_syscall),
    CALL(rt_sigprocmask),  CALL(rt_sigaction), CALL(sigaltstack),   CALL(getpid),
    CALL(gettid),          CALL(getuid),       CALL(geteuid),       CALL(getgid),
    CALL(getegid),         CALL(exit_group),   CALL(exit),          CALL(mmap),
    CALL(mprotect),        CALL(ioctl),        CALL(sendto),        CALL(recvfrom),
    CALL(getsockopt),      CALL(futex),        CALL(tgkill),
};

static const char* call_name(uint32_t nr) {
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		if (calls[i].nr == nr) {
			return calls[i].name;
		}
	}
	return "";
}

// The 32 bit word of struct seccomp_data at offset: nr, arch, or an argument's low or high half.
static void print_word(FILE* out, uint32_t offset) {
	if (offset == offsetof(struct seccomp_data, nr)) {
		fprintf(out, "[nr]");
	} else if (offset == offsetof(struct seccomp_data, arch)) {
		fprintf(out, "[arch]");
	} else if (offset >= offsetof(struct seccomp_data, args[0])) {
		uint32_t arg = offset - offsetof(struct seccomp_data, args[0]);
		fprintf(out, "[args[%u]%s]", arg / 8, arg % 8 ? " high" : "");
	} else {
		fprintf(out, "[%u]", offset);
	}
}

static void print_return(FILE* out, uint32_t action) {
	if (action == SECCOMP_RET_ALLOW) {
		fprintf(out, "ALLOW");
	} else if (action == SECCOMP_RET_KILL_PROCESS) {
		fprintf(out, "KILL_PROCESS");
	} else if (action == (SECCOMP_RET_ERRNO | EPERM)) {
		fprintf(out, "ERRNO(EPERM)");
	} else {
		fprintf(out, "%#x", action);
	}
}

// A comparison at index i with the word loaded (to name a system call's number), its targets as indices.
static void print_jump(FILE* out, const struct sock_filter* insn, size_t i, uint32_t loaded) {
	char operand[64];
	if (loaded == offsetof(struct seccomp_data, nr)) {
		snprintf(operand, sizeof(operand), "#%u %s", insn->k, call_name(insn->k));
	} else if (insn->k == LISTING_PID) {
		snprintf(operand, sizeof(operand), "#pid");
	} else {
		snprintf(operand, sizeof(operand), "#%#x", insn->k);
	}
	const char* op = BPF_OP(insn->code) == BPF_JEQ ? "jeq" : BPF_OP(insn->code) == BPF_JSET ? "jset" : "j?";
	fprintf(out, "%-4s %-24s jt %-3zu jf %zu", op, operand, i + 1 + insn->jt, i + 1 + insn->jf);
}

// One instruction a line: its index, then loads ("ld [word]"), comparisons ("jeq #k", "jset #mask", with the indices
// they go to) and returns ("ret ALLOW"). Which word a comparison tests is followed along the jumps (classic BPF jumps
// only forward), so that a comparison with the number can name its system call.
static void print_filter(FILE* out) {
	struct sock_filter program[IXY_SANDBOX_FILTER_MAX];
	uint32_t loaded[IXY_SANDBOX_FILTER_MAX + 256]; // a jump goes at most 255 past the next instruction
	memset(loaded, 0xff, sizeof(loaded));
	size_t len = ixy_sandbox_filter(program, LISTING_PID);
	for (size_t i = 0; i < len; i++) {
		const struct sock_filter* insn = &program[i];
		fprintf(out, "%3zu  ", i);
		if (insn->code == (BPF_LD | BPF_W | BPF_ABS)) {
			fprintf(out, "ld   ");
			print_word(out, insn->k);
			loaded[i + 1] = insn->k;
		} else if (BPF_CLASS(insn->code) == BPF_JMP && BPF_SRC(insn->code) == BPF_K) {
			print_jump(out, insn, i, loaded[i]);
			loaded[i + 1 + insn->jt] = loaded[i];
			loaded[i + 1 + insn->jf] = loaded[i];
		} else if (insn->code == (BPF_RET | BPF_K)) {
			fprintf(out, "ret  ");
			print_return(out, insn->k);
		} else {
			fprintf(out, "code %#x jt %u jf %u k %#x", insn->code, insn->jt, insn->jf, insn->k);
		}
		fprintf(out, "\n");
	}
}

// Prints the first line in which the book's listing and the program's differ, if one does.
static void print_difference(const char* path, const char* book, const char* listing) {
	size_t line = 1;
	size_t start = 0;
	size_t i = 0;
	for (; book[i] == listing[i] && book[i] != '\0'; i++) {
		if (book[i] == '\n') {
			line++;
			start = i + 1;
		}
	}
	if (book[i] != listing[i]) {
		fprintf(stderr,
			"%s: the seccomp filter's listing differs in its line %zu\n  book: %.*s\n  code: %.*s\n", path,
			line, (int)strcspn(book + start, "\n"), book + start, (int)strcspn(listing + start, "\n"),
			listing + start);
		fprintf(stderr, "(test_sandbox --print-filter prints the program for the book)\n");
	}
}

// The listing in the book (a fenced block between LISTING_BEGIN and LISTING_END) is print_filter's.
static void filter_as_in_book(const char* path) {
	char* listing = NULL;
	size_t listing_size = 0;
	FILE* out = open_memstream(&listing, &listing_size);
	CHECK(out != NULL);
	if (!out) {
		return;
	}
	fprintf(out, "```text\n");
	print_filter(out);
	fprintf(out, "```\n");
	fclose(out);
	static char book[1 << 20];
	FILE* in = fopen(path, "r");
	CHECK(in != NULL);
	size_t n = in ? fread(book, 1, sizeof(book) - 1, in) : 0;
	book[n] = '\0';
	if (in) {
		fclose(in);
	}
	char* begin = strstr(book, LISTING_BEGIN);
	char* end = begin ? strstr(begin, LISTING_END) : NULL;
	CHECK(begin && end);
	if (begin && end) {
		begin += strlen(LISTING_BEGIN);
		*end = '\0';
		print_difference(path, begin, listing);
		CHECK(strcmp(begin, listing) == 0);
	}
	free(listing);
}

// In a child that makes an i386 call: the fault of a kernel without that ABI kills it by SIGSEGV, the default action.
// A sanitizer's handler (ASan's, in the ASan+UBSan builds) would instead report it and exit with status 1, which
// reads as a kernel that answered wrongly.
static void default_segv(void) {
	if (signal(SIGSEGV, SIG_DFL) == SIG_ERR) {
		_exit(2);
	}
}

// getpid's number in i386's table (arch/x86/entry/syscalls/syscall_32.tbl), writev's in x86-64's.
#define I386_GETPID 20

// Whether the kernel answers the i386 ABI (int 0x80) in a 64-bit process at all, asked by a child without any filter:
// it calls getpid that way and exits 0 if the answer is its pid. A kernel without IA32 emulation
// (CONFIG_IA32_EMULATION off, or ia32_emulation=0 on its command line) has no gate at vector 0x80 for user space: the
// call is a general protection fault, the child dies by SIGSEGV. Anything else is an error of this test.
static bool i386_abi_answers(void) {
	pid_t pid = fork();
	if (pid == 0) {
		default_segv();
		long nr = I386_GETPID;
		__asm__ volatile("int $0x80" : "+a"(nr) : : "memory", "r8", "r9", "r10", "r11");
		_exit(nr == getpid() ? 0 : 1);
	}
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) {
		return false;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		printf("i386 call without a filter: %s %d\n", WIFSIGNALED(status) ? "killed by signal" : "exit status",
		       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	}
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return true;
}

// A call through the i386 ABI (int 0x80) under the filter: refused with EPERM (-EPERM in eax), the process lives on
// (exit status 0). Returns the status.
static int i386_call(void) {
	pid_t pid = fork();
	if (pid == 0) {
		default_segv();
		struct ixy_sandbox_config config = {0};
		long nr = I386_GETPID;
		if (ixy_sandbox_enter(&config) == 0) {
			__asm__ volatile("int $0x80" : "+a"(nr) : : "memory", "r8", "r9", "r10", "r11");
		}
		_exit(nr == -EPERM ? 0 : 1);
	}
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	return status;
}

int main(int argc, char** argv) {
	if (argc > 1 && strcmp(argv[1], "--print-filter") == 0) {
		print_filter(stdout);
		return 0;
	}
	filter_as_in_book(IXY_BOOK_SANDBOX_CHAPTER);
	struct ixy_sandbox_config filter_only = {0};
	child_passed("filter", in_child(&filter_only, false, START_ROOT));
	if (i386_abi_answers()) {
		int status = i386_call();
		printf("i386 call under the filter: %s %d\n", WIFSIGNALED(status) ? "killed by signal" : "exit status",
		       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	} else {
		printf("skipped: i386 call under the filter: this kernel has no int 0x80 (IA32 emulation) for 64-bit "
		       "processes\n");
	}
	if (getuid() == 0) {
		struct ixy_sandbox_config nobody = {0};
		CHECK_EQ(ixy_sandbox_user(&nobody, "nobody"), 0);
		CHECK(nobody.drop_user && nobody.uid != 0);
		child_passed("filter and --user nobody", in_child(&nobody, true, START_ROOT));
		child_passed("filter and --user nobody, capabilities kept by PR_SET_KEEPCAPS",
			     in_child(&nobody, true, START_KEEP_CAPS));
		child_passed("filter as uid 65534 with ambient capabilities",
			     in_child(&filter_only, false, START_NOBODY_WITH_CAPS));
		child_passed("filter and --user nobody as uid 65534 with ambient capabilities",
			     in_child(&nobody, true, START_NOBODY_WITH_CAPS));
		static const enum start root = START_ROOT, nobody_with_caps = START_NOBODY_WITH_CAPS;
		child_passed("--no-sandbox as root", checks_in_child(no_filter_checks, &root));
		child_passed("--no-sandbox as uid 65534 with ambient capabilities",
			     checks_in_child(no_filter_checks, &nobody_with_caps));
		child_passed("a thread holding capabilities refused", checks_in_child(thread_with_caps_refused, NULL));
	} else {
		printf("skipped: the drop to another user and the capabilities' drop: not root\n");
	}
	// Users by number (for users only NSS knows): "<uid>" (gid the same) and "<uid>:<gid>"; no number, no user.
	struct ixy_sandbox_config numeric = {0};
	CHECK_EQ(ixy_sandbox_user(&numeric, "1000"), 0);
	CHECK(numeric.drop_user && numeric.uid == 1000 && numeric.gid == 1000);
	CHECK_EQ(ixy_sandbox_user(&numeric, "1001:2000"), 0);
	CHECK(numeric.drop_user && numeric.uid == 1001 && numeric.gid == 2000);
	struct ixy_sandbox_config not_numeric = {0};
	CHECK_EQ(ixy_sandbox_user(&not_numeric, "1000:x"), (uint64_t)-1);
	CHECK(!not_numeric.drop_user);
	struct ixy_sandbox_config unknown = {0};
	CHECK_EQ(ixy_sandbox_user(&unknown, "ixy-no-such-user"), (uint64_t)-1);
	CHECK(!unknown.drop_user);
	return check_summary();
}
