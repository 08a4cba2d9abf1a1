#!/bin/sh
# qemu-run: --cpu Skylake-Client,-hypervisor,model=140
# Tiger Lake (family 6 model 0x8c, INTEL_TIGERLAKE_L) with a firmware
# that takes offsets, as a few vendor-unlocked laptops do (most Tiger Lake
# firmware refuses them; one Dell XPS 13 9310 answers 0x1F to every
# command, the answers-1f profile of undervolt-fw-answers-1f.sh). The
# planes are Ice Lake's: the system agent on domain 4, domain 3 never
# addressed, no analogio; no Undervolt Protection.
. /test/lib.sh

newer_cpu_binds 140
check_grep "IA32_OVERCLOCKING_STATUS (0x195) is not enumerated: it faults" \
	EIO "$(msrtool read 0 0x195 2>&1)"
newer_cpu_writes
check_no_splat
finish
