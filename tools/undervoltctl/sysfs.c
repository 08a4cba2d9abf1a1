// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs.c: the only place that touches the intel_undervolt sysfs files.
 *
 * Functions return 0 or a negative errno; they print nothing, so that each
 * verb can name the plane and value at fault and say what to do next.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "undervoltctl.h"

int uv_path(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return (n < 0 || (size_t)n >= size) ? -ENAMETOOLONG : 0;
}

/* V (a test build's environment variable) when set, else DFLT. */
static const char *test_path(const char *v, const char *dflt)
{
	return v && *v ? v : dflt;
}

int sysfs_init(struct uv_sysfs *s, const char *root)
{
	size_t len;

	if (!root || !*root)
		root = uv_test_env("UNDERVOLTCTL_SYSFS_ROOT");
	if (!root || !*root)
		root = "/sys";
	len = strlen(root);
	while (len > 0 && root[len - 1] == '/')
		len--;		/* "/" becomes "", so paths start "/devices" */
	if (uv_path(s->root, sizeof(s->root), "%.*s", (int)len, root) ||
	    uv_path(s->sysfs_arg, sizeof(s->sysfs_arg), "%s",
		    strcmp(s->root, "/sys") ? root : "") ||
	    uv_path(s->drv, sizeof(s->drv),
		     "%s/devices/system/cpu/intel_undervolt", s->root) ||
	    uv_path(s->params, sizeof(s->params),
		     "%s/module/intel_undervolt/parameters", s->root) ||
	    uv_path(s->proc, sizeof(s->proc), "%s",
		    test_path(uv_test_env("UNDERVOLTCTL_PROC_ROOT"), "/proc")) ||
	    uv_path(s->dev, sizeof(s->dev), "%s",
		    test_path(uv_test_env("UNDERVOLTCTL_DEV_ROOT"), "/dev")) ||
	    uv_path(s->run, sizeof(s->run), "%s",
		    test_path(uv_test_env("UNDERVOLTCTL_RUN_ROOT"), "/run")) ||
	    uv_path(s->state, sizeof(s->state), "%s",
		    test_path(uv_test_env("UNDERVOLTCTL_STATE_DIR"),
			      UV_STATE_DIR)))
		return -ENAMETOOLONG;
	return 0;
}

