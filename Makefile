# linux-undervolt: see README.md. The two commands that matter:
#   make demo    build everything, boot QEMU, show the driver working
#   make check   run every test; ends with "N passed, N failed"

GUEST_CFLAGS := -std=c11 -O2 -Wall -Wextra -Werror -static -D_GNU_SOURCE
OUT := build
GUEST_PROGRAMS := $(OUT)/guest/msrtool $(OUT)/guest/writefile $(OUT)/guest/fwctl \
		  $(OUT)/guest/uvwrite $(OUT)/guest/uvfuzz $(OUT)/guest/uffdwrite \
		  $(OUT)/guest/kexecload \
		  $(OUT)/guest/undervoltctl
UVCTL_SRCS := $(wildcard tools/undervoltctl/*.[ch])

.PHONY: all setup kernel guest-programs demo check check-test check-debug bench \
	check-dkms dkms-source series fuzz install clean deb check-distro

all: kernel guest-programs

setup:
	scripts/setup

kernel: setup
	scripts/build-kernel

guest-programs: $(GUEST_PROGRAMS)

$(OUT)/guest/%: tests/guest-bin/%.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

# Static, since the guests have no libc.
$(OUT)/guest/undervoltctl: $(UVCTL_SRCS)
	@mkdir -p $(@D)
	$(MAKE) -C tools/undervoltctl static O=$(abspath $@)

demo: setup
	scripts/demo

# Both halves below, one combined summary line (tests/check).
check: setup
	tests/check

# The test kernel: host tests, guest suites, DKMS, the series checks.
check-test: setup
	tests/run-all

# The driver's guest suites and the stress suites (tests/stress/) on the
# debug kernel: lockdep, KASAN, UBSAN, kmemleak.
check-debug: setup
	tests/run-all --debug

# Not a test: resume-to-restore and resume-to-thaw medians, in ms.
bench: setup
	scripts/bench

# The DKMS module on Debian 12's stock 6.1 and 6.12 kernels (part of check).
check-dkms: setup
	tests/run-all host/dkms

dkms-source:
	scripts/dkms-source

# The Debian packages undervoltctl and undervolt-dkms (debian/), in
# build/deb, checked with lintian.
deb: setup
	scripts/build-deb

# The packages on a Debian 12 guest, as a user installs and uses them
# (tests/distro/check.sh): not part of check yet.
check-distro: setup
	tests/distro/check.sh

# The series as it would be mailed: kernel/patches/ written again by git
# format-patch, with a cover letter (kernel/cover-letter), in SERIES_OUT.
SERIES_OUT ?= $(OUT)/series
series: setup
	scripts/make-series $(SERIES_OUT)

fuzz: setup
	$(MAKE) -C tools/undervoltctl fuzz

install:
	$(MAKE) -C tools/undervoltctl install

clean:
	rm -rf $(OUT)
	$(MAKE) -C tools/undervoltctl clean
