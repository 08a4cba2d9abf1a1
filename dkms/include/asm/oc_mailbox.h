/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * intel_undervolt out of tree (DKMS): stands in for <asm/oc_mailbox.h>,
 * which the linux-undervolt series adds. Kbuild puts this directory last
 * on the include path (-idirafter), so a kernel's own header wins.
 *
 * Without the series there is no owner to claim the mailbox from: raw
 * writes through /dev/cpu/N/msr stay possible while the driver is bound,
 * and nothing serialises the driver with intel_turbo_max_3 (which binds
 * only on Broadwell-X and Skylake-X, where this driver does not).
 *
 * Copyright (c) 2026 The linux-undervolt authors
 */

#ifndef _ASM_X86_OC_MAILBOX_H
#define _ASM_X86_OC_MAILBOX_H

static inline int oc_mailbox_claim(const char *instead)
{
	return 0;
}

static inline void oc_mailbox_release(void)
{
}

static inline void oc_mailbox_lock(void)
{
}

static inline void oc_mailbox_unlock(void)
{
}

#endif /* _ASM_X86_OC_MAILBOX_H */
