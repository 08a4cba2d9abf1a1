/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Intel CPU voltage offset control through the OC mailbox: internal interfaces
 *
 * Copyright (c) 2026 The linux-undervolt authors
 */

#ifndef _INTEL_UNDERVOLT_H
#define _INTEL_UNDERVOLT_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/workqueue.h>

/* Voltage planes ("domains") as the OC mailbox numbers them. */
enum uv_plane {
	UV_PLANE_CORE,
	UV_PLANE_GPU,
	UV_PLANE_CACHE,
	UV_PLANE_UNCORE,
	UV_PLANE_ANALOGIO,
	UV_NR_PLANES,
};

/* OC mailbox command word (MSR 0x150) */
#define UV_MBOX_BUSY			BIT_ULL(63)
#define UV_MBOX_PLANE			GENMASK_ULL(47, 40)
#define UV_MBOX_CMD			GENMASK_ULL(39, 32)
#define UV_MBOX_DATA			GENMASK_ULL(31, 0)

/* Commands, sent in UV_MBOX_CMD */
#define UV_CMD_GET_CAPS			0x01
#define UV_CMD_READ_PLANE		0x10
#define UV_CMD_WRITE_PLANE		0x11

/* Completion codes, returned in UV_MBOX_CMD */
#define UV_CC_SUCCESS			0x00
#define UV_CC_OC_LOCKED			0x01
#define UV_CC_INVALID_DOMAIN		0x02
#define UV_CC_MAX_RATIO			0x03
#define UV_CC_MAX_VOLTAGE		0x04
#define UV_CC_OC_UNSUPPORTED		0x05

/* Data word of UV_CMD_GET_CAPS */
#define UV_CAP_RATIO			BIT(8)
#define UV_CAP_VOLTAGE_OVERRIDE		BIT(9)
#define UV_CAP_VOLTAGE_OFFSET		BIT(10)

/* Data word of UV_CMD_READ_PLANE and UV_CMD_WRITE_PLANE */
#define UV_DATA_MAX_RATIO		GENMASK(7, 0)
#define UV_DATA_VOLTAGE_TARGET		GENMASK(19, 8)
#define UV_DATA_OVERRIDE_MODE		BIT(20)
#define UV_DATA_OFFSET			GENMASK(31, 21)

/* Offsets the 11-bit field can hold, in millivolts */
#define UV_OFFSET_MIN_MV		(-1000)
#define UV_OFFSET_MAX_MV		999

/* MSR_IA32_OC_MAILBOX is in msr-index.h; the OC lock is not (yet). */
#define UV_MSR_FLEX_RATIO		0x194
#define UV_FLEX_RATIO_OC_LOCK		BIT_ULL(20)

/**
 * struct uv_msr_access - MSR accessors for the CPU the caller runs on
 * @read: read an MSR; 0 or a negative errno
 * @write: write an MSR; 0 or a negative errno
 *
 * The hardware uses rdmsrl_safe() and wrmsrl_safe(); the emulated
 * firmware (module intel_undervolt_emu) exports its own. Both are called
 * with interrupts disabled and must not sleep.
 */
struct uv_msr_access {
	int (*read)(u32 msr, u64 *val);
	int (*write)(u32 msr, u64 val);
};

/**
 * struct uv_mbox_ops - the mailbox as the rest of the driver sees it
 * @run: run one command word (busy bit set) on package @pkg; return the
 *	completion code (>= 0) with the response data in @data, or a
 *	negative errno (-ETIMEDOUT when the busy bit did not clear)
 * @read_msr: read an MSR (OC lock, SGX enable) on package @pkg
 *
 * KUnit tests replace this with a fake.
 */
struct uv_mbox_ops {
	int (*run)(void *ctx, unsigned int pkg, u64 cmd, u32 *data);
	int (*read_msr)(void *ctx, unsigned int pkg, u32 msr, u64 *val);
};

/**
 * struct uv_model - what is known about a CPU model
 * @planes: bitmap of the planes (BIT(enum uv_plane)) the model has
 * @coupled: core and cache share one voltage (Skylake and later); a
 *	write to one of them is applied to both
 */
struct uv_model {
	unsigned long planes;
	bool coupled;
};

