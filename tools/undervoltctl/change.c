// SPDX-License-Identifier: GPL-2.0
/*
 * change.c: the verbs that write offsets (set, reset, apply) and confirm.
 *
 * Every write goes through one plan: read the current value of each plane
 * to change, check bounds and policy, write in order, read everything back,
 * and on any failure write the previous values back in reverse order. On
 * Skylake and later core and cache are one plane in hardware, so restoring
 * the previous values in reverse order restores both.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "undervoltctl.h"

struct change {
	unsigned int pkg;
	enum plane plane;
	long from;
	long to;
	unsigned int line;	/* config file line, 0 from the command line */
	bool written;
	/*
	 * A plane of a touched package that the plan does not set: it is read
	 * before and after, never written, so that a plane that moved with
	 * another (core and cache on Skylake) is reported too.
	 */
	bool observe;
};

struct plan {
	const char *file;	/* config file the values came from, or NULL */
	long min, max;
	size_t n;
	struct change c[CONFIG_MAX_PACKAGES * PLANE_COUNT];
};

/* "FILE:LINE: " when the value came from a config file. */
static const char *where(const struct plan *p, const struct change *c,
			 char *buf, size_t size)
{
	if (p->file && c->line)
		snprintf(buf, size, "%s:%u: ", p->file, c->line);
	else
		buf[0] = '\0';
	return buf;
}

static int plan_init(const struct uv_sysfs *s, struct plan *p,
		     const char *file)
{
	int r;

	p->file = file;
	p->n = 0;
	r = sysfs_bounds(s, &p->min, &p->max);
	if (r) {
		uv_warn("%s/min_offset_mv, max_offset_mv: cannot read the "
			"bounds: %s; check the driver with dmesg", s->drv,
			strerror(-r));
		return UV_EXIT_FAIL;
	}
	return 0;
}

static int plan_add(const struct uv_sysfs *s, struct plan *p,
		    unsigned int pkg, enum plane plane, long to,
		    unsigned int line)
{
	char path[PATH_MAX], at[PATH_MAX + 16];
	struct change *c = &p->c[p->n];
	int r;

	if (p->n == sizeof(p->c) / sizeof(p->c[0]))
		return UV_EXIT_FAIL;	/* cannot happen: one per plane */
	c->pkg = pkg;
	c->plane = plane;
	c->to = to;
	c->line = line;
	c->written = false;
	c->observe = false;
	where(p, c, at, sizeof(at));
	if (!sysfs_has_plane(s, pkg, plane)) {
		/*
		 * intel-undervolt files list all five planes, most at 0: an
		 * offset of 0 on a plane the CPU lacks is what it has anyway.
		 */
		if (to == 0)
			return 0;
		uv_warn("%spackage %u has no %s plane, so it cannot take %ld "
			"mV; remove that value or make it 0 ('undervoltctl "
			"status' lists the planes present)", at, pkg,
			plane_name(plane), to);
		return UV_EXIT_FAIL;
	}
	if (to < p->min || to > p->max) {
		uv_warn("%spackage %u %s=%ld: outside the bounds in force, "
			"%ld to %ld mV; choose a value within them", at, pkg,
			plane_name(plane), to, p->min, p->max);
		return UV_EXIT_FAIL;
	}
	r = sysfs_plane_path(s, pkg, plane, "offset_mv", path, sizeof(path));
	if (!r)
		r = sysfs_read_long(path, &c->from);
	if (r) {
		uv_warn("%s: cannot read the current offset: %s; nothing was "
			"changed", path, strerror(-r));
		return UV_EXIT_FAIL;
	}
	p->n++;
	return 0;
}

static bool plan_has_package(const struct plan *p, unsigned int pkg)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->c[i].pkg == pkg && p->c[i].from != p->c[i].to)
			return true;
	return false;
}

/* The number of planes the plan changes. */
static size_t plan_changes(const struct plan *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->n; i++)
		n += p->c[i].from != p->c[i].to;
	return n;
}

