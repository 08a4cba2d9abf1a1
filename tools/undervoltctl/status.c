// SPDX-License-Identifier: GPL-2.0
/*
 * status.c: the status verb, as a table for people or as JSON for scripts.
 *
 * Both print from one snapshot, so they always agree. The JSON schema is
 * documented in undervoltctl(8); change it only by adding keys, and bump
 * "schema" if a key ever changes meaning.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "undervoltctl.h"

#define STATUS_SCHEMA 1

/* A value read from sysfs, or the reason it could not be read. */
struct value {
	int err;		/* 0 or a negative errno */
	long v;
};

struct pkg_status {
	unsigned int id;
	char reason[64];	/* write_block_reason; "" if unreadable */
	bool present[PLANE_COUNT];
	struct value offset[PLANE_COUNT];
	struct value boot[PLANE_COUNT];
};

struct status {
	struct value min, max;
	struct value trial_seconds, trial_remaining, apply;
	size_t n;
	struct pkg_status pkg[CONFIG_MAX_PACKAGES];
};

static void read_value(const char *path, struct value *v)
{
	v->err = sysfs_read_long(path, &v->v);
}

static void read_flag(const char *path, struct value *v)
{
	bool flag = false;

	v->err = sysfs_read_bool(path, &flag);
	v->v = flag;
}

static int snapshot(const struct uv_sysfs *s, const struct uv_opts *o,
		    struct status *st)
{
	struct uv_package_list pkgs;
	char path[PATH_MAX];
	enum plane pl;
	size_t i;
	int r;

	memset(st, 0, sizeof(*st));
	r = sysfs_packages(s, &pkgs);
	if (r) {
		uv_warn("%s: cannot list packages: %s; check the driver with "
			"dmesg", s->drv, strerror(-r));
		return UV_EXIT_FAIL;
	}
#define READ(fn, name, val, reader) do {				\
		(val)->err = fn(s, name, path, sizeof(path));		\
		if (!(val)->err)					\
			reader(path, val);				\
	} while (0)
	READ(sysfs_drv_path, "min_offset_mv", &st->min, read_value);
	READ(sysfs_drv_path, "max_offset_mv", &st->max, read_value);
	READ(sysfs_drv_path, "trial_remaining_s", &st->trial_remaining,
	     read_value);
	READ(sysfs_param_path, "trial_seconds", &st->trial_seconds,
	     read_value);
	READ(sysfs_param_path, "apply", &st->apply, read_flag);
#undef READ
	for (i = 0; i < pkgs.n; i++) {
		struct pkg_status *p = &st->pkg[st->n];

		if (o->has_package && pkgs.id[i] != o->package)
			continue;
		p->id = pkgs.id[i];
		if (sysfs_block_reason(s, p->id, p->reason, sizeof(p->reason)))
			p->reason[0] = '\0';
		for (pl = 0; pl < PLANE_COUNT; pl++) {
			p->present[pl] = sysfs_has_plane(s, p->id, pl);
			if (!p->present[pl])
				continue;
			p->offset[pl].err = sysfs_plane_path(s, p->id, pl,
					"offset_mv", path, sizeof(path));
			if (!p->offset[pl].err)
				read_value(path, &p->offset[pl]);
			p->boot[pl].err = sysfs_plane_path(s, p->id, pl,
					"boot_offset_mv", path, sizeof(path));
			if (!p->boot[pl].err)
				read_value(path, &p->boot[pl]);
		}
		st->n++;
	}
	if (o->has_package && st->n == 0) {
		uv_warn("no package %u; 'undervoltctl status' lists them",
			o->package);
		return UV_EXIT_FAIL;
	}
	return 0;
}

static void json_value(const struct value *v)
{
	json_long(v->err, v->v);
}

static void print_json(const struct uv_sysfs *s, const struct status *st)
{
	bool trial = st->trial_seconds.err == 0;
	size_t i;
	enum plane pl;
	const char *sep;

	printf("{\n  \"schema\": %d,\n  \"driver\": ", STATUS_SCHEMA);
	json_string(s->drv);
	printf(",\n  \"min_offset_mv\": ");
	json_value(&st->min);
	printf(",\n  \"max_offset_mv\": ");
	json_value(&st->max);
	printf(",\n  \"recovery_switch\": %s",
	       st->apply.err ? "null" : st->apply.v == 0 ? "true" : "false");
	printf(",\n  \"trial\": {\"supported\": %s, \"seconds\": ",
	       trial ? "true" : "false");
	json_value(&st->trial_seconds);
	printf(", \"remaining_s\": ");
	json_value(&st->trial_remaining);
	printf("},\n  \"packages\": [");
	for (i = 0; i < st->n; i++) {
		const struct pkg_status *p = &st->pkg[i];

		printf("%s\n    {\"id\": %u, \"writable\": %s, "
		       "\"write_block_reason\": ", i ? "," : "", p->id,
		       p->reason[0] && !sysfs_block_advice(p->reason) ?
		       "true" : "false");
		if (p->reason[0])
			json_string(p->reason);
		else
			printf("null");
		printf(", \"write_block_advice\": ");
		json_string(p->reason[0] ? sysfs_block_advice(p->reason) :
			    NULL);
		printf(", \"planes\": {");
		sep = "";
		for (pl = 0; pl < PLANE_COUNT; pl++) {
			if (!p->present[pl])
				continue;
			printf("%s\n      \"%s\": {\"offset_mv\": ", sep,
			       plane_name(pl));
			json_value(&p->offset[pl]);
			printf(", \"boot_offset_mv\": ");
			json_value(&p->boot[pl]);
			printf("}");
			sep = ",";
		}
		printf("%s}}", *sep ? "\n    " : "");
	}
	printf("%s]\n}\n", st->n ? "\n  " : "");
}

