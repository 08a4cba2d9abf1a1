// SPDX-License-Identifier: GPL-2.0
/*
 * report.c: the report verb. One JSON document with what it takes to tell
 * whether a machine can undervolt, for bug reports and a compatibility
 * table: the CPU and its microcode, the firmware from DMI, the kernel's
 * lockdown state and the driver's status.
 *
 * Nothing that identifies a person or one machine goes in: no serial
 * numbers, UUIDs or asset tags from DMI, no host name, no user name. The
 * DMI files are named one by one below, never listed from the directory,
 * so that a file a later kernel adds cannot slip in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "undervoltctl.h"

/* 2: board_version left out. */
#define REPORT_SCHEMA 2

/*
 * DMI fields that name a product and its firmware, never one unit.
 * board_version is not one of them: some vendors write a number of each
 * unit there.
 */
static const char *const dmi_fields[] = {
	"bios_vendor", "bios_version", "bios_date", "bios_release",
	"sys_vendor", "product_name", "product_family", "product_version",
	"board_vendor", "board_name",
};

static void cpuinfo_number(const char *info, const char *key)
{
	char buf[32], *end;
	long v;

	if (!uv_cpuinfo_value(info, key, buf, sizeof(buf))) {
		printf("null");
		return;
	}
	v = strtol(buf, &end, 10);
	if (end == buf || *end)
		printf("null");
	else
		printf("%ld", v);
}

static void print_cpu(const struct uv_sysfs *s)
{
	static const char *const strings[][2] = {
		{ "vendor", "vendor_id" }, { "model_name", "model name" },
		{ "microcode", "microcode" },
	};
	static const char *const numbers[][2] = {
		{ "family", "cpu family" }, { "model", "model" },
		{ "stepping", "stepping" },
	};
	char path[PATH_MAX], buf[256];
	char *info = NULL;
	size_t len, i;

	if (uv_path(path, sizeof(path), "%s/cpuinfo", s->proc) ||
	    uv_slurp(path, 1024 * 1024, &info, &len)) {
		printf("null");
		return;
	}
	printf("{");
	for (i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		printf("%s\"%s\": ", i ? ", " : "", numbers[i][0]);
		cpuinfo_number(info, numbers[i][1]);
	}
	for (i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
		printf(", \"%s\": ", strings[i][0]);
		json_string(uv_cpuinfo_value(info, strings[i][1], buf,
					     sizeof(buf)));
	}
	printf("}");
	free(info);
}

static void print_firmware(const struct uv_sysfs *s)
{
	char path[PATH_MAX], buf[256];
	size_t i;

	printf("{");
	for (i = 0; i < sizeof(dmi_fields) / sizeof(dmi_fields[0]); i++) {
		printf("%s\n    \"%s\": ", i ? "," : "", dmi_fields[i]);
		if (uv_path(path, sizeof(path), "%s/class/dmi/id/%s", s->root,
			    dmi_fields[i]) ||
		    sysfs_read_word(path, buf, sizeof(buf)))
			printf("null");
		else
			json_string(buf);
	}
	printf("\n  }");
}

/* The word in brackets of "none [integrity] confidentiality". */
static void print_lockdown(const struct uv_sysfs *s)
{
	char path[PATH_MAX], buf[128], *open, *close;

	if (uv_path(path, sizeof(path), "%s/kernel/security/lockdown",
		    s->root) ||
	    sysfs_read_word(path, buf, sizeof(buf)) ||
	    !(open = strchr(buf, '[')) || !(close = strchr(open, ']'))) {
		printf("null");
		return;
	}
	*close = '\0';
	json_string(open + 1);
}

/* A module attribute such as version or srcversion, or null. */
static void print_module_attr(const struct uv_sysfs *s, const char *name)
{
	char path[PATH_MAX], buf[128];

	if (uv_path(path, sizeof(path), "%s/module/intel_undervolt/%s",
		    s->root, name) ||
	    sysfs_read_word(path, buf, sizeof(buf)))
		printf("null");
	else
		json_string(buf);
}

int cmd_report(const struct uv_sysfs *s, const char *version)
{
	struct utsname u;

	printf("{\n  \"schema\": %d,\n  \"undervoltctl\": ", REPORT_SCHEMA);
	json_string(version);
	/* The kernel release only: nodename is the host name. */
	printf(",\n  \"kernel\": ");
	json_string(uname(&u) == 0 ? u.release : NULL);
	printf(",\n  \"cpu\": ");
	print_cpu(s);
	printf(",\n  \"firmware\": ");
	print_firmware(s);
	printf(",\n  \"lockdown\": ");
	print_lockdown(s);
	printf(",\n  \"driver_version\": ");
	print_module_attr(s, "version");
	printf(",\n  \"driver_srcversion\": ");
	print_module_attr(s, "srcversion");
	printf(",\n  \"status\": ");
	if (status_json(s) < 0) {
		printf("null\n}\n");
		uv_warn("out of memory; the report is incomplete");
		return UV_EXIT_FAIL;
	}
	printf("}\n");
	return UV_EXIT_OK;
}
