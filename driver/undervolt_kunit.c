// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for intel_undervolt, against a fake mailbox
 *
 * Copyright (c) 2026 The linux-undervolt authors
 */

#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <asm/msr.h>

#include "undervolt.h"

/* Encoding */

struct uv_word_case {
	const char *desc;
	u8 cmd;
	u8 plane;
	u32 data;
	u64 word;
};

static const struct uv_word_case uv_word_cases[] = {
	{ "get capabilities", UV_CMD_GET_CAPS, 0, 0, 0x8000000100000000ULL },
	{ "read core", UV_CMD_READ_PLANE, UV_PLANE_CORE, 0, 0x8000001000000000ULL },
	{ "read gpu", UV_CMD_READ_PLANE, UV_PLANE_GPU, 0, 0x8000011000000000ULL },
	{ "read cache", UV_CMD_READ_PLANE, UV_PLANE_CACHE, 0, 0x8000021000000000ULL },
	{ "read uncore", UV_CMD_READ_PLANE, UV_PLANE_UNCORE, 0, 0x8000031000000000ULL },
	{ "read analogio", UV_CMD_READ_PLANE, UV_PLANE_ANALOGIO, 0, 0x8000041000000000ULL },
	{ "write core -100 mV", UV_CMD_WRITE_PLANE, UV_PLANE_CORE, 0xf3400000,
	  0x80000011f3400000ULL },
	{ "write cache -100 mV keeps 20:0", UV_CMD_WRITE_PLANE, UV_PLANE_CACHE,
	  0xf35fffff, 0x80000211f35fffffULL },
	{ "write analogio +999 mV", UV_CMD_WRITE_PLANE, UV_PLANE_ANALOGIO,
	  0x7fe00000, 0x800004117fe00000ULL },
};

static void uv_word_case_desc(const struct uv_word_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(uv_word, uv_word_cases, uv_word_case_desc);

static void uv_test_cmd_word(struct kunit *test)
{
	const struct uv_word_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, uv_mbox_cmd_word(c->cmd, c->plane, c->data), c->word);
}

static void uv_test_offset_field(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, uv_mv_to_units(-100), -102);
	KUNIT_EXPECT_EQ(test, uv_data_set_offset(0, -100), 0xf3400000);
	KUNIT_EXPECT_EQ(test, uv_data_set_offset(0, -100) >> 21, 0x79a);
	KUNIT_EXPECT_EQ(test, uv_data_set_offset(0, UV_OFFSET_MIN_MV), 0x80000000);
	KUNIT_EXPECT_EQ(test, uv_data_set_offset(0, UV_OFFSET_MAX_MV), 0x7fe00000);
	KUNIT_EXPECT_EQ(test, uv_data_set_offset(0xffffffff, 0), 0x001fffff);
	KUNIT_EXPECT_EQ(test, uv_data_get_offset(0xf3400000), -100);
	KUNIT_EXPECT_EQ(test, uv_data_get_offset(0x001fffff), 0);
	/* Halves round away from zero: 0.5 unit is 0.48828125 mV. */
	KUNIT_EXPECT_EQ(test, uv_units_to_mv(1), 1);
	KUNIT_EXPECT_EQ(test, uv_units_to_mv(-1), -1);
	KUNIT_EXPECT_EQ(test, uv_units_to_mv(-1024), -1000);
	KUNIT_EXPECT_EQ(test, uv_units_to_mv(1023), 999);
}

static void uv_test_round_trip(struct kunit *test)
{
	u32 low = UV_DATA_MAX_RATIO | UV_DATA_VOLTAGE_TARGET | UV_DATA_OVERRIDE_MODE;
	int mv;

	for (mv = UV_OFFSET_MIN_MV; mv <= UV_OFFSET_MAX_MV; mv++) {
		u32 data = uv_data_set_offset(low, mv);

		KUNIT_ASSERT_EQ_MSG(test, uv_units_to_mv(uv_mv_to_units(mv)), mv,
				    "units round trip of %d mV", mv);
		KUNIT_ASSERT_EQ_MSG(test, uv_data_get_offset(data), mv,
				    "data word round trip of %d mV", mv);
		KUNIT_ASSERT_EQ_MSG(test, data & ~UV_DATA_OFFSET, low,
				    "bits 20:0 kept for %d mV", mv);
	}
}

/* Completion codes */

