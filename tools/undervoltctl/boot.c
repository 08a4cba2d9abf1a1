// SPDX-License-Identifier: GPL-2.0
/*
 * boot.c: what keeps offsets applied at boot from locking the machine in
 * a crash loop.
 *
 * The recovery switch: "undervolt=off" on the kernel command line makes
 * the boot apply (apply --boot, as undervoltctl.service and the udev rule
 * run it) and tune --resume apply nothing. set by hand still works.
 *
 * The boot assessment, as systemd's automatic boot assessment does for
 * kernels: before apply --boot writes, it leaves a mark, boot.applying in
 * /var/lib/undervoltctl, naming this boot. boot-confirm (run by
 * undervoltctl-boot-confirm.service) clears it once the system stayed up
 * BOOT_CONFIRM_S seconds with the offsets, or when it is stopped (an
 * orderly shutdown is no crash). A mark of another boot means that boot
 * went down with the offsets before either: it becomes boot.failed, and
 * apply --boot applies nothing, saying why, until a successful apply by
 * hand clears it.
 *
 * Why 120 s: an offset that fails at idle fails as the CPU goes in and out
 * of its idle states, thousands of times a second, so within seconds;
 * two minutes also cover the burst of work a boot ends with (services,
 * timers, a desktop starting) that a marginal offset fails under. A user
 * who reboots at once is not caught, as the shutdown clears the mark.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "undervoltctl.h"

#define MARK_FILE "boot.applying"
#define FAILED_FILE "boot.failed"
#define BOOT_CONFIRM_S 120

struct mark {
	char boot_id[64];
	double at;		/* CLOCK_MONOTONIC of the apply */
	long long wall;		/* and its time of day */
	char config[PATH_MAX];
};

static unsigned int confirm_seconds(void)
{
	const char *v = uv_test_env("UNDERVOLTCTL_TEST_BOOT_CONFIRM_S");

	return v && *v ? (unsigned int)strtoul(v, NULL, 10) : BOOT_CONFIRM_S;
}

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool boot_recovery_switch(const struct uv_sysfs *s)
{
	char path[PATH_MAX], *buf, *tok, *save;
	bool on = false;
	size_t len;

	if (uv_path(path, sizeof(path), "%s/cmdline", s->proc) ||
	    uv_slurp(path, 1 << 16, &buf, &len))
		return false;
	for (tok = strtok_r(buf, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save))
		on |= strcmp(tok, "undervolt=off") == 0;
	free(buf);
	return on;
}

/* This boot's id; "" when the kernel does not say. */
static void boot_id(const struct uv_sysfs *s, char *buf, size_t size)
{
	char path[PATH_MAX];

	if (uv_path(path, sizeof(path), "%s/sys/kernel/random/boot_id",
		    s->proc) || sysfs_read_word(path, buf, size))
		buf[0] = '\0';
}

/* 0, -ENOENT without one, -EINVAL (said) when it does not parse. */
static int read_mark(const struct uv_sysfs *s, const char *name,
		     struct mark *m)
{
	char *buf, *line, *next;
	size_t len;
	int r, n;

	memset(m, 0, sizeof(*m));
	r = state_slurp(s->state, name, 1 << 16, &buf, &len);
	if (r)
		return r;
	for (line = buf; line && *line && !r; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		n = 0;
		if (line[0] == '#')
			continue;
		if (strncmp(line, "config ", 7) == 0)
			snprintf(m->config, sizeof(m->config), "%s", line + 7);
		else if (!(sscanf(line, "boot-id %63s %n", m->boot_id, &n) == 1 &&
			   !line[n]) &&
			 !(sscanf(line, "applied-at %lf %n", &m->at, &n) == 1 &&
			   !line[n]) &&
			 !(sscanf(line, "wall %lld %n", &m->wall, &n) == 1 &&
			   !line[n]))
			r = -EINVAL;
	}
	free(buf);
	if (r)
		uv_warn("%s/%s does not parse; it is taken as a boot that did "
			"not stay up", s->state, name);
	return r;
}

