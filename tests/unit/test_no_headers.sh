#!/bin/bash
# Host test of what make says without the kernel's headers (issue 27): apt's
# package only where apt has one (Debian's kernels), else where the headers
# come from; and the kernels whose headers are installed, as make KVER=...
# A made-up /lib/modules (MODULES_DIR) and apt-cache (APT_CACHE: true has
# every package, false none) keep it from the host's.
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
module=$here/../../module
dir=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-headers-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
# shellcheck source=tests/unit/result.sh
. "$here/result.sh"

mkdir -p "$dir"/{6.1.0-56-amd64,6.12.9-custom,5.10.0-old}/build "$dir/empty"
touch "$dir"/{6.1.0-56-amd64,6.12.9-custom}/build/Makefile	# 5.10.0-old: a bare directory

# note APT_CACHE [MODULES_DIR [TARGET]]: what make says, and its status last.
note() {
	make -s --no-print-directory -C "$module" "${3:-no-headers-note}" KVER=7.0.0-mine \
		MODULES_DIR="${2:-$dir}" APT_CACHE="$1" 2>&1
	echo "status $?"
}

out=$(note false)
why=""
grep -q 'apt install' <<< "$out" && why="offers apt install"
grep -q 'apt has no package linux-headers-7.0.0-mine' <<< "$out" || why+=" no 'apt has no package'"
result not_debian_no_apt_install "$why"
result lists_installed "$(grep -qx '    make KVER=6.1.0-56-amd64' <<< "$out" &&
	grep -qx '    make KVER=6.12.9-custom' <<< "$out" || echo "not both kernels in: $out")"
result not_a_headers_tree "$(grep 5.10.0-old <<< "$out")"
result no_trailing_space "$(grep -n ' $' <<< "$out")"
result debian_apt_install "$(note true | grep -q 'Install them: *apt install linux-headers-7.0.0-mine$' ||
	echo "no apt install line")"
result none_installed "$(note true "$dir/empty" | grep 'installed for')"
result module_fails "$(note false "$dir" modules | tail -n 1 | grep -vx 'status 2')"

result_end