static int uv_expected_errno(int code)
{
	switch (code) {
	case 0:
		return 0;
	case 1:
		return -EPERM;
	case 2:
	case 5:
		return -EOPNOTSUPP;
	case 3:
	case 4:
		return -ERANGE;
	default:
		return -EIO;
	}
}

static void uv_test_completion_codes(struct kunit *test)
{
	int code;

	for (code = 0; code <= 0xff; code++)
		KUNIT_EXPECT_EQ_MSG(test, uv_mbox_code_to_errno(code),
				    uv_expected_errno(code), "code %d", code);
}

/* The busy-bit poll, against a fake MSR 0x150 */

static u64 uv_fake_reg;
static unsigned int uv_fake_busy_reads;	/* reads that still see busy */
static unsigned int uv_fake_reads, uv_fake_writes;

static int uv_fake_rdmsr(u32 msr, u64 *val)
{
	if (msr != MSR_IA32_OC_MAILBOX)
		return -EIO;
	uv_fake_reads++;
	if (uv_fake_busy_reads) {
		uv_fake_busy_reads--;
		*val = uv_fake_reg | UV_MBOX_BUSY;
	} else {
		*val = uv_fake_reg & ~UV_MBOX_BUSY;
	}
	return 0;
}

static int uv_fake_wrmsr(u32 msr, u64 val)
{
	if (msr != MSR_IA32_OC_MAILBOX)
		return -EIO;
	uv_fake_writes++;
	/* Answer: completion code 0, data echoed. */
	uv_fake_reg = val & ~UV_MBOX_CMD;
	return 0;
}

static const struct uv_msr_access uv_fake_msrs = {
	.read = uv_fake_rdmsr,
	.write = uv_fake_wrmsr,
};

/* The firmware never answers: busy stays set after a write. */
static int uv_fake_stuck_wrmsr(u32 msr, u64 val)
{
	uv_fake_writes++;
	uv_fake_busy_reads = UINT_MAX;
	return 0;
}

static const struct uv_msr_access uv_fake_stuck_msrs = {
	.read = uv_fake_rdmsr,
	.write = uv_fake_stuck_wrmsr,
};

static void uv_fake_reg_reset(unsigned int busy_reads)
{
	uv_fake_reg = 0;
	uv_fake_busy_reads = busy_reads;
	uv_fake_reads = 0;
	uv_fake_writes = 0;
}

static void uv_test_xfer(struct kunit *test)
{
	u64 resp;

	uv_fake_reg_reset(0);
	KUNIT_EXPECT_EQ(test, uv_mbox_xfer(&uv_fake_msrs, 0x80000011f3400000ULL,
					   &resp), 0);
	KUNIT_EXPECT_EQ(test, resp, 0x00000000f3400000ULL);
	KUNIT_EXPECT_EQ(test, uv_fake_writes, 1);

	/* A command in flight is waited for; the answer is polled. */
	uv_fake_reg_reset(5);
	KUNIT_EXPECT_EQ(test, uv_mbox_xfer(&uv_fake_msrs, 0x8000001000000000ULL,
					   &resp), 0);
	KUNIT_EXPECT_EQ(test, uv_fake_writes, 1);
	KUNIT_EXPECT_FALSE(test, resp & UV_MBOX_BUSY);
}

static void uv_test_busy_timeout(struct kunit *test)
{
	u64 resp;

	/* Stuck before the write: nothing is written. */
	uv_fake_reg_reset(UINT_MAX);
	KUNIT_EXPECT_EQ(test, uv_mbox_xfer(&uv_fake_msrs, 0x8000001000000000ULL,
					   &resp), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, uv_fake_writes, 0);
	KUNIT_EXPECT_LT(test, uv_fake_reads, 2000);

	/* Free before the write, stuck after it: written once, then times out. */
	uv_fake_reg_reset(0);
	KUNIT_EXPECT_EQ(test, uv_mbox_xfer(&uv_fake_stuck_msrs, 0x8000001000000000ULL,
					   &resp), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, uv_fake_writes, 1);
}

/* Read-modify-write and policy, against a fake mailbox */

struct uv_fake_fw {
	u32 planes[UV_NR_PLANES];
	u64 cmds[32];
	unsigned int ncmds;
	int write_code;		/* completion code of writes */
	bool drop;		/* writes succeed but are ignored */
	u64 flex_ratio;
};

