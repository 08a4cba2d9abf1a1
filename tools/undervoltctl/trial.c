// SPDX-License-Identifier: GPL-2.0
/*
 * trial.c: set --trial, apply --trial, confirm and trial-revert: offsets
 * that go back unless confirmed, kept by user space since the driver's v3
 * dropped its trial mode.
 *
 * The trial file (/run/undervoltctl/trial, gone at reboot, when the
 * firmware forgets the offsets anyway) names the offsets to go back to,
 * per package and plane, the deadline on CLOCK_MONOTONIC (as systemd's
 * timers count: time asleep does not count), and how the revert is armed
 * (trial_arm.c). Everything that reads or writes it, or writes offsets
 * while it exists, holds trial.lock beside it.
 *
 * A second --trial while one runs replaces the deadline (now + its
 * seconds, shorter or longer) and adds its planes; the revert still goes
 * back to the offsets from before the first unconfirmed change. A change
 * without --trial while one runs reverts with it, and says so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "trial.h"

#define TRIAL_FILE "trial"
#define TRIAL_LOCK "trial.lock"

static int run_dir(const struct uv_sysfs *s, char *buf, size_t size)
{
	return uv_path(buf, size, "%s/undervoltctl", s->run);
}

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The trial lock, waited for: 0 with *FD, -ENOENT (no directory), -errno. */
static int lock_trial(const struct uv_sysfs *s, bool create, int *fd)
{
	char dir[PATH_MAX];
	int r;

	*fd = -1;
	if (run_dir(s, dir, sizeof(dir)))
		return -ENAMETOOLONG;
	r = state_dir_check(dir, create);
	if (r)
		return r;
	r = state_open(dir, TRIAL_LOCK, O_RDWR | O_CREAT, 0600);
	if (r < 0)
		return r;
	while (flock(r, LOCK_EX) && errno == EINTR)
		;
	*fd = r;
	return 0;
}

static void unlock_trial(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int parse_state(char *buf, struct trial_state *t)
{
	char *line, *next, word[16];
	unsigned int pkg;
	long mv;
	int n, p;

	memset(t, 0, sizeof(*t));
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		n = 0;
		if (line[0] == '#')
			continue;
		if (sscanf(line, "token %23s %n", t->token, &n) == 1 && !line[n])
			continue;
		if (sscanf(line, "deadline %lf %n", &t->deadline, &n) == 1 &&
		    !line[n])
			continue;
		if (sscanf(line, "seconds %u %n", &t->seconds, &n) == 1 &&
		    !line[n])
			continue;
		if (sscanf(line, "owner %15s %n", t->owner, &n) == 1 && !line[n])
			continue;
		if (sscanf(line, "armed %15s %ld %n", t->armed, &t->pid,
			   &n) == 2 && !line[n])
			continue;
		if (sscanf(line, "offset %u %15s %ld %n", &pkg, word, &mv,
			   &n) == 3 && !line[n] && pkg < CONFIG_MAX_PACKAGES &&
		    (p = plane_lookup(word, strlen(word))) >= 0 &&
		    mv >= -CONFIG_MAX_ABS_MV && mv <= CONFIG_MAX_ABS_MV &&
		    t->n < TRIAL_MAX) {
			t->off[t->n].pkg = pkg;
			t->off[t->n].plane = (enum plane)p;
			t->off[t->n++].mv = mv;
			continue;
		}
		return -EINVAL;
	}
	return t->token[0] && t->deadline > 0 && t->owner[0] && t->armed[0] ?
	       0 : -EINVAL;
}

/* 0, -ENOENT without a trial, -EINVAL (said) for a damaged file. */
static int load(const struct uv_sysfs *s, struct trial_state *t)
{
	char dir[PATH_MAX], *buf;
	size_t len;
	int r;

	if (run_dir(s, dir, sizeof(dir)))
		return -ENAMETOOLONG;
	r = state_slurp(dir, TRIAL_FILE, 1 << 16, &buf, &len);
	if (r)
		return r;
	r = parse_state(buf, t);
	free(buf);
	if (r)
		uv_warn("%s/%s is damaged; the offsets of the trial are unknown: "
			"check them with 'undervoltctl status', then remove it",
			dir, TRIAL_FILE);
	return r;
}

