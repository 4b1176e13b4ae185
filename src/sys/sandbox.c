// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sandbox: the seccomp filter of the running tunnel, installed once set-up
 * is over: the system calls of the loop, the control socket, signals, exit.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include "base/log.h"
#include "sys/sandbox.h"

/* The ABI whose numbers <sys/syscall.h> gave us, as seccomp_data says it. */
#if defined(__x86_64__) && !defined(__ILP32__)
#define SANDBOX_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__) && !defined(__ILP32__)
#define SANDBOX_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define SANDBOX_ARCH AUDIT_ARCH_RISCV64
#endif

#ifdef SANDBOX_ARCH

/*
 * What the running tunnel calls, as strace -f saw it through traffic in
 * every encapsulation and family, control requests, SIGHUP with --peers,
 * SIGUSR1, route and MTU changes of the underlay, each log sink and exit
 * (and what glibc's malloc and abort() may add). The data path comes
 * first: io_uring_enter() and the receive calls are found after one or
 * a few comparisons, and, as none of these depends on its arguments,
 * Linux 5.11 and later cache their verdict and run no filter for them
 * at all (seccomp_cache_prepare()): the filter costs the data path
 * nothing. Not here: openat, setsockopt, tgkill and mmap, checked by their
 * arguments below; socket, connect, bind, execve, ptrace, io_uring_setup,
 * io_uring_register, chroot, mprotect and everything else.
 */
static const uint32_t sandbox_allowed[] = {
	__NR_io_uring_enter,	/* the data path: tap reads, sends */
#ifdef __NR_epoll_wait
	__NR_epoll_wait,
#endif
	__NR_epoll_pwait,
	__NR_sched_yield,	/* --busy-poll: the CPU to who else needs it */
	__NR_recvmmsg,		/* the underlay's receive batch */
	__NR_recvmsg,		/* rtnetlink, socket error queues */
	__NR_sendto,		/* rtnetlink requests, sd_notify, syslog */
	__NR_sendmsg,		/* sends again after an error */
	__NR_sendmmsg,
	__NR_read,		/* eventfds, the --peers file */
	__NR_write,		/* messages, libev's signal eventfd */
	__NR_writev,		/* glibc's fatal messages ("double free") */
	__NR_clock_gettime,	/* when the vDSO cannot */
	__NR_gettimeofday,
	__NR_getpid,
	__NR_gettid,		/* abort() */
	__NR_rt_sigreturn,
	__NR_restart_syscall,
	__NR_accept4,		/* the control socket */
	__NR_recvfrom,
	__NR_shutdown,
	__NR_getsockopt,	/* SO_PEERCRED, SO_PEERGROUPS */
	__NR_geteuid,
	__NR_getegid,
	__NR_epoll_ctl,
	__NR_close,
#ifdef __NR_newfstatat
	__NR_newfstatat,	/* the --peers file; the pidfile at exit */
#endif
#ifdef __NR_fstat
	__NR_fstat,
#endif
#ifdef __NR_statx
	__NR_statx,
#endif
	__NR_fcntl,		/* fdopen() */
	__NR_lseek,		/* fclose() of a file read in part */
#ifdef __NR_unlink
	__NR_unlink,		/* the pidfile and control socket at exit */
#endif
	__NR_unlinkat,
#ifdef __NR_dup2
	__NR_dup2,		/* --daemon: stdio to /dev/null */
#endif
	__NR_dup3,
	__NR_brk,		/* malloc() */
	__NR_munmap,
	__NR_mremap,
	__NR_madvise,
	__NR_rt_sigaction,	/* libev, abort() */
	__NR_rt_sigprocmask,
	__NR_exit_group,
	__NR_exit,		/* a queue's thread at the end */
	__NR_futex,		/* the queues' threads stopped and let go */
	/*
	 * glibc's start of a thread (the filter is on every thread, one
	 * that starts as it is installed too: ThreadSanitizer's own).
	 */
#ifdef __NR_rseq
	__NR_rseq,
#endif
	__NR_set_robust_list,
};

/* A jump of the list's reaches past all of it: 8 bits of offset. */
_Static_assert(sizeof(sandbox_allowed) / sizeof(*sandbox_allowed) < 250,
	       "the allow-list outgrew its BPF jumps");

#define SANDBOX_MAX_INSNS 96

struct sandbox_prog {
	struct sock_filter insn[SANDBOX_MAX_INSNS];
	unsigned int n;
};

/* The low 32 bits of argument i: the int that level, flags and pid are. */
#if __BYTE_ORDER == __LITTLE_ENDIAN
#define SANDBOX_ARG(i) ((uint32_t)offsetof(struct seccomp_data, args[i]))
#else
#define SANDBOX_ARG(i) ((uint32_t)offsetof(struct seccomp_data, args[i]) + 4)
#endif

#define SANDBOX_NR ((uint32_t)offsetof(struct seccomp_data, nr))
#define SANDBOX_ARCH_OFF ((uint32_t)offsetof(struct seccomp_data, arch))

#define LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define JEQ(k, jt, jf) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (jt), (jf))
#define JSET(k, jt, jf) BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (k), (jt), (jf))
#define RET(k) BPF_STMT(BPF_RET | BPF_K, (k))
#define ALLOW RET(SECCOMP_RET_ALLOW)
/*
 * EPERM, not a kill: a path the list missed (an error path of glibc's, a
 * syslog daemon restarted, which glibc reconnects to with socket())
 * fails as any error does, said in a message, and the tunnel goes on;
 * code that took over gets nothing more from a refusal that kills. The
 * kernel's audit records each one (SECCOMP_FILTER_FLAG_LOG below).
 */
