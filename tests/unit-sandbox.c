// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the seccomp filter (sandbox_enter(), the one gsotun
 * installs) in forked children: what the loop calls still works, what it
 * never calls fails with EPERM, an x32 call kills, abort() still aborts.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/seccomp.h>
#include "base/log.h"
#include "sys/sandbox.h"
#include "tap.h"

/* Made before the filter, as set-up makes the tunnel's. */
static int udp_fd, pipe_fd[2];

static int ret_of(long r)
{
	return r < 0 ? -errno : 0;
}

/* The value of a /proc/self/status field, -1 when absent. */
static int status_field(const char *name)
{
	char line[128];
	size_t len = strlen(name);
	int val = -1;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':')
			val = atoi(line + len + 1);
	fclose(f);
	return val;
}

static int seccomp_mode(void)
{
	return status_field("Seccomp");
}

static int no_new_privs(void)
{
	return status_field("NoNewPrivs");
}

static int pipe_round_trip(void)
{
	char c = 0;

	if (write(pipe_fd[1], "x", 1) != 1 || read(pipe_fd[0], &c, 1) != 1)
		return -errno;
	return c == 'x' ? 0 : -EIO;
}

/* Allowed, on no descriptor: EBADF from the call itself. */
static int io_uring_enter_bad_fd(void)
{
	return ret_of(syscall(__NR_io_uring_enter, -1, 0, 0, 0, NULL, 0));
}

static int recvmmsg_bad_fd(void)
{
	return ret_of(recvmmsg(-1, NULL, 0, 0, NULL));
}

