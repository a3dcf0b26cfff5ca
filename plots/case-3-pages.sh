#!/bin/bash
# Usage: plots/case-3-pages.sh OUT_DIR PLOTS_DIR
#
# Case study 3's page trace (plots/case-study-db.sh), from the guest's out
# directory (pfprofd's pages and memory logs, the targets file, each run's
# memory --json, the pages log at the end of the run at SWAP_VIEW_LIMIT):
# PLOTS_DIR/case_3_thrash.png (pfprofctl memory --timeline of the unit over
# every run), case_3_swap.png (pfprofctl swap -o when that run ended), and
# on stdout a table of what pfprof estimated the unit short of, run by run:
# MemoryMax, pages read back from swap, the memory beyond the limit that
# would have kept 50, 90 and 99 % of them in, and MemoryMax + the 90 % figure.
set -euo pipefail
[ $# -eq 2 ] || { sed -n '2s/^# //p' "$0" >&2; exit 64; }
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(cd "$1" && pwd) plots=$2
ctl=$top/pfprofctl/pfprofctl
[ -f "$out/pfprof-pages.log" ] || { echo "case-3-pages: no pages log in $out" >&2; exit 1; }
make -s -C "$top/pfprofctl"
unit=$(awk '$1 == "unit" { print $2 }' "$out/guest.txt")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'log_dir = %s\ntargets_file = %s\nstatus_file = %s/none\n' "$out" "$out/targets" "$work" \
	> "$work/all.conf"
"$ctl" -c "$work/all.conf" memory --unit "$unit" --timeline -o "$plots/case_3_thrash.png" >&2
view=$(compgen -G "$out/*.pages.log" | head -n 1 || true)
if [ -n "$view" ]; then
	mkdir "$work/view"
	cp "$view" "$work/view/pfprof-pages.log"
	printf 'log_dir = %s\ntargets_file = %s\nstatus_file = %s/none\n' "$work/view" \
		"$out/targets" "$work" > "$work/view.conf"
	"$ctl" -c "$work/view.conf" swap -o "$plots/case_3_swap.png" >&2
fi
echo "| run | MemoryMax | pages read back | +50 % | +90 % | +99 % | MemoryMax + 90 % |"
echo "|---|---:|---:|---:|---:|---:|---:|"
while read -r name limit _; do
	[ -f "$out/$name.memory.json" ] || continue
	jq -r --arg limit "$limit" --arg name "$name" '.owners[0] // empty |
		def mib: if . == null then "-" else (. / 1048576 * 10 | round / 10 | tostring) end;
		"| \($name) | \($limit) MiB | \(.read_pages) | \(.extra_50_bytes | mib) | \(.extra_90_bytes | mib) |" +
		" \(.extra_99_bytes | mib) | \(if .extra_90_bytes == null then "-" else
		(($limit | tonumber) + .extra_90_bytes / 1048576 | . * 10 | round / 10 | tostring) end) |"' \
		"$out/$name.memory.json"
done < "$out/runs"
