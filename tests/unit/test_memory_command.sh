#!/bin/bash
# Host test of pfprofctl memory (pfprofctl/memory/), page and swap
# (pfprofctl/page.c, swap.c): pages logs written as pfprofd writes them, of
# processes looping over W pages in M pages of memory under LRU (every page
# evicted W - M pages before it comes back), read back as a table, as JSON
# and as a picture; a page's events, the pages out now; the window, another
# PID, a file that is no pages log.
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
ctl=$here/../../pfprofctl/pfprofctl
dir=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-memory-test.XXXXXX")
trap '[ -n "$KEEP" ] || rm -rf "$dir"' EXIT
# shellcheck source=tests/unit/result.sh
. "$here/result.sh"

mkdir "$dir/logs"
printf 'targets_file = %s/targets\nstatus_file = %s/no-status\nlog_dir = %s/logs\n' "$dir" \
	"$dir" "$dir" > "$dir/pfprofd.conf"
page=$(getconf PAGESIZE)
w=5000
m=3000

# loop_log PID START_S ROUNDS DEVICE: the pages log lines of an LRU of m pages
# over a loop of w pages, an access every 100 us from START_S, in swap area
# DEVICE: at access i, page (i - m) mod w goes out, and the page accessed
# comes back if it was out.
loop_log() {
	awk -v pid="$1" -v start="$2" -v rounds="$3" -v dev="$4" -v w="$w" -v m="$m" 'BEGIN {
		for (i = 0; i < rounds * w; i++) {
			t = sprintf("%.6f", start + i / 10000)
			seq = 1 + int(i / 500)
			if (i >= m)
				printf "%d\t%s\t%d\tloop\t0\tout\t%d\t%d\t-\t1\t-\n", seq, t, pid,
					dev, 1 + (i - m) % w
			if (i >= w)
				printf "%d\t%s\t%d\tloop\t0\tread\t%d\t%d\t-\t1\t0.050000\n", seq,
					t, pid, dev, 1 + i % w
		}
	}'
}

header() {
	printf '# pfprof pages log format 1\n# created 1\n# columns: x\n# units: x\n'
	printf '# load_id 00000000000000a1 hz 250 period_ns 50000000\n'
}

now=$(date +%s)
{ header; loop_log 4242 $((now - 3600)) 4 0; } > "$dir/logs/pfprof-pages.log.1"
{ header; loop_log 4343 $((now - 10)) 2 1; } > "$dir/logs/pfprof-pages.log"
memory() {
	"$ctl" -c "$dir/pfprofd.conf" memory "$@" > "$dir/out" 2> "$dir/err"
}

extra=$(((w - m) * page))
memory 4242
status=$?
row=$(grep -E ' pid 4242 \(loop\)$' "$dir/out")
read -r out cached read _ <<< "$row"
result table_counts "$( [ $status = 0 ] && [ "$out" = 17000 ] && [ "$cached" = 0 ] &&
	[ "$read" = 15000 ] || echo "status $status, row: $row")"
result table_one_owner "$( [ "$(grep -c ' pid ' "$dir/out")" = 1 ] || cat "$dir/out")"

memory --json 4242
result json_extra "$(python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))["owners"]
want = int(sys.argv[2])
if len(o) != 1 or [o[0][k] for k in ("extra_50_bytes", "extra_90_bytes", "extra_99_bytes")] \
		!= [want] * 3 or o[0]["read_pages"] != 15000 or o[0]["unmatched_pages"]:
	print(o)' "$dir/out" "$extra")"

# Each page read back was away while w - m other accesses went by.
memory --json
result json_both_owners "$(python3 -c '
import json, sys
o = {r["pid"]: r for r in json.load(open(sys.argv[1]))["owners"]}
if sorted(o) != [4242, 4343] or o[4343]["read_pages"] != 5000 or \
		o[4242]["median_away_ns"] != int(sys.argv[2]) * 100000:
	print(o)' "$dir/out" $((w - m)))"

