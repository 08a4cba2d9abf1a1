// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_import.c: libFuzzer target for the intel-undervolt importer.
 *
 * Beyond "no crash", it checks the importer's promise: whatever it prints
 * is an undervolt.conf(5) that the config parser accepts.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "undervoltctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* sysfs.c wants it; nothing here prints through it. */
void uv_warn(const char *fmt, ...)
{
	(void)fmt;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct config cfg;
	static FILE *diag;
	struct config_error err;
	struct import_result res;
	char *buf, *text = NULL;
	size_t len = 0;
	FILE *out;
	int n;

	buf = malloc(size ? size : 1);
	out = open_memstream(&text, &len);
	if (!diag)
		diag = fopen("/dev/null", "w");
	if (!buf || !out || !diag)
		abort();
	memcpy(buf, data, size);
	/* Every --profile and every answer on coupling, by the input's size. */
	n = import_convert(buf, size, "fuzz.conf", (unsigned int)(size % 5),
			   (int)(size / 5 % 3) - 1, out, diag, &res);
	fclose(out);
	if (n < 0 || res.planes > PLANE_COUNT ||
	    (res.planes == 0) != (len == 0) ||
	    config_parse(text, len, &cfg, &err) != 0)
		abort();
	free(text);
	free(buf);
	return 0;
}
