# linux-undervolt: see README.md. The two commands that matter:
#   make demo    build everything, boot QEMU, show the driver working
#   make check   run every test; ends with "N passed, N failed"

GUEST_CFLAGS := -std=c11 -O2 -Wall -Wextra -Werror -static -D_GNU_SOURCE
OUT := build
GUEST_PROGRAMS := $(OUT)/guest/msrtool $(OUT)/guest/writefile

.PHONY: all setup kernel guest-programs demo check clean

all: kernel guest-programs

setup:
	scripts/setup

kernel: setup
	scripts/build-kernel

guest-programs: $(GUEST_PROGRAMS)

$(OUT)/guest/%: tests/guest-bin/%.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

demo: setup
	scripts/demo

check: setup
	tests/run-all

clean:
	rm -rf $(OUT)
