# Sourced by the undervoltctl-tune*.sh suites after lib.sh, with TUNE_CPU
# naming the CPU their "# qemu-run:" line gives the model (a generation
# whose core and cache share one rail). undervoltctl tune on the unstable
# profile of the model (qemu/MODEL.md): under load, below -100 mV the FMA
# results the load verifies come out wrong, below -105 mV the CPU reports
# corrected machine checks, and below -110 mV the machine resets. The
# search runs through all three, on a disk that survives the resets: each
# boot runs the suite again, which does what
# undervoltctl-tune-recover.service and -resume.service do (tune
# --recover, then tune --resume) until the search is done. Only the last
# boot prints checks. The driver's v3 ABI: no trial mode and no
# machine-check revert in the kernel; tune arms a trial of its own (a
# detached process here) and reads machine checks from the kernel log.

state_disk
fwctl resets >> $STATE/resets
sync
# The model has no CMCI: the kernel finds corrected errors by polling
# the banks, every second here instead of every five minutes.
echo 1 > /sys/devices/system/machinecheck/machinecheck0/check_interval

if [ $boot -gt 6 ]; then
	fail "the search ended within 6 boots"
	exit 1
fi
if [ ! -f $STATE/tune.journal ]; then
	undervoltctl tune --start 0 --step 25 --resolution 5 --runs 1 \
		--duration 6 --margin 10 --resume-after-crash \
		--engine builtin -o $CONF 2>&1 | tee $STATE/boot$boot.log
else
	undervoltctl tune --recover 2>&1 | tee $STATE/boot$boot.log
	# The resume may crash again before the kernel writes the log back.
	sync
	if [ -f $STATE/tune.resume ]; then
		undervoltctl tune --resume 2>&1 | tee -a $STATE/boot$boot.log
	fi
fi
sync
# Still here: this boot's search ended without a reset.

report=$(undervoltctl tune --report 2>&1)
echo "$report" | sed 's/^/# /'
cat $CONF 2>/dev/null | sed 's/^/# /'

check_eq "the search is done" "search: done" \
	"$(echo "$report" | head -n1 | cut -d';' -f1)"
crashes=$(fwctl crashes)
mces=$(fwctl mces)
flips=$(fwctl flips)
echo "# the model: $crashes resets caused, $mces machine checks reported, $flips FMA faults"
check "the model reset the machine at least once" [ "$crashes" -ge 1 ]
check "the model reported at least one machine check" [ "$mces" -ge 1 ]
check "the model corrupted at least one FMA result" [ "$flips" -ge 1 ]
check_eq "every boot after the first followed a reset the model caused" \
	$((crashes + 1)) "$boot"
check_eq "the model's reset counter went up at every boot" "" \
	"$(awk 'NR > 1 && $1 <= prev { print "boot " NR ": " $1 " after " prev } { prev = $1 }' $STATE/resets)"
check_eq "each reset is on record as a crash" "$crashes" \
	"$(echo "$report" | grep -c '^  core .* crash ')"
check_grep "a machine check failed a value" '^  core .* machine-check ' "$report"
check_grep "a wrong result, found by the load's verifier, failed a value" \
	'^  core .* wrong-result ' "$report"
check_grep "-100 mV passed" ' -100 mV  pass ' "$report"
check_eq "nothing below -100 mV passed" "" \
	"$(echo "$report" | awk '$1 == "core" && $3 == "mV" && $4 == "pass" && $2 < -100')"
# Independent of the tool: the profile's threshold is -100 mV, so the
# lowest stable value is -100 and the result is it plus the 10 mV margin.
check_eq "the config sets core to the threshold plus the margin" "-90" \
	"$(sed -n 's/^core = //p' $CONF)"
check_eq "and cache with it ($TUNE_CPU couples them)" "-90" \
	"$(sed -n 's/^cache = //p' $CONF)"
check_grep "tune searched core with cache, as one plane" \
	'^tune plan: core \(with cache: coupled\)$' "$(cat $STATE/boot1.log)"
check_eq "the config sets nothing else" 2 "$(grep -cv '^#' $CONF)"
check_grep "the config records the evidence" 'machine-check' "$(cat $CONF)"
check_eq "the firmware's core word is its boot word again" 0x0004cd2c \
	"$(fwctl word 0)"
check_eq "the firmware's cache word is its boot word again" 0x0004cd28 \
	"$(fwctl word 2)"
check_eq "no trial of tune's is left armed" no \
	"$([ -e /run/undervoltctl/trial ] && echo yes || echo no)"
check_grep "the journal ends with its checksum" '^checksum crc32 [0-9a-f]{8}$' \
	"$(tail -n 1 $STATE/tune.journal)"
check_eq "no resume is pending" no \
	"$([ -e $STATE/tune.resume ] && echo yes || echo no)"
check_grep "the recovery named the value that crashed" \
	'went down while core was at -1[0-9][0-9] mV' "$(cat $STATE/boot2.log)"
umount $STATE
exit $LIB_FAILED
