// SPDX-License-Identifier: GPL-2.0
/*
 * status.c: the status verb, as a table for people or as JSON for scripts.
 *
 * Both print from one snapshot, so they always agree. The JSON schema is
 * documented in undervoltctl(8); change it only by adding keys, and bump
 * "schema" if a key ever changes meaning (2: the driver's v3 ABI).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trial.h"
#include "undervoltctl.h"

#define STATUS_SCHEMA 2

/* A value read from sysfs, or the reason it could not be read. */
struct value {
	int err;		/* 0 or a negative errno */
	long v;
};

struct pkg_status {
	unsigned int id;
	const char *block;	/* why writes are refused, or NULL */
	/* the firmware kept its offset, or a restore failed; or NULL */
	const char *ignored;
	const char *ignored_reason;	/* for JSON: firmware_ignored, restore_failed */
	char ignored_buf[512];
	bool present[PLANE_COUNT];
	struct value offset[PLANE_COUNT];
	struct value initial[PLANE_COUNT];
};

struct status {
	struct value min, max;
	bool recovery;		/* undervolt=off */
	int trial;		/* trial_read(): 1 when one runs */
	double trial_left;
	struct trial_state t;
	struct boot_state boot;
	struct uv_diag diag;
	size_t n;
	struct pkg_status pkg[CONFIG_MAX_PACKAGES];
};

static void read_value(const char *path, struct value *v)
{
	v->err = sysfs_read_long(path, &v->v);
}

static void read_package(const struct uv_sysfs *s, struct status *st,
			 struct pkg_status *p)
{
	char path[PATH_MAX];
	enum plane pl;

	p->block = diag_block(&st->diag, p->id, true);
	p->ignored_reason = "firmware_ignored";
	p->ignored = diag_ignored(&st->diag, p->id, p->ignored_buf,
				  sizeof(p->ignored_buf));
	if (!p->ignored) {
		p->ignored_reason = "restore_failed";
		p->ignored = diag_not_restored(&st->diag, p->id, p->ignored_buf,
					       sizeof(p->ignored_buf));
	}
	for (pl = 0; pl < PLANE_COUNT; pl++) {
		p->present[pl] = sysfs_has_plane(s, p->id, pl);
		if (!p->present[pl])
			continue;
		p->offset[pl].err = sysfs_plane_path(s, p->id, pl, "offset_mv",
						     path, sizeof(path));
		if (!p->offset[pl].err)
			read_value(path, &p->offset[pl]);
		p->initial[pl].err = sysfs_initial_path(s, p->id, pl, path,
							sizeof(path));
		if (!p->initial[pl].err)
			read_value(path, &p->initial[pl]);
	}
}

static int snapshot(const struct uv_sysfs *s, const struct uv_opts *o,
		    struct status *st)
{
	struct uv_package_list pkgs;
	char path[PATH_MAX];
	size_t i;
	int r;

