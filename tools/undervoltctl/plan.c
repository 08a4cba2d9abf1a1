// SPDX-License-Identifier: GPL-2.0
/*
 * plan.c: one all-or-nothing change of offsets.
 *
 * Every write goes through one plan: read the current value of each plane
 * to change, check bounds and what is known of the kernel's policy, write
 * in order, read everything back, and on any failure write the previous
 * values back in reverse order. On Skylake and later core and cache are one
 * plane in hardware, so restoring the previous values in reverse order
 * restores both.
 *
 * Around the writes: a tune search on record holds them up (its offsets are
 * under test), a trial that runs takes them in (its revert then covers
 * them too), and apply --boot leaves the boot assessment's mark first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "trial.h"

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

int plan_init(const struct uv_sysfs *s, struct plan *p, const char *file)
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

int plan_add(const struct uv_sysfs *s, struct plan *p, unsigned int pkg,
	     enum plane plane, long to, unsigned int line)
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
	if (r == -ENODATA) {
		uv_warn("%spackage %u %s: the offset in force is unknown "
			"(suspended or package offline); nothing was changed; "
			"try again once the package is back", at, pkg,
			plane_name(plane));
		return UV_EXIT_FAIL;
	}
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
size_t plan_changes(const struct plan *p)
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
				r == -ENODATA ? "the offset is unknown "
				"(suspended or package offline)" : strerror(-r));
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

/*
 * Refuse early, before any write, when the kernel says the driver will
 * refuse (lockdown, a kdump kernel, SGX). A dry run goes by the driver's
 * last line about each package too: it cannot write to find out.
 */
static int check_policy(const struct uv_sysfs *s, const struct plan *p,
			bool dry_run)
{
	struct uv_diag *d = malloc(sizeof(*d));
	const char *why = NULL;
	int code = 0;
	size_t i;

	if (!d)
		return 0;	/* the writes then say what is wrong */
	diag_read(s, d, false);
	for (i = 0; i < p->n && !why; i++) {
		if (p->c[i].from == p->c[i].to)
			continue;
		why = diag_block(d, p->c[i].pkg, dry_run);
		if (!why)
			continue;
		uv_warn("package %u: writes refused (%s): %s; nothing was "
			"changed", p->c[i].pkg, why, diag_advice(why));
		code = diag_code(why);
	}
	free(d);
	return code;
}

/* Why a write failed, what to do, and the exit code that goes with it. */
static int explain(const struct uv_sysfs *s, const struct plan *p,
		   const struct change *c, const char *path, int err,
		   char *buf, size_t size)
{
	static const struct { int err; const char *text; } advice[] = {
		{ EINVAL, "the driver rejected the value as malformed; "
			  "report this as a bug" },
		{ EOPNOTSUPP, "the firmware takes no offset on that plane; "
			      "leave it out" },
		{ ETIMEDOUT, "the firmware stayed busy; try again" },
		{ ESHUTDOWN, "the system is going down; the driver has put "
			     "the initial offsets back" },
		{ ENOENT, "the file went away; was the driver unloaded?" },
		{ ENODEV, "every CPU of the package is offline; bring one "
			  "online and try again" },
	};
	size_t i;
	int code;

	if (err == ERANGE) {
		snprintf(buf, size, "outside the driver's bounds (%ld to %ld "
			 "mV); choose a value within them", p->min, p->max);
		return UV_EXIT_FAIL;
	}
	code = diag_explain(s, c->pkg, path, err, buf, size);
	if (code >= 0)
		return code;
	for (i = 0; i < sizeof(advice) / sizeof(advice[0]); i++)
		if (advice[i].err == err) {
			snprintf(buf, size, "%s", advice[i].text);
			return UV_EXIT_FAIL;
		}
	snprintf(buf, size, "%s", strerror(err));
	return UV_EXIT_FAIL;
}

