/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * intel_undervolt out of tree (DKMS): what the driver uses from a kernel
 * with the linux-undervolt series, supplied on kernels without it.
 *
 * Kbuild force-includes this header (-include compat.h) before every file
 * of the DKMS build, so the driver sources carry no #if for kernel
 * versions; the in-tree build never sees it. The IUV_HAVE_* macros come
 * from Kbuild's probes of the target kernel's headers, not from version
 * numbers.
 *
 * Being first, this header must not include kernel headers that define
 * pr_fmt (printk.h, pulled in by nearly everything), or the driver's own
 * "#define pr_fmt" would redefine it: it defines macros that expand where
 * the driver uses them, and includes only <linux/types.h>.
 *
 * dkms/README.md lists what each kernel lacks and how the DKMS build
 * behaves differently.
 *
 * Copyright (c) 2026 The linux-undervolt authors
 */

#ifndef _INTEL_UNDERVOLT_DKMS_COMPAT_H
#define _INTEL_UNDERVOLT_DKMS_COMPAT_H

/*
 * The OC mailbox. The series moves MSR_OC_MAILBOX to msr-index.h; stock
 * kernels have it only as intel_turbo_max_3's private define.
 */
#ifndef IUV_HAVE_MSR_OC_MAILBOX
#define MSR_OC_MAILBOX			0x00000150
#endif

/*
 * The series adds LOCKDOWN_UNDERVOLT to the integrity part of enum
 * lockdown_reason. Out of tree the nearest reason is raw MSR access: it
 * is refused at the same lockdown level (integrity), but the kernel's
 * lockdown message then says "raw MSR access is restricted".
 */
#ifndef IUV_HAVE_LOCKDOWN_UNDERVOLT
#define LOCKDOWN_UNDERVOLT		LOCKDOWN_MSR
#endif

/*
 * Intel models as vendor/family/model values (INTEL_SKYLAKE_L, ...) for
 * X86_MATCH_VFM(): 6.1 has only the INTEL_FAM6_* model numbers (its
 * X86_MATCH_VFM() and VFM_MAKE() were backported in 6.1.y).
 */
#ifndef IUV_HAVE_INTEL_VFM
#define IFM(_fam, _model)	VFM_MAKE(X86_VENDOR_INTEL, _fam, _model)
#define INTEL_HASWELL		IFM(6, INTEL_FAM6_HASWELL)
#define INTEL_HASWELL_L		IFM(6, INTEL_FAM6_HASWELL_L)
#define INTEL_HASWELL_G		IFM(6, INTEL_FAM6_HASWELL_G)
#define INTEL_BROADWELL		IFM(6, INTEL_FAM6_BROADWELL)
#define INTEL_BROADWELL_G	IFM(6, INTEL_FAM6_BROADWELL_G)
#define INTEL_SKYLAKE_L		IFM(6, INTEL_FAM6_SKYLAKE_L)
#define INTEL_SKYLAKE		IFM(6, INTEL_FAM6_SKYLAKE)
#define INTEL_KABYLAKE_L	IFM(6, INTEL_FAM6_KABYLAKE_L)
#define INTEL_KABYLAKE		IFM(6, INTEL_FAM6_KABYLAKE)
#define INTEL_COMETLAKE		IFM(6, INTEL_FAM6_COMETLAKE)
#define INTEL_COMETLAKE_L	IFM(6, INTEL_FAM6_COMETLAKE_L)
#define INTEL_CANNONLAKE_L	IFM(6, INTEL_FAM6_CANNONLAKE_L)
#define INTEL_ICELAKE		IFM(6, INTEL_FAM6_ICELAKE)
#define INTEL_ICELAKE_L		IFM(6, INTEL_FAM6_ICELAKE_L)
#define INTEL_TIGERLAKE_L	IFM(6, INTEL_FAM6_TIGERLAKE_L)
#define INTEL_TIGERLAKE		IFM(6, INTEL_FAM6_TIGERLAKE)
#define INTEL_ROCKETLAKE	IFM(6, INTEL_FAM6_ROCKETLAKE)
#define INTEL_ALDERLAKE		IFM(6, INTEL_FAM6_ALDERLAKE)
#define INTEL_ALDERLAKE_L	IFM(6, INTEL_FAM6_ALDERLAKE_L)
#define INTEL_RAPTORLAKE	IFM(6, INTEL_FAM6_RAPTORLAKE)
#define INTEL_RAPTORLAKE_P	IFM(6, INTEL_FAM6_RAPTORLAKE_P)
#define INTEL_RAPTORLAKE_S	IFM(6, INTEL_FAM6_RAPTORLAKE_S)
#endif

/*
 * IA32_OVERCLOCKING_STATUS and its enumeration, which the series adds to
 * msr-index.h: stock kernels name neither.
 */
#ifndef IUV_HAVE_OVERCLOCKING_STATUS
#define ARCH_CAP_OVERCLOCKING_STATUS	BIT(23)
#define MSR_IA32_OVERCLOCKING_STATUS	0x00000195
#define OC_STATUS_UNDERVOLT_PROTECTION	BIT(1)
#endif

/*
 * bus_get_dev_root() (6.3) replaced the bus_type::dev_root member through
 * which drivers found /sys/devices/system/cpu. Like the real one, this
 * returns a reference the caller drops with put_device().
 */
#ifndef IUV_HAVE_BUS_GET_DEV_ROOT
#define bus_get_dev_root(bus)	get_device((bus)->dev_root)
#endif

#endif /* _INTEL_UNDERVOLT_DKMS_COMPAT_H */
