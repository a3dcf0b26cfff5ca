#!/usr/bin/env bash
# Builds the tools, pfprofd/pfprofctl and the guest test suite once, runs the
# daemon's host unit tests, then for each kernel builds mp3.ko with that
# kernel's own headers and compiler, W=1 and sparse (a check of its own),
# boots the kernel in QEMU with the rest and runs the guest suite there. Every line of a kernel's result names the
# kernel. Ends with "N passed, N failed" and exits non-zero if anything
# failed, including a kernel splat in a guest.
#   tests/check.sh [TEST...]     TEST names limit the guest suite (see
#                                 tests/guest/mp3-tests --list), t_X.c the
#                                 tests of tests/guest/t_X.c; without
#                                 them the debug kernel runs all but the
#                                 tests of user space alone (release_only)
# Environment:
#   PFPROF_KERNELS  the kernels, among bookworm (Debian 12, 6.1), trixie
#                   (Debian 13, 6.12), trixie-backports (the newest 7.x),
#                   trixie-rt (Debian 13's PREEMPT_RT kernel: the build, and
#                   load_rt_refused alone) and
#                   debug (tests/debug-kernel/: KASAN, lockdep, kmemleak,
#                   UBSAN); default: the first four (tests/lib/kernels.sh)
#   PFPROF_CACHE    downloads, kernels and images (default /var/cache/pfprof-test)
#   PFPROF_HOST_TESTS  no: leave out the host unit tests (tests/check-all.sh
#                   runs them in one lane only)
#   BUILD           build and log directory (default ./build)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/tally.sh
. "$top/tests/lib/tally.sh"
# shellcheck source=tests/lib/kernels.sh
. "$top/tests/lib/kernels.sh"
build=${BUILD:-$top/build}
kernels=${PFPROF_KERNELS:-$PFPROF_ALL_KERNELS}

# perf: faults_perf_agrees compares the faults records with perf record's.
"$top/tests/vm/prepare-host.sh" linux-perf >/dev/null
# One build at a time in the tree: tests/check-all.sh runs this in both lanes.
mkdir -p "$build"
(
	flock 9
	make -s -C "$top/tools" STATIC=1
	make -s -C "$top/daemon"
	make -s -C "$top/pfprofctl"
	make -s -C "$top/tests/guest"
) 9> "$build/.builds-lock"

total_passed=0
total_failed=0
status=0

# The host unit tests, once: they do not depend on the kernel.
if [ "$kernels" != debug ] && [ "${PFPROF_HOST_TESTS:-}" != no ]; then
	host_log=$build/host-tests.log
	mkdir -p "$build"
	make -s -C "$top/tests/unit" test > "$host_log" || status=1
	grep -v -E '^[0-9]+ passed, [0-9]+ failed$|^START ' "$host_log" || true
	tally_of "$host_log" || echo "FAIL host unit tests did not report a result"
	total_passed=$passed
	total_failed=$failed
	stage_time "builds and host unit tests"
else
	stage_time "builds"
fi

# module_check NAME WHO: mp3.ko built for kernel NAME ($KVER, prepared) with
# W=1 and checked by sparse (make C=2), with that kernel's headers and
# compiler: one PASS/FAIL line, the findings under it. Sets build_passed and
# build_failed; fails if no module came out of it.
module_check() {
	local dir=$build/module-$1 who=$2 out status=0 findings

	out=$(module_build "$dir" sparse 2>&1) || status=$?
	# Kbuild's "C=2 specified, but sparse is not available": nothing was checked.
	findings=$(grep -E '(warning|error):|specified, but .* is not available' <<<"$out" || :)
	if [ "$status" -eq 0 ] && [ -z "$findings" ]; then
		echo "PASS [$who] w1_build_and_sparse"
		build_passed=1 build_failed=0
	else
		echo "FAIL [$who] w1_build_and_sparse (exit $status)"
		if [ -n "$findings" ]; then
			echo "$findings"
		else
			tail -n 20 <<<"$out"
		fi | sed 's/^/    /'
		build_passed=0 build_failed=1
	fi
	[ -f "$dir/module/mp3.ko" ]
}