memory --last 60
if grep -q 'pid 4343' "$dir/out" && ! grep -q 'pid 4242' "$dir/out"; then
	result window ""
else
	result window "$(cat "$dir/out" "$dir/err")"
fi

memory -o "$dir/curves.png"
status=$?
result png_drawn "$( [ $status = 0 ] && is_png "$dir/curves.png" &&
	grep -q "curves.png: the curves of 2 owners" "$dir/out" ||
	echo "status $status: $(cat "$dir/out" "$dir/err")")"
memory --output "$dir/curves.svg" 4343
status=$?
result svg_drawn "$( [ $status = 0 ] && grep -q '<svg' "$dir/curves.svg" &&
	grep -q 'pid 4343 (loop)' "$dir/curves.svg" ||
	echo "status $status: $(cat "$dir/out" "$dir/err")")"
memory --timeline -o "$dir/timeline.png" 4242
status=$?
result timeline_drawn "$( [ $status = 0 ] && is_png "$dir/timeline.png" &&
	grep -q "timeline.png: the timeline of pid 4242 (loop)" "$dir/out" ||
	echo "status $status: $(cat "$dir/out" "$dir/err")")"
memory -o "$dir/curves.txt"
status=$?
result picture_format "$( [ $status = 2 ] && grep -q "wants a .png or .svg file, not" "$dir/err" &&
	[ ! -e "$dir/curves.txt" ] || echo "status $status: $(cat "$dir/err")")"

# pfprofctl swap: w - m pages of each loop are still out; 4242's came back
# 15000 of 17000, 88.2 %, and have been out about an hour.
"$ctl" -c "$dir/pfprofd.conf" swap > "$dir/out" 2> "$dir/err"
status=$?
result swap_rows "$( [ $status = 0 ] && grep -q '^4000 pages of the owners' "$dir/out" &&
	grep -qE '^ +2000 +(59|60)\.[0-9] min +(59|60)\.[0-9] min +17000 +15000 +88\.2% 0 +pid 4242 \(loop\)$' \
	"$dir/out" || echo "status $status: $(cat "$dir/out" "$dir/err")")"

# pfprofctl swap --output: the same pages out drawn, 4242's in area 0, 4343's in area 1.
"$ctl" -c "$dir/pfprofd.conf" swap -o "$dir/swap.png" > "$dir/out" 2> "$dir/err"
status=$?
result swap_png_drawn "$( [ $status = 0 ] && is_png "$dir/swap.png" &&
	grep -q "swap.png: the 4000 pages out of 2 owners" "$dir/out" ||
	echo "status $status: $(cat "$dir/out" "$dir/err")")"
"$ctl" -c "$dir/pfprofd.conf" swap --output "$dir/swap.svg" > "$dir/out" 2> "$dir/err"
status=$?
result swap_svg_panels "$( [ $status = 0 ] && grep -q '<svg' "$dir/swap.svg" &&
	grep -q 'pid 4242 (loop): 2000 out, 88 % of those sent back' "$dir/swap.svg" &&
	grep -q 'MiB into swap area 0' "$dir/swap.svg" && grep -q 'MiB into swap area 1' "$dir/swap.svg" ||
	echo "status $status: $(cat "$dir/out" "$dir/err")")"
"$ctl" -c "$dir/pfprofd.conf" swap -w -o "$dir/swap2.png" > "$dir/out" 2> "$dir/err"
status=$?
result swap_output_not_watched "$( [ $status = 2 ] && grep -q -- "-o goes without --watch" "$dir/err" &&
	[ ! -e "$dir/swap2.png" ] || echo "status $status: $(cat "$dir/err")")"