static int uv_fake_run(void *ctx, unsigned int pkg, u64 cmd, u32 *data)
{
	struct uv_fake_fw *fw = ctx;
	unsigned int plane = FIELD_GET(UV_MBOX_PLANE, cmd);
	u32 in = FIELD_GET(UV_MBOX_DATA, cmd);

	if (fw->ncmds < ARRAY_SIZE(fw->cmds))
		fw->cmds[fw->ncmds++] = cmd;
	if (plane >= UV_NR_PLANES)
		return UV_CC_INVALID_DOMAIN;
	switch (FIELD_GET(UV_MBOX_CMD, cmd)) {
	case UV_CMD_GET_CAPS:
		*data = UV_CAP_VOLTAGE_OFFSET;
		return 0;
	case UV_CMD_READ_PLANE:
		*data = fw->planes[plane];
		return 0;
	case UV_CMD_WRITE_PLANE:
		if (fw->write_code)
			return fw->write_code;
		if (!fw->drop)
			fw->planes[plane] = in;
		*data = in;
		return 0;
	default:
		return 0x1f;
	}
}

static int uv_fake_read_msr(void *ctx, unsigned int pkg, u32 msr, u64 *val)
{
	struct uv_fake_fw *fw = ctx;

	*val = msr == UV_MSR_FLEX_RATIO ? fw->flex_ratio : 0;
	return 0;
}

static const struct uv_mbox_ops uv_fake_ops = {
	.run = uv_fake_run,
	.read_msr = uv_fake_read_msr,
};

static const struct uv_model uv_model_coupled = {
	.planes = GENMASK(UV_NR_PLANES - 1, 0),
	.coupled = true,
};

static const struct uv_model uv_model_uncoupled = {
	.planes = GENMASK(UV_NR_PLANES - 1, 0),
	.coupled = false,
};

static struct uv_package *uv_test_package(struct kunit *test,
					  const struct uv_model *model,
					  struct uv_fake_fw **fwp)
{
	struct uv_fake_fw *fw;
	struct uv_package *p;
	struct uv_dev *uv;
	int i;

	fw = kunit_kzalloc(test, sizeof(*fw), GFP_KERNEL);
	uv = kunit_kzalloc(test, sizeof(*uv), GFP_KERNEL);
	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fw);
	KUNIT_ASSERT_NOT_NULL(test, uv);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < UV_NR_PLANES; i++)
		fw->planes[i] = 0x0004cd00 | (0x20 + i);
	uv->ops = &uv_fake_ops;
	uv->ctx = fw;
	uv->model = model;
	mutex_init(&uv->trial_lock);
	p->uv = uv;
	p->planes = model->planes;
	mutex_init(&p->lock);
	*fwp = fw;
	return p;
}

static void uv_test_rmw(struct kunit *test)
{
	struct uv_fake_fw *fw;
	struct uv_package *p = uv_test_package(test, &uv_model_uncoupled, &fw);
	int mv;

	fw->planes[UV_PLANE_GPU] = 0x001abcde;
	KUNIT_ASSERT_EQ(test, uv_write_offset(p, UV_PLANE_GPU, -97), 0);
	KUNIT_EXPECT_EQ(test, fw->planes[UV_PLANE_GPU] & ~UV_DATA_OFFSET, 0x001abcde);
	KUNIT_EXPECT_EQ(test, uv_data_get_offset(fw->planes[UV_PLANE_GPU]), -97);
	KUNIT_EXPECT_EQ(test, p->offset_mv[UV_PLANE_GPU], -97);
	KUNIT_ASSERT_EQ(test, fw->ncmds, 3);
	KUNIT_EXPECT_EQ(test, fw->cmds[0], 0x8000011000000000ULL);
	KUNIT_EXPECT_EQ(test, fw->cmds[1], 0x8000011100000000ULL |
			uv_data_set_offset(0x001abcde, -97));
	KUNIT_EXPECT_EQ(test, fw->cmds[2], 0x8000011000000000ULL);
	KUNIT_ASSERT_EQ(test, uv_read_offset(p, UV_PLANE_GPU, &mv), 0);
	KUNIT_EXPECT_EQ(test, mv, -97);
}

static void uv_test_write_core_word(struct kunit *test)
{
	struct uv_fake_fw *fw;
	struct uv_package *p = uv_test_package(test, &uv_model_uncoupled, &fw);

	fw->planes[UV_PLANE_CORE] = 0;
	KUNIT_ASSERT_EQ(test, uv_write_offset(p, UV_PLANE_CORE, -100), 0);
	KUNIT_ASSERT_EQ(test, fw->ncmds, 3);
	KUNIT_EXPECT_EQ(test, fw->cmds[1], 0x80000011f3400000ULL);
}