int sysfs_require_driver(const struct uv_sysfs *s)
{
	struct stat st;

	if (stat(s->drv, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	uv_warn("%s: no intel_undervolt driver; boot a kernel built with "
		"CONFIG_INTEL_UNDERVOLT or install the DKMS module, then "
		"run 'modprobe intel_undervolt'", s->drv);
	return UV_EXIT_NODRIVER;
}

#ifdef UNDERVOLTCTL_TEST_HOOKS
/*
 * Test builds only (the host tests' undervoltctl-asan and -test binaries):
 * VAR="RULE[,RULE...]" with RULE "SUFFIX=ERRNO" or "SUFFIX@VALUE=ERRNO"
 * makes an access to a path ending in SUFFIX (a write of VALUE only, with
 * @) fail with ERRNO, as the driver would: UNDERVOLTCTL_TEST_FAIL_WRITE
 * for writes, UNDERVOLTCTL_TEST_FAIL_READ for reads (ENODATA: an offset
 * the driver does not know). UNDERVOLTCTL_TEST_LOG_WRITES=FILE appends
 * "PATH=VALUE" to FILE for each write tried, so that a test sees the order
 * of writes. Installed binaries have no such hook.
 */
static int test_errno(const char *var, const char *path, const long *v)
{
	static const struct { const char *name; int e; } names[] = {
		{ "EIO", EIO }, { "EPERM", EPERM }, { "EINVAL", EINVAL },
		{ "ERANGE", ERANGE }, { "EOPNOTSUPP", EOPNOTSUPP },
		{ "ETIMEDOUT", ETIMEDOUT }, { "EACCES", EACCES },
		{ "ENODEV", ENODEV }, { "ENODATA", ENODATA },
	};
	const char *spec = getenv(var);
	char rule[256], *eq, *at;
	size_t plen = strlen(path), len, klen, i;

	while (spec && *spec) {
		len = strcspn(spec, ",");
		snprintf(rule, sizeof(rule), "%.*s", (int)len, spec);
		spec += len + (spec[len] == ',');
		eq = strchr(rule, '=');
		if (!eq)
			continue;
		*eq++ = '\0';
		at = strchr(rule, '@');
		if (at) {
			*at++ = '\0';
			if (!v || strtol(at, NULL, 10) != *v)
				continue;
		}
		klen = strlen(rule);
		if (klen > plen || strcmp(path + plen - klen, rule) != 0)
			continue;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strcmp(eq, names[i].name) == 0)
				return -names[i].e;
	}
	return 0;
}

static int test_read_hook(const char *path)
{
	return test_errno("UNDERVOLTCTL_TEST_FAIL_READ", path, NULL);
}

static int test_write_hook(const char *path, long v)
{
	const char *log = getenv("UNDERVOLTCTL_TEST_LOG_WRITES");
	FILE *f;

	if (log && *log && (f = fopen(log, "a")) != NULL) {
		fprintf(f, "%s=%ld\n", path, v);
		fclose(f);
	}
	return test_errno("UNDERVOLTCTL_TEST_FAIL_WRITE", path, &v);
}
#else
static int test_read_hook(const char *path)
{
	(void)path;
	return 0;
}

static int test_write_hook(const char *path, long v)
{
	(void)path;
	(void)v;
	return 0;
}
#endif

/* Read at most SIZE - 1 bytes of a small file, NUL-terminated. */
static int read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd, e;

	e = test_read_hook(path);
	if (e)
		return e;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = '\0';
	return 0;
}

/* A decimal integer and at most one newline, as the driver prints them. */
int sysfs_read_long(const char *path, long *v)
{
	char buf[64], *end;
	int r;

	r = read_small(path, buf, sizeof(buf));
	if (r)
		return r;
	errno = 0;
	*v = strtol(buf, &end, 10);
	if (end == buf || errno || (*end == '\n' ? end[1] : *end) != '\0' ||
	    buf[0] == ' ' || buf[0] == '\t' || buf[0] == '\n')
		return -EINVAL;
	return 0;
}

int sysfs_read_word(const char *path, char *buf, size_t size)
{
	size_t len;
	int r;

	r = read_small(path, buf, size);
	if (r)
		return r;
	len = strcspn(buf, "\n");
	buf[len] = '\0';
	return len ? 0 : -EINVAL;
}

/* A bool module parameter: the kernel prints Y or N (1 and 0 accepted). */
int sysfs_read_bool(const char *path, bool *v)
{
	char buf[8];
	int r;

	r = sysfs_read_word(path, buf, sizeof(buf));
	if (r)
		return r;
	if (strcmp(buf, "Y") == 0 || strcmp(buf, "1") == 0)
		*v = true;
	else if (strcmp(buf, "N") == 0 || strcmp(buf, "0") == 0)
		*v = false;
	else
		return -EINVAL;
	return 0;
}

