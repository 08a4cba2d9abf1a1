// SPDX-License-Identifier: GPL-2.0
/*
 * outfile.c: replace a file whole or not at all, and never anything but a
 * regular file in a directory that only root or the caller can change.
 *
 * "undervoltctl import > /etc/undervolt.conf" lets the shell empty the file
 * before the import has even read its input; "import -o FILE" (and tune's
 * result, its journal and its backups) write the new text to a temporary
 * file beside FILE and rename it over FILE only once the data is on disk,
 * so that a failed import, a full disk or a crash at boot never leaves a
 * truncated configuration behind. A rename makes a new inode, so:
 *
 *  - What is there must be a regular file or nothing. Renaming over
 *    /dev/null, a FIFO or a socket would replace it with a regular file
 *    (as root, /dev/null itself).
 *  - A symbolic link is written through: the file it points to is replaced
 *    (checked like any other), and the link stays a link. A link to
 *    something that is not a regular file, or into /proc or /dev/fd
 *    (/proc/self/fd/1: standard output, whatever it is), is refused.
 *  - The new file gets the old one's mode, owner and group, its POSIX
 *    access ACL and its security labels (security.*, but not the
 *    content-bound security.capability, .ima and .evm), or the old file
 *    stays: a 0600 file must not come back 0644. A copy (tune's backup of
 *    the configuration it replaces, uv_copy_file()) gets those of the file
 *    it copies instead.
 *  - The directory is opened once and every step after that is relative
 *    to it (openat, linkat, renameat), and it is refused when someone
 *    other than root or the caller could swap what is in it: owned by
 *    another user, or writable by group or others without the sticky bit.
 *    "tune -o ~user/x.conf" run as root is refused rather than writing,
 *    hours into the search, wherever the user made a link point by then
 *    (tune learns it when it writes its result).
 *  - The data is written to an O_TMPFILE, which has no name until it is
 *    complete, then linked as ".FILE.uvtmp-XXXXXX" and renamed; where the
 *    filesystem has no O_TMPFILE the named file is written instead. A crash
 *    can leave such a name behind: the next write to FILE removes the ones
 *    of its own pattern, owned by the caller, older than a minute.
 *  - The directory is synced after the rename; if that fails the caller is
 *    told, since the new file may not survive a crash.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "undervoltctl.h"

#define TMP_TAG ".uvtmp-"
/* A temporary file this old is a crash's, not a writer's at work. */
#define STALE_SECONDS 60
/* Big enough for any ACL or label a configuration file carries. */
#define XATTR_MAX 4096

/* Where to write: the directory, open, and the name in it. */
struct target {
	int dirfd;
	char dir[PATH_MAX];
	char base[NAME_MAX + 1];
	bool exists;
	struct stat st;		/* of the file there, when it exists */
};

__attribute__((format(printf, 4, 5)))
static int refuse(int err, char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -err;
}

/* An error of the system, said whole: what failed and that nothing changed. */
static int failed(int err, char *why, size_t size, const char *what)
{
	return refuse(err, why, size, "cannot write%s%s: %s; the file is as it "
		      "was%s", what ? " " : "", what ? what : "", strerror(err),
		      err == EACCES || err == EPERM ? "; run as root" : "");
}

/* PATH split, with the directory's symbolic links resolved. */
static int split(const char *path, struct target *t, char *why, size_t size)
{
	char buf[PATH_MAX], *slash, *real;
	const char *dir, *base;
	int r;

	if (uv_path(buf, sizeof(buf), "%s", path))
		return failed(ENAMETOOLONG, why, size, NULL);
	slash = strrchr(buf, '/');
	if (slash == buf) {
		dir = "/";
		base = buf + 1;
	} else if (slash) {
		*slash = '\0';
		dir = buf;
		base = slash + 1;
	} else {
		dir = ".";
		base = buf;
	}
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return refuse(EISDIR, why, size, "names a directory, not a file; "
			      "give a file name");
	if (strlen(base) + strlen(TMP_TAG) + 8 > NAME_MAX)
		return failed(ENAMETOOLONG, why, size, NULL);
	real = realpath(dir, NULL);
	if (!real)
		return failed(errno, why, size, NULL);
	r = uv_path(t->dir, sizeof(t->dir), "%s", real);
	free(real);
	if (r)
		return failed(ENAMETOOLONG, why, size, NULL);
	memcpy(t->base, base, strlen(base) + 1);	/* checked above */
	return 0;
}