/* Add the planes of each changed package that the plan leaves alone. */
static int plan_observe(const struct uv_sysfs *s, struct plan *p)
{
	char path[PATH_MAX];
	size_t i, j, n = p->n;
	enum plane pl;

	for (i = 0; i < n; i++) {
		if (!plan_has_package(p, p->c[i].pkg))
			continue;
		for (pl = 0; pl < PLANE_COUNT; pl++) {
			struct change *c = &p->c[p->n];

			for (j = 0; j < p->n; j++)
				if (p->c[j].pkg == p->c[i].pkg &&
				    p->c[j].plane == pl)
					break;
			if (j < p->n || !sysfs_has_plane(s, p->c[i].pkg, pl))
				continue;
			if (sysfs_plane_path(s, p->c[i].pkg, pl, "offset_mv",
					     path, sizeof(path)) ||
			    sysfs_read_long(path, &c->from))
				continue;	/* only for the report */
			c->pkg = p->c[i].pkg;
			c->plane = pl;
			c->to = c->from;
			c->line = 0;
			c->written = false;
			c->observe = true;
			p->n++;
		}
	}
	return 0;
}

/* Refuse early, before any write, when the driver says it will refuse. */
static int check_policy(const struct uv_sysfs *s, const struct plan *p)
{
	struct uv_package_list pkgs;
	char reason[64];
	size_t i;

	if (sysfs_packages(s, &pkgs))
		return 0;
	for (i = 0; i < pkgs.n; i++) {
		if (!plan_has_package(p, pkgs.id[i]) ||
		    sysfs_block_reason(s, pkgs.id[i], reason, sizeof(reason)))
			continue;
		if (sysfs_block_advice(reason)) {
			uv_warn("package %u: writes refused (%s): %s; nothing "
				"was changed", pkgs.id[i], reason,
				sysfs_block_advice(reason));
			return UV_EXIT_POLICY;
		}
	}
	return 0;
}

/* Why a write failed, what to do, and the exit code that goes with it. */
static int explain(const struct uv_sysfs *s, const struct plan *p,
		   unsigned int pkg, int err, char *buf, size_t size)
{
	static const struct { int err; const char *text; } advice[] = {
		{ EACCES, "permission denied; run as root" },
		{ EINVAL, "the driver rejected the value as malformed; "
			  "report this as a bug" },
		{ EOPNOTSUPP, "this CPU has no offset on that plane; leave it "
			      "out" },
		{ EIO, "the firmware ignored or failed the write; this CPU "
		       "may not allow offsets on that plane" },
		{ ETIMEDOUT, "the firmware stayed busy; try again" },
		{ ENOENT, "the file went away; was the driver unloaded?" },
	};
	char reason[64];
	size_t i;

	if (err == EPERM) {
		if (sysfs_block_reason(s, pkg, reason, sizeof(reason)) == 0 &&
		    sysfs_block_advice(reason)) {
			snprintf(buf, size, "refused (%s): %s", reason,
				 sysfs_block_advice(reason));
			return UV_EXIT_POLICY;
		}
		snprintf(buf, size, "not permitted; run as root (writes need "
			 "CAP_SYS_RAWIO)");
		return UV_EXIT_FAIL;
	}
	if (err == ERANGE) {
		snprintf(buf, size, "outside the driver's bounds (%ld to %ld "
			 "mV); choose a value within them", p->min, p->max);
		return UV_EXIT_FAIL;
	}
	for (i = 0; i < sizeof(advice) / sizeof(advice[0]); i++)
		if (advice[i].err == err) {
			snprintf(buf, size, "%s", advice[i].text);
			return UV_EXIT_FAIL;
		}
	snprintf(buf, size, "%s", strerror(err));
	return UV_EXIT_FAIL;
}

