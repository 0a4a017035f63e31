// The sandbox (include/ixy/sandbox.h): in a child process, ixy_sandbox_enter installs its filter; what an app needs
// afterwards still works, what it must not do (open, execve, sockets, executable or file mappings, other ioctls, a
// second filter) fails with EPERM. Then, as root, the same with --user's drop to nobody. Each child counts its failed
// checks into its exit status; the parent prints them.
#include <errno.h>
#include <fcntl.h>
#include <linux/vfio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ixy/sandbox.h>

#include "../check.h"

// errno of a call that failed, 0 if it worked.
#define ERRNO_OF(failed) ((failed) ? errno : 0)

static void forbidden_calls_fail(void) {
	int fd = open("/etc/passwd", O_RDONLY);
	CHECK_EQ(ERRNO_OF(fd < 0), EPERM);
	CHECK_EQ(ERRNO_OF(openat(AT_FDCWD, "/etc/passwd", O_RDONLY) < 0), EPERM);
	// A path that does not exist: without the filter ENOENT (and never a program run in place of this test).
	char* const argv[] = {"none", NULL};
	char* const envp[] = {NULL};
	CHECK_EQ(ERRNO_OF(execve("/nonexistent/ixy-test", argv, envp) != 0), EPERM);
	CHECK_EQ(ERRNO_OF(socket(AF_INET, SOCK_DGRAM, 0) < 0), EPERM);
	pid_t child = fork();
	if (child == 0) {
		_exit(0); // without the filter
	}
	CHECK_EQ(ERRNO_OF(child < 0), EPERM);
	if (child > 0) {
		waitpid(child, NULL, 0);
	}
	// Executable memory, by mmap and by mprotect.
	void* code = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK_EQ(ERRNO_OF(code == MAP_FAILED), EPERM);
	// A file mapping (stdin, whatever it is: the filter refuses before the kernel looks at the file).
	void* file = mmap(NULL, 4096, PROT_READ, MAP_SHARED, 0, 0);
	CHECK_EQ(ERRNO_OF(file == MAP_FAILED), EPERM);
	// ioctl requests other than the two allowed: mapping DMA memory, and FIONREAD.
	CHECK_EQ(ERRNO_OF(ioctl(0, VFIO_IOMMU_MAP_DMA, NULL) != 0), EPERM);
	int n;
	CHECK_EQ(ERRNO_OF(ioctl(0, FIONREAD, &n) != 0), EPERM);
	// Signals at another process (the parent): refused.
	CHECK_EQ(ERRNO_OF(kill(getppid(), 0) != 0), EPERM);
	CHECK_EQ(ERRNO_OF(syscall(SYS_tgkill, getppid(), getppid(), 0) != 0), EPERM);
	// Root cannot come back, nor can a second filter replace this one (the app's message for a failed install).
	CHECK(setuid(0) != 0 || getuid() != 0);
	struct ixy_sandbox_config again = {0};
	CHECK_EQ(ixy_sandbox_enter(&again), (uint64_t)-1);
}

// pipe_fds: a pipe opened before the filter, as an app opens its files before.
static void allowed_calls_work(const int pipe_fds[2]) {
	// Rates and totals on stdout (write), sleeping (nanosleep: the drivers' usleep), the clock as a system call.
	CHECK_EQ(write(STDOUT_FILENO, "", 0), 0);
	CHECK_EQ(usleep(1), 0);
	struct timespec ts;
	CHECK_EQ(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts), 0);
	// malloc after init: small blocks from the heap (brk), large ones mmap'ed and munmap'ed by free.
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
	CHECK_EQ(mprotect(anon, 4096, PROT_READ), 0);
	CHECK_EQ(munmap(anon, 4096), 0);
	// Files opened before: read, write, pread, pwrite, close (the teardown's config file, the pcap file).
	char byte = 'x';
	CHECK_EQ(write(pipe_fds[1], &byte, 1), 1);
	CHECK_EQ(read(pipe_fds[0], &byte, 1), 1);
	// AF_XDP's kicks and statistics (driver/xdp.c), on a pipe: the kernel answers ENOTSOCK, not the filter EPERM.
	CHECK_EQ(ERRNO_OF(sendto(pipe_fds[1], NULL, 0, MSG_DONTWAIT, NULL, 0) < 0), ENOTSOCK);
	CHECK_EQ(ERRNO_OF(recvfrom(pipe_fds[0], NULL, 0, MSG_DONTWAIT, NULL, NULL) < 0), ENOTSOCK);
	int value = 0;
	socklen_t len = sizeof(value);
	CHECK_EQ(ERRNO_OF(getsockopt(pipe_fds[0], SOL_SOCKET, SO_TYPE, &value, &len) < 0), ENOTSOCK);
	// A datagram to an address: refused, whatever the socket.
	struct sockaddr_in to = {.sin_family = AF_INET};
	CHECK_EQ(ERRNO_OF(sendto(pipe_fds[1], &byte, 1, MSG_DONTWAIT, (struct sockaddr*)&to, sizeof(to)) < 0), EPERM);
	CHECK_EQ(close(pipe_fds[0]), 0);
	CHECK_EQ(close(pipe_fds[1]), 0);
	// A signal at itself (abort() raises SIGABRT so), handled.
	CHECK_EQ(syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), 0), 0);
}

// Runs the checks in a child under config; returns the number of checks that failed there (or 100: it died).
static int in_child(const struct ixy_sandbox_config* config, bool root_dropped) {
	pid_t pid = fork();
	if (pid == 0) {
		int pipe_fds[2];
		CHECK_EQ(pipe(pipe_fds), 0);
		int entered = ixy_sandbox_enter(config);
		CHECK_EQ(entered, 0);
		if (entered == 0) {
			allowed_calls_work(pipe_fds);
			forbidden_calls_fail();
			if (root_dropped) {
				CHECK(getuid() == config->uid && geteuid() == config->uid && getgid() == config->gid);
			}
		}
		fflush(stderr);
		_exit(check_failures > 99 ? 99 : check_failures);
	}
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

int main(void) {
	struct ixy_sandbox_config filter_only = {0};
	int failed = in_child(&filter_only, false);
	printf("filter: %d check(s) failed in the child\n", failed);
	CHECK_EQ(failed, 0);
	if (getuid() == 0) {
		struct ixy_sandbox_config nobody = {0};
		CHECK_EQ(ixy_sandbox_user(&nobody, "nobody"), 0);
		CHECK(nobody.drop_user && nobody.uid != 0);
		failed = in_child(&nobody, true);
		printf("filter and --user nobody: %d check(s) failed in the child\n", failed);
		CHECK_EQ(failed, 0);
	} else {
		printf("not root: the drop to another user is not tested\n");
	}
	struct ixy_sandbox_config unknown = {0};
	CHECK_EQ(ixy_sandbox_user(&unknown, "ixy-no-such-user"), (uint64_t)-1);
	CHECK(!unknown.drop_user);
	return check_summary();
}