/* Write each change in order; on a failure put everything back. */
static int write_all(const struct uv_sysfs *s, struct plan *p)
{
	char path[PATH_MAX], why[768], at[PATH_MAX + 16];
	bool restored;
	size_t i;
	int r, code;

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
		code = explain(s, p, c, path, -r, why, sizeof(why));
		restored = rollback(s, p);
		uv_warn("%spackage %u %s=%ld: %s%s", where(p, c, at, sizeof(at)),
			c->pkg, plane_name(c->plane), c->to, why,
			restored ? "; nothing was changed" : "");
		return code;
	}
	if (verify(s, p)) {
		if (rollback(s, p))
			uv_warn("the previous offsets were put back; nothing "
				"was changed");
		return UV_EXIT_FAIL;
	}
	return 0;
}

int plan_execute(const struct uv_sysfs *s, struct plan *p,
		 const struct plan_run *run)
{
	struct trial_txn *t = NULL;
	int search = -1, code;

	plan_sort(p);
	/* A dry run answers what the real run would: refusals included. */
	code = run->safety ? 0 : check_policy(s, p, run->dry_run);
	if (code)
		return code;
	if (run->dry_run || !plan_changes(p)) {
		print_plan(p, run->dry_run);
		return UV_EXIT_OK;
	}
	plan_observe(s, p);
	plan_sort(p);
	if (!run->safety) {
		code = search_hold(s, &search);
		if (code)
			return code;
		t = malloc(sizeof(*t));
		if (!t) {
			uv_warn("out of memory; nothing was changed");
			code = UV_EXIT_FAIL;
			goto out;
		}
		/* Each step undoes itself when it fails. */
		code = trial_begin(s, t, p, run->trial_seconds,
				   run->trial_owner);
		if (code) {
			free(t);
			t = NULL;
			goto out;
		}
		if (run->boot_config) {
			code = boot_mark(s, run->boot_config);
			if (code) {
				trial_abort(s, t);
				goto out;
			}
		}
	}
	code = write_all(s, p);
	if (code) {
		if (t)
			trial_abort(s, t);
		goto out;
	}
	print_plan(p, false);
	if (t)
		trial_end(t);
out:
	search_release(search);
	free(t);
	return code;
}

/* The packages a verb works on: --package N, or all of them. */
int plan_packages(const struct uv_sysfs *s, bool has_package,
		  unsigned int package, struct uv_package_list *list)
{
	size_t i;
	int r;

	r = sysfs_packages(s, list);
	if (r) {
		uv_warn("%s: cannot list packages: %s; check the driver with "
			"dmesg", s->drv, strerror(-r));
		return UV_EXIT_FAIL;
	}
	if (!has_package)
		return 0;
	for (i = 0; i < list->n; i++) {
		if (list->id[i] == package) {
			list->id[0] = package;
			list->n = 1;
			return 0;
		}
	}
	uv_warn("no package %u; 'undervoltctl status' lists them", package);
	return UV_EXIT_FAIL;
}

/*
 * Add PLANE=MV for each of PKGS. Without --package, packages that lack the
 * plane are left out (a second socket has no GPU), as long as one has it.
 */
int plan_add_packages(const struct uv_sysfs *s, bool has_package,
		      struct plan *p, const struct uv_package_list *pkgs,
		      enum plane plane, long mv, unsigned int line)
{
	char at[PATH_MAX + 16];
	struct change c = { .line = line };
	size_t i, added = 0;
	int code;

	for (i = 0; i < pkgs->n; i++) {
		if (!has_package && !sysfs_has_plane(s, pkgs->id[i], plane))
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

/* What set and reset begin with: the driver, the packages, an empty plan. */
int plan_start(const struct uv_sysfs *s, const struct uv_opts *o,
	       struct uv_package_list *pkgs, struct plan **out)
{
	struct plan *p;
	int code;

	code = sysfs_require_driver(s);
	if (!code)
		code = plan_packages(s, o->has_package, o->package, pkgs);
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