/*
 * A link to a file descriptor (/proc/self/fd/1, /dev/stdout) means "where
 * my output goes", never a file to replace, even when that is one.
 */
static int fd_link(const struct target *t, char *why, size_t size)
{
	static const char *const fd_dirs[] = { "/proc/", "/dev/fd/",
					       "/dev/std" };
	char to[PATH_MAX];
	ssize_t n;
	size_t i;

	n = readlinkat(t->dirfd, t->base, to, sizeof(to) - 1);
	if (n < 0)
		return failed(errno, why, size, NULL);
	to[n] = '\0';
	for (i = 0; i < sizeof(fd_dirs) / sizeof(fd_dirs[0]); i++)
		if (strncmp(to, fd_dirs[i], strlen(fd_dirs[i])) == 0)
			return refuse(EINVAL, why, size, "refused: it is a link "
				      "to %s, a file descriptor or a kernel "
				      "file, not a file to replace; for "
				      "standard output leave out -o", to);
	return 0;
}

/*
 * Open the directory and look at what is there; a symbolic link is
 * followed once, to the file it points to, whose directory is checked in
 * its turn.
 */
static int locate(const char *path, struct target *t, char *why, size_t size)
{
	char link[PATH_MAX], *real;
	struct stat dst;
	int r, hop;

	r = split(path, t, why, size);
	for (hop = 0; !r; hop++) {
		t->dirfd = open(t->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				O_CLOEXEC);
		if (t->dirfd < 0)
			return failed(errno, why, size, NULL);
		if (fstat(t->dirfd, &dst))
			return failed(errno, why, size, NULL);
		if (dst.st_uid != 0 && dst.st_uid != geteuid())
			return refuse(EPERM, why, size, "refused: its directory "
				      "%s belongs to user %u, who could swap the "
				      "file while it is written; write it "
				      "elsewhere, then move it", t->dir,
				      (unsigned int)dst.st_uid);
		if ((dst.st_mode & (S_IWGRP | S_IWOTH)) &&
		    !(dst.st_mode & S_ISVTX))
			return refuse(EPERM, why, size, "refused: its directory "
				      "%s is writable by %s, who could swap the "
				      "file while it is written; write it "
				      "elsewhere, then move it", t->dir,
				      dst.st_mode & S_IWOTH ? "everyone" :
				      "its group");
		if (fstatat(t->dirfd, t->base, &t->st, AT_SYMLINK_NOFOLLOW)) {
			if (errno != ENOENT)
				return failed(errno, why, size, NULL);
			t->exists = false;
			return 0;
		}
		t->exists = true;
		if (S_ISREG(t->st.st_mode))
			return 0;
		if (!S_ISLNK(t->st.st_mode))
			return refuse(EINVAL, why, size, "refused: it is %s, not "
				      "a regular file, and would be replaced by "
				      "one; give the name of a file",
				      S_ISCHR(t->st.st_mode) ||
				      S_ISBLK(t->st.st_mode) ? "a device" :
				      S_ISFIFO(t->st.st_mode) ? "a FIFO" :
				      S_ISDIR(t->st.st_mode) ? "a directory" :
				      "a socket");
		if (hop > 0)	/* realpath() leaves no link: a swap */
			return refuse(ELOOP, why, size, "refused: it changed "
				      "while being looked at");
		if (uv_path(link, sizeof(link), "%s/%s", t->dir, t->base))
			return failed(ENAMETOOLONG, why, size, NULL);
		r = fd_link(t, why, size);
		if (r)
			return r;
		real = realpath(link, NULL);
		if (!real)
			return refuse(errno, why, size, "refused: it is a "
				      "symbolic link to nothing that can be "
				      "written (%s)", strerror(errno));
		close(t->dirfd);
		t->dirfd = -1;
		r = split(real, t, why, size);
		free(real);
	}
	return r;
}