static int save(const struct uv_sysfs *s, const struct trial_state *t)
{
	char dir[PATH_MAX], *text = NULL;
	size_t len = 0, i;
	FILE *f;
	int r;

	if (run_dir(s, dir, sizeof(dir)))
		return -ENAMETOOLONG;
	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "# undervoltctl: offsets to go back to unless confirmed; "
		"see undervoltctl(8)\ntoken %s\ndeadline %.3f\nseconds %u\n"
		"owner %s\narmed %s %ld\n", t->token, t->deadline, t->seconds,
		t->owner, t->armed, t->pid);
	for (i = 0; i < t->n; i++)
		fprintf(f, "offset %u %s %ld\n", t->off[i].pkg,
			plane_name(t->off[i].plane), t->off[i].mv);
	if (fclose(f)) {
		free(text);
		return -ENOMEM;
	}
	r = state_write(dir, TRIAL_FILE, text, len);
	free(text);
	return r;
}

static void remove_state(const struct uv_sysfs *s)
{
	char dir[PATH_MAX];

	if (!run_dir(s, dir, sizeof(dir)))
		state_unlink(dir, TRIAL_FILE);
}

/* A fresh token, deadline and owner for T. */
static void renew(struct trial_state *t, unsigned int seconds,
		  const char *owner)
{
	unsigned char r[8];
	size_t i;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		for (i = 0; i < sizeof(r); i++)
			r[i] = (unsigned char)(rand() ^ getpid() ^ time(NULL));
	for (i = 0; i < sizeof(r); i++)
		snprintf(t->token + 2 * i, 3, "%02x", r[i]);
	t->deadline = now_mono() + seconds;
	t->seconds = seconds;
	snprintf(t->owner, sizeof(t->owner), "%s", owner);
}

/* PKG's PLANE goes back to MV, unless T already has an older value. */
static void add_offset(struct trial_state *t, unsigned int pkg,
		       enum plane plane, long mv)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->off[i].pkg == pkg && t->off[i].plane == plane)
			return;
	if (t->n < TRIAL_MAX) {
		t->off[t->n].pkg = pkg;
		t->off[t->n].plane = plane;
		t->off[t->n++].mv = mv;
	}
}

int trial_begin(const struct uv_sysfs *s, struct trial_txn *t,
		const struct plan *p, unsigned int seconds, const char *owner)
{
	size_t i;
	int r;

	t->had = t->changed = t->rearmed = false;
	t->seconds = seconds;
	r = lock_trial(s, seconds > 0, &t->lock);
	if (r == -ENOENT && !seconds)
		return 0;	/* no directory: no trial runs */
	if (r) {
		uv_warn("%s/undervoltctl: %s; nothing was changed%s", s->run,
			strerror(-r), r == -EACCES ? "; run as root" : "");
		return UV_EXIT_FAIL;
	}
	r = load(s, &t->old);
	if (r && r != -ENOENT)
		goto fail;
	t->had = r == 0;
	if (!t->had && !seconds) {
		unlock_trial(&t->lock);
		return 0;
	}
	if (t->had)
		t->cur = t->old;
	else
		memset(&t->cur, 0, sizeof(t->cur));
	/* Observed: core or cache, which move with the other where coupled. */
	for (i = 0; i < p->n; i++)
		if (p->c[i].from != p->c[i].to ||
		    (p->c[i].observe && (p->c[i].plane == PLANE_CORE ||
					 p->c[i].plane == PLANE_CACHE)))
			add_offset(&t->cur, p->c[i].pkg, p->c[i].plane,
				   p->c[i].from);
	if (seconds) {
		renew(&t->cur, seconds, owner);
		if (t->had)
			trial_disarm(&t->old);
		/*
		 * The timer's seconds are counted from now, not from when this
		 * change began: renew() set the deadline from the clock too.
		 */
		if (trial_arm(s, &t->cur, now_mono())) {
			uv_warn("cannot arm the revert of the trial (neither "
				"systemd-run nor a detached process started); "
				"nothing was changed");
			if (t->had && !trial_arm(s, &t->old, now_mono()))
				save(s, &t->old);
			goto fail;
		}
		t->rearmed = true;
	}
	r = save(s, &t->cur);
	if (r) {
		uv_warn("%s/undervoltctl/%s: %s; nothing was changed", s->run,
			TRIAL_FILE, strerror(-r));
		t->changed = true;
		trial_abort(s, t);
		return UV_EXIT_FAIL;
	}
	t->changed = true;
	return 0;
fail:
	unlock_trial(&t->lock);
	return UV_EXIT_FAIL;
}

