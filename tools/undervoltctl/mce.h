/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mce.h: machine-check records as the kernel's mce:mce_record trace event
 * prints them in trace_pipe, and what mce-guard makes of them (mce.c).
 * This unit depends on the C library only: tests/mce_test.c checks it on
 * literal records.
 */
#ifndef UNDERVOLTCTL_MCE_H
#define UNDERVOLTCTL_MCE_H

#include <stdbool.h>
#include <stdint.h>

struct mce_record {
	int cpu;
	unsigned int bank;
	uint64_t status;	/* MCi_STATUS */
	bool has_socket;
	unsigned int socket;	/* physical package id */
};

/*
 * One line of trace_pipe: 0 with R filled, -1 when it is not an
 * mce_record event. The fields are found by name, so that 6.1's and
 * 6.12's formats ("ADDR/MISC/SYND: a/m/s" or "ADDR: a, MISC: m, ...")
 * both parse.
 */
int mce_parse(const char *line, struct mce_record *r);

enum mce_severity {
	MCE_INVALID,		/* VAL clear: the bank holds nothing */
	MCE_CORRECTED,		/* UC clear */
	MCE_RECOVERABLE,	/* UC set, PCC clear */
	MCE_FATAL,		/* UC and PCC set: the context is lost */
};

enum mce_source {
	MCE_CORE,		/* cache, TLB, internal or generic errors */
	MCE_MEMORY,		/* the memory controller: DRAM */
	MCE_BUS,		/* bus and interconnect: I/O */
	MCE_UNKNOWN,
};

enum mce_severity mce_severity(uint64_t status);
/* From the MCA error code, bits 15:0 of MCi_STATUS. */
enum mce_source mce_source(uint64_t status);
/* What the MCA error code stands for, in a few words. */
const char *mce_code_name(uint64_t status);
const char *mce_severity_name(enum mce_severity s);
/*
 * A core's own error, corrected or recoverable: what too deep an offset
 * causes. mce-guard acts on these and on nothing else.
 */
bool mce_from_offset(const struct mce_record *r);

#endif