	memset(st, 0, sizeof(*st));
	r = sysfs_packages(s, &pkgs);
	if (r) {
		uv_warn("%s: cannot list packages: %s; check the driver with "
			"dmesg", s->drv, strerror(-r));
		return UV_EXIT_FAIL;
	}
	st->min.err = sysfs_drv_path(s, "min_offset_mv", path, sizeof(path));
	if (!st->min.err)
		read_value(path, &st->min);
	st->max.err = sysfs_drv_path(s, "max_offset_mv", path, sizeof(path));
	if (!st->max.err)
		read_value(path, &st->max);
	st->recovery = boot_recovery_switch(s);
	st->trial = trial_read(s, &st->t, &st->trial_left);
	boot_read(s, &st->boot);
	diag_read(s, &st->diag, true);
	for (i = 0; i < pkgs.n; i++) {
		if (o->has_package && pkgs.id[i] != o->package)
			continue;
		st->pkg[st->n].id = pkgs.id[i];
		read_package(s, st, &st->pkg[st->n++]);
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

static void json_bool3(int v)
{
	printf("%s", v < 0 ? "null" : v ? "true" : "false");
}

static const char *offset_state(const struct value *v)
{
	return !v->err ? "known" : v->err == -ENODATA ? "unknown" :
	       "unreadable";
}

static void json_package(const struct pkg_status *p)
{
	const char *sep = "";
	enum plane pl;

	printf("{\"id\": %u, \"writable\": %s, \"write_block_reason\": ", p->id,
	       p->block ? "false" : "true");
	json_string(p->block ? p->block : p->ignored ? p->ignored_reason :
		    "none");
	printf(", \"write_block_advice\": ");
	json_string(p->block ? diag_advice(p->block) : p->ignored);
	printf(", \"planes\": {");
	for (pl = 0; pl < PLANE_COUNT; pl++) {
		if (!p->present[pl])
			continue;
		printf("%s\n      \"%s\": {\"offset_mv\": ", sep, plane_name(pl));
		json_value(&p->offset[pl]);
		printf(", \"initial_offset_mv\": ");
		json_value(&p->initial[pl]);
		printf(", \"offset_state\": \"%s\"}", offset_state(&p->offset[pl]));
		sep = ",";
	}
	printf("%s}, \"planes_without_offset\": [", *sep ? "\n    " : "");
	sep = "";
	for (pl = 0; pl < PLANE_COUNT; pl++)
		if (!p->present[pl]) {
			printf("%s\"%s\"", sep, plane_name(pl));
			sep = ", ";
		}
	printf("]}");
}

static void print_json(const struct uv_sysfs *s, const struct status *st)
{
	static const char *const boot[] = { "none", "pending", "failed" };
	size_t i;

	printf("{\n  \"schema\": %d,\n  \"driver\": ", STATUS_SCHEMA);
	json_string(s->drv);
	printf(",\n  \"min_offset_mv\": ");
	json_value(&st->min);
	printf(",\n  \"max_offset_mv\": ");
	json_value(&st->max);
	printf(",\n  \"recovery_switch\": %s", st->recovery ? "true" : "false");
	printf(",\n  \"lockdown\": ");
	json_string(st->diag.lockdown_mode[0] ? st->diag.lockdown_mode : NULL);
	printf(",\n  \"kdump\": %s", st->diag.kdump ? "true" : "false");
	printf(",\n  \"kernel_log\": %s", st->diag.klog_err ? "false" : "true");
	printf(",\n  \"hints\": {\"msr_oc_lock\": ");
	json_bool3(st->diag.msr_oc_lock);
	printf(", \"msr_sgx_enabled\": ");
	json_bool3(st->diag.msr_sgx);
	printf(", \"undervolt_protection\": ");
	json_bool3(st->diag.msr_uvp);
	printf("},\n  \"trial\": {\"supported\": true, \"seconds\": %u, "
	       "\"remaining_s\": ", st->trial == 1 ? st->t.seconds : 0);
	json_long(0, st->trial == 1 && st->trial_left > 0 ?
		  (long)(st->trial_left + 0.5) : 0);
	printf(", \"owner\": ");
	json_string(st->trial == 1 ? st->t.owner : NULL);
	printf(", \"armed\": ");
	json_string(st->trial == 1 ? st->t.armed : NULL);
	printf("},\n  \"boot_assessment\": {\"state\": \"%s\", \"remaining_s\": ",
	       boot[st->boot.state]);
	json_long(st->boot.state != BOOT_PENDING, st->boot.left > 0 ?
		  (long)(st->boot.left + 0.5) : 0);
	printf("},\n  \"packages\": [");
	for (i = 0; i < st->n; i++) {
		printf("%s\n    ", i ? "," : "");
		json_package(&st->pkg[i]);
	}
	printf("%s]\n}\n", st->n ? "\n  " : "");
}

/*
 * The exit code of status: 0 when every package shown takes offsets, 5
 * when the firmware locked them, ignored the last write or failed the
 * driver's last restore (nothing on this machine can change that but its
 * setup), 4 when the kernel refuses
 * them (lockdown, SGX, kdump), so that scripts and the compatibility
 * table can tell. set and apply exit with the same codes.
 */
static int status_code(const struct status *st)
{
	int code = UV_EXIT_OK, c;
	size_t i;

	for (i = 0; i < st->n; i++) {
		c = st->pkg[i].block ? diag_code(st->pkg[i].block) :
		    st->pkg[i].ignored ? UV_EXIT_FIRMWARE : UV_EXIT_OK;
		if (c == UV_EXIT_FIRMWARE || code == UV_EXIT_OK)
			code = c;
	}
	return code;
}

static void table_mv(const struct value *v)
{
	if (v->err == -ENODATA)
		printf("  unknown (suspended or package offline)");
	else if (v->err)
		printf("  %9s", v->err == -EACCES ? "no access" : "unreadable");
	else
		printf("  %6ld mV", v->v);
}

static void print_system(const struct status *st)
{
	char how[64];

	if (st->min.err || st->max.err)
		printf("bounds:  unreadable\n");
	else
		printf("bounds:  %ld to %ld mV\n", st->min.v, st->max.v);
	if (strcmp(st->t.armed, "systemd") == 0)
		snprintf(how, sizeof(how), "systemd timer undervoltctl-trial.timer");
	else
		snprintf(how, sizeof(how), "detached process, pid %ld", st->t.pid);
	if (st->trial == -EACCES)
		printf("trial:   unknown (its file is root's; run as root)\n");
	else if (st->trial != 1)
		printf("trial:   none\n");
	else
		printf("trial:   provisional (%s, %u s): the offsets go back in "
		       "%.0f s unless 'undervoltctl confirm' (%s)\n",
		       st->t.owner, st->t.seconds,
		       st->trial_left > 0 ? st->trial_left : 0, how);
	if (st->boot.state == BOOT_PENDING)
		printf("boot:    the offsets applied at boot count as good after "
		       "%.0f s more\n", st->boot.left > 0 ? st->boot.left : 0);
	else if (st->boot.state == BOOT_FAILED)
		printf("boot:    the boot of %s applied %s and went down within "
		       "the assessment: undervoltctl.service applies nothing "
		       "until 'undervoltctl apply' is run by hand\n",
		       st->boot.when, st->boot.config[0] ? st->boot.config :
		       "the configuration");
	if (st->recovery)
		printf("recovery: undervolt=off is on the kernel command line: "
		       "the boot apply applies nothing; 'undervoltctl set' "
		       "works by hand\n");
	if (st->diag.klog_err)
		printf("log:     the kernel log is not readable (%s): the "
		       "driver's refusals are not seen; run as root\n",
		       strerror(-st->diag.klog_err));
	if (st->diag.msr_oc_lock == 1)
		printf("hint:    MSR 0x194 bit 20 is set: the firmware may have "
		       "locked overclocking, and with it the offsets\n");
	if (st->diag.msr_uvp == 1)
		printf("hint:    Undervolt Protection is on (MSR 0x195 bit 1): "
		       "the driver refuses offsets below the initial ones, "
		       "which the firmware setup programmed; offsets at or "
		       "above them work; turn it off in the firmware setup "
		       "(\"Undervolt Protection\") if it offers the option\n");
	if (st->diag.msr_sgx == 1 && !st->diag.sgx_flag)
		printf("hint:    MSR 0x3A bit 18 is set: SGX is enabled in the "
		       "firmware; the driver refuses writes while it is\n");
}

static void print_table(const struct status *st)
{
	const struct pkg_status *p;
	const char *sep;
	enum plane pl;
	size_t i;

	print_system(st);
	for (i = 0; i < st->n; i++) {
		p = &st->pkg[i];
		printf("\npackage %u: ", p->id);
		if (p->block)
			printf("not writable (%s): %s\n", p->block,
			       diag_advice(p->block));
		else if (p->ignored)
			printf("writable, but %s\n", p->ignored);
		else if (uv_has_rawio())
			printf("writable\n");
		else
			printf("writable by root only: this process lacks "
			       "CAP_SYS_RAWIO; run as root to change offsets\n");
		printf("  %-9s  %9s  %9s\n", "plane", "offset", "initial");
		for (pl = 0; pl < PLANE_COUNT; pl++) {
			if (!p->present[pl])
				continue;
			printf("  %-9s", plane_name(pl));
			table_mv(&p->offset[pl]);
			table_mv(&p->initial[pl]);
			putchar('\n');
		}
		sep = "  no offset (the firmware offers none): ";
		for (pl = 0; pl < PLANE_COUNT; pl++)
			if (!p->present[pl]) {
				printf("%s%s", sep, plane_name(pl));
				sep = ", ";
			}
		if (*sep == ',')
			putchar('\n');
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

/* Without the driver: what the kernel said when it did not bind. */
static void why_unbound(const struct uv_sysfs *s)
{
	struct uv_diag *d = malloc(sizeof(*d));

	if (d) {
		diag_read(s, d, false);
		if (d->klog.unbound[0])
			uv_warn("the kernel log says: intel_undervolt: %s",
				d->klog.unbound);
	}
	free(d);
}

int cmd_status(const struct uv_sysfs *s, const struct uv_opts *o)
{
	struct status *st;
	int code;

	code = sysfs_require_driver(s);
	if (code) {
		why_unbound(s);
		return code;
	}
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
