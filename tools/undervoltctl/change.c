// SPDX-License-Identifier: GPL-2.0
/*
 * change.c: the verbs that write offsets: set, reset and apply. Each makes
 * a plan (plan.c) and executes it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "trial.h"

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

/*
 * The driver keeps offsets until reboot; the file is what lasts. Not said
 * while a trial runs: the change reverts with it, and trial_end() said so.
 */
static void say_until_reboot(const struct uv_sysfs *s)
{
	struct trial_state *t = malloc(sizeof(*t));
	double left;
	int r = t ? trial_read(s, t, &left) : -ENOMEM;

	free(t);
	if (r == 0)
		printf("until reboot: to apply these offsets at every boot, put "
		       "them in " UV_DEFAULT_CONFIG " (undervolt.conf(5)) and "
		       "run 'systemctl enable undervoltctl.service'\n");
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
			code = plan_add_packages(s, o->has_package, p, &pkgs,
						 plane, mv[plane], 0);
	if (!code)
		code = plan_execute(s, p, &(struct plan_run){
			.dry_run = o->dry_run, .trial_seconds = o->trial_seconds,
			.trial_owner = "set" });
	if (!code && !o->dry_run && !o->trial_seconds && plan_changes(p))
		say_until_reboot(s);
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
	long initial;
	int code, r;

	code = plan_start(s, o, &pkgs, &p);
	if (code)
		return code;
	for (i = 0; i < pkgs.n && !code; i++) {
		for (plane = 0; plane < PLANE_COUNT && !code; plane++) {
			if (!sysfs_has_plane(s, pkgs.id[i], plane))
				continue;
			r = sysfs_initial_path(s, pkgs.id[i], plane, path,
					       sizeof(path));
			if (!r)
				r = sysfs_read_long(path, &initial);
			if (r) {
				uv_warn("%s: cannot read the initial value: %s; "
					"nothing was changed", path,
					strerror(-r));
				code = UV_EXIT_FAIL;
				break;
			}
			code = plan_add(s, p, pkgs.id[i], plane, initial, 0);
		}
	}
	if (!code)
		code = plan_execute(s, p, &(struct plan_run){
			.dry_run = o->dry_run, .trial_owner = "reset" });
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

	code = plan_packages(s, o->has_package, o->package, &pkgs);
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
		code = plan_add_packages(s, o->has_package, p, &rest, plane,
					 top->mv[plane],
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

	code = o->boot ? boot_check(s, file) : boot_note_switch(s);
	if (code)
		return code;
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
		code = plan_execute(s, p, &(struct plan_run){
			.dry_run = o->dry_run, .trial_seconds = o->trial_seconds,
			.trial_owner = "apply",
			.boot_config = o->boot ? path : NULL });
	/* By hand, after the boot assessment stopped the boot apply. */
	if (!code && !o->boot && !o->dry_run)
		boot_forget_failure(s);
out:
	free(p);
	free(cfg);
	free(buf);
	return code;
}