/*
 * The owner, group, mode (of ST), access ACL and labels of the file open on
 * OLD, onto FD.
 */
static int copy_attributes(int fd, const struct stat *st, int old, char *why,
			   size_t size)
{
	char names[XATTR_MAX], value[XATTR_MAX], *n;
	ssize_t nlen, vlen;
	int r = 0;

	if ((st->st_uid != geteuid() || st->st_gid != getegid()) &&
	    fchown(fd, st->st_uid, st->st_gid))
		return refuse(errno, why, size, "cannot keep its owner and "
			      "group (%u:%u): %s; the file is as it was; run as "
			      "root", (unsigned int)st->st_uid,
			      (unsigned int)st->st_gid, strerror(errno));
	if (fchmod(fd, st->st_mode & 07777))
		return failed(errno, why, size, NULL);
	nlen = flistxattr(old, names, sizeof(names));
	if (nlen < 0 && errno != ENOTSUP)
		r = failed(errno, why, size, "(its attributes)");
	for (n = names; !r && nlen > 0 && n < names + nlen;
	     n += strlen(n) + 1) {
		if (strcmp(n, "system.posix_acl_access") != 0 &&
		    (strncmp(n, "security.", 9) != 0 ||
		     strcmp(n, "security.capability") == 0 ||
		     strcmp(n, "security.ima") == 0 ||
		     strcmp(n, "security.evm") == 0))
			continue;
		vlen = fgetxattr(old, n, value, sizeof(value));
		if (vlen < 0 || fsetxattr(fd, n, value, (size_t)vlen, 0))
			r = refuse(errno, why, size, "cannot keep its attribute "
				   "%s: %s; the file is as it was", n,
				   strerror(errno));
	}
	return r;
}

/* Those of the file being replaced (T), onto FD. */
static int keep_attributes(int fd, const struct target *t, char *why,
			   size_t size)
{
	int old, r;

	/* O_NONBLOCK, O_NOFOLLOW: the file was a regular one a moment ago. */
	old = openat(t->dirfd, t->base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		     O_NOCTTY | O_CLOEXEC);
	if (old < 0)
		return failed(errno, why, size, NULL);
	r = copy_attributes(fd, &t->st, old, why, size);
	close(old);
	return r;
}

static int write_all(int fd, const char *data, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* ".BASE.uvtmp-XXXXXX", the X from the clock and the process. */
static void temp_name(const struct target *t, unsigned int seed, char *buf,
		      size_t size)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	char x[7];
	int i;

	for (i = 0; i < 6; i++) {
		x[i] = digits[seed % 36];
		seed = seed / 36 * 2654435761u + (unsigned int)i;
	}
	x[6] = '\0';
	snprintf(buf, size, ".%s" TMP_TAG "%s", t->base, x);
}

/* Temporary files of this target that a crash left; best effort. */
static void remove_stale(const struct target *t)
{
	char prefix[NAME_MAX + 16];
	struct dirent *de;
	struct stat st;
	size_t plen;
	int fd;
	DIR *d;

	snprintf(prefix, sizeof(prefix), ".%s" TMP_TAG, t->base);
	plen = strlen(prefix);
	fd = openat(t->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, prefix, plen) != 0 ||
		    strlen(de->d_name) != plen + 6 ||
		    fstatat(t->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
		    st.st_mtime > time(NULL) - STALE_SECONDS)
			continue;
		unlinkat(t->dirfd, de->d_name, 0);
	}
	closedir(d);
}

/*
 * An unnamed file in the directory, or where the filesystem has none, a
 * named one; its name in TMP once it has one (the caller links it).
 */