/* One write(2) of "V\n", as the driver's store method expects. */
int sysfs_write_long(const char *path, long v)
{
	char buf[32];
	ssize_t n;
	int fd, len, r;

	r = test_write_hook(path, v);
	if (r)
		return r;
	len = snprintf(buf, sizeof(buf), "%ld\n", v);
	/* O_TRUNC is ignored by sysfs and keeps a test tree's files clean. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, (size_t)len);
	r = n < 0 ? -errno : (n != len ? -EIO : 0);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

int sysfs_drv_path(const struct uv_sysfs *s, const char *name, char *buf,
		   size_t size)
{
	return uv_path(buf, size, "%s/%s", s->drv, name);
}

int sysfs_param_path(const struct uv_sysfs *s, const char *name, char *buf,
		     size_t size)
{
	return uv_path(buf, size, "%s/%s", s->params, name);
}

int sysfs_pkg_path(const struct uv_sysfs *s, unsigned int pkg,
		   const char *name, char *buf, size_t size)
{
	return uv_path(buf, size, "%s/package_%02u/%s", s->drv, pkg, name);
}

int sysfs_plane_path(const struct uv_sysfs *s, unsigned int pkg,
		     enum plane plane, const char *suffix, char *buf,
		     size_t size)
{
	return uv_path(buf, size, "%s/package_%02u/%s_%s", s->drv, pkg,
			plane_name(plane), suffix);
}

/* What the firmware had set when the driver bound. */
int sysfs_initial_path(const struct uv_sysfs *s, unsigned int pkg,
		       enum plane plane, char *buf, size_t size)
{
	return uv_path(buf, size, "%s/package_%02u/initial_%s_offset_mv",
		       s->drv, pkg, plane_name(plane));
}

bool sysfs_has_plane(const struct uv_sysfs *s, unsigned int pkg,
		     enum plane plane)
{
	char path[PATH_MAX];

	return sysfs_plane_path(s, pkg, plane, "offset_mv", path,
				sizeof(path)) == 0 && access(path, F_OK) == 0;
}

static int parse_package_name(const char *name, unsigned int *id)
{
	const char *p;
	unsigned int v = 0;

	if (strncmp(name, "package_", 8) != 0 || !name[8])
		return -1;
	for (p = name + 8; *p; p++) {
		if (*p < '0' || *p > '9' || p - name > 10)
			return -1;
		v = v * 10 + (unsigned int)(*p - '0');
	}
	if (v >= CONFIG_MAX_PACKAGES)
		return -1;
	*id = v;
	return 0;
}

/* The package_NN directories, in ascending order. */
int sysfs_packages(const struct uv_sysfs *s, struct uv_package_list *list)
{
	struct dirent *de;
	unsigned int id;
	size_t i;
	DIR *d;

	list->n = 0;
	d = opendir(s->drv);
	if (!d)
		return -errno;
	while ((de = readdir(d)) != NULL) {
		if (parse_package_name(de->d_name, &id) < 0 ||
		    list->n == CONFIG_MAX_PACKAGES)
			continue;
		for (i = list->n; i > 0 && list->id[i - 1] > id; i--)
			list->id[i] = list->id[i - 1];
		list->id[i] = id;
		list->n++;
	}
	closedir(d);
	return 0;
}

int sysfs_bounds(const struct uv_sysfs *s, long *min, long *max)
{
	char path[PATH_MAX];
	int r;

	r = sysfs_drv_path(s, "min_offset_mv", path, sizeof(path));
	if (!r)
		r = sysfs_read_long(path, min);
	if (!r)
		r = sysfs_drv_path(s, "max_offset_mv", path, sizeof(path));
	if (!r)
		r = sysfs_read_long(path, max);
	return r;
}

const char *uv_input_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "(standard input)" : path;
}

/* Standard input is not closed: only main's exit does that. */
static void close_input(int fd)
{
	if (fd != STDIN_FILENO)
		close(fd);
}

int uv_slurp_fd(int fd, size_t max, char **bufp, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	char *buf, *nbuf;
	ssize_t n;
	int e;

	buf = malloc(cap + 1);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			if (cap > max) {
				e = EFBIG;
				goto fail;
			}
			nbuf = realloc(buf, cap * 2 + 1);
			if (!nbuf) {
				e = ENOMEM;
				goto fail;
			}
			buf = nbuf;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max) {
		free(buf);
		return -EFBIG;
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
fail:
	free(buf);
	return -e;
}

int uv_slurp(const char *path, size_t max, char **bufp, size_t *lenp)
{
	int fd, r;

	fd = strcmp(path, "-") == 0 ? STDIN_FILENO :
	     open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = uv_slurp_fd(fd, max, bufp, lenp);
	close_input(fd);
	return r;
}
