// Least privilege once the devices run (the paper's section 3.6): after every device is up and every pool
// allocated, an app needs no new files, no new mappings of devices, no other programs and, through sysfs, no root.
// ixy_sandbox_enter() takes all of that away for the rest of the process's life (src/sandbox.c; the book's chapter
// 14, least privilege, says what each step protects against and what it does not).
//
// Use:
//   struct ixy_sandbox_config sandbox = {0};
//   ixy_sandbox_user(&sandbox, "nobody");  // optional; early: the user database may need files and sockets
//   ... ixy_init_config, memory_allocate_mempool, pcap files, ixy_waiter ...
//   ixy_sandbox_drop_privileges(&sandbox); // optional; first, if the app starts threads before the sandbox
//   if (ixy_sandbox_enter(&sandbox) != 0) { stop and close the devices, exit }
//   ... the packet loop, then ixy_stop, ixy_close, exit: all allowed under the filter ...
#ifndef IXY_SANDBOX_H
#define IXY_SANDBOX_H

#include <stdbool.h>
#include <sys/types.h>

struct ixy_sandbox_config {
	// No seccomp filter and no no_new_privs (the apps' --no-sandbox); a user is still dropped to with drop_user,
	// and every capability all the same.
	bool disabled;
	bool drop_user; // become uid/gid below (ixy_sandbox_user sets them): root is dropped
	uid_t uid;
	gid_t gid;
};

// The options of apps that call ixy_sandbox_enter, for their help text (the apps print it after their usage line):
// --no-sandbox, and why one would give it.
#define IXY_SANDBOX_OPTIONS_HELP                                                                                       \
	"  options of every app, first: [--no-sandbox] [--user <name>]. Once its devices run, an app drops root to "   \
	"<name> and forbids all system calls it no longer needs (seccomp); --no-sandbox leaves them allowed, for a "   \
	"kernel or container where seccomp cannot be installed"

// Looks name up in /etc/passwd (not through NSS: see sandbox.c) and makes config drop to that user and its primary
// group; a name that is a number, "<uid>" or "<uid>:<gid>", is taken as those ids (gid = uid if not given). Call it
// before the first device is opened, as the apps do while they read their options: it opens a file, which the
// filter forbids. Returns 0, or -1 with one line on stderr (no such user).
int ixy_sandbox_user(struct ixy_sandbox_config* config, const char* name);

// Locks the process down; call it once every device is up, every pool allocated and every file opened. In order:
//   1. ixy_sandbox_drop_privileges below: root and every capability dropped; no thread of the process may hold one.
//   2. unless config->disabled: prctl(PR_SET_NO_NEW_PRIVS) and, for every thread of the process (the seccomp
//      system call with SECCOMP_FILTER_FLAG_TSYNC, Linux 3.17 or later), a seccomp filter that allows only what the
//      rest of the process's life needs (the list is in src/sandbox.c: I/O on files it has open, anonymous memory,
//      sleeping, clocks, signals, the teardown, exit). Every other system call fails with EPERM, also every call of
//      another architecture's ABI (not killed: see src/sandbox.c). futex only to wait and wake on private words (a
//      contended lock: glibc's own, a pthread mutex): threads cannot be joined (pthread_join waits with a shared futex
//      operation) nor can glibc's setuid run (it waits for every thread). ixy-fwd --queues starts its threads before
//      (TSYNC covers them): they end detached, and the main thread sleeps (nanosleep) until each has said it is done,
//      instead of joining (apps/fwd_queues.h).
// Returns 0, or -1 with one line on stderr saying what failed and how to go on (an old kernel or a container that
// forbids seccomp: run the app with --no-sandbox). Then the caller stops and closes its devices and exits.
// For tests, IXY_TEST_SANDBOX_PROBE=1 makes it then try an open and an execve (both harmless without the filter) and
// print "sandbox probe=1 open_errno=<n> execve_errno=<n>" on stdout (EPERM, 1, under the filter).
int ixy_sandbox_enter(const struct ixy_sandbox_config* config);

// Step 1 of ixy_sandbox_enter alone, for an app that starts threads before the sandbox (ixy-fwd --queues: the filter's
// TSYNC covers them): call it before they start. Capabilities belong to each thread (capset changes the caller's
// only) and a new thread starts with its creator's, so every thread started after it holds none. In order:
//   1. if config->drop_user: as root, setgroups (the user's group only), setresgid, setresuid to that user (glibc
//      changes every thread's ids); not as root, the process must be that user already (its supplementary groups
//      then stay).
//   2. also with config->disabled (it is about the filter): drops every capability of the calling thread
//      (capset: permitted, effective, inheritable and with them the ambient set), as root or not, with or without
//      --user; checks with capget that no thread of the process (/proc/self/task) holds one, and fails if one does
//      (a thread started before the drop), and, not as root, that root cannot be had back. Nothing after the
//      devices' setup needs a capability: the teardown and AF_XDP's kicks act on files and sockets opened before.
// The process keeps what it holds: mapped BARs, open config files and VFIO files, locked DMA memory. (The capability
// bounding set stays: it limits only what an execve could grant, and the filter forbids it.) Calling it again, as
// ixy_sandbox_enter does, changes nothing. Returns 0, or -1 with one line on stderr.
int ixy_sandbox_drop_privileges(const struct ixy_sandbox_config* config);

// The seccomp filter's classic BPF program as ixy_sandbox_enter installs it in process pid (tgkill is allowed only at
// pid), written into program (room for IXY_SANDBOX_FILTER_MAX instructions) without installing anything; returns its
// length in instructions. For tests and the book (test/unit/test_sandbox.c compares it with the listing in
// docs/book/14-least-privilege.md). x86-64 only: elsewhere there is no filter, and the length is 0.
#define IXY_SANDBOX_FILTER_MAX 512
struct sock_filter;
size_t ixy_sandbox_filter(struct sock_filter* program, pid_t pid);

#endif
