#!/bin/bash
# Usage: plots/case-3-pages.sh OUT_DIR PLOTS_DIR
#
# Case study 3's page trace (plots/case-study-db.sh), from the guest's out
# directory (pfprofd's pages and memory logs, the targets file, each run's
# memory --json, the pages log at the end of the run at SWAP_VIEW_LIMIT):
# PLOTS_DIR/case_3_thrash.png (pfprofctl memory --timeline of the unit over
# every run), case_3_swap.png (pfprofctl swap -o when that run ended), and
# on stdout a table of what pfprof estimated the unit short of, run by run:
# MemoryMax, pages read back from swap (and of them those without a
# swap-out in the logs), the memory beyond the limit that would have kept
# 50, 90 and 99 % of them in, and MemoryMax + the 90 % figure; and a table
# of the files the unit read again, run by run, against its cgroup's
# workingset_refault_file, the files named by the relations they hold.
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
echo "| run | MemoryMax | pages read back | without a swap-out | +50 % | +90 % | +99 % | MemoryMax + 90 % |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
while read -r name limit _; do
	[ -f "$out/$name.memory.json" ] || continue
	jq -r --arg limit "$limit" --arg name "$name" '.owners[0] // empty |
		def mib: if . == null then "-" else (. / 1048576 * 10 | round / 10 | tostring) end;
		"| \($name) | \($limit) MiB | \(.read_pages) | \(.unmatched_pages) | \(.extra_50_bytes | mib) |" +
		" \(.extra_90_bytes | mib) | \(.extra_99_bytes | mib) | \(if .extra_90_bytes == null then "-" else
		(($limit | tonumber) + .extra_90_bytes / 1048576 | . * 10 | round / 10 | tostring) end) |"' \
		"$out/$name.memory.json"
done < "$out/runs"
# cg_workingset_refault_file over run NAME, from its counters.
cgroup_file_refaults() {
	awk '$2 == "cg_workingset_refault_file" { v[$1] = $3 } END { print v["after"] - v["before"] }' \
		"$out/$1.counters"
}
echo
echo "| run | MemoryMax | pages of files read again, traced | the cgroup's workingset_refault_file | the files read again most (pages, distinct) |"
echo "|---|---:|---:|---:|---|"
while read -r name limit _; do
	[ -f "$out/$name.files.json" ] || continue
	jq -r --arg limit "$limit" --arg name "$name" --arg cgroup "$(cgroup_file_refaults "$name")" \
		--slurpfile names <(awk '{ printf "{\"inode\": %s, \"name\": \"%s\"}\n", $1, $2 }' \
			"$out/relations") '
		(reduce $names[] as $n ({}; .[$n.inode | tostring] = $n.name)) as $by_inode |
		"| \($name) | \($limit) MiB | \([.files[].pages] | add // 0) | \($cgroup) | " +
		([.files[:3][] | "\($by_inode[.inode | tostring] // .file) \(.pages) (\(.distinct_pages))"]
		 | join(", ")) + " |"' "$out/$name.files.json"
done < "$out/runs"
