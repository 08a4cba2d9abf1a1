// SPDX-License-Identifier: GPL-2.0
/*
 * mce_guard.c: undervoltctl mce-guard, run by
 * undervoltctl-mce-guard.service (off unless enabled): offsets back to
 * 0 mV on a package whose core reports a machine check.
 *
 * It reads the kernel's mce:mce_record trace event, as rasdaemon does,
 * from a tracefs instance of its own (so that nobody else's tracing is
 * touched): it sleeps in poll() until a record or SIGTERM comes, with no
 * timer. A record that mce_from_offset() accepts (mce.c: corrected or
 * recoverable, from the core's own banks, not DRAM or I/O), of a package
 * with an offset other than 0 mV, makes it write 0 mV to every plane of
 * that package, cancel a trial that would put an offset back, and say
 * why in the journal.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "mce.h"
#include "trial.h"

#define INSTANCE "undervoltctl-mce"

/* Write TEXT to DIR/NAME, as tracefs takes it; 0 or -errno. */
static int put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if (uv_path(path, sizeof(path), "%s/%s", dir, name))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n < 0 ? -errno : 0;
}

static long cpu_package(const struct uv_sysfs *s, int cpu)
{
	char path[PATH_MAX];
	long v;

	if (uv_path(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/"
		    "physical_package_id", s->root, cpu) ||
	    sysfs_read_long(path, &v))
		return -1;
	return v;
}

/*
 * The driver names packages by their logical id: the rank of the physical
 * package id among those of the CPUs, as the kernel numbers them.
 */
static long logical_package(const struct uv_sysfs *s, long phys)
{
	char dir[PATH_MAX];
	bool lower[CONFIG_MAX_PACKAGES] = { false };
	struct dirent *de;
	long rank = 0, v;
	int cpu;
	DIR *d;

	if (uv_path(dir, sizeof(dir), "%s/devices/system/cpu", s->root) ||
	    !(d = opendir(dir)))
		return -1;
	while ((de = readdir(d)) != NULL)
		if (sscanf(de->d_name, "cpu%d", &cpu) == 1 &&
		    (v = cpu_package(s, cpu)) >= 0 && v < phys &&
		    v < CONFIG_MAX_PACKAGES)
			lower[v] = true;
	closedir(d);
	for (v = 0; v < CONFIG_MAX_PACKAGES; v++)
		rank += lower[v];
	return rank;
}

/* The driver's package of record R: 0 with *PKG, or -1. */
static int record_package(const struct uv_sysfs *s,
			  const struct mce_record *r, unsigned int *pkg)
{
	struct uv_package_list list;
	long phys = cpu_package(s, r->cpu), id;
	size_t i;

	if (phys < 0 && r->has_socket)
		phys = r->socket;
	if (phys < 0 || sysfs_packages(s, &list))
		return -1;
	id = logical_package(s, phys);
	for (i = 0; i < list.n; i++)
		if ((long)list.id[i] == id) {
			*pkg = list.id[i];
			return 0;
		}
	/* One package: whatever the numbering, it is that one. */
	if (list.n == 1) {
		*pkg = list.id[0];
		return 0;
	}
	return -1;
}

/* "core -106 mV, cache -106 mV": the offsets other than 0 of PKG. */
static size_t offsets_in_force(const struct uv_sysfs *s, unsigned int pkg,
			       char *buf, size_t size)
{
	char path[PATH_MAX];
	size_t len = 0, n = 0;
	enum plane pl;
	long v;

	buf[0] = '\0';
	for (pl = 0; pl < PLANE_COUNT; pl++) {
		if (sysfs_plane_path(s, pkg, pl, "offset_mv", path,
				     sizeof(path)) ||
		    sysfs_read_long(path, &v) || v == 0)
			continue;
		n++;
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len,
						"%s%s %ld mV", len ? ", " : "",
						plane_name(pl), v);
	}
	return n;
}