static void uv_test_readback_mismatch(struct kunit *test)
{
	struct uv_fake_fw *fw;
	struct uv_package *p = uv_test_package(test, &uv_model_uncoupled, &fw);

	p->offset_mv[UV_PLANE_CORE] = 0;
	fw->drop = true;
	KUNIT_EXPECT_EQ(test, uv_write_offset(p, UV_PLANE_CORE, -50), -EIO);
	KUNIT_EXPECT_EQ(test, p->offset_mv[UV_PLANE_CORE], 0);
}

static void uv_test_write_codes(struct kunit *test)
{
	static const int codes[] = { 1, 2, 3, 4, 5, 0x1f };
	struct uv_fake_fw *fw;
	struct uv_package *p;
	int i;

	for (i = 0; i < ARRAY_SIZE(codes); i++) {
		p = uv_test_package(test, &uv_model_uncoupled, &fw);
		fw->write_code = codes[i];
		KUNIT_EXPECT_EQ_MSG(test, uv_write_offset(p, UV_PLANE_GPU, -10),
				    uv_expected_errno(codes[i]), "code %d", codes[i]);
		KUNIT_EXPECT_EQ(test, p->offset_mv[UV_PLANE_GPU], 0);
		KUNIT_EXPECT_EQ(test, p->oc_locked, codes[i] == 1);
	}
	/* After code 1 the package reports the OC lock. */
	p = uv_test_package(test, &uv_model_uncoupled, &fw);
	fw->write_code = 1;
	uv_write_offset(p, UV_PLANE_GPU, -10);
	KUNIT_EXPECT_EQ(test, uv_block_reason(p), UV_BLOCK_OC_LOCK);
}

static void uv_test_oc_lock_msr(struct kunit *test)
{
	struct uv_fake_fw *fw;
	struct uv_package *p = uv_test_package(test, &uv_model_uncoupled, &fw);

	KUNIT_EXPECT_EQ(test, uv_block_reason(p), UV_BLOCK_NONE);
	fw->flex_ratio = UV_FLEX_RATIO_OC_LOCK;
	KUNIT_EXPECT_EQ(test, uv_block_reason(p), UV_BLOCK_OC_LOCK);
	KUNIT_EXPECT_EQ(test, uv_write_offset(p, UV_PLANE_CORE, -10), -EPERM);
	KUNIT_EXPECT_EQ(test, fw->ncmds, 0);
}

static void uv_test_coupled(struct kunit *test)
{
	struct uv_fake_fw *fw;
	struct uv_package *p = uv_test_package(test, &uv_model_coupled, &fw);

	KUNIT_ASSERT_EQ(test, uv_write_offset(p, UV_PLANE_CORE, -80), 0);
	KUNIT_EXPECT_EQ(test, uv_data_get_offset(fw->planes[UV_PLANE_CORE]), -80);
	KUNIT_EXPECT_EQ(test, uv_data_get_offset(fw->planes[UV_PLANE_CACHE]), -80);
	KUNIT_EXPECT_EQ(test, fw->planes[UV_PLANE_CACHE] & ~UV_DATA_OFFSET,
			0x0004cd22);

	KUNIT_ASSERT_EQ(test, uv_write_offset(p, UV_PLANE_CACHE, -40), 0);
	KUNIT_EXPECT_EQ(test, uv_data_get_offset(fw->planes[UV_PLANE_CORE]), -40);
	KUNIT_EXPECT_EQ(test, uv_data_get_offset(fw->planes[UV_PLANE_CACHE]), -40);

	/* Other planes stay alone. */
	KUNIT_ASSERT_EQ(test, uv_write_offset(p, UV_PLANE_GPU, -20), 0);
	KUNIT_EXPECT_EQ(test, uv_data_get_offset(fw->planes[UV_PLANE_CORE]), -40);
}

static void uv_test_uncoupled(struct kunit *test)
{
	struct uv_fake_fw *fw;
	struct uv_package *p = uv_test_package(test, &uv_model_uncoupled, &fw);

	KUNIT_ASSERT_EQ(test, uv_write_offset(p, UV_PLANE_CORE, -80), 0);
	KUNIT_EXPECT_EQ(test, uv_data_get_offset(fw->planes[UV_PLANE_CORE]), -80);
	KUNIT_EXPECT_EQ(test, uv_data_get_offset(fw->planes[UV_PLANE_CACHE]), 0);
}

