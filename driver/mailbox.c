// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel CPU voltage offset control: the OC mailbox (MSR 0x150)
 *
 * Copyright (c) 2026 The linux-undervolt authors
 */

#include <linux/bitfield.h>
#include <linux/cpumask.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/irqflags.h>
#include <linux/math.h>
#include <linux/smp.h>
#include <linux/topology.h>
#include <kunit/visibility.h>
#include <asm/msr.h>

#include "undervolt.h"

/**
 * DOC: OC mailbox protocol
 *
 * The OC mailbox is MSR 0x150. Software writes one 64-bit command word:
 * bit 63 set (run/busy), the command in bits 39:32, the plane in bits
 * 47:40 and the data in bits 31:0. The firmware clears bit 63 when it is
 * done and leaves its completion code in bits 39:32 and the response data
 * in bits 31:0. The driver waits for a previous command to finish before
 * it writes, then polls the busy bit for at most UV_MBOX_TIMEOUT_US
 * microseconds. The write and the polls run on one CPU of the target
 * package with smp_call_function_single(), so the sequence cannot migrate
 * to another package half-way, and a per-package mutex in the callers
 * serialises it.
 *
 * The data word of the plane commands 0x10 (read) and 0x11 (write) holds
 * the maximum ratio in bits 7:0, a voltage target in 1/1024 V in bits
 * 19:8, the override mode in bit 20 and the voltage offset in bits 31:21,
 * an 11-bit two's complement number of 1/1024 V units. Writes are always
 * read-modify-write: bits 20:0 come from a fresh read of the same plane.
 */

/*
 * The firmware answers within a few microseconds. 1000 polls 1 us apart
 * leave a wide margin and still bound the time spent with interrupts off.
 */
#define UV_MBOX_POLL_US		1
#define UV_MBOX_TIMEOUT_US	1000

/**
 * uv_mbox_cmd_word() - encode a mailbox command word
 * @cmd: command (UV_CMD_*)
 * @plane: voltage plane, 0 for commands that have none
 * @data: data word
 *
 * Return: the 64-bit word to write to MSR 0x150, busy bit set.
 */
u64 uv_mbox_cmd_word(u8 cmd, u8 plane, u32 data)
{
	return UV_MBOX_BUSY | FIELD_PREP(UV_MBOX_PLANE, plane) |
	       FIELD_PREP(UV_MBOX_CMD, cmd) | FIELD_PREP(UV_MBOX_DATA, data);
}
EXPORT_SYMBOL_IF_KUNIT(uv_mbox_cmd_word);

/**
 * uv_mbox_code_to_errno() - map a completion code to an errno
 * @code: completion code from bits 39:32 of the response
 *
 * Return: 0 for success, -EPERM when overclocking is locked, -EOPNOTSUPP
 * for an invalid or unsupported plane, -ERANGE when a ratio or voltage
 * limit is exceeded, -EIO for any other code.
 */
int uv_mbox_code_to_errno(int code)
{
	switch (code) {
	case UV_CC_SUCCESS:
		return 0;
	case UV_CC_OC_LOCKED:
		return -EPERM;
	case UV_CC_INVALID_DOMAIN:
	case UV_CC_OC_UNSUPPORTED:
		return -EOPNOTSUPP;
	case UV_CC_MAX_RATIO:
	case UV_CC_MAX_VOLTAGE:
		return -ERANGE;
	default:
		return -EIO;
	}
}
EXPORT_SYMBOL_IF_KUNIT(uv_mbox_code_to_errno);

static int uv_mbox_wait(const struct uv_msr_access *acc, u64 *val)
{
	unsigned int i;
	int ret;

	for (i = 0; i <= UV_MBOX_TIMEOUT_US / UV_MBOX_POLL_US; i++) {
		ret = acc->read(MSR_IA32_OC_MAILBOX, val);
		if (ret)
			return ret;
		if (!(*val & UV_MBOX_BUSY))
			return 0;
		udelay(UV_MBOX_POLL_US);
	}
	return -ETIMEDOUT;
}

/**
 * uv_mbox_xfer() - run one command on the current CPU
 * @acc: MSR accessors
 * @cmd: command word, busy bit set
 * @resp: the response word
 *
 * Waits for a command still in flight, writes @cmd and polls the busy bit
 * with a bounded timeout. Runs with interrupts disabled.
 *
 * Return: 0 with the response in @resp, -ETIMEDOUT when the busy bit did
 * not clear, or the error of an MSR access.
 */
int uv_mbox_xfer(const struct uv_msr_access *acc, u64 cmd, u64 *resp)
{
	int ret;

	ret = uv_mbox_wait(acc, resp);
	if (ret)
		return ret;
	ret = acc->write(MSR_IA32_OC_MAILBOX, cmd);
	if (ret)
		return ret;
	return uv_mbox_wait(acc, resp);
}
EXPORT_SYMBOL_IF_KUNIT(uv_mbox_xfer);

static int uv_native_rdmsr(u32 msr, u64 *val)
{
	return rdmsrl_safe(msr, val);
}

static int uv_native_wrmsr(u32 msr, u64 val)
{
	return wrmsrl_safe(msr, val);
}

const struct uv_msr_access uv_native_msrs = {
	.read = uv_native_rdmsr,
	.write = uv_native_wrmsr,
};

struct uv_xfer {
	const struct uv_msr_access *acc;
	u64 cmd;
	u64 resp;
	int err;
};

