// SPDX-License-Identifier: GPL-2.0
/*
 * tests/mce_test.c: mce-guard's parser and classification (mce.c) on
 * literal trace_pipe lines in the formats of Linux 6.12 (ADDR, MISC and
 * SYND as fields of their own, include/trace/events/mce.h) and 6.1
 * ("ADDR/MISC/SYND: a/m/s"), and on MCA error codes of every class of the
 * Intel SDM. The expectations are written out here from the SDM's tables,
 * not computed. One TAP line per check; exit 1 if one failed.
 */
#include <stdio.h>
#include <string.h>

#include "../mce.h"

static int failed;

static void check(int ok, const char *what)
{
	printf("%s - mce: %s\n", ok ? "ok" : "not ok", what);
	if (!ok)
		failed = 1;
}

/* The model's unstable profile: corrected, VAL|EN, internal parity, bank 1. */
static const char *const rec612 =
	"          <idle>-0       [001] d.h1.   123.456789: mce_record: CPU: 1, "
	"MCGc/s: c09/0, MC1: 9000000000000005, IPID: 0000000000000000, "
	"ADDR: 0000000000000000, MISC: 0000000000000000, SYND: 0000000000000000, "
	"RIP: 00:<0000000000000000>, TSC: 5f5e1000, PPIN: 0, vendor: 0, "
	"CPUID: 906ea, time: 1765000000, socket: 0, APIC: 2, microcode: f0";

static const char *const rec61 =
	"   kworker/3:1-88      [003] .....  99.000001: mce_record: CPU: 3, "
	"MCGc/s: c09/0, MC0: bc00000000010150, IPID: 0000000000000000, "
	"ADDR/MISC/SYND: 000000012345f000/0000000000000086/0000000000000000, "
	"RIP: 00:<0000000000000000>, TSC: 1, PPIN: 0, vendor: 0, CPUID: 806ea, "
	"time: 1, socket: 1, APIC: 6, microcode: f4";

static void parse(void)
{
	struct mce_record r;

	check(mce_parse(rec612, &r) == 0 && r.cpu == 1 && r.bank == 1 &&
	      r.status == 0x9000000000000005ULL && r.has_socket && r.socket == 0,
	      "a 6.12 record: CPU, bank, MCi_STATUS, socket");
	check(mce_parse(rec61, &r) == 0 && r.cpu == 3 && r.bank == 0 &&
	      r.status == 0xbc00000000010150ULL && r.socket == 1,
	      "a 6.1 record (ADDR/MISC/SYND in one field)");
	check(mce_parse("  bash-1 [000] ..... 1.0: sched_switch: prev_comm=bash",
			&r) != 0, "another event is not a record");
	check(mce_parse("mce_record: CPU: 1, MCGc/s: 0/0, IPID: 0", &r) != 0,
	      "a record without its MC field is not parsed");
	check(mce_parse("x: mce_record: CPU: 2, MCGc/s: 0/0, MC12: 8000000000000005",
			&r) == 0 && r.bank == 12 && !r.has_socket,
	      "a record without a socket field");
}

static void classify(void)
{
	static const struct {
		unsigned long long status;
		enum mce_severity sev;
		enum mce_source src;
		int acts;
		const char *what;
	} cases[] = {
		{ 0x9000000000000005ULL, MCE_CORRECTED, MCE_CORE, 1,
		  "corrected internal parity (0x0005): the model's, acted on" },
		{ 0x0000000000000005ULL, MCE_INVALID, MCE_CORE, 0,
		  "VAL clear: nothing in the bank" },
		{ 0xb000000000000005ULL, MCE_RECOVERABLE, MCE_CORE, 1,
		  "UC set, PCC clear: recoverable, acted on" },
		{ 0xb200000000000005ULL, MCE_FATAL, MCE_CORE, 0,
		  "UC and PCC set: fatal, left to the kernel" },
		{ 0x9000000000000150ULL, MCE_CORRECTED, MCE_CORE, 1,
		  "cache hierarchy 0000 0001 RRRR TTLL (0x0150)" },
		{ 0x9000000000001134ULL, MCE_CORRECTED, MCE_CORE, 1,
		  "cache hierarchy with the filter bit 12 set (0x1134)" },
		{ 0x9000000000000014ULL, MCE_CORRECTED, MCE_CORE, 1,
		  "TLB 0000 0000 0001 TTLL (0x0014)" },
		{ 0x9000000000000400ULL, MCE_CORRECTED, MCE_CORE, 1,
		  "internal timer (0x0400)" },
		{ 0x9000000000000405ULL, MCE_CORRECTED, MCE_CORE, 1,
		  "internal unclassified 0000 01xx xxxx xxxx (0x0405)" },
		{ 0x9000000000000001ULL, MCE_CORRECTED, MCE_CORE, 1,
		  "generic unclassified (0x0001)" },
		{ 0x9000000000000002ULL, MCE_CORRECTED, MCE_CORE, 1,
		  "microcode ROM parity (0x0002)" },
		{ 0x900000000000009fULL, MCE_CORRECTED, MCE_MEMORY, 0,
		  "memory controller 0000 0000 1MMM CCCC (0x009f): DRAM, left alone" },
		{ 0x9000000000000080ULL, MCE_CORRECTED, MCE_MEMORY, 0,
		  "memory controller, generic (0x0080)" },
		{ 0x9000000000000e0bULL, MCE_CORRECTED, MCE_BUS, 0,
		  "the I/O error 0x0e0b: bus, left alone" },
		{ 0x9000000000000c0fULL, MCE_CORRECTED, MCE_BUS, 0,
		  "bus and interconnect 0000 1PPT RRRR IILL (0x0c0f)" },
		{ 0x9000000000001c0fULL, MCE_CORRECTED, MCE_BUS, 0,
		  "bus and interconnect with the filter bit (0x1c0f)" },
		{ 0x9000000000002000ULL, MCE_CORRECTED, MCE_UNKNOWN, 0,
		  "a code of no class (0x2000): left alone" },
	};
	struct mce_record r = { .cpu = 0 };
	char what[160];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r.status = cases[i].status;
		snprintf(what, sizeof(what), "%s", cases[i].what);
		check(mce_severity(r.status) == cases[i].sev &&
		      mce_source(r.status) == cases[i].src &&
		      mce_from_offset(&r) == cases[i].acts, what);
	}
	check(!strcmp(mce_code_name(0x9000000000000005ULL), "internal parity") &&
	      !strcmp(mce_code_name(0x900000000000009fULL), "memory controller"),
	      "codes are named");
}

int main(void)
{
	parse();
	classify();
	return failed;
}