/* Write back the previous values, last written first; false if any fails. */
static bool rollback(const struct uv_sysfs *s, struct plan *p)
{
	char path[PATH_MAX];
	bool ok = true;
	size_t i;
	int r;

	for (i = p->n; i-- > 0;) {
		struct change *c = &p->c[i];

		if (!c->written)
			continue;
		r = sysfs_plane_path(s, c->pkg, c->plane, "offset_mv", path,
				     sizeof(path));
		if (!r)
			r = sysfs_write_long(path, c->from);
		if (r) {
			uv_warn("package %u %s: could not put back %ld mV: %s; "
				"check with 'undervoltctl status'", c->pkg,
				plane_name(c->plane), c->from, strerror(-r));
			ok = false;
		}
	}
	return ok;
}

/*
 * The driver's trial mode is one module parameter, trial_seconds, for every
 * writer: while it is not 0, each offset write by anyone is provisional and
 * reverts unless confirmed. Left on by a --trial run, or set on the kernel
 * command line, it would silently revert a later plain change (the boot
 * unit's included). So each change runs its writes under the value it asks
 * for, --trial N or 0, and puts the previous value back afterwards. Setting
 * it to 0 does not cancel a countdown that already runs; a change made then
 * reverts with it, and trial_report() says so.
 */
struct trial {
	long want;		/* trial_seconds for our writes */
	long saved;		/* trial_seconds before them */
	bool touched;		/* we wrote trial_seconds */
};

static int trial_begin(const struct uv_sysfs *s, const struct uv_opts *o,
		       struct trial *t)
{
	char path[PATH_MAX];
	int r;

	t->want = o->has_trial ? (long)o->trial_seconds : 0;
	t->touched = false;
	r = sysfs_param_path(s, "trial_seconds", path, sizeof(path));
	if (!r)
		r = sysfs_read_long(path, &t->saved);
	if (r == -ENOENT && t->want == 0)
		return 0;	/* no trial mode: every write stays until reboot */
	if (r == -ENOENT) {
		uv_warn("%s: trial mode is not supported by this driver; "
			"update it or leave out --trial; nothing was changed",
			path);
		return UV_EXIT_FAIL;
	}
	if (!r && t->saved == t->want)
		return 0;
	if (!r)
		r = sysfs_write_long(path, t->want);
	if (r) {
		uv_warn("%s: cannot set the trial period to %ld: %s; nothing "
			"was changed%s", path, t->want, strerror(-r),
			r == -EACCES || r == -EPERM ? "; run as root" : "");
		return UV_EXIT_FAIL;
	}
	t->touched = true;
	return 0;
}

static void trial_end(const struct uv_sysfs *s, const struct trial *t)
{
	char path[PATH_MAX];

	if (!t->touched)
		return;
	if (sysfs_param_path(s, "trial_seconds", path, sizeof(path)) ||
	    sysfs_write_long(path, t->saved))
		uv_warn("%s: could not put back %ld; as root, run 'echo %ld > "
			"%s'", path, t->saved, t->saved, path);
}

/* After a successful change: say whether and for how long it is provisional. */
static void trial_report(const struct uv_sysfs *s, const struct trial *t)
{
	char path[PATH_MAX];
	long left = 0;

	if (t->want) {
		printf("provisional for %ld s: run 'undervoltctl confirm' to "
		       "keep these offsets\n", t->want);
		return;
	}
	if (sysfs_drv_path(s, "trial_remaining_s", path, sizeof(path)) ||
	    sysfs_read_long(path, &left) || left <= 0)
		return;
	printf("provisional: a trial started earlier reverts every offset, "
	       "these too, in %ld s\n", left);
	uv_warn("a trial period is still running (%ld s left); this change "
		"reverts with it unless you run 'undervoltctl confirm'", left);
}

static void print_plan(const struct plan *p, bool dry_run)
{
	size_t i;

	if (!plan_changes(p) && (!dry_run || p->n == 0))
		printf("nothing to change\n");
	for (i = 0; i < p->n; i++) {
		const struct change *c = &p->c[i];

		if (c->observe) {
			if (c->from != c->to)
				printf("package %u %s: %ld -> %ld mV (moved "
				       "with %s: one plane on this CPU)\n",
				       c->pkg, plane_name(c->plane), c->from,
				       c->to, c->plane == PLANE_CACHE ?
				       "core" : c->plane == PLANE_CORE ?
				       "cache" : "another plane");
			continue;
		}
		if (c->from == c->to) {
			if (dry_run)
				printf("package %u %s: %ld mV (unchanged)\n",
				       c->pkg, plane_name(c->plane), c->to);
			continue;
		}
		printf("package %u %s: %ld -> %ld mV%s\n", c->pkg,
		       plane_name(c->plane), c->from, c->to,
		       dry_run ? " (dry run)" : "");
	}
}

