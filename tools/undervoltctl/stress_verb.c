// SPDX-License-Identifier: GPL-2.0
/*
 * stress_verb.c: undervoltctl stress, the load of tune on its own: for a
 * manual stability test, and for "make bench" (its rate against OpenBLAS).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stress.h"
#include "undervoltctl.h"

int cmd_stress(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "engine", required_argument, NULL, 'e' },
		{ "all-cores", no_argument, NULL, 'a' },
		{ "size", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct stress_opts o = { .seconds = 60, .stall_seconds = 30 };
	struct stress_result r;
	unsigned long v;
	char *end;
	int ch;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			o.seconds = strtod(optarg, &end);
			if (*end || end == optarg || !(o.seconds > 0) ||
			    o.seconds > 86400) {
				uv_warn("stress: --duration '%s': expected "
					"seconds above 0, at most 86400", optarg);
				return UV_EXIT_USAGE;
			}
			break;
		case 'e':
			if (stress_engine_parse(optarg, &o.engine)) {
				uv_warn("stress: --engine '%s': expected auto, "
					"builtin or openblas", optarg);
				return UV_EXIT_USAGE;
			}
			break;
		case 'a':
			o.all_cores_only = true;
			break;
		case 's':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || v == 0 || v % 8 || v > STRESS_MAX_N) {
				uv_warn("stress: --size '%s': expected a multiple "
					"of 8 up to %d", optarg, STRESS_MAX_N);
				return UV_EXIT_USAGE;
			}
			o.n = (unsigned int)v;
			break;
		default:
			uv_warn("stress: '%s': unknown option or missing value; "
				"see undervoltctl(8)", argv[optind - 1]);
			return UV_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		uv_warn("stress: '%s': unexpected argument", argv[optind]);
		return UV_EXIT_USAGE;
	}
	if (stress_run(&o, &r)) {
		uv_warn("stress: %s", r.error);
		return UV_EXIT_FAIL;
	}
	printf("engine %s, matrices %ux%u, %.1f s: %llu multiplications and "
	       "%llu multiply chains verified, %.2f GFLOP/s\n", r.engine, r.n,
	       r.n, r.seconds, r.gemms, r.chains,
	       r.seconds > 0 ? r.flops / r.seconds / 1e9 : 0.0);
	if (r.wrong || r.stalled) {
		printf("FAILED: %s\n", r.error);
		return UV_EXIT_FAIL;
	}
	printf("no errors\n");
	return UV_EXIT_OK;
}