static const char *when(const struct mark *m, char *buf, size_t size)
{
	time_t t = (time_t)m->wall;
	struct tm tm;

	if (!m->wall || !localtime_r(&t, &tm) ||
	    !strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, size, "an earlier boot");
	return buf;
}

int boot_check(const struct uv_sysfs *s, const char *file)
{
	char id[64], from[PATH_MAX], to[PATH_MAX], at[32];
	struct mark m;
	int r;

	if (boot_recovery_switch(s)) {
		uv_warn("undervolt=off is on the kernel command line (the "
			"recovery switch): nothing was applied; 'undervoltctl "
			"set' still works by hand, and a boot without "
			"undervolt=off applies %s again", file);
		return UV_EXIT_POLICY;
	}
	r = state_dir_check(s->state, false);
	if (r == -ENOENT)
		return 0;
	if (r) {
		uv_warn("the boot assessment cannot be read: nothing was "
			"applied");
		return UV_EXIT_FAIL;
	}
	r = read_mark(s, FAILED_FILE, &m);
	if (r && r != -ENOENT && r != -EINVAL) {
		uv_warn("%s/%s: %s: the boot assessment cannot be read: nothing "
			"was applied", s->state, FAILED_FILE, strerror(-r));
		return UV_EXIT_FAIL;
	}
	if (r != -ENOENT) {
		uv_warn("the boot of %s applied the offsets of %s and did not "
			"stay up %u s after (boot assessment): nothing was "
			"applied; check the values with 'undervoltctl set "
			"--trial 300 ...', then run 'undervoltctl apply' by "
			"hand, which lets the boot apply run again",
			when(&m, at, sizeof(at)), m.config[0] ? m.config :
			"the configuration", confirm_seconds());
		return UV_EXIT_POLICY;
	}
	r = read_mark(s, MARK_FILE, &m);
	boot_id(s, id, sizeof(id));
	if (r == -ENOENT || (!r && strcmp(m.boot_id, id) == 0))
		return 0;
	if (state_path(s->state, MARK_FILE, from, sizeof(from)) ||
	    state_path(s->state, FAILED_FILE, to, sizeof(to)) ||
	    rename(from, to))
		uv_warn("%s: cannot record the failed boot: %s", to,
			strerror(errno));
	uv_log(LOG_WARNING, "the boot of %s applied the offsets of %s and went "
	       "down within %u s (boot assessment): nothing was applied, and "
	       "nothing is at the next boots until 'undervoltctl apply' is "
	       "run by hand", when(&m, at, sizeof(at)),
	       m.config[0] ? m.config : "the configuration", confirm_seconds());
	return UV_EXIT_POLICY;
}

int boot_note_switch(const struct uv_sysfs *s)
{
	if (boot_recovery_switch(s))
		uv_warn("undervolt=off is on the kernel command line: the boot "
			"apply applies nothing; applying by hand anyway");
	return 0;
}

int boot_mark(const struct uv_sysfs *s, const char *config)
{
	char id[64], *text = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	boot_id(s, id, sizeof(id));
	r = state_dir_check(s->state, true);
	f = r ? NULL : open_memstream(&text, &len);
	if (f) {
		fprintf(f, "# undervoltctl: offsets applied at boot, not yet "
			"counted good; see undervoltctl(8)\nboot-id %s\n"
			"applied-at %.3f\nwall %lld\nconfig %s\n", id[0] ? id :
			"unknown", now_mono(), (long long)time(NULL), config);
		r = fclose(f) ? -ENOMEM : state_write(s->state, MARK_FILE,
						      text, len);
	}
	free(text);
	if (!r && f)
		return 0;
	uv_warn("%s/%s: cannot write the boot assessment's mark: %s; nothing "
		"was applied", s->state, MARK_FILE, strerror(r ? -r : ENOMEM));
	return UV_EXIT_FAIL;
}