/* Read every plane of the plan back; a coupled plane shows up here. */
static int verify(const struct uv_sysfs *s, struct plan *p)
{
	char path[PATH_MAX];
	long now;
	size_t i;
	int r;

	for (i = 0; i < p->n; i++) {
		const struct change *c = &p->c[i];

		r = sysfs_plane_path(s, c->pkg, c->plane, "offset_mv", path,
				     sizeof(path));
		if (!r)
			r = sysfs_read_long(path, &now);
		if (r && c->observe)
			continue;	/* only for the report */
		if (r) {
			uv_warn("%s: cannot read back: %s", path,
				strerror(-r));
			return -1;
		}
		if (c->observe) {
			p->c[i].to = now;
			continue;
		}
		if (now == c->to)	/* the driver reads back exactly */
			continue;
		if (c->plane == PLANE_CORE || c->plane == PLANE_CACHE)
			uv_warn("package %u %s reads %ld mV, not %ld: on this "
				"CPU core and cache are one plane; give both "
				"the same value", c->pkg, plane_name(c->plane),
				now, c->to);
		else
			uv_warn("package %u %s reads %ld mV, not %ld: the "
				"firmware did not keep the value", c->pkg,
				plane_name(c->plane), now, c->to);
		return -1;
	}
	return 0;
}

/* Package by package, planes in their usual order: stable for the eye. */
static void plan_sort(struct plan *p)
{
	struct change tmp;
	size_t i, j;

	for (i = 1; i < p->n; i++) {
		tmp = p->c[i];
		for (j = i; j > 0 && (p->c[j - 1].pkg > tmp.pkg ||
				      (p->c[j - 1].pkg == tmp.pkg &&
				       p->c[j - 1].plane > tmp.plane)); j--)
			p->c[j] = p->c[j - 1];
		p->c[j] = tmp;
	}
}

static int plan_execute(const struct uv_sysfs *s, const struct uv_opts *o,
			struct plan *p)
{
	char path[PATH_MAX], why[256], at[PATH_MAX + 16];
	struct trial t;
	bool restored;
	size_t i;
	int r, code;

	plan_sort(p);
	/* A dry run answers what the real run would: refusals included. */
	code = check_policy(s, p);
	if (code)
		return code;
	if (o->dry_run) {
		print_plan(p, true);
		return UV_EXIT_OK;
	}
	if (!plan_changes(p)) {
		print_plan(p, false);
		return UV_EXIT_OK;
	}
	plan_observe(s, p);
	plan_sort(p);
	code = trial_begin(s, o, &t);
	if (code)
		return code;
	for (i = 0; i < p->n; i++) {
		struct change *c = &p->c[i];

		if (c->from == c->to)
			continue;
		r = sysfs_plane_path(s, c->pkg, c->plane, "offset_mv", path,
				     sizeof(path));
		if (!r)
			r = sysfs_write_long(path, c->to);
		if (!r) {
			c->written = true;
			continue;
		}
		code = explain(s, p, c->pkg, -r, why, sizeof(why));
		restored = rollback(s, p);
		trial_end(s, &t);
		uv_warn("%spackage %u %s=%ld: %s%s", where(p, c, at, sizeof(at)),
			c->pkg, plane_name(c->plane), c->to, why,
			restored ? "; nothing was changed" : "");
		return code;
	}
	if (verify(s, p)) {
		if (rollback(s, p))
			uv_warn("the previous offsets were put back; nothing "
				"was changed");
		trial_end(s, &t);
		return UV_EXIT_FAIL;
	}
	trial_end(s, &t);
	print_plan(p, false);
	trial_report(s, &t);
	return UV_EXIT_OK;
}

