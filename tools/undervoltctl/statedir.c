// SPDX-License-Identifier: GPL-2.0
/*
 * statedir.c: the directories and files root trusts.
 *
 * /var/lib/undervoltctl (tune's journal, the boot assessment) and
 * /run/undervoltctl (a trial) decide what gets written to the CPU at boot
 * and after a crash. Each is used only when lstat() shows a directory that
 * is root's, not a symbolic link, and writable by root alone; the package
 * (or StateDirectory= of the units) creates it with mode 0700. Files in
 * them are opened with O_NOFOLLOW and must be root's regular files.
 *
 * The lock of a tune search lives here too: tune holds tune.lock
 * exclusively for the whole search, and every other writer of offsets
 * holds it shared while it writes, so that neither can move an offset
 * the other relies on.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "undervoltctl.h"

#define SEARCH_LOCK "tune.lock"

/* What is wrong with a directory root relies on, or NULL. */
static const char *dir_fault(const struct stat *st, char *buf, size_t size)
{
	if (S_ISLNK(st->st_mode))
		return "is a symbolic link";
	if (!S_ISDIR(st->st_mode))
		return "is not a directory";
	if (st->st_uid != 0) {
		snprintf(buf, size, "is owned by uid %u, not root",
			 (unsigned int)st->st_uid);
		return buf;
	}
	/* /tmp-like directories are not a place for root's state either. */
	if (st->st_mode & 022) {
		snprintf(buf, size, "is writable by group or others (mode %04o)",
			 (unsigned int)(st->st_mode & 07777));
		return buf;
	}
	return NULL;
}

int state_dir_check(const char *dir, bool create)
{
	char buf[64];
	const char *fault;
	struct stat st;

	if (lstat(dir, &st) < 0) {
		if (errno != ENOENT || !create)
			return -errno;
		if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
			uv_warn("%s: cannot create it: %s", dir,
				strerror(errno));
			return -errno;
		}
		if (lstat(dir, &st) < 0)
			return -errno;
	}
	fault = dir_fault(&st, buf, sizeof(buf));
	if (!fault)
		return 0;
	uv_warn("%s %s: refusing to trust it; as root, remove it, or make it "
		"a directory of root's with mode 0700 (as the package creates "
		"it)", dir, fault);
	return -EPERM;
}

int state_path(const char *dir, const char *name, char *buf, size_t size)
{
	return uv_path(buf, size, "%s/%s", dir, name);
}

int state_open(const char *dir, const char *name, int flags, mode_t mode)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if (state_path(dir, name, path, sizeof(path)))
		return -ENAMETOOLONG;
	fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0 && errno == ELOOP) {
		uv_warn("%s is a symbolic link: refusing to follow it; remove "
			"it", path);
		return -ELOOP;
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0) {
		uv_warn("%s is not a regular file of root's: refusing to use "
			"it; remove it", path);
		close(fd);
		return -EPERM;
	}
	return fd;
}

int state_slurp(const char *dir, const char *name, size_t max, char **buf,
		size_t *len)
{
	int fd = state_open(dir, name, O_RDONLY, 0), r;

	if (fd < 0)
		return fd;
	r = uv_slurp_fd(fd, max, buf, len);
	close(fd);
	return r;
}

/*
 * Replaced whole by uv_write_atomic(), which writes through a symbolic
 * link; here a link is never followed: it goes, and the file takes its
 * name.
 */
int state_write(const char *dir, const char *name, const char *data,
		size_t len)
{
	char path[PATH_MAX];
	struct stat st;

	if (state_path(dir, name, path, sizeof(path)))
		return -ENAMETOOLONG;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && unlink(path) < 0)
		return -errno;
	return uv_write_atomic(path, data, len);
}

int state_unlink(const char *dir, const char *name)
{
	char path[PATH_MAX];

	if (state_path(dir, name, path, sizeof(path)))
		return -ENAMETOOLONG;
	return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
}

/* The pid a search wrote into its lock, or 0. */
static long lock_owner(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

int search_hold(const struct uv_sysfs *s, int *fdp)
{
	int r, fd;
	long pid;

	*fdp = -1;
	r = state_dir_check(s->state, false);
	if (r == -ENOENT)
		return 0;	/* no state at all: no search on record */
	if (r == -EACCES && !uv_has_rawio())
		return 0;	/* not root: the write says so */
	if (r) {
		uv_warn("cannot tell whether a tune search runs; nothing was "
			"changed");
		return UV_EXIT_FAIL;
	}
	fd = state_open(s->state, SEARCH_LOCK, O_RDWR | O_CREAT, 0600);
	if (fd == -EACCES && !uv_has_rawio())
		return 0;
	if (fd < 0) {
		uv_warn("%s/%s: %s; cannot tell whether a tune search runs; "
			"nothing was changed", s->state, SEARCH_LOCK,
			strerror(-fd));
		return UV_EXIT_FAIL;
	}
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		*fdp = fd;
		return 0;
	}
	pid = lock_owner(fd);
	close(fd);
	uv_warn("a tune search is running (pid %ld, %s/%s is locked): its "
		"offsets are under test, so nothing was changed; wait for it "
		"to end, or stop it (kill -INT %ld) and go on later with "
		"'undervoltctl tune --resume'", pid, s->state, SEARCH_LOCK, pid);
	return UV_EXIT_FAIL;
}

void search_release(int fd)
{
	if (fd >= 0)
		close(fd);
}

int search_lock(const char *dir)
{
	char pid[32];
	int fd, n;

	if (state_dir_check(dir, true))
		return -1;
	fd = state_open(dir, SEARCH_LOCK, O_RDWR | O_CREAT, 0600);
	if (fd < 0) {
		uv_warn("tune: %s/%s: %s", dir, SEARCH_LOCK, strerror(-fd));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		uv_warn("tune: another undervoltctl is running a tune search or "
			"changing offsets (%s/%s is locked%s%ld); wait for it or "
			"stop it", dir, SEARCH_LOCK,
			lock_owner(fd) ? " by pid " : "", lock_owner(fd));
		close(fd);
		return -1;
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)n, 0) != n)
		uv_warn("tune: %s/%s: cannot record the pid: %s", dir,
			SEARCH_LOCK, strerror(errno));
	return fd;
}

int uv_trusted_file(const char *path, const char *what)
{
	char dir[PATH_MAX], buf[64];
	const char *fault = NULL;
	struct stat st;

	if (path[0] != '/') {
		uv_warn("%s '%s' is not an absolute path: refusing it", what,
			path);
		return -EPERM;
	}
	if (lstat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			fault = "is not a regular file";
		else if (st.st_uid != 0)
			fault = "is not owned by root";
	} else if (errno != ENOENT) {
		fault = strerror(errno);
	}
	if (!fault && !uv_path(dir, sizeof(dir), "%s", path) &&
	    lstat(dirname(dir), &st) == 0)
		fault = dir_fault(&st, buf, sizeof(buf)) ? "is in a directory "
			"that root alone cannot keep unchanged" : NULL;
	if (!fault)
		return 0;
	uv_warn("%s %s %s: refusing to read or write it", what, path, fault);
	return -EPERM;
}
