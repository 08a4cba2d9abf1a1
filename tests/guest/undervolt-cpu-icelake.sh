#!/bin/sh
# qemu-run: --cpu Skylake-Client,-hypervisor,model=126
# Ice Lake (family 6 model 0x7e, INTEL_ICELAKE_L), whose offsets work
# (georgewhewell/undervolt #128: an i5-1035G1, model 126). Its mailbox
# numbers the system agent 4, not 3 (kitsunyan/intel-undervolt PR #61;
# the model acknowledges writes to 3 and keeps its word): the driver
# shows uncore_offset_mv for domain 4, no analogio, and never addresses
# domain 3. Ice Lake has no Undervolt Protection (12th gen and later):
# IA32_OVERCLOCKING_STATUS is not enumerated. Every check looks at the
# model's words and command log (fwctl), not at what the driver says.
. /test/lib.sh

newer_cpu_binds 126
check_grep "IA32_OVERCLOCKING_STATUS (0x195) is not enumerated: it faults" \
	EIO "$(msrtool read 0 0x195 2>&1)"
newer_cpu_writes
check_no_splat
finish