static void uv_test_range(struct kunit *test)
{
	struct uv_fake_fw *fw;
	struct uv_package *p = uv_test_package(test, &uv_model_uncoupled, &fw);
	int min = uv_min_offset_mv(), max = uv_max_offset_mv();

	KUNIT_EXPECT_EQ(test, uv_write_offset(p, UV_PLANE_CORE, min - 1), -ERANGE);
	KUNIT_EXPECT_EQ(test, uv_write_offset(p, UV_PLANE_CORE, max + 1), -ERANGE);
	KUNIT_EXPECT_EQ(test, uv_write_offset(p, UV_PLANE_CORE, INT_MIN), -ERANGE);
	KUNIT_EXPECT_EQ(test, uv_write_offset(p, UV_PLANE_CORE, INT_MAX), -ERANGE);
	KUNIT_EXPECT_EQ(test, fw->ncmds, 0);
	KUNIT_EXPECT_EQ(test, uv_write_offset(p, UV_PLANE_CORE, min), 0);
	KUNIT_EXPECT_EQ(test, uv_write_offset(p, UV_PLANE_CORE, max), 0);
}

/* Parsing */

struct uv_parse_case {
	const char *in;
	int ret;
	int mv;
};

static const struct uv_parse_case uv_parse_cases[] = {
	{ "-97", 0, -97 },
	{ "-97\n", 0, -97 },
	{ "0\n", 0, 0 },
	{ "+5", 0, 5 },
	{ "-0", 0, 0 },
	{ "", -EINVAL },
	{ "\n", -EINVAL },
	{ " -5", -EINVAL },
	{ "-5 ", -EINVAL },
	{ "-5\n\n", -EINVAL },
	{ "0x10", -EINVAL },
	{ "1e3", -EINVAL },
	{ "-", -EINVAL },
	{ "--5", -EINVAL },
	{ "5mV", -EINVAL },
	{ "99999999999", -ERANGE },
	{ "-99999999999", -ERANGE },
	{ "2147483648", -ERANGE },
};

static void uv_parse_case_desc(const struct uv_parse_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%*pE\"", (int)strlen(c->in), c->in);
}

KUNIT_ARRAY_PARAM(uv_parse, uv_parse_cases, uv_parse_case_desc);

static void uv_test_parse(struct kunit *test)
{
	const struct uv_parse_case *c = test->param_value;
	int mv = 12345;

	KUNIT_EXPECT_EQ(test, uv_parse_mv(c->in, &mv), c->ret);
	if (!c->ret)
		KUNIT_EXPECT_EQ(test, mv, c->mv);
}

/* The firmware forgot: only the planes that differ are written back. */
static void uv_test_restore(struct kunit *test)
{
	struct uv_fake_fw *fw;
	struct uv_package *p = uv_test_package(test, &uv_model_uncoupled, &fw);
	u32 boot_gpu = fw->planes[UV_PLANE_GPU];

	KUNIT_ASSERT_EQ(test, uv_write_offset(p, UV_PLANE_GPU, -40), 0);
	KUNIT_ASSERT_EQ(test, uv_write_offset(p, UV_PLANE_UNCORE, -30), 0);
	KUNIT_EXPECT_EQ(test, uv_restore_package(p, p->offset_mv, "test"), 0);

	fw->planes[UV_PLANE_GPU] = boot_gpu;
	fw->ncmds = 0;
	KUNIT_EXPECT_EQ(test, uv_restore_package(p, p->offset_mv, "test"), 1);
	KUNIT_EXPECT_EQ(test, uv_data_get_offset(fw->planes[UV_PLANE_GPU]), -40);
	KUNIT_EXPECT_EQ(test, fw->planes[UV_PLANE_GPU] & ~UV_DATA_OFFSET,
			boot_gpu & ~UV_DATA_OFFSET);
	KUNIT_EXPECT_EQ(test, uv_data_get_offset(fw->planes[UV_PLANE_UNCORE]), -30);
	/* 5 reads, then read-modify-write-verify of gpu: 2 more reads, 1 write */
	KUNIT_EXPECT_EQ(test, fw->ncmds, 8);

	/* Unload: back to the boot offsets. */
	KUNIT_EXPECT_EQ(test, uv_restore_package(p, p->boot_mv, "test"), 2);
	KUNIT_EXPECT_EQ(test, uv_data_get_offset(fw->planes[UV_PLANE_GPU]), 0);
	KUNIT_EXPECT_EQ(test, uv_data_get_offset(fw->planes[UV_PLANE_UNCORE]), 0);

	/* A write the firmware rejects is reported; the others still run. */
	p->offset_mv[UV_PLANE_CORE] = -10;
	p->offset_mv[UV_PLANE_GPU] = -20;
	fw->write_code = UV_CC_MAX_VOLTAGE;
	KUNIT_EXPECT_EQ(test, uv_restore_package(p, p->offset_mv, "test"), -ERANGE);
}

