/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config.h: the voltage planes and the undervolt.conf(5) parser.
 *
 * This unit depends on nothing but the C library, so that the libFuzzer
 * target (fuzz_config.c) can link it alone.
 */
#ifndef UNDERVOLTCTL_CONFIG_H
#define UNDERVOLTCTL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

enum plane {
	PLANE_CORE,
	PLANE_GPU,
	PLANE_CACHE,
	PLANE_UNCORE,
	PLANE_ANALOGIO,
	PLANE_COUNT
};

/* What the machine runs on: [ac] and [battery] sections of the file. */
enum power_source {
	SOURCE_AC,
	SOURCE_BATTERY,
	SOURCE_COUNT
};

/* Package ids the driver names package_00 ... package_99. */
#define CONFIG_MAX_PACKAGES 100
/* Sanity limit of the file format; the driver's bounds are checked later. */
#define CONFIG_MAX_ABS_MV 1000
/* Larger files are refused before parsing. */
#define CONFIG_MAX_SIZE (64 * 1024)

struct config_section {
	bool present;
	bool set[PLANE_COUNT];
	int mv[PLANE_COUNT];
	unsigned int plane_line[PLANE_COUNT];	/* where each value was set */
	unsigned int line;		/* where the section header is, 0 for the top */
};

struct config {
	struct config_section all;	/* lines before any section */
	/* [ac], [battery]: every package, in place of "all" on that source */
	struct config_section source[SOURCE_COUNT];
	struct config_section package[CONFIG_MAX_PACKAGES];
};

struct config_error {
	unsigned int line;
	char msg[160];
};

const char *plane_name(enum plane p);
/* "ac" or "battery". */
const char *source_name(enum power_source s);
/* The plane called exactly NAME[0..len), or -1. */
int plane_lookup(const char *name, size_t len);

/*
 * Parse LEN bytes of undervolt.conf text into CFG. Returns 0, or -1 with
 * ERR filled in (line 0: the file as a whole). CFG is only meaningful on
 * success; nothing is allocated.
 */
int config_parse(const char *buf, size_t len, struct config *cfg,
		 struct config_error *err);

#endif