void trial_abort(const struct uv_sysfs *s, struct trial_txn *t)
{
	if (t->changed) {
		if (t->rearmed)
			trial_disarm(&t->cur);
		if (t->had && t->rearmed)
			trial_arm(s, &t->old, now_mono());
		if (t->had)
			save(s, &t->old);
		else
			remove_state(s);
	}
	unlock_trial(&t->lock);
}

void trial_end(struct trial_txn *t)
{
	double left = t->cur.deadline - now_mono();

	unlock_trial(&t->lock);
	if (t->seconds) {
		printf("provisional for %u s: run 'undervoltctl confirm' to "
		       "keep these offsets\n", t->seconds);
		if (t->had)
			printf("the trial that was running now ends with this "
			       "one; its revert goes back to the offsets from "
			       "before it\n");
	} else if (t->had) {
		printf("provisional: a trial started earlier reverts every "
		       "offset, these too, in %.0f s\n", left > 0 ? left : 0);
		uv_warn("a trial period is still running (%.0f s left); this "
			"change reverts with it unless you run 'undervoltctl "
			"confirm'", left > 0 ? left : 0);
	}
}

int trial_read(const struct uv_sysfs *s, struct trial_state *t, double *left)
{
	char dir[PATH_MAX];
	int r;

	if (run_dir(s, dir, sizeof(dir)))
		return -ENAMETOOLONG;
	r = state_dir_check(dir, false);
	if (!r)
		r = load(s, t);
	if (r == -ENOENT)
		return 0;
	if (r)
		return r;
	*left = t->deadline - now_mono();
	return 1;
}

int trial_arm_values(const struct uv_sysfs *s, const struct trial_offset *off,
		     size_t n, unsigned int seconds, const char *owner)
{
	struct trial_state *t = calloc(1, sizeof(*t));
	int fd = -1, r;

	if (!t)
		return -ENOMEM;
	r = lock_trial(s, true, &fd);
	if (!r)
		r = load(s, t);
	if (!r && strcmp(t->owner, owner) != 0)
		r = -EBUSY;
	if (!r)
		trial_disarm(t);
	if (!r || r == -ENOENT) {
		memset(t, 0, sizeof(*t));
		t->n = n < TRIAL_MAX ? n : TRIAL_MAX;
		memcpy(t->off, off, t->n * sizeof(*off));
		renew(t, seconds, owner);
		r = trial_arm(s, t, now_mono()) ? -EAGAIN : save(s, t);
	}
	unlock_trial(&fd);
	free(t);
	return r;
}

void trial_disarm_owner(const struct uv_sysfs *s, const char *owner)
{
	struct trial_state *t = malloc(sizeof(*t));
	int fd = -1;

	if (t && !lock_trial(s, false, &fd) && !load(s, t) &&
	    strcmp(t->owner, owner) == 0) {
		trial_disarm(t);
		remove_state(s);
	}
	unlock_trial(&fd);
	free(t);
}

bool trial_cancel(const struct uv_sysfs *s)
{
	struct trial_state *t = malloc(sizeof(*t));
	bool had = false;
	int fd = -1;

	if (t && !lock_trial(s, false, &fd) && !load(s, t)) {
		trial_disarm(t);
		remove_state(s);
		had = true;
	}
	unlock_trial(&fd);
	free(t);
	return had;
}