#define DENY RET(SECCOMP_RET_ERRNO | EPERM)
/*
 * Another ABI (x32 on x86_64, a 32-bit one through its own entry): never
 * a path of gsotun's, only injected code takes it: the process is killed.
 */
#define KILL RET(SECCOMP_RET_KILL_PROCESS)

static void sandbox_put(struct sandbox_prog *p, const struct sock_filter *f,
			unsigned int n)
{
	unsigned int i;

	BUG_ON(p->n + n > SANDBOX_MAX_INSNS);
	for (i = 0; i < n; i++)
		p->insn[p->n++] = f[i];
}

#define PUT(p, ...)                                                           \
	do {                                                                  \
		const struct sock_filter _f[] = { __VA_ARGS__ };              \
		sandbox_put((p), _f, sizeof(_f) / sizeof(*_f));               \
	} while (0)

/* Each syscall of the list jumps to the ALLOW after it; the rest go on. */
static void sandbox_put_list(struct sandbox_prog *p)
{
	const unsigned int n = sizeof(sandbox_allowed) /
			       sizeof(*sandbox_allowed);
	unsigned int i;

	for (i = 0; i < n; i++)
		PUT(p, JEQ(sandbox_allowed[i], (uint8_t)(n - i), 0));
	PUT(p, BPF_JUMP(BPF_JMP | BPF_JA, 1, 0, 0), ALLOW);
}

/* System call nr, allowed unless argument arg has one of bits. */
static void sandbox_put_unless(struct sandbox_prog *p, uint32_t nr,
			       unsigned int arg, uint32_t bits)
{
	PUT(p, JEQ(nr, 0, 4),
	    LD(SANDBOX_ARG(arg)),
	    JSET(bits, 1, 0),
	    ALLOW,
	    DENY);
}

/*
 * openat() only to read (the --peers file): nothing is created, truncated
 * or written, the pidfile least of all.
 */
static void sandbox_put_openat(struct sandbox_prog *p)
{
	sandbox_put_unless(p, __NR_openat, 2, O_ACCMODE | O_CREAT | O_TRUNC);
}

/*
 * setsockopt() only for IP_RECVERR and IPV6_RECVERR, which an ICMP flood
 * turns off and on (underlay_mute_errors()): not IP_HDRINCL on the raw
 * GRE socket, which would send any IP packet at all.
 */
static void sandbox_put_setsockopt(struct sandbox_prog *p)
{
	PUT(p, JEQ(__NR_setsockopt, 0, 9),
	    LD(SANDBOX_ARG(1)),
	    JEQ(IPPROTO_IP, 0, 2),
	    LD(SANDBOX_ARG(2)),
	    JEQ(IP_RECVERR, 3, 4),
	    JEQ(IPPROTO_IPV6, 0, 3),
	    LD(SANDBOX_ARG(2)),
	    JEQ(IPV6_RECVERR, 0, 1),
	    ALLOW,
	    DENY);
}

/*
 * mmap() for memory (malloc()), never executable: code that took over
 * could otherwise map what it brought and run it. No mprotect() at all.
 */
static void sandbox_put_mmap(struct sandbox_prog *p)
{
	sandbox_put_unless(p, __NR_mmap, 2, PROT_EXEC);
}

/* tgkill() of this process only: abort() (BUG_ON()) signals itself. */
static void sandbox_put_tgkill(struct sandbox_prog *p, pid_t self)
{
	PUT(p, JEQ(__NR_tgkill, 0, 4),
	    LD(SANDBOX_ARG(0)),
	    JEQ((uint32_t)self, 0, 1),
	    ALLOW,
	    DENY);
}

static void sandbox_build(struct sandbox_prog *p, pid_t self)
{
	p->n = 0;
	PUT(p, LD(SANDBOX_ARCH_OFF), JEQ(SANDBOX_ARCH, 1, 0), KILL,
	    LD(SANDBOX_NR));
#ifdef __x86_64__
	PUT(p, BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, __X32_SYSCALL_BIT, 0, 1),
	    KILL);
#endif
	sandbox_put_list(p);
	sandbox_put_openat(p);
	sandbox_put_setsockopt(p);
	sandbox_put_tgkill(p, self);
	sandbox_put_mmap(p);
	PUT(p, DENY);
}

/*
 * SECCOMP_FILTER_FLAG_LOG: each refusal goes to the kernel's audit log
 * (kernel.seccomp.actions_logged has "errno" by default). Linux 4.14.
 * SECCOMP_FILTER_FLAG_TSYNC: the filter, and no_new_privs, on every
 * thread (the queues' run already, so that they need no clone()). A
 * thread it could not sync is returned (its id, > 0): none can be here.
 */
static int sandbox_load(const struct sock_fprog *prog)
{
	unsigned int tsync = SECCOMP_FILTER_FLAG_TSYNC;
	long r;

	r = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_LOG | tsync, prog);
	if (r < 0 && errno == EINVAL)
		r = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, tsync, prog);
	if (r > 0)
		return -EBUSY;
	return r ? -errno : 0;
}

int sandbox_enter(void)
{
	struct sandbox_prog p;
	struct sock_fprog prog;
	int err;

	sandbox_build(&p, getpid());
	prog.len = (unsigned short)p.n;
	prog.filter = p.insn;
	/* What an unprivileged filter needs, and --user set already. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		err = -errno;
		log_err_errno("cannot set no_new_privs for the seccomp filter");
		return err;
	}
	err = sandbox_load(&prog);
	if (err) {
		log_err_ret(err, "cannot install the seccomp filter "
				 "(--no-seccomp runs without)");
		return err;
	}
	log_debug("seccomp filter of %u instructions installed", p.n);
	return 0;
}

#else /* !SANDBOX_ARCH */

int sandbox_enter(void)
{
	log_warn("no seccomp filter for this architecture: running without");
	return 0;
}

#endif