void boot_forget_failure(const struct uv_sysfs *s)
{
	char path[PATH_MAX];

	if (state_dir_check(s->state, false) ||
	    state_path(s->state, FAILED_FILE, path, sizeof(path)) ||
	    unlink(path))
		return;
	printf("the boot assessment's record of a boot that did not stay up "
	       "is cleared: undervoltctl.service applies the configuration at "
	       "the next boot again\n");
}

void boot_read(const struct uv_sysfs *s, struct boot_state *b)
{
	char id[64];
	struct mark m;
	int r;

	memset(b, 0, sizeof(*b));
	if (state_dir_check(s->state, false))
		return;
	r = read_mark(s, FAILED_FILE, &m);
	if (r == -ENOENT) {
		r = read_mark(s, MARK_FILE, &m);
		boot_id(s, id, sizeof(id));
		if (!r && strcmp(m.boot_id, id) == 0) {
			b->state = BOOT_PENDING;
			b->left = m.at + confirm_seconds() - now_mono();
			snprintf(b->config, sizeof(b->config), "%s", m.config);
			return;
		}
	}
	/* What cannot be read (not root) is not a failure. */
	if (r && r != -EINVAL)
		return;
	b->state = BOOT_FAILED;
	when(&m, b->when, sizeof(b->when));
	snprintf(b->config, sizeof(b->config), "%s", m.config);
}

/* A mark of this boot: 1 with *M, else 0. */
static int this_boot(const struct uv_sysfs *s, struct mark *m)
{
	char id[64];

	boot_id(s, id, sizeof(id));
	return read_mark(s, MARK_FILE, m) == 0 && strcmp(m->boot_id, id) == 0;
}

/*
 * boot-confirm: waits, without a timer of its own, for a mark of this
 * boot (inotify on the state directory) and for it to grow old enough
 * (poll's timeout), until SIGTERM, which ends the boot's assessment.
 */
int cmd_boot_confirm(const struct uv_sysfs *s, const struct uv_opts *o)
{
	unsigned int secs = confirm_seconds();
	struct pollfd pfd[2];
	char ev[4096];
	struct mark m;
	sigset_t set;
	double left;

	(void)o;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (state_dir_check(s->state, true))
		return UV_EXIT_FAIL;
	pfd[0].fd = signalfd(-1, &set, SFD_CLOEXEC);
	pfd[1].fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (pfd[0].fd < 0 || pfd[1].fd < 0 ||
	    inotify_add_watch(pfd[1].fd, s->state, IN_MOVED_TO |
			      IN_CLOSE_WRITE | IN_DELETE) < 0) {
		uv_warn("boot-confirm: %s: %s", s->state, strerror(errno));
		return UV_EXIT_FAIL;
	}
	pfd[0].events = pfd[1].events = POLLIN;
	for (;;) {
		left = -1;
		if (this_boot(s, &m)) {
			left = m.at + secs - now_mono();
			if (left <= 0) {
				state_unlink(s->state, MARK_FILE);
				uv_log(LOG_NOTICE, "the offsets applied at boot "
				       "(%s) stayed up %u s: the boot counts as "
				       "good", m.config, secs);
				continue;
			}
		}
		if (poll(pfd, 2, left < 0 ? -1 : (int)(left * 1000) + 1) < 0 &&
		    errno != EINTR)
			break;
		if (pfd[0].revents & POLLIN)
			break;
		while (read(pfd[1].fd, ev, sizeof(ev)) > 0)
			;
	}
	if (this_boot(s, &m)) {
		state_unlink(s->state, MARK_FILE);
		uv_log(LOG_NOTICE, "stopped %.0f s after the offsets were applied "
		       "at boot (%s): an orderly shutdown is no crash, the boot "
		       "counts as good", now_mono() - m.at, m.config);
	}
	return UV_EXIT_OK;
}
