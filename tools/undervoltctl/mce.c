// SPDX-License-Identifier: GPL-2.0
/*
 * mce.c: mce_record trace events, parsed and classified (see mce.h).
 *
 * The classification follows the MCA error codes of the Intel SDM, vol.
 * 3B, "Interpreting the MCA Error Codes": MCi_STATUS bit 63 VAL, 61 UC,
 * 57 PCC; bits 15:0 the error code, simple or compound. Bit 12 of a
 * compound code is the correction report filter (F) and is ignored here.
 *
 *	0000 0000 0000 00xx	generic: unclassified, microcode ROM parity,
 *	(0x0000-0x0006)		external, FRC, internal parity (0x0005), SMM
 *	0000 01xx xxxx xxxx	internal timer (0x0400), internal unclassified
 *	0000 0000 0001 TTLL	TLB
 *	0000 0001 RRRR TTLL	memory hierarchy: the caches
 *	0000 0000 1MMM CCCC	memory controller
 *	0000 1PPT RRRR IILL	bus and interconnect (the I/O error 0x0E0B too)
 *
 * The first four are the core's own: a voltage too low for the core shows
 * there (the model's unstable profile reports 0x0005 in bank 1). The last
 * two are DRAM and I/O, which an offset of the core does not cause, and
 * the only corrected errors the kernel's CEC handles.
 */
#include <stdio.h>
#include <string.h>

#include "mce.h"

#define MCI_STATUS_VAL	(1ULL << 63)
#define MCI_STATUS_UC	(1ULL << 61)
#define MCI_STATUS_PCC	(1ULL << 57)

/* The text after "KEY: " in LINE, or NULL; KEY starts a field. */
static const char *field(const char *line, const char *key)
{
	size_t n = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key)) != NULL) {
		if ((p == line || p[-1] == ' ') && p[n] == ':' && p[n + 1] == ' ')
			return p + n + 2;
		p += n;
	}
	return NULL;
}

int mce_parse(const char *line, struct mce_record *r)
{
	const char *ev = strstr(line, "mce_record: "), *p;
	unsigned long long status;
	int n = 0;

	if (!ev)
		return -1;
	ev += strlen("mce_record: ");
	memset(r, 0, sizeof(*r));
	p = field(ev, "CPU");
	if (!p || sscanf(p, "%d", &r->cpu) != 1)
		return -1;
	/* "MC1: 9000000000000005": the bank is part of the key. */
	for (p = strstr(ev, ", MC"); p && (p[4] < '0' || p[4] > '9');
	     p = strstr(p + 4, ", MC"))
		;
	if (!p || sscanf(p, ", MC%u: %llx%n", &r->bank, &status, &n) != 2 || !n)
		return -1;
	r->status = status;
	p = field(ev, "socket");
	r->has_socket = p && sscanf(p, "%u", &r->socket) == 1;
	return 0;
}

enum mce_severity mce_severity(uint64_t status)
{
	if (!(status & MCI_STATUS_VAL))
		return MCE_INVALID;
	if (!(status & MCI_STATUS_UC))
		return MCE_CORRECTED;
	return status & MCI_STATUS_PCC ? MCE_FATAL : MCE_RECOVERABLE;
}

enum mce_source mce_source(uint64_t status)
{
	unsigned int code = (unsigned int)(status & 0xffff);
	unsigned int c = code & ~0x1000u;	/* the F bit */

	if (code <= 0x0006 || (code & 0xfc00) == 0x0400)
		return MCE_CORE;	/* generic, internal */
	if ((c & 0xfff0) == 0x0010 || (c & 0xff00) == 0x0100)
		return MCE_CORE;	/* TLB, cache hierarchy */
	if ((c & 0xff80) == 0x0080)
		return MCE_MEMORY;
	if ((c & 0xf800) == 0x0800)
		return MCE_BUS;
	return MCE_UNKNOWN;
}

const char *mce_code_name(uint64_t status)
{
	static const char *const generic[] = {
		"no error", "unclassified", "microcode ROM parity",
		"external error", "FRC error", "internal parity",
		"SMM handler code access violation",
	};
	unsigned int code = (unsigned int)(status & 0xffff);
	unsigned int c = code & ~0x1000u;

	if (code <= 0x0006)
		return generic[code];
	if (code == 0x0400)
		return "internal timer";
	if ((code & 0xfc00) == 0x0400)
		return "internal unclassified";
	if ((c & 0xfff0) == 0x0010)
		return "TLB";
	if ((c & 0xff00) == 0x0100)
		return "cache hierarchy";
	if ((c & 0xff80) == 0x0080)
		return "memory controller";
	if ((c & 0xf800) == 0x0800)
		return "bus or interconnect";
	return "unknown";
}

const char *mce_severity_name(enum mce_severity s)
{
	static const char *const names[] = {
		"not valid", "corrected", "recoverable", "fatal",
	};

	return names[s];
}

bool mce_from_offset(const struct mce_record *r)
{
	enum mce_severity s = mce_severity(r->status);

	return (s == MCE_CORRECTED || s == MCE_RECOVERABLE) &&
	       mce_source(r->status) == MCE_CORE;
}
