// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * daemon: --daemon and --pidfile, the process around the tunnel; nothing
 * of the data path.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "base/log.h"
#include "sys/daemon.h"

/*
 * A live gsotun holds a lock on its pidfile for as long as it runs. The
 * file is opened without following a symlink and without blocking (a
 * FIFO planted there); anything that is not a regular file is no one's
 * pidfile. The PID it holds goes into the message.
 */
static bool pidfile_held(const char *path)
{
	char pid[16] = "";
	struct stat st;
	bool held;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	held = !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	       flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK;
	if (held) {
		n = read(fd, pid, sizeof(pid) - 1);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		log_err("pidfile %s is held by a running gsotun (PID %s): "
			"stop it first, or give another --pidfile", path,
			pid[0] ? pid : "unknown");
	}
	close(fd);
	return held;
}

/*
 * The lock is held on a descriptor opened read-only, the one that wrote
 * the file being closed: a process that took over a running gsotun must
 * not write another PID (1, for root's `kill $(cat pidfile)`) into it.
 * Opened again through the writing descriptor (/proc/self/fd), not by
 * the name, which the directory's owner may have given to a FIFO or
 * another file meanwhile; checked to be the file written all the same.
 */
static int pidfile_lock_ro(int wfd, const struct stat *st)
{
	char path[32];
	struct stat ro_st;
	int fd, err;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", wfd);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &ro_st))
		err = -errno;
	else if (ro_st.st_dev != st->st_dev || ro_st.st_ino != st->st_ino)
		err = -EEXIST;
	else if (flock(fd, LOCK_EX | LOCK_NB))
		err = -errno;
	else
		return fd;
	close(fd);
	return err;
}

/*
 * The pidfile is written as root before privileges are dropped, maybe
 * into a directory that belongs to the service user, who could have put
 * a symlink or a hard link to a root-owned file at its name. So no file
 * that was there is ever opened for writing: a new one is created
 * (mkostemp(): O_EXCL) beside it, written, locked and renamed over the
 * name, which replaces a link itself, never what it points to.
 */
int pidfile_write(struct pidfile *pf, const char *path)
{
	char buf[24], *tmp = NULL;
	struct stat st;
	int fd = -1, ro = -1, n, err;

	pf->path = path;
	pf->fd = -1;
	if (pidfile_held(path))
		return -EBUSY;
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0) {
		log_err("out of memory");
		return -ENOMEM;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		log_err_ret(err, "cannot write pidfile %s", path);
		goto fail;
	}
	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	errno = 0;
	if (fchmod(fd, 0644) || write(fd, buf, n) != n || fstat(fd, &st)) {
		/* A short write leaves errno as it was: say EIO then. */
		err = errno ? -errno : -EIO;
		goto fail_unlink;
	}
	ro = pidfile_lock_ro(fd, &st);
	if (ro < 0) {
		err = ro;
		goto fail_unlink;
	}
	if (rename(tmp, path)) {
		err = -errno;
		goto fail_unlink;
	}
	close(fd);
	free(tmp);
	pf->fd = ro;
	pf->dev = st.st_dev;
	pf->ino = st.st_ino;
	return 0;
fail_unlink:
	log_err_ret(err, "cannot write pidfile %s", path);
	unlink(tmp);
fail:
	if (ro >= 0)
		close(ro);
	if (fd >= 0)
		close(fd);
	free(tmp);
	return err;
}

void pidfile_close(struct pidfile *pf, bool remove)
{
	struct stat st;

	if (pf->fd < 0)
		return;
	if (remove && !lstat(pf->path, &st) && st.st_dev == pf->dev &&
	    st.st_ino == pf->ino)
		unlink(pf->path);
	close(pf->fd);
	pf->fd = -1;
}

/* The child's end of the pipe its parent waits on; -1: not a daemon. */
static int daemon_ok_fd = -1;
/*
 * /dev/null, for stdio at daemon_detach(): opened at the start, before a
 * --chroot hides it and the seccomp filter refuses to open it.
 */
static int daemon_null_fd = -1;

/*
 * The parent waits for the child's word (daemon_detach()): its exit
 * status is the child's set-up, whose errors are said on the terminal
 * until then. A child that exits first closes the pipe: status 1.
 */
int daemon_start(struct pidfile *pf, const char *pidfile)
{
	int pipefd[2], err;
	char ok = 0;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC)) {
		err = -errno;
		log_err_ret(err, "cannot daemonize");
		return err;
	}
	pid = fork();
	if (pid < 0) {
		err = -errno;
		log_err_ret(err, "cannot fork");
		close(pipefd[0]);
		close(pipefd[1]);
		return err;
	}
	if (pid > 0) {
		close(pipefd[1]);
		if (read(pipefd[0], &ok, 1) != 1)
			ok = 0;
		_exit(ok ? 0 : 1);
	}
	close(pipefd[0]);
	daemon_ok_fd = pipefd[1];
	daemon_null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	setsid();
	/* The sink changes at daemon_detach(), after a --chroot. */
	log_syslog_open();
	return pidfile ? pidfile_write(pf, pidfile) : 0;
}

/*
 * The caller's stderr too, unless it is the journal's: a caller that
 * reads it would otherwise wait for as long as we run.
 */
static void daemon_null_stdio(bool to_syslog)
{
	if (daemon_null_fd < 0)
		return;
	dup2(daemon_null_fd, STDIN_FILENO);
	dup2(daemon_null_fd, STDOUT_FILENO);
	if (to_syslog)
		dup2(daemon_null_fd, STDERR_FILENO);
	close(daemon_null_fd);
	daemon_null_fd = -1;
}

int daemon_detach(void)
{
	char ok = 1;
	int err = 0;

	if (daemon_ok_fd < 0)
		return 0;
	daemon_null_stdio(log_detach());
	/* The parent gone: no one to tell, nothing to run for. */
	if (write(daemon_ok_fd, &ok, 1) != 1) {
		err = -EPIPE;
		log_err("--daemon: the parent process is gone");
	}
	close(daemon_ok_fd);
	daemon_ok_fd = -1;
	return err;
}