int cmd_confirm(const struct uv_sysfs *s, const struct uv_opts *o)
{
	struct trial_state *t = malloc(sizeof(*t));
	int fd = -1, r, code = UV_EXIT_OK;

	(void)o;
	if (!t) {
		uv_warn("out of memory");
		return UV_EXIT_FAIL;
	}
	r = lock_trial(s, false, &fd);
	if (!r)
		r = load(s, t);
	if (r == -ENOENT) {
		printf("nothing is provisional; nothing to confirm\n");
	} else if (r) {
		uv_warn("%s/undervoltctl: cannot confirm: %s; the trial offsets "
			"will be reverted when it ends%s", s->run, strerror(-r),
			r == -EACCES ? "; run as root" : "");
		code = UV_EXIT_FAIL;
	} else if (strcmp(t->owner, "tune") == 0) {
		uv_warn("the trial that runs is tune's own, around the value "
			"under test; nothing to confirm");
		code = UV_EXIT_FAIL;
	} else {
		trial_disarm(t);
		remove_state(s);
		printf("confirmed: the offsets stay\n");
	}
	unlock_trial(&fd);
	free(t);
	return code;
}

/* The offsets of T back, all or nothing; what it did goes to syslog. */
static int revert(const struct uv_sysfs *s, const struct trial_state *t)
{
	struct plan *p = malloc(sizeof(*p));
	char what[768] = "";
	size_t i, len = 0;
	int code;

	if (!p)
		return UV_EXIT_FAIL;
	code = sysfs_require_driver(s);
	if (!code)
		code = plan_init(s, p, NULL);
	for (i = 0; i < t->n && !code; i++)
		if (sysfs_has_plane(s, t->off[i].pkg, t->off[i].plane))
			code = plan_add(s, p, t->off[i].pkg, t->off[i].plane,
					t->off[i].mv, 0);
	if (!code)
		code = plan_execute(s, p, &(struct plan_run){ .safety = true });
	for (i = 0; !code && i < p->n && len < sizeof(what) - 64; i++)
		if (p->c[i].written)
			len += (size_t)snprintf(what + len, sizeof(what) - len,
						"%spackage %u %s %ld -> %ld mV",
						len ? ", " : "", p->c[i].pkg,
						plane_name(p->c[i].plane),
						p->c[i].from, p->c[i].to);
	if (code)
		uv_log(LOG_ERR, "a trial of %u s (%s) ended without 'undervoltctl "
		       "confirm', and its offsets could not all be put back "
		       "(see the messages before); check them with "
		       "'undervoltctl status'", t->seconds, t->owner);
	else
		uv_log(LOG_WARNING, "a trial of %u s (%s) ended without "
		       "'undervoltctl confirm': the offsets went back%s%s",
		       t->seconds, t->owner, len ? ": " : " (they had not "
		       "changed)", what);
	free(p);
	return code;
}

/*
 * trial-revert [--wait] TOKEN: run by the armed timer, or, with --wait,
 * as the detached process that sleeps until the deadline first.
 */
int cmd_trial_revert(const struct uv_sysfs *s, int argc, char **argv)
{
	struct trial_state *t = malloc(sizeof(*t));
	bool wait = argc == 3 && strcmp(argv[1], "--wait") == 0;
	const char *token = argc > 1 ? argv[argc - 1] : "";
	struct timespec ts;
	int fd = -1, code = UV_EXIT_OK;

	if ((argc != 2 && !wait) || !t) {
		uv_warn("trial-revert: expected [--wait] TOKEN; it is run by "
			"'--trial', not by hand");
		free(t);
		return UV_EXIT_USAGE;
	}
	/*
	 * Whoever armed this process holds the lock until the trial file
	 * names it: read the deadline under the lock, then sleep without it.
	 */
	if (wait && !lock_trial(s, false, &fd) && !load(s, t) &&
	    strcmp(t->token, token) == 0) {
		unlock_trial(&fd);
		ts.tv_sec = (time_t)t->deadline;
		ts.tv_nsec = (long)((t->deadline - (double)ts.tv_sec) * 1e9);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
	}
	unlock_trial(&fd);
	/* Confirmed, or armed again, meanwhile: nothing to do. */
	if (!lock_trial(s, false, &fd) && !load(s, t) &&
	    strcmp(t->token, token) == 0) {
		code = revert(s, t);
		remove_state(s);
	}
	unlock_trial(&fd);
	free(t);
	return code;
}