/* The packages a verb works on: --package N, or all of them. */
static int target_packages(const struct uv_sysfs *s, const struct uv_opts *o,
			   struct uv_package_list *list)
{
	size_t i;
	int r;

	r = sysfs_packages(s, list);
	if (r) {
		uv_warn("%s: cannot list packages: %s; check the driver with "
			"dmesg", s->drv, strerror(-r));
		return UV_EXIT_FAIL;
	}
	if (!o->has_package)
		return 0;
	for (i = 0; i < list->n; i++) {
		if (list->id[i] == o->package) {
			list->id[0] = o->package;
			list->n = 1;
			return 0;
		}
	}
	uv_warn("no package %u; 'undervoltctl status' lists them", o->package);
	return UV_EXIT_FAIL;
}

/*
 * Add PLANE=MV for each of PKGS. Without --package, packages that lack the
 * plane are left out (a second socket has no GPU), as long as one has it.
 */
static int plan_add_packages(const struct uv_sysfs *s,
			     const struct uv_opts *o, struct plan *p,
			     const struct uv_package_list *pkgs,
			     enum plane plane, long mv, unsigned int line)
{
	char at[PATH_MAX + 16];
	struct change c = { .line = line };
	size_t i, added = 0;
	int code;

	for (i = 0; i < pkgs->n; i++) {
		if (!o->has_package && !sysfs_has_plane(s, pkgs->id[i], plane))
			continue;
		code = plan_add(s, p, pkgs->id[i], plane, mv, line);
		if (code)
			return code;
		added++;
	}
	if (added || pkgs->n == 0 || mv == 0)
		return 0;
	uv_warn("%sthis CPU has no %s plane, so it cannot take %ld mV; remove "
		"that value or make it 0 ('undervoltctl status' lists the "
		"planes present)", where(p, &c, at, sizeof(at)),
		plane_name(plane), mv);
	return UV_EXIT_FAIL;
}

/* PLANE=MV from the command line. */
static int parse_assignment(const char *arg, enum plane *plane, long *mv)
{
	const char *eq = strchr(arg, '=');
	char *end;
	int i;

	if (!eq)
		return -1;
	i = plane_lookup(arg, (size_t)(eq - arg));
	if (i < 0)
		return -1;
	errno = 0;
	*mv = strtol(eq + 1, &end, 10);
	if (end == eq + 1 || *end || errno || eq[1] == ' ' ||
	    *mv < -CONFIG_MAX_ABS_MV || *mv > CONFIG_MAX_ABS_MV)
		return -1;
	*plane = (enum plane)i;
	return 0;
}

/* What set and reset begin with: the driver, the packages, an empty plan. */
static int plan_start(const struct uv_sysfs *s, const struct uv_opts *o,
		      struct uv_package_list *pkgs, struct plan **out)
{
	struct plan *p;
	int code;

	code = sysfs_require_driver(s);
	if (!code)
		code = target_packages(s, o, pkgs);
	if (code)
		return code;
	p = malloc(sizeof(*p));
	if (!p) {
		uv_warn("out of memory");
		return UV_EXIT_FAIL;
	}
	code = plan_init(s, p, NULL);
	if (code) {
		free(p);
		return code;
	}
	*out = p;
	return 0;
}