static void act(const struct uv_sysfs *s, const struct mce_record *r)
{
	char what[160], had[256];
	struct plan *p = NULL;
	unsigned int pkg;
	enum plane pl;
	int code;

	snprintf(what, sizeof(what), "a %s machine check (%s, MCA code 0x%04x) "
		 "in bank %u of CPU %d", mce_severity_name(mce_severity(r->status)),
		 mce_code_name(r->status), (unsigned int)(r->status & 0xffff),
		 r->bank, r->cpu);
	if (!mce_from_offset(r)) {
		uv_log(LOG_INFO, "%s: not a core's own error that an offset "
		       "causes; offsets left alone", what);
		return;
	}
	if (record_package(s, r, &pkg)) {
		uv_log(LOG_WARNING, "%s: no package of the driver goes with it "
		       "(is the driver bound?); offsets left alone", what);
		return;
	}
	if (!offsets_in_force(s, pkg, had, sizeof(had))) {
		uv_log(LOG_INFO, "%s: package %u has no offset; nothing to undo",
		       what, pkg);
		return;
	}
	if (trial_cancel(s))
		uv_log(LOG_WARNING, "%s: the trial that ran is cancelled: its "
		       "revert would put an offset back", what);
	p = malloc(sizeof(*p));
	code = p ? plan_init(s, p, NULL) : UV_EXIT_FAIL;
	for (pl = 0; pl < PLANE_COUNT && !code; pl++)
		if (sysfs_has_plane(s, pkg, pl))
			code = plan_add(s, p, pkg, pl, 0, 0);
	if (!code)
		code = plan_execute(s, p, &(struct plan_run){ .safety = true });
	if (code)
		uv_log(LOG_ERR, "%s, while package %u had %s: could not write "
		       "0 mV to its planes (see the messages before)", what, pkg,
		       had);
	else
		uv_log(LOG_WARNING, "%s, while package %u had %s: its offsets "
		       "are 0 mV now; the offset was too deep for this CPU",
		       what, pkg, had);
	free(p);
}

/* The instance's records, line by line, until SIGTERM or SIGINT. */
static int watch(const struct uv_sysfs *s, int pipe, int sig)
{
	struct pollfd pfd[2] = {
		{ .fd = pipe, .events = POLLIN }, { .fd = sig, .events = POLLIN },
	};
	char buf[8192], *nl;
	struct mce_record r;
	size_t len = 0;
	ssize_t n;

	for (;;) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			return -errno;
		if (pfd[1].revents & POLLIN)
			return 0;
		if (!(pfd[0].revents & (POLLIN | POLLHUP)))
			continue;
		n = read(pipe, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return n < 0 ? -errno : 0;
		len += (size_t)n;
		buf[len] = '\0';
		while ((nl = strchr(buf, '\n')) != NULL) {
			*nl = '\0';
			if (mce_parse(buf, &r) == 0)
				act(s, &r);
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len + 1);
		}
		if (len == sizeof(buf) - 1)
			len = 0;	/* no record is that long */
	}
}

int cmd_mce_guard(const struct uv_sysfs *s, const struct uv_opts *o)
{
	char inst[PATH_MAX], path[PATH_MAX];
	struct stat st;
	sigset_t set;
	int pipe = -1, sig = -1, r;

	(void)o;
	if (uv_path(inst, sizeof(inst), "%s/kernel/tracing/instances/%s",
		    s->root, INSTANCE))
		return UV_EXIT_USAGE;
	if (mkdir(inst, 0700) && errno != EEXIST) {
		uv_warn("mce-guard: %s: %s; is tracefs mounted on %s/kernel/"
			"tracing? (mount -t tracefs nodev /sys/kernel/tracing)",
			inst, strerror(errno), s->root);
		return UV_EXIT_FAIL;
	}
	if (lstat(inst, &st) || !S_ISDIR(st.st_mode)) {
		uv_warn("mce-guard: %s is not a tracefs instance", inst);
		return UV_EXIT_FAIL;
	}
	put(inst, "buffer_size_kb", "64");	/* a few records at a time */
	r = put(inst, "events/mce/mce_record/enable", "1");
	if (r) {
		uv_warn("mce-guard: %s/events/mce/mce_record/enable: %s; a "
			"kernel without CONFIG_X86_MCE has no such event",
			inst, strerror(-r));
		goto out;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sig = signalfd(-1, &set, SFD_CLOEXEC);
	if (!uv_path(path, sizeof(path), "%s/trace_pipe", inst))
		pipe = open(path, O_RDONLY | O_CLOEXEC);
	if (pipe < 0 || sig < 0) {
		r = -errno;
		uv_warn("mce-guard: %s: %s", path, strerror(errno));
		goto out;
	}
	uv_log(LOG_INFO, "watching for machine checks (%s)", inst);
	r = watch(s, pipe, sig);
	if (r)
		uv_warn("mce-guard: %s: %s", path, strerror(-r));
out:
	if (pipe >= 0)
		close(pipe);
	if (sig >= 0)
		close(sig);
	put(inst, "events/mce/mce_record/enable", "0");
	rmdir(inst);
	return r ? UV_EXIT_FAIL : UV_EXIT_OK;
}