static int create_temp(const struct target *t, char *tmp, size_t size,
		       bool *named)
{
	unsigned int seed = (unsigned int)time(NULL) ^
			    (unsigned int)getpid() << 8;
	int fd, tries;

	fd = openat(t->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0) {
		*named = false;
		return fd;
	}
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	for (tries = 0; tries < 100; tries++, seed = seed * 69069u + 1) {
		temp_name(t, seed, tmp, size);
		fd = openat(t->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			*named = true;
			return fd;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* Give the unnamed file FD a temporary name in the directory. */
static int link_temp(const struct target *t, int fd, char *tmp, size_t size)
{
	unsigned int seed = (unsigned int)time(NULL) ^ (unsigned int)fd ^
			    (unsigned int)getpid() << 8;
	char proc[64];
	int tries;

	/* AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH; /proc does not. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (tries = 0; tries < 100; tries++, seed = seed * 69069u + 1) {
		temp_name(t, seed, tmp, size);
		if (linkat(AT_FDCWD, proc, t->dirfd, tmp, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		/* No /proc (early boot): root may name the file directly. */
		if (errno == ENOENT &&
		    linkat(fd, "", t->dirfd, tmp, AT_EMPTY_PATH) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/*
 * PATH replaced by LEN bytes of DATA, with the attributes of the file open
 * on LIKE (stat LIKE_ST), or with LIKE -1 of the file it replaces.
 */
static int replace(const char *path, const char *data, size_t len, int like,
		   const struct stat *like_st, char *why, size_t size)
{
	struct target t = { .dirfd = -1 };
	char tmp[NAME_MAX + 16];	/* the checks of split() keep it under NAME_MAX */
	bool named = false;
	int fd, r;

	why[0] = '\0';
	r = locate(path, &t, why, size);
	if (r)
		goto out;
	remove_stale(&t);
	fd = create_temp(&t, tmp, sizeof(tmp), &named);
	if (fd < 0) {
		r = failed(-fd, why, size, NULL);
		goto out;
	}
	if (like >= 0)
		r = copy_attributes(fd, like_st, like, why, size);
	else if (t.exists)
		r = keep_attributes(fd, &t, why, size);
	/* A new configuration, not a secret: readable like the rest of /etc. */
	else if (fchmod(fd, 0644))
		r = failed(errno, why, size, NULL);
	if (!r) {
		r = write_all(fd, data, len);
		if (!r && fsync(fd))
			r = -errno;
		if (r)
			r = failed(-r, why, size, NULL);
	}
	if (!r && !named) {
		r = link_temp(&t, fd, tmp, sizeof(tmp));
		if (r)
			r = failed(-r, why, size, NULL);
		else
			named = true;
	}
	if (close(fd) && !r)
		r = failed(errno, why, size, NULL);
	if (!r && renameat(t.dirfd, tmp, t.dirfd, t.base))
		r = failed(errno, why, size, NULL);
	if (r) {
		if (named)
			unlinkat(t.dirfd, tmp, 0);
		goto out;
	}
	/* The rename is only durable once the directory is on disk too. */
	if (fsync(t.dirfd)) {
		r = refuse(errno, why, size, "written, but syncing its directory "
			   "%s failed: %s; the new file may not survive a "
			   "crash: check the disk", t.dir, strerror(errno));
	}
out:
	if (t.dirfd >= 0)
		close(t.dirfd);
	return r;
}

int uv_replace_file(const char *path, const char *data, size_t len,
		    char *why, size_t size)
{
	return replace(path, data, len, -1, NULL, why, size);
}

/* Callers add strerror(); say what it alone would not. */
static int say(const char *path, int r, const char *why)
{
	if (r && !strstr(why, "; the file is as it was"))
		uv_warn("%s: %s", path, why);
	return r;
}

int uv_write_atomic(const char *path, const char *data, size_t len)
{
	char why[PATH_MAX + 256];

	return say(path, uv_replace_file(path, data, len, why, sizeof(why)),
		   why);
}

int uv_copy_file(const char *src, const char *dst)
{
	char why[PATH_MAX + 256], *data = NULL;
	struct stat st;
	size_t len;
	int fd, r;

	why[0] = '\0';
	fd = open(src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
		  O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = fstat(fd, &st) ? -errno : S_ISREG(st.st_mode) ? 0 : -EINVAL;
	if (!r)
		r = uv_slurp_fd(fd, CONFIG_MAX_SIZE, &data, &len);
	if (!r)
		r = say(dst, replace(dst, data, len, fd, &st, why, sizeof(why)),
			why);
	free(data);
	close(fd);
	return r;
}