int cmd_set(const struct uv_sysfs *s, const struct uv_opts *o)
{
	struct uv_package_list pkgs;
	bool given[PLANE_COUNT] = { false };
	long mv[PLANE_COUNT] = { 0 };
	struct plan *p;
	enum plane plane;
	int a, code;

	for (a = 0; a < o->argc; a++) {
		long v;

		if (parse_assignment(o->argv[a], &plane, &v)) {
			uv_warn("'%s': expected PLANE=MV with PLANE one of "
				"core, gpu, cache, uncore, analogio and MV "
				"whole millivolts, e.g. core=-80", o->argv[a]);
			return UV_EXIT_USAGE;
		}
		if (given[plane]) {
			uv_warn("'%s': %s given twice; give it once",
				o->argv[a], plane_name(plane));
			return UV_EXIT_USAGE;
		}
		given[plane] = true;
		mv[plane] = v;
	}
	code = plan_start(s, o, &pkgs, &p);
	if (code)
		return code;
	for (plane = 0; plane < PLANE_COUNT && !code; plane++)
		if (given[plane])
			code = plan_add_packages(s, o, p, &pkgs, plane,
						 mv[plane], 0);
	if (!code)
		code = plan_execute(s, o, p);
	/* The driver keeps offsets until reboot; the file is what lasts. */
	if (!code && !o->dry_run && !(o->has_trial && o->trial_seconds) &&
	    plan_changes(p))
		printf("until reboot: to apply these offsets at every boot, put "
		       "them in " UV_DEFAULT_CONFIG " (undervolt.conf(5)) and "
		       "run 'systemctl enable undervoltctl.service'\n");
	free(p);
	return code;
}

int cmd_reset(const struct uv_sysfs *s, const struct uv_opts *o)
{
	struct uv_package_list pkgs;
	char path[PATH_MAX];
	struct plan *p;
	enum plane plane;
	size_t i;
	long boot;
	int code, r;

	code = plan_start(s, o, &pkgs, &p);
	if (code)
		return code;
	for (i = 0; i < pkgs.n && !code; i++) {
		for (plane = 0; plane < PLANE_COUNT && !code; plane++) {
			if (!sysfs_has_plane(s, pkgs.id[i], plane))
				continue;
			r = sysfs_plane_path(s, pkgs.id[i], plane,
					     "boot_offset_mv", path,
					     sizeof(path));
			if (!r)
				r = sysfs_read_long(path, &boot);
			if (r) {
				uv_warn("%s: cannot read the boot value: %s; "
					"nothing was changed", path,
					strerror(-r));
				code = UV_EXIT_FAIL;
				break;
			}
			code = plan_add(s, p, pkgs.id[i], plane, boot, 0);
		}
	}
	if (!code)
		code = plan_execute(s, o, p);
	free(p);
	return code;
}

/*
 * The plan of a parsed config: the values of each [package N] section for
 * that package, then for every package (where the plane exists) that its
 * section does not set, the value of the section of the power source SRC
 * ([ac] or [battery]) or else the top value.
 */
static int plan_config(const struct uv_sysfs *s, const struct uv_opts *o,
		       const struct config *cfg,
		       const struct config_section *src, struct plan *p)
{
	struct uv_package_list pkgs, rest;
	const struct config_section *top;
	enum plane plane;
	unsigned int id;
	size_t i;
	int code;

	code = target_packages(s, o, &pkgs);
	for (id = 0; id < CONFIG_MAX_PACKAGES && !code; id++) {
		const struct config_section *sec = &cfg->package[id];

		if (!sec->present)
			continue;
		for (i = 0; i < pkgs.n && pkgs.id[i] != id; i++)
			;
		if (i == pkgs.n) {
			if (o->has_package)
				continue;
			uv_warn("%s:%u: no package %u on this machine; "
				"'undervoltctl status' lists them", p->file,
				sec->line, id);
			return UV_EXIT_FAIL;
		}
		for (plane = 0; plane < PLANE_COUNT && !code; plane++)
			if (sec->set[plane])
				code = plan_add(s, p, id, plane, sec->mv[plane],
						sec->plane_line[plane]);
	}
	for (plane = 0; plane < PLANE_COUNT && !code; plane++) {
		top = src->set[plane] ? src : &cfg->all;
		if (!top->set[plane])
			continue;
		rest.n = 0;
		for (i = 0; i < pkgs.n; i++)
			if (!cfg->package[pkgs.id[i]].set[plane])
				rest.id[rest.n++] = pkgs.id[i];
		code = plan_add_packages(s, o, p, &rest, plane, top->mv[plane],
					 top->plane_line[plane]);
	}
	return code;
}