# pfprofctl page: a page of 4343's loop (slot 1 + page 7, address 7000), out
# and read back twice in its 2 rounds; away w - m accesses of 100 us.
{ header; printf '9\t%s.000000\t4343\tloop\t0\tout\t0\t8\t7000\t1\t-\n' $((now - 5))
  printf '9\t%s.500000\t4343\tloop\t0\tread\t0\t8\t7123\t1\t0.250000\n' $((now - 5)); } \
	> "$dir/logs/pfprof-pages.log.3"
"$ctl" -c "$dir/pfprofd.conf" page 4343 0x7fff > "$dir/out" 2> "$dir/err"
status=$?
result page_rows "$( [ $status = 0 ] && grep -q '^PID 4343 (loop), page 7000: 2 events in the logs:$' \
	"$dir/out" && grep -qE '^[-0-9]+ [0-9:.]+ +read +anon +0:8 +0\.500 +0\.250$' "$dir/out" ||
	echo "status $status: $(cat "$dir/out" "$dir/err")")"
"$ctl" -c "$dir/pfprofd.conf" page --json -n 1 4343 7000 > "$dir/out" 2> "$dir/err"
result page_json "$(python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
e = o["events"]
if o["events_in_logs"] != 2 or len(e) != 1 or e[0]["event"] != "read" or e[0]["memory"] != "anon" or \
		e[0]["away_ns"] != 500000000 or e[0]["stall_ns"] != 250000:
	print(o)' "$dir/out")"
rm "$dir/logs/pfprof-pages.log.3"

memory 77
status=$?
result no_such_owner "$( [ $status = 1 ] &&
	grep -q "no swap traffic of PID 77 in $dir/logs/pfprof-pages.log" "$dir/err" ||
	echo "status $status: $(cat "$dir/err")")"

printf 'garbage\n' >> "$dir/logs/pfprof-pages.log"
memory 4343
status=$?
result bad_line_told "$( [ $status = 0 ] && grep -q '1 lines of .* are no pages log lines' \
	"$dir/err" || echo "status $status: $(cat "$dir/err")")"

printf '# pfprof faults log format 2\n' > "$dir/logs/pfprof-pages.log.2"
memory
status=$?
result foreign_file "$( [ $status = 1 ] && grep -q 'holds a file that is not a pfprof pages log' \
	"$dir/err" || echo "status $status: $(cat "$dir/err")")"

# The thrash timeline of a unit: its pages and its cgroup's memory log (a
# line a second: 24 MiB used of a 32 MiB limit, 100 file refaults and 0.25 s
# of some-pressure a second) drawn in four panels.
unit=$dir/unit
mkdir -p "$unit/logs"
printf 'pages unit demo.service\n' > "$unit/targets"
printf 'targets_file = %s/targets\nstatus_file = %s/no-status\nlog_dir = %s/logs\n' "$unit" \
	"$unit" "$unit" > "$unit/pfprofd.conf"
number=$("$ctl" -c "$unit/pfprofd.conf" list --json 2> /dev/null |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["targets"][0]["number"])')
{ header; loop_log 4545 $((now - 20)) 40 0 | awk -F'\t' -v n="$number" 'BEGIN { OFS = FS } { $5 = n; print }'; } \
	> "$unit/logs/pfprof-pages.log"
{ printf '# pfprof memory log format 1\n# created 1\n# columns: x\n# units: x\n'
  for i in $(seq 0 20); do
	printf '%d\t%d.000000\t%s\t25165824\t33554432\tmax\t0\t%d\t%d\t%d\t%d\n' $((i * 20)) \
		$((now - 20 + i)) "$number" $((i * 250000)) $((i * 50000)) $((i * 10)) $((i * 100))
  done; } > "$unit/logs/pfprof-memory.log"
"$ctl" -c "$unit/pfprofd.conf" memory --unit demo.service --timeline -o "$unit/t.svg" \
	> "$dir/out" 2> "$dir/err"
