// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_config.c: libFuzzer target for the undervolt.conf(5) parser.
 *
 * Beyond "no crash", it checks what the parser promises: on success every
 * value is within the format's limits and only sections that were present
 * hold values; on failure the message is a non-empty string.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct config cfg;	/* large; reused across runs */
	struct config_error err;
	char *buf;
	int i, p;

	/* A copy of exactly SIZE bytes, so ASan sees any read past it. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (config_parse(buf, size, &cfg, &err) == 0) {
		/* -3: the top, -2 and -1: [ac] and [battery], then packages */
		for (p = -3; p < CONFIG_MAX_PACKAGES; p++) {
			const struct config_section *s =
				p == -3 ? &cfg.all :
				p < 0 ? &cfg.source[p + 2] : &cfg.package[p];

			for (i = 0; i < PLANE_COUNT; i++) {
				if (!s->set[i])
					continue;
				if (!s->present || s->mv[i] < -CONFIG_MAX_ABS_MV ||
				    s->mv[i] > CONFIG_MAX_ABS_MV)
					abort();
			}
		}
	} else if (err.msg[0] == '\0' || !memchr(err.msg, '\0',
						   sizeof(err.msg))) {
		abort();
	}
	free(buf);
	return 0;
}