/**
 * struct uv_dev - the driver instance
 * @ops: mailbox implementation
 * @ctx: first argument of @ops callbacks
 * @model: facts about the CPU model
 * @cpu_has_sgx: the CPU can enable SGX (CPUID), so FEAT_CTL bit 18 counts
 * @root: /sys/devices/system/cpu/intel_undervolt
 * @nr_pkgs: number of entries in @pkgs
 * @pkgs: per package state, NULL for a package without online CPU
 * @restores: how many times a package's offsets were written back after
 *	the firmware lost them (debugfs "restores")
 * @debugfs: /sys/kernel/debug/intel_undervolt
 * @hp_state: dynamic CPU hotplug state, 0 before uv_lifecycle_init()
 * @trial_lock: serialises trial state; taken before a package lock
 * @trial_pending: a change waits for confirmation
 * @trial_closed: unloading, no new countdown
 * @trial_deadline: when it reverts, in jiffies
 * @trial_work: reverts every package to its confirmed offsets
 */
struct uv_dev {
	const struct uv_mbox_ops *ops;
	void *ctx;
	const struct uv_model *model;
	bool cpu_has_sgx;
	struct kobject *root;
	unsigned int nr_pkgs;
	struct uv_package **pkgs;
	atomic_t restores;
	struct dentry *debugfs;
	int hp_state;
	struct mutex trial_lock;	/* serialises the trial state */
	bool trial_pending;
	bool trial_closed;
	unsigned long trial_deadline;
	struct delayed_work trial_work;
};

/**
 * struct uv_package - one CPU package
 * @kobj: package_NN in sysfs
 * @uv: the driver instance
 * @id: logical package id
 * @lock: serialises every mailbox access on this package
 * @planes: bitmap of the planes the firmware answered for
 * @oc_locked: the firmware answered a write with "OC locked"
 * @boot_mv: offset of each plane when the driver bound
 * @offset_mv: last offset written and verified (or @boot_mv): what the
 *	driver writes back when the firmware forgot it
 * @confirmed_mv: offsets a trial reverts to: the last confirmed ones, or
 *	@offset_mv while trial mode is off
 * @cpu: control CPU, an online CPU of the package, or -1 while all its
 *	CPUs are offline
 * @restore_work: writes @offset_mv back when the package comes online
 */
struct uv_package {
	struct kobject kobj;
	struct uv_dev *uv;
	unsigned int id;
	struct mutex lock;	/* serialises mailbox access to the package */
	unsigned long planes;
	bool oc_locked;
	int boot_mv[UV_NR_PLANES];
	int offset_mv[UV_NR_PLANES];
	int confirmed_mv[UV_NR_PLANES];
	int cpu;
	struct work_struct restore_work;
};

/* Why writes are refused; the order is the order of the checks. */
enum uv_block_reason {
	UV_BLOCK_NONE,
	UV_BLOCK_RECOVERY,
	UV_BLOCK_LOCKDOWN,
	UV_BLOCK_SGX,
	UV_BLOCK_OC_LOCK,
};

/* mailbox.c */
extern const struct uv_mbox_ops uv_msr_mbox_ops;
extern const struct uv_msr_access uv_native_msrs;
u64 uv_mbox_cmd_word(u8 cmd, u8 plane, u32 data);
int uv_mbox_code_to_errno(int code);
int uv_mbox_xfer(const struct uv_msr_access *acc, u64 cmd, u64 *resp);
int uv_mbox_cmd(struct uv_dev *uv, unsigned int pkg, u8 cmd, u8 plane,
		u32 data_in, u32 *data_out);
int uv_mv_to_units(int mv);
int uv_units_to_mv(int units);
u32 uv_data_set_offset(u32 data, int mv);
int uv_data_get_offset(u32 data);

/* core.c */
extern const char * const uv_plane_names[UV_NR_PLANES];
int uv_min_offset_mv(void);
int uv_max_offset_mv(void);
enum uv_block_reason uv_block_reason(struct uv_package *p);
const char *uv_block_reason_name(enum uv_block_reason reason);
int uv_read_offset(struct uv_package *p, enum uv_plane plane, int *mv);
int uv_write_offset(struct uv_package *p, enum uv_plane plane, int mv);
int uv_restore_package(struct uv_package *p, const int *mv, const char *why);
int uv_parse_offset_entry(char *entry, enum uv_plane *plane, int *mv);
void uv_trial_confirm(void);
unsigned int uv_trial_remaining_s(void);

/* sysfs.c */
int uv_parse_mv(const char *buf, int *mv);
int uv_sysfs_init(struct uv_dev *uv);
int uv_sysfs_add_package(struct uv_dev *uv, struct uv_package *p);
void uv_sysfs_remove(struct uv_dev *uv);
void uv_sysfs_exit(struct uv_dev *uv);

/* emulation.c, module intel_undervolt_emu */
extern const struct uv_msr_access intel_undervolt_emu_msrs;

#endif /* _INTEL_UNDERVOLT_H */
