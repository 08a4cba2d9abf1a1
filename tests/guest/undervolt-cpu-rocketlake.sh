#!/bin/sh
# qemu-run: --cpu Skylake-Client,-hypervisor,model=167
# Rocket Lake (family 6 model 0xa7, INTEL_ROCKETLAKE), desktop K parts
# whose offsets PowerMonkey sets. The planes are Ice Lake's: the system
# agent on domain 4, domain 3 never addressed, no analogio; no Undervolt
# Protection (that is 12th gen and later).
. /test/lib.sh

newer_cpu_binds 167
check_grep "IA32_OVERCLOCKING_STATUS (0x195) is not enumerated: it faults" \
	EIO "$(msrtool read 0 0x195 2>&1)"
newer_cpu_writes
check_no_splat
finish
