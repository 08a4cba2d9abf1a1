/* SPDX-License-Identifier: GPL-2.0 */
/*
 * import.h: the importers, one per format, that import.c dispatches to.
 * Each fills a struct imported from a buffer already known to be text;
 * none calls another or the dispatcher.
 */
#ifndef UNDERVOLTCTL_IMPORT_H
#define UNDERVOLTCTL_IMPORT_H

#include <stddef.h>

#include "import_text.h"

/* import_intel_undervolt.c: 0, or -1 without memory. */
int import_intel_undervolt(const char *buf, size_t len, struct imported *im,
			   struct diag *d, struct import_result *res);

/* import_throttled.c: 0, or -1 without memory. */
int import_throttled(const char *buf, size_t len, struct imported *im,
		     struct diag *d, struct import_result *res);

/* import_throttlestop.c: PROFILE 1-4, 0 the file's own; -1 without memory. */
int import_throttlestop(const char *buf, size_t len, unsigned int profile,
			struct imported *im, struct diag *d,
			struct import_result *res);

#endif