static int open_read_only(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int open_flags(int flags)
{
	int fd = open("/dev/null", flags | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int open_write_only(void)
{
	return open_flags(O_WRONLY);
}

static int open_read_write(void)
{
	return open_flags(O_RDWR);
}

static int open_create(void)
{
	return open_flags(O_RDONLY | O_CREAT);
}

static int open_truncate(void)
{
	return open_flags(O_RDONLY | O_TRUNC);
}

/* What glibc's fatal messages use. */
static int writev_pipe(void)
{
	struct iovec iov = { .iov_base = "y", .iov_len = 1 };
	char c = 0;

	if (writev(pipe_fd[1], &iov, 1) != 1 || read(pipe_fd[0], &c, 1) != 1)
		return -errno;
	return c == 'y' ? 0 : -EIO;
}

static int map_prot(int prot)
{
	void *p = mmap(NULL, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	munmap(p, 4096);
	return 0;
}

static int map_rw(void)
{
	return map_prot(PROT_READ | PROT_WRITE);
}

static int map_exec(void)
{
	return map_prot(PROT_READ | PROT_EXEC);
}

/* Memory of malloc()'s made executable afterwards. */
static int protect_exec(void)
{
	static char page[8192];
	void *p = (void *)(((unsigned long)page + 4095) & ~4095ul);

	return ret_of(mprotect(p, 4096, PROT_READ | PROT_EXEC));
}

static int set_recverr(void)
{
	int one = 1;

	return ret_of(setsockopt(udp_fd, IPPROTO_IP, IP_RECVERR, &one,
				 sizeof(one)));
}

static int set_hdrincl(void)
{
	int one = 1;

	return ret_of(setsockopt(udp_fd, IPPROTO_IP, IP_HDRINCL, &one,
				 sizeof(one)));
}

static int set_rcvbuf(void)
{
	int size = 4096;

	return ret_of(setsockopt(udp_fd, SOL_SOCKET, SO_RCVBUF, &size,
				 sizeof(size)));
}

static int signal_self(void)
{
	return ret_of(syscall(__NR_tgkill, getpid(), syscall(__NR_gettid), 0));
}

static int signal_parent(void)
{
	return ret_of(syscall(__NR_tgkill, getppid(), getppid(), 0));
}

static int kill_parent(void)
{
	return ret_of(kill(getppid(), 0));
}

static int make_socket(int domain, int type)
{
	int fd = socket(domain, type | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int socket_inet(void)
{
	return make_socket(AF_INET, SOCK_DGRAM);
}

static int socket_unix(void)
{
	return make_socket(AF_UNIX, SOCK_STREAM);
}

static int socket_pair(void)
{
	int sv[2];

	return ret_of(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
}

static int connect_udp(void)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(9),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};

	return ret_of(connect(udp_fd, (struct sockaddr *)&sin, sizeof(sin)));
}

static int bind_udp(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	return ret_of(bind(udp_fd, (struct sockaddr *)&sin, sizeof(sin)));
}

static int exec_true(void)
{
	char *const argv[] = { "true", NULL }, *const envp[] = { NULL };

	return ret_of(execve("/bin/true", argv, envp));
}

static int trace_me(void)
{
	return ret_of(ptrace(PTRACE_TRACEME, 0, NULL, NULL));
}

static int ring_setup(void)
{
	char params[120] = "";

	return ret_of(syscall(__NR_io_uring_setup, 4, params));
}

static int ring_register(void)
{
	return ret_of(syscall(__NR_io_uring_register, -1, 0, NULL, 0));
}

static int change_root(void)
{
	return ret_of(chroot("/"));
}

static int fork_child(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid < 0 ? -errno : 0;
}

static int ioctl_fionread(void)
{
	int n;

	return ret_of(ioctl(udp_fd, FIONREAD, &n));
}

static int new_filter(void)
{
	return ret_of(prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0));
}

static const struct check {
	const char *what;
	int (*fn)(void);
	int want;
} checks[] = {
	{ "/proc/self/status says Seccomp: 2", seccomp_mode, 2 },
	{ "and NoNewPrivs: 1", no_new_privs, 1 },
	{ "write() and read() through a pipe work", pipe_round_trip, 0 },
	{ "writev() works (glibc's fatal messages)", writev_pipe, 0 },
	{ "mmap() of memory works (malloc())", map_rw, 0 },
	{ "mmap() of executable memory: EPERM", map_exec, -EPERM },
	{ "mprotect() to executable: EPERM", protect_exec, -EPERM },
	{ "io_uring_enter() is allowed (EBADF, not EPERM)",
	  io_uring_enter_bad_fd, -EBADF },
	{ "recvmmsg() is allowed (EBADF)", recvmmsg_bad_fd, -EBADF },
	{ "open() to read works (the --peers file)", open_read_only, 0 },
	{ "open() to write: EPERM", open_write_only, -EPERM },
	{ "open() to read and write: EPERM", open_read_write, -EPERM },
	{ "open() with O_CREAT: EPERM", open_create, -EPERM },
	{ "open() with O_TRUNC: EPERM", open_truncate, -EPERM },
	{ "setsockopt(IP_RECVERR) works", set_recverr, 0 },
	{ "setsockopt(IP_HDRINCL): EPERM", set_hdrincl, -EPERM },
	{ "setsockopt(SO_RCVBUF): EPERM", set_rcvbuf, -EPERM },
	{ "tgkill() of this process works", signal_self, 0 },
	{ "tgkill() of another: EPERM", signal_parent, -EPERM },
	{ "kill(): EPERM", kill_parent, -EPERM },
	{ "socket(AF_INET): EPERM", socket_inet, -EPERM },
	{ "socket(AF_UNIX): EPERM", socket_unix, -EPERM },
	{ "socketpair(): EPERM", socket_pair, -EPERM },
	{ "connect(): EPERM", connect_udp, -EPERM },
	{ "bind(): EPERM", bind_udp, -EPERM },
	{ "execve(): EPERM", exec_true, -EPERM },
	{ "ptrace(): EPERM", trace_me, -EPERM },
	{ "io_uring_setup(): EPERM", ring_setup, -EPERM },
	{ "io_uring_register(): EPERM", ring_register, -EPERM },
	{ "chroot(): EPERM", change_root, -EPERM },
	{ "fork(): EPERM", fork_child, -EPERM },
	{ "ioctl(): EPERM", ioctl_fionread, -EPERM },
	{ "prctl() for another filter: EPERM", new_filter, -EPERM },
};

#define N_CHECKS (sizeof(checks) / sizeof(*checks))

/* In a child under the filter: each check's result down the pipe. */
static void run_checks(int out)
{
	int res[N_CHECKS];
	unsigned int i;

	if (sandbox_enter())
		_exit(2);
	for (i = 0; i < N_CHECKS; i++)
		res[i] = checks[i].fn();
	_exit(write(out, res, sizeof(res)) == sizeof(res) ? 0 : 3);
}

/* How a child that installs the filter and then runs fn ends. */
static int child_status(void (*fn)(void))
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		if (sandbox_enter())
			_exit(2);
		fn();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

#ifdef __x86_64__
static void x32_getpid(void)
{
	syscall(__X32_SYSCALL_BIT | __NR_getpid);
}
#endif

static void call_abort(void)
{
	/* No core file of a test: the signal is what counts. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	abort();
}

int main(void)
{
	int res[N_CHECKS], p[2], st;
	unsigned int i;
	pid_t pid;

	for (i = 0; i < N_CHECKS; i++)
		res[i] = INT_MIN;
	log_level = LOG_LVL_ERR;
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
		skip_all("no seccomp in this kernel");
	udp_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (udp_fd < 0 || pipe2(pipe_fd, O_CLOEXEC) || pipe2(p, O_CLOEXEC))
		return 1;
	plan(N_CHECKS + 3);
	pid = fork();
	if (pid == 0)
		run_checks(p[1]);
	close(p[1]);
	ok(pid > 0 && read(p[0], res, sizeof(res)) == sizeof(res) &&
		   waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		   !WEXITSTATUS(st),
	   "a child installs the filter and reports on it");
	for (i = 0; i < N_CHECKS; i++)
		is_int(res[i], checks[i].want, "%s", checks[i].what);
#ifdef __x86_64__
	st = child_status(x32_getpid);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS,
	   "an x32 system call kills the process (SIGSYS)");
#else
	ok(1, "# SKIP x32 is x86_64's");
#endif
	st = child_status(call_abort);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT,
	   "abort() (BUG_ON) still ends the process with SIGABRT");
	return done_testing();
}