/* The [ac] or [battery] section in force now; says which when there are. */
static const struct config_section *config_source(const struct uv_sysfs *s,
						  const struct config *cfg,
						  const char *file)
{
	enum power_source src;

	if (!cfg->source[SOURCE_AC].present &&
	    !cfg->source[SOURCE_BATTERY].present)
		return &cfg->source[SOURCE_AC];	/* empty: the top values */
	src = power_source(s);
	printf("on %s: the [%s] values of %s apply\n",
	       src == SOURCE_AC ? "AC" : "battery", source_name(src), file);
	return &cfg->source[src];
}

int cmd_apply(const struct uv_sysfs *s, const struct uv_opts *o)
{
	const char *path = o->argc ? o->argv[0] : UV_DEFAULT_CONFIG;
	const char *file = uv_input_name(path);
	struct config_error err;
	struct config *cfg = NULL;
	struct plan *p = NULL;
	size_t len;
	char *buf;
	int r, code;

	r = uv_slurp(path, CONFIG_MAX_SIZE, &buf, &len);
	if (r == -ENOENT && !o->argc) {
		uv_warn("%s: no such file; nothing was applied; write one (see "
			"undervolt.conf(5)) or convert an intel-undervolt one "
			"with 'undervoltctl import -o %s'", file, file);
		return UV_EXIT_FAIL;
	}
	if (r == -EFBIG) {
		/* Size is a rule of the format, like any other: exit 2. */
		uv_warn("%s: larger than %d KiB, the limit of undervolt.conf(5); "
			"is it the right file? nothing was applied", file,
			CONFIG_MAX_SIZE / 1024);
		return UV_EXIT_USAGE;
	}
	if (r) {
		uv_warn("%s: %s; nothing was applied", file, strerror(-r));
		return UV_EXIT_FAIL;
	}
	cfg = malloc(sizeof(*cfg));
	p = malloc(sizeof(*p));
	if (!cfg || !p) {
		uv_warn("out of memory");
		code = UV_EXIT_FAIL;
		goto out;
	}
	if (config_parse(buf, len, cfg, &err)) {
		uv_warn("%s:%u: %s; nothing was applied", file, err.line,
			err.msg);
		code = UV_EXIT_USAGE;
		goto out;
	}
	code = sysfs_require_driver(s);
	if (code) {
		/* Said at boot, this lands in the journal. */
		uv_warn("%s: nothing was applied; undervoltctl.service applies "
			"it when the driver binds", file);
		goto out;
	}
	code = plan_init(s, p, file);
	if (!code)
		code = plan_config(s, o, cfg, config_source(s, cfg, file), p);
	if (!code)
		code = plan_execute(s, o, p);
out:
	free(p);
	free(cfg);
	free(buf);
	return code;
}

int cmd_confirm(const struct uv_sysfs *s, const struct uv_opts *o)
{
	char path[PATH_MAX];
	long left;
	int r, code;

	(void)o;
	code = sysfs_require_driver(s);
	if (code)
		return code;
	r = sysfs_drv_path(s, "trial_remaining_s", path, sizeof(path));
	if (!r)
		r = sysfs_read_long(path, &left);
	if (!r && left == 0) {
		printf("nothing is provisional; nothing to confirm\n");
		return UV_EXIT_OK;
	}
	r = sysfs_drv_path(s, "confirm", path, sizeof(path));
	if (!r)
		r = sysfs_write_long(path, 1);
	if (r == -ENOENT) {
		uv_warn("%s: trial mode is not supported by this driver; "
			"offsets it sets already stay until reboot", path);
		return UV_EXIT_FAIL;
	}
	if (r) {
		uv_warn("%s: cannot confirm: %s; the trial offsets will be "
			"reverted when it ends%s", path, strerror(-r),
			r == -EACCES || r == -EPERM ? "; run as root" : "");
		return UV_EXIT_FAIL;
	}
	printf("confirmed: the offsets stay\n");
	return UV_EXIT_OK;
}