status=$?
result unit_timeline_panels "$( [ $status = 0 ] && grep -q 'memory.pressure' "$unit/t.svg" &&
	grep -q 'memory.max' "$unit/t.svg" && grep -q 'file pages refaulted' "$unit/t.svg" &&
	grep -q 'some of its tasks stalled' "$unit/t.svg" ||
	echo "status $status: $(cat "$dir/out" "$dir/err")")"
rm "$dir/logs/pfprof-pages.log.2"
"$ctl" -c "$dir/pfprofd.conf" memory --timeline -o "$dir/t.svg" 4343 > "$dir/out" 2> "$dir/err"
status=$?
result process_timeline_three_panels "$( [ $status = 0 ] && grep -q 'read back' "$dir/t.svg" &&
	! grep -q 'memory.pressure' "$dir/t.svg" ||
	echo "status $status: $(cat "$dir/out" "$dir/err")")"

# A process that read two files again: 100 pages of one twice, a page of the
# other once. The memory table counts them, --files names each file.
{
	for round in 1 2; do
		for i in $(seq 0 99); do
			printf '9\t%s.%06d\t4444\tpg\t0\trefault\t-\t%d\t-\t1\t-\tfile\t5\tfe:1:131075\n' \
				$((now - 5)) $((round * 1000 + i)) "$i"
		done
	done
	printf '9\t%s.000000\t4444\tpg\t0\trefault\t-\t5\t-\t1\t-\tfile\t5\tfe:1:7\n' $((now - 4))
} >> "$dir/logs/pfprof-pages.log"
memory 4444
status=$?
row=$(grep -E ' pid 4444 \(pg\)$' "$dir/out")
result file_refaults_counted "$( [ $status = 0 ] && [ "$(awk '{ print $(NF - 3) }' <<< "$row")" = 201 ] ||
	echo "status $status, row: $row")"
memory --files 4444
status=$?
result files_rows "$( [ $status = 0 ] &&
	grep -qE '^ +200 +100  fe:1:131075 +pid 4444 \(pg\)$' "$dir/out" &&
	grep -qE '^ +1 +1  fe:1:7 +pid 4444 \(pg\)$' "$dir/out" &&
	[ "$(grep -c ' pid ' "$dir/out")" = 2 ] || echo "status $status: $(cat "$dir/out" "$dir/err")")"
memory --files --json
status=$?
result files_json "$(python3 -c '
import json, sys
files = json.load(open(sys.argv[1]))["files"]
mine = [f for f in files if f["owner"] == "pid 4444 (pg)"]
assert [(f["file"], f["pages"], f["distinct_pages"]) for f in mine] == \
	[("fe:1:131075", 200, 100), ("fe:1:7", 1, 1)], files
assert len(files) == 2, files
' "$dir/out" 2>&1 || echo "status $status")"
"$ctl" -c "$dir/pfprofd.conf" page 4444 0 > "$dir/out" 2> "$dir/err"
status=$?
result page_no_refaults "$( [ $status = 1 ] && grep -q 'no swap traffic of page 0 of PID 4444' "$dir/err" ||
	echo "status $status: $(cat "$dir/out" "$dir/err")")"
memory --files -o "$dir/f.png"
status=$?
result files_no_picture "$( [ $status = 2 ] && grep -q -- '--files lists files' "$dir/err" ||
	echo "status $status: $(cat "$dir/err")")"

# A line that says more pages than any folio has (not pfprofd's) is counted,
# its pages past a folio's not told apart: bounded work.
printf '9\t%s.000000\t4545\thuge\t0\trefault\t-\t0\t-\t4294967295\t-\tfile\t5\tfe:1:9\n' \
	$((now - 3)) >> "$dir/logs/pfprof-pages.log"
memory --files 4545
status=$?
result files_line_bounded "$( [ $status = 0 ] &&
	grep -qE '^4294967295 +262144\+ fe:1:9 +pid 4545 \(huge\)$' "$dir/out" ||
	echo "status $status: $(cat "$dir/out" "$dir/err")")"

result_end
