/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plan.h: one all-or-nothing change of offsets (plan.c). The verbs that
 * write (change.c), the trial's revert (trial.c) and mce-guard build a
 * plan and execute it.
 */
#ifndef UNDERVOLTCTL_PLAN_H
#define UNDERVOLTCTL_PLAN_H

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

/* Who executes a plan, and how. */
struct plan_run {
	bool dry_run;
	unsigned int trial_seconds;	/* --trial: provisional, 0: not */
	const char *trial_owner;	/* "set", "apply", "reset" */
	/*
	 * The trial's revert and mce-guard: they move offsets back to safety,
	 * so neither a tune search nor a trial holds them up, and they do not
	 * become part of a trial.
	 */
	bool safety;
	/* apply --boot: the boot assessment's mark goes down before a write. */
	const char *boot_config;
};

int plan_init(const struct uv_sysfs *s, struct plan *p, const char *file);
int plan_add(const struct uv_sysfs *s, struct plan *p, unsigned int pkg,
	     enum plane plane, long to, unsigned int line);
int plan_add_packages(const struct uv_sysfs *s, bool has_package,
		      struct plan *p, const struct uv_package_list *pkgs,
		      enum plane plane, long mv, unsigned int line);
/* The planes the plan changes. */
size_t plan_changes(const struct plan *p);
int plan_execute(const struct uv_sysfs *s, struct plan *p,
		 const struct plan_run *run);
/* The packages a verb works on: PACKAGE with HAS_PACKAGE, or all. */
int plan_packages(const struct uv_sysfs *s, bool has_package,
		  unsigned int package, struct uv_package_list *list);
/* The driver, the packages, an empty plan to free. */
int plan_start(const struct uv_sysfs *s, const struct uv_opts *o,
	       struct uv_package_list *pkgs, struct plan **out);

#endif