# guest_suite NAME: the guest suite on kernel NAME; adds to the totals.
guest_suite() {
	local name=$1 guest=$build/guest-$1 mem=512 idle_s=300 append='' who
	local module vmlinux boot_status=0 build_passed build_failed

	mkdir -p "$build"

	echo "check: kernel $name" >&2
	if [ "$name" = debug ]; then
		debug_kernel_prepare
		vmlinux=$KERNEL_IMAGE
		# KASAN's shadow and the checkers' bookkeeping need memory and time.
		mem=1024
		# Its kmemleak scans print nothing for a while.
		idle_s=600
		# no5lvl: QEMU 11.1's "-cpu max" offers 5-level paging, which the
		# release kernels use. Booted with it, the debug kernel twice reported
		# KASAN wild-memory-access at 0.006 s (handle_edge_irq's lock, an
		# address of the 5-level direct map, in an interrupt during
		# identify_cpu; 2 of 4 fresh runs, under load), long before the
		# module or user space (not seen before the move to QEMU 11.1). The
		# suite tests the module: 4-level paging here.
		append="acpi=noirq no5lvl"
	else
		kernel_prepare "$name"
		vmlinux=$("$top/tests/vm/vmlinux.sh" "$KVER" "$KERNEL_IMAGE")
	fi
	who="$name $KVER"
	module_check "$name" "$who"
	module=$build/module-$name/module/mp3.ko
	echo "check: guest kernel $who" >&2

	rm -rf "$guest"
	mkdir -p "$guest/payload" "$guest/log"
	install -m 0644 "$module" "$guest/payload/"
	install -m 0755 "$top/tools/work" "$top/tools/monitor" \
		"$top/daemon/pfprofd" "$top/pfprofctl/pfprofctl" \
		"$top/tests/guest/mp3-tests" "$top/tests/guest/run" "$(command -v perf)" \
		"$guest/payload/"
	# The course types `nice ./work ...`; busybox has no nice.
	install -m 0755 "$(command -v nice)" "$guest/payload/"
	# zram, for faults_swap_in's swap device (the debug kernel has it built
	# in), overlay, for faults_overlay_file, and ext4, for the file of
	# pages_file_refaults.
	if [ -n "$KERNEL_ROOT" ]; then
		"$top/tests/vm/kmods.sh" -d "$KERNEL_ROOT" "$KVER" "$guest/payload" zram overlay ext4
	fi
	# On PREEMPT_RT the module refuses to load: that is all there is to test.
	if [ "$name" = trixie-rt ]; then
		echo load_rt_refused > "$guest/payload/tests.list"
	elif [ "$name" = debug ] && ((${#tests[@]} == 0)); then
		"$top/tests/guest/mp3-tests" --list | grep -Ev "$release_only" > "$guest/payload/tests.list"
	else
		printf '%s\n' "${tests[@]}" > "$guest/payload/tests.list"
	fi
	"$top/tests/vm/mkinitramfs.sh" "$guest/test.cpio" "$guest/payload"

	# No limit on the suite's time: a guest is hung only once it stops
	# printing (the runner says every 30 s which test still runs).
	"$top/tests/vm/boot.sh" --mem "$mem" --timeout 0 --idle "$idle_s" ${append:+--append "$append"} \
		"$vmlinux" "$guest/test.cpio" "$guest/log" || boot_status=$?

	# The console showed the guest's lines; its failures again, naming the kernel.
	sed -n "s/^FAIL /FAIL [$who] /p" "$guest/log/payload.txt"
	guest_tally "$guest/log" "$boot_status" "[$who]"
	passed=$((passed + build_passed))
	failed=$((failed + build_failed))
	echo "check: [$who] $passed passed, $failed failed"
	echo "$passed $failed $boot_status" > "$build/suite-$name.result"
}

# tests_of_file FILE: the guest tests (tests.c's names) whose function
# tests/guest/FILE defines.
tests_of_file() {
	local fn
	sed -n 's/^void \(test_[a-z0-9_]*\)(void)$/\1/p' "$top/tests/guest/$1" | while read -r fn; do
		sed -n "s/^[[:space:]]*{ \"\([a-z0-9_]*\)\", *$fn, .*/\1/p" "$top/tests/guest/tests.c"
	done
}

tests=()
for arg in "$@"; do
	case $arg in
	t_*.c)
		[ -f "$top/tests/guest/$arg" ] || { echo "check: no tests/guest/$arg" >&2; exit 2; }
		mapfile -t -O "${#tests[@]}" tests < <(tests_of_file "$arg") ;;
	*) tests+=("$arg") ;;
	esac
done
# Not on the debug kernel, unless named: tests of pfprofd's and the course's
# user space (logs, wake-ups, rotation, restarts, metrics, disk full, PID
# file, configuration, a user's log budget; the handout's workflow;
# pfprofctl top's screens), which the release kernels run, and whose module
# side other tests take through the debug kernel's checkers (module reloads
# and trees under pfprofd among them, the ring's reads in every test).
release_only='^(daemon_(logs_samples|wakeups|rotation|restart_resumes|prometheus|disk_full|pid_file|bad_config|user_budget)|handout_literal|top_(batch|json|terminal))$'
for name in $kernels; do
	rm -f "$build/suite-$name.result"
	# In a subshell that stops at the first error: a kernel that cannot be
	# prepared fails as one test, and the other kernels still run.
	set +e
	(set -e; guest_suite "$name")
	set -e
	if [ -f "$build/suite-$name.result" ]; then
		read -r passed failed boot_status < "$build/suite-$name.result"
	else
		echo "FAIL [$name] the kernel could not be prepared or the module not built"
		passed=0 failed=1 boot_status=1
	fi
	total_passed=$((total_passed + passed))
	total_failed=$((total_failed + failed))
	[ "$boot_status" -eq 0 ] || status=1
	stage_time "kernel $name"
done
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ] && [ "$status" -eq 0 ]
