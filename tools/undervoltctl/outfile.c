// SPDX-License-Identifier: GPL-2.0
/*
 * outfile.c: write a file whole or not at all.
 *
 * "undervoltctl import > /etc/undervolt.conf" lets the shell empty the file
 * before the import has even read its input; "import -o FILE" writes a
 * temporary file beside FILE and renames it over FILE only once the data
 * is on disk, so that a failed import, a full disk or a crash at boot
 * never leaves a truncated configuration behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "undervoltctl.h"

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

/* The rename is only durable once the directory is on disk too. */
static void sync_dir(const char *path)
{
	char dir[PATH_MAX];
	int fd;

	if (uv_path(dir, sizeof(dir), "%s", path))
		return;
	fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	fsync(fd);
	close(fd);
}

int uv_write_atomic(const char *path, const char *data, size_t len)
{
	char tmp[PATH_MAX];
	int fd, r;

	if (uv_path(tmp, sizeof(tmp), "%s.XXXXXX", path))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* A configuration, not a secret: readable like the rest of /etc. */
	r = fchmod(fd, 0644) ? -errno : 0;
	if (!r)
		r = write_all(fd, data, len);
	if (!r && fsync(fd))
		r = -errno;
	if (close(fd) && !r)
		r = -errno;
	if (!r && rename(tmp, path))
		r = -errno;
	if (r) {
		unlink(tmp);
		return r;
	}
	sync_dir(path);
	return 0;
}