/* While every CPU of the package is offline, writes fail with -ENODEV. */
static void uv_test_offline(struct kunit *test)
{
	struct uv_fake_fw *fw;
	struct uv_package *p = uv_test_package(test, &uv_model_uncoupled, &fw);

	p->cpu = -1;
	KUNIT_EXPECT_EQ(test, uv_write_offset(p, UV_PLANE_GPU, -40), -ENODEV);
	KUNIT_EXPECT_EQ(test, fw->ncmds, 0);
}

/* PLANE:MV entries of the offsets module parameter. */
static void uv_test_offset_entry(struct kunit *test)
{
	static const struct {
		const char *in;
		int ret;
		enum uv_plane plane;
		int mv;
	} cases[] = {
		{ "core:-80", 0, UV_PLANE_CORE, -80 },
		{ "analogio:5", 0, UV_PLANE_ANALOGIO, 5 },
		{ "gpu:+0", 0, UV_PLANE_GPU, 0 },
		{ "gpu:-99999999999", -ERANGE },
		{ "gpu", -EINVAL },
		{ "gpu:", -EINVAL },
		{ ":-80", -EINVAL },
		{ "Core:-80", -EINVAL },
		{ "core :-80", -EINVAL },
		{ "core:-80mV", -EINVAL },
		{ "core:-80\n", -EINVAL },
		{ "core:0x10", -EINVAL },
		{ "vccin:-80", -EINVAL },
	};
	enum uv_plane plane;
	char buf[32];
	int i, mv;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		strscpy(buf, cases[i].in, sizeof(buf));
		KUNIT_EXPECT_EQ_MSG(test, uv_parse_offset_entry(buf, &plane, &mv),
				    cases[i].ret, "entry \"%s\"", cases[i].in);
		KUNIT_EXPECT_STREQ(test, buf, cases[i].in);
		if (cases[i].ret)
			continue;
		KUNIT_EXPECT_EQ(test, plane, cases[i].plane);
		KUNIT_EXPECT_EQ(test, mv, cases[i].mv);
	}
}

static struct kunit_case uv_mailbox_cases[] = {
	KUNIT_CASE_PARAM(uv_test_cmd_word, uv_word_gen_params),
	KUNIT_CASE(uv_test_offset_field),
	KUNIT_CASE(uv_test_round_trip),
	KUNIT_CASE(uv_test_completion_codes),
	KUNIT_CASE(uv_test_xfer),
	KUNIT_CASE(uv_test_busy_timeout),
	{}
};

static struct kunit_suite uv_mailbox_suite = {
	.name = "intel_undervolt_mailbox",
	.test_cases = uv_mailbox_cases,
};

static struct kunit_case uv_core_cases[] = {
	KUNIT_CASE(uv_test_rmw),
	KUNIT_CASE(uv_test_write_core_word),
	KUNIT_CASE(uv_test_readback_mismatch),
	KUNIT_CASE(uv_test_write_codes),
	KUNIT_CASE(uv_test_oc_lock_msr),
	KUNIT_CASE(uv_test_coupled),
	KUNIT_CASE(uv_test_uncoupled),
	KUNIT_CASE(uv_test_range),
	KUNIT_CASE(uv_test_restore),
	KUNIT_CASE(uv_test_offline),
	KUNIT_CASE(uv_test_offset_entry),
	KUNIT_CASE_PARAM(uv_test_parse, uv_parse_gen_params),
	{}
};

static struct kunit_suite uv_core_suite = {
	.name = "intel_undervolt_core",
	.test_cases = uv_core_cases,
};

kunit_test_suites(&uv_mailbox_suite, &uv_core_suite);

MODULE_DESCRIPTION("KUnit tests for intel_undervolt");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