static void table_mv(const struct value *v)
{
	if (v->err)
		printf("  %9s", v->err == -EACCES ? "no access" : "unreadable");
	else
		printf("  %6ld mV", v->v);
}

/*
 * Writes need CAP_SYS_RAWIO besides the file mode, so "writable" alone would
 * mislead a user who is not root. Unknown counts as able: the write itself
 * then says what is wrong.
 */
static bool can_write_offsets(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d))
		return true;
	return d[CAP_TO_INDEX(CAP_SYS_RAWIO)].effective &
	       CAP_TO_MASK(CAP_SYS_RAWIO);
}

/*
 * The exit code of status: 0 when every package shown takes offsets, 5
 * when the firmware locked them or ignored the last write (nothing on
 * this machine can change that but its setup), 4 when the kernel refuses
 * them (lockdown, SGX, the recovery switch), so that scripts and the
 * compatibility table can tell.
 */
static int status_code(const struct status *st)
{
	int code = UV_EXIT_OK;
	size_t i;

	for (i = 0; i < st->n; i++) {
		const char *r = st->pkg[i].reason;

		if (r[0] && sysfs_ignored_note(r))
			return UV_EXIT_FIRMWARE;
		if (!r[0] || !sysfs_block_advice(r))
			continue;
		if (sysfs_block_is_firmware(r))
			return UV_EXIT_FIRMWARE;
		code = UV_EXIT_POLICY;
	}
	return code;
}

static void print_table(const struct status *st)
{
	const char *advice;
	enum plane pl;
	size_t i;

	if (st->min.err || st->max.err)
		printf("bounds:  unreadable\n");
	else
		printf("bounds:  %ld to %ld mV\n", st->min.v, st->max.v);
	if (st->trial_seconds.err)
		printf("trial:   not supported by this driver\n");
	else if (st->trial_seconds.v == 0)
		printf("trial:   off\n");
	else
		printf("trial:   on, %ld s before an unconfirmed change is "
		       "reverted (undervoltctl's own changes are provisional "
		       "only with --trial)\n", st->trial_seconds.v);
	if (!st->trial_remaining.err && st->trial_remaining.v > 0)
		printf("         provisional for %ld s more; run "
		       "'undervoltctl confirm' to keep the offsets\n",
		       st->trial_remaining.v);
	for (i = 0; i < st->n; i++) {
		const struct pkg_status *p = &st->pkg[i];

		advice = p->reason[0] ? sysfs_block_advice(p->reason) : NULL;
		printf("\npackage %u: ", p->id);
		if (!p->reason[0])
			printf("writable: unknown (write_block_reason "
			       "unreadable)\n");
		else if (sysfs_ignored_note(p->reason))
			printf("writable, but %s\n", sysfs_ignored_note(p->reason));
		else if (!advice && can_write_offsets())
			printf("writable\n");
		else if (!advice)
			printf("writable by root only: this process lacks "
			       "CAP_SYS_RAWIO; run as root to change offsets\n");
		else
			printf("not writable (%s): %s\n", p->reason, advice);
		printf("  %-9s  %9s  %9s\n", "plane", "offset", "at boot");
		for (pl = 0; pl < PLANE_COUNT; pl++) {
			if (!p->present[pl])
				continue;
			printf("  %-9s", plane_name(pl));
			table_mv(&p->offset[pl]);
			table_mv(&p->boot[pl]);
			putchar('\n');
		}
	}
}

int status_json(const struct uv_sysfs *s)
{
	struct uv_opts o = { .json = true };
	struct status *st;
	int code;

	if (access(s->drv, F_OK)) {
		printf("null");
		return 0;
	}
	st = malloc(sizeof(*st));
	if (!st)
		return -1;
	code = snapshot(s, &o, st);
	if (code)
		printf("null");
	else
		print_json(s, st);
	free(st);
	return 0;
}

int cmd_status(const struct uv_sysfs *s, const struct uv_opts *o)
{
	struct status *st;
	int code;

	code = sysfs_require_driver(s);
	if (code)
		return code;
	st = malloc(sizeof(*st));
	if (!st) {
		uv_warn("out of memory");
		return UV_EXIT_FAIL;
	}
	code = snapshot(s, o, st);
	if (!code) {
		if (o->json)
			print_json(s, st);
		else
			print_table(st);
		code = status_code(st);
	}
	free(st);
	return code;
}
