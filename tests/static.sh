#!/usr/bin/env bash
# Usage: tests/static.sh
#
# Static analysis and sanitizers, on the host: checkpatch.pl --strict and the
# Coccinelle scripts of Debian 13's linux-source-6.12 on the module, and its
# files' calls against the order internal.h writes down (the W=1
# and sparse build against each kernel is tests/check.sh's first check of
# that kernel); cppcheck and gcc -fanalyzer on the user-space C, the host
# unit tests built with ASan and UBSan, shellcheck on the shell scripts, and
# no built program among the tracked files.
# One PASS/FAIL line per check (findings printed under it), then
# "N passed, N failed".
# Environment: PFPROF_CACHE, BUILD as for tests/check.sh.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/tally.sh
. "$top/tests/lib/tally.sh"
build=${BUILD:-$top/build}/static
passed=0
failed=0
exec 3>&2	# progress notes, outside what check() captures

# check NAME COMMAND...: passes when the command succeeds and prints nothing.
check() {
	local name=$1 out status
	shift
	out=$("$@" 2>&1)
	status=$?
	if [ "$status" -eq 0 ] && [ -z "$out" ]; then
		echo "PASS $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name (exit $status)"
		printf '%s\n' "$out" | head -n 40 | sed 's/^/    /'
		failed=$((failed + 1))
	fi
}

module_sources() {
	find "$top/module" -maxdepth 1 -name '*.[ch]' ! -name '*.mod.c' | sort
	echo "$top/include/uapi/linux/mp3.h"
}

# compat.h exists to test kernel versions, which in-tree code never needs:
# LINUX_VERSION_CODE is its subject there, and KERNEL_VERSION() on the right
# of a comparison is taken for a variable (CONSTANT_COMPARISON).
run_checkpatch() {
	local f ignore
	module_sources | while read -r f; do
		ignore=FILE_PATH_CHANGES
		[ "${f##*/}" = compat.h ] && ignore+=,LINUX_VERSION_CODE,CONSTANT_COMPARISON
		perl "$kernel/scripts/checkpatch.pl" --strict --no-tree --quiet --no-summary \
			--ignore "$ignore" -f "$f"
	done
}

# Each script in report mode over the module; its findings name a file:line.
# Scripts that need OCaml (not packaged with Debian's spatch) are listed.
run_coccinelle() {
	local cocci out
	while read -r cocci; do
		out=$(timeout 300 spatch -D report --no-show-diff --very-quiet --cocci-file "$cocci" \
			--dir "$top/module" --no-includes --include-headers 2>&1)
		if grep -q 'No OCaml compiler found' <<<"$out"; then
			echo "static: skipped ${cocci#"$kernel"/} (needs OCaml)" >&3
			continue
		fi
		grep -E "^$top/module/[^:]+:[0-9]+" <<<"$out" | grep -v '\.mod\.c:'
	done < <(find "$kernel/scripts/coccinelle" -name '*.cocci' | sort)
	return 0
}

user_sources() {
	ls "$top"/{lib,daemon,pfprofctl,pfprofctl/*,tools,bench}/*.c
}

# Callbacks keep the signature their table gives (constParameterCallback);
# the branch limit is cppcheck 2.11's note that it analysed less than it could
# (normalCheckLevelMaxBranches), which 2.10 has no option to lift.
run_cppcheck() {
	# shellcheck disable=SC2046 # one file per word
	cppcheck --quiet --error-exitcode=1 --enable=warning,style,performance,portability \
		--std=c11 --inline-suppr --suppress=missingIncludeSystem -D_GNU_SOURCE \
		--suppress=constParameterCallback --suppress=normalCheckLevelMaxBranches \
		-I "$top/include/uapi" -I "$top/lib" -I "$top/daemon" -I "$top/pfprofctl" -I "$top/bench" \
		$(user_sources)
}

# A copy of the tree, so that these builds never mix with the normal objects.
fresh_copy() {
	local part
	rm -rf "${build:?}/${1:?}"
	mkdir -p "$build/$1/tests"
	cp -r "$top"/{version.mk,dkms.conf,README.md,lib,daemon,pfprofctl,include,tools,bench,plots,module,prometheus,docs,systemd,udev} "$build/$1/"
	cp -r "$top"/tests/{unit,harness,lib,vm} "$build/$1/tests/"
	for part in lib daemon pfprofctl tools bench tests/unit; do
		make -s -C "$build/$1/$part" clean >/dev/null
	done
}

run_analyzer() {
	local part
	fresh_copy analyzer
	for part in lib daemon pfprofctl tools bench; do
		make -s -C "$build/analyzer/$part" CFLAGS="-O2 -g -fanalyzer" 2>&1
	done
}

# Only what is not a PASS line is shown, nor the runner's START and RUNNING
# lines (a test past 30 s under ASan on a busy host is slow, not failing);
# make's status is the verdict. promtool is found (or fetched) before, its
# progress on the progress channel.
run_sanitizers() {
	local flags="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
	local out status promtool
	promtool=$("$top/tests/lib/promtool.sh" 2>&3) || return
	fresh_copy sanitizers
	out=$(PROMTOOL=$promtool make -s -C "$build/sanitizers/tests/unit" CFLAGS="$flags" \
		LDFLAGS="-fsanitize=address,undefined" test 2>&1)
	status=$?
	grep -v -E '^(PASS|START|RUNNING) |^[0-9]+ passed, 0 failed$' <<<"$out"
	return "$status"
}

# Every shell script of the tree: *.sh (some are only sourced) and whatever
# starts with a sh or bash #! line.
shell_scripts() {
	local f
	# debian/'s subdirectories are dpkg-buildpackage's output, or source/.
	find "$top" \( -path "$top/.git" -o -path "$top/build" -o -path "$top/debian/*" -type d \) \
		-prune -o -type f -print | sort |
		while read -r f; do
			case $f in
			*.sh) echo "$f" ;;
			*) head -n 1 "$f" | grep -qE '^#!.*[/ ](ba)?sh( |$)' && echo "$f" ;;
			esac
		done
}

run_shellcheck() {
	# shellcheck disable=SC2046 # one file per word
	(cd "$top" && shellcheck -x $(shell_scripts))
}

# Each file of the module calls only those below it, as internal.h lists them.
run_module_layers() {
	python3 "$top/tests/module-layers.py" "$top/module"
}

# A built program committed by mistake: no tracked file is an ELF object
# (none in a tree that is not a git clone, as DKMS unpacks it).
run_tracked_programs() {
	local f magic
	git -C "$top" rev-parse --git-dir >/dev/null 2>&1 || return 0
	git -C "$top" ls-files | while read -r f; do
		magic=$(head -c 4 "$top/$f" | od -An -tx1 | tr -d ' \n')
		[ "$magic" = 7f454c46 ] && echo "$f: a built program is tracked"
	done
	return 0
}

"$top/tests/vm/prepare-host.sh" >/dev/null
# checkpatch.pl and the Coccinelle scripts come with the debug kernel's source.
kernel=$("$top/tests/debug-kernel/source.sh") ||
	{ echo "FAIL cannot unpack the kernel's source"; echo "0 passed, 1 failed"; exit 1; }

check checkpatch_strict run_checkpatch
check module_layers run_module_layers
check coccinelle run_coccinelle
check cppcheck run_cppcheck
check gcc_analyzer run_analyzer
check unit_tests_asan_ubsan run_sanitizers
check shellcheck run_shellcheck
check tracked_programs run_tracked_programs
stage_time "static analysis"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