static void uv_xfer_on_cpu(void *info)
{
	struct uv_xfer *x = info;

	x->err = uv_mbox_xfer(x->acc, x->cmd, &x->resp);
}

struct uv_rdmsr {
	const struct uv_msr_access *acc;
	u32 msr;
	u64 val;
	int err;
};

static void uv_rdmsr_on_cpu(void *info)
{
	struct uv_rdmsr *r = info;

	r->err = r->acc->read(r->msr, &r->val);
}

/* Call with cpus_read_lock() held. */
static int uv_package_cpu(unsigned int pkg)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		if (topology_logical_package_id(cpu) == pkg)
			return cpu;
	return -ENODEV;
}

static int uv_call_on_package(unsigned int pkg, smp_call_func_t func, void *info)
{
	int cpu, ret;

	/*
	 * Syscore resume: one CPU runs, interrupts off. Only its own package
	 * can be reached; the others are restored when their CPUs come back.
	 */
	if (irqs_disabled()) {
		if (topology_logical_package_id(smp_processor_id()) != pkg)
			return -ENODEV;
		func(info);
		return 0;
	}

	cpus_read_lock();
	cpu = uv_package_cpu(pkg);
	ret = cpu < 0 ? cpu : smp_call_function_single(cpu, func, info, 1);
	cpus_read_unlock();
	return ret;
}

static int uv_msr_run(void *ctx, unsigned int pkg, u64 cmd, u32 *data)
{
	struct uv_xfer x = { .acc = ctx, .cmd = cmd };
	int ret;

	ret = uv_call_on_package(pkg, uv_xfer_on_cpu, &x);
	if (ret)
		return ret;
	if (x.err)
		return x.err;
	*data = FIELD_GET(UV_MBOX_DATA, x.resp);
	return FIELD_GET(UV_MBOX_CMD, x.resp);
}

static int uv_msr_read_msr(void *ctx, unsigned int pkg, u32 msr, u64 *val)
{
	struct uv_rdmsr r = { .acc = ctx, .msr = msr };
	int ret;

	ret = uv_call_on_package(pkg, uv_rdmsr_on_cpu, &r);
	if (ret)
		return ret;
	*val = r.val;
	return r.err;
}

/*
 * The mailbox on MSRs. The context is the struct uv_msr_access to use:
 * uv_native_msrs, or intel_undervolt_emu_msrs for the emulated firmware.
 */
const struct uv_mbox_ops uv_msr_mbox_ops = {
	.run = uv_msr_run,
	.read_msr = uv_msr_read_msr,
};

/**
 * uv_mbox_cmd() - run a mailbox command on a package
 * @uv: driver instance
 * @pkg: logical package id
 * @cmd: command (UV_CMD_*)
 * @plane: voltage plane
 * @data_in: data word sent
 * @data_out: response data word, may be NULL
 *
 * The caller holds the package lock.
 *
 * Return: 0, or a negative errno (see uv_mbox_code_to_errno()).
 */
int uv_mbox_cmd(struct uv_dev *uv, unsigned int pkg, u8 cmd, u8 plane,
		u32 data_in, u32 *data_out)
{
	u32 data = 0;
	int code;

	code = uv->ops->run(uv->ctx, pkg, uv_mbox_cmd_word(cmd, plane, data_in),
			    &data);
	if (code < 0)
		return code;
	if (data_out)
		*data_out = data;
	return uv_mbox_code_to_errno(code);
}
EXPORT_SYMBOL_IF_KUNIT(uv_mbox_cmd);

/**
 * uv_mv_to_units() - convert millivolts to 1/1024 V units
 * @mv: offset in millivolts
 *
 * Rounds to the nearest unit, halves away from zero. Each millivolt value
 * in UV_OFFSET_MIN_MV..UV_OFFSET_MAX_MV maps to a different unit, and
 * uv_units_to_mv() maps it back exactly.
 *
 * Return: the offset in units.
 */
int uv_mv_to_units(int mv)
{
	return DIV_ROUND_CLOSEST(mv * 1024, 1000);
}
EXPORT_SYMBOL_IF_KUNIT(uv_mv_to_units);

/**
 * uv_units_to_mv() - convert 1/1024 V units to millivolts
 * @units: offset in units
 *
 * Return: the offset in millivolts, rounded to nearest, halves away from
 * zero.
 */
int uv_units_to_mv(int units)
{
	return DIV_ROUND_CLOSEST(units * 1000, 1024);
}
EXPORT_SYMBOL_IF_KUNIT(uv_units_to_mv);

/**
 * uv_data_set_offset() - replace the offset in a plane data word
 * @data: data word read from the plane
 * @mv: new offset in millivolts, UV_OFFSET_MIN_MV..UV_OFFSET_MAX_MV
 *
 * Return: @data with bits 31:21 replaced and bits 20:0 kept.
 */
u32 uv_data_set_offset(u32 data, int mv)
{
	u32 units = (u32)uv_mv_to_units(mv) & (UV_DATA_OFFSET >> 21);

	return (data & ~UV_DATA_OFFSET) | FIELD_PREP(UV_DATA_OFFSET, units);
}
EXPORT_SYMBOL_IF_KUNIT(uv_data_set_offset);

/**
 * uv_data_get_offset() - the offset in a plane data word
 * @data: data word
 *
 * Return: the offset in millivolts.
 */
int uv_data_get_offset(u32 data)
{
	return uv_units_to_mv(sign_extend32(FIELD_GET(UV_DATA_OFFSET, data), 10));
}
EXPORT_SYMBOL_IF_KUNIT(uv_data_get_offset);
