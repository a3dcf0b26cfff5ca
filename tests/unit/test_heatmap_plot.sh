#!/bin/sh
# Host test of `pfprofctl heatmap` drawing a heatmap log with the real
# gnuplot: a log in the documented format (pfprofctl/heatmap/log.h) becomes a PNG,
# the map alone while pfprofd's per-process log has nothing of the process;
# and, once it has, an SVG, whose text and shapes can be read, with its
# title, the units on every axis, each mapping named on the address axis, a
# box per cell, both hot and cold colours, and the fault rates above at
# their scale. Then what it says of a log that is none, of a PID without a
# log, and of options that go with --record. Last, --watch on a terminal
# (a pty from script(1)): every mapping named, hot and cold characters in
# their place, the highest addresses first, and a snapshot added to the
# log while it watches drawn.
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
ctl=$here/../../pfprofctl/pfprofctl
dir=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-heatmap-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
# shellcheck source=tests/unit/result.sh
. "$here/result.sh"

# svg_text FILE: the texts of an SVG, a line each.
svg_text() {
	sed -n "s/.*<text[^>]*>\([^<]*\)<.*/\1/p" "$1"
}

# 10 snapshots a second apart of a program, its heap, 64 MiB of anonymous
# memory, libc and a stack: the anonymous memory's lower half hot, the rest
# cold; the mappings touch nowhere (gaps between all of them).
printf 'log_dir = %s\n' "$dir" > "$dir/pfprofd.conf"
{
	echo '# pfprof heatmap log 1'
	echo '# pid 4242 comm work sample_us 5000 aggr_us 100000'
	t0=1764220000000000000
	printf 'map\t%s\t55d0c0a00000\t55d0c0a21000\t/usr/libexec/pfprof/work\n' $t0
	printf 'map\t%s\t55d0c1b3e000\t55d0c1b5f000\t[heap]\n' $t0
	printf 'map\t%s\t7f1c2a000000\t7f1c2e000000\t\n' $t0
	printf 'map\t%s\t7f1c3b000000\t7f1c3b1c0000\t/usr/lib/x86_64-linux-gnu/libc.so.6\n' $t0
	printf 'map\t%s\t7ffd5c3a1000\t7ffd5c3c2000\t[stack]\n' $t0
	for i in 0 1 2 3 4 5 6 7 8 9; do
		t=$((t0 + i * 1000000000))
		printf 'region\t%s\t55d0c0a00000\t7f1c2a000000\t1\t%s\n' $t $i
		printf 'region\t%s\t7f1c2a000000\t7f1c2c000000\t19\t%s\n' $t $i
		printf 'region\t%s\t7f1c2c000000\t7ffd5c3c2000\t0\t%s\n' $t $i
	done
} > "$dir/heatmap-4242.log"

"$ctl" -c "$dir/pfprofd.conf" heatmap -o "$dir/out.png" 4242 > "$dir/out" 2> "$dir/err"
check png_drawn is_png "$dir/out.png"
check png_not_empty [ "$(wc -c < "$dir/out.png")" -gt 10000 ]
check png_reported grep -q "out.png: 10 snapshots of PID 4242 (work), 5 mapped ranges, no faults of it" \
	"$dir/out"

# pfprofd's per-process log has it at 20 samples a second through the
# snapshots (and another process of that PID before them): its fault rates
# go in a panel above.
{
	echo '# pfprof per-process log'
	printf '1\t1764219000.000000\t4242\tother\t999\t9\t1.0\t0\n'
	seq=2
	while [ $seq -le 200 ]; do
		printf '%s\t1764220%03d.%02d0000\t4242\twork\t100\t1\t1.0\t0\n' $seq \
			$(((seq - 2) / 20)) $(((seq - 2) % 20 * 5))
		seq=$((seq + 1))
	done
} > "$dir/pfprof-procs.log"

"$ctl" -c "$dir/pfprofd.conf" heatmap -o "$dir/out.svg" "$dir/heatmap-4242.log" > "$dir/out"
svg_text "$dir/out.svg" > "$dir/texts"
check rates_reported grep -q "its faults from pfprofd's log above" "$dir/out"
# The same summary as JSON: what was drawn, read back with jq.
"$ctl" -c "$dir/pfprofd.conf" heatmap --json -o "$dir/json.png" 4242 > "$dir/out"
jq -e --arg png "$dir/json.png" '.picture == $png and .pid == 4242
	and .comm == "work" and .snapshots == 10 and .faults_from_log
	and .last_unix_time - .first_unix_time == 9 and (.mapped_ranges | length) == 5
	and .mapped_ranges[1] == { name: "[heap]", start: "55d0c1b3e000", end: "55d0c1b5f000" }' \
	"$dir/out" > /dev/null
check summary_json [ $? -eq 0 ]
# --json alone: JSON alone, no picture in the directory it runs in.
mkdir "$dir/cwd"
(cd "$dir/cwd" && "$ctl" -c "$dir/pfprofd.conf" heatmap --json 4242) > "$dir/out"
jq -e '.picture == null and .pid == 4242 and .faults_from_log and .snapshots == 10' \
	"$dir/out" > /dev/null
check json_alone_says_no_picture [ $? -eq 0 ]
check json_alone_draws_nothing [ -z "$(ls -A "$dir/cwd")" ]
check svg_rates_axis grep -qx "faults per second" "$dir/texts"
check svg_rates_keys sh -c "grep -qx minor '$dir/texts' && grep -qx major '$dir/texts'"
check svg_rates_scale grep -qx " 2000" "$dir/texts"
check svg_title grep -q "^PID 4242 (work): the accesses DAMON found, 10 snapshots from 2025-11-27" \
	"$dir/texts"
check svg_time_axis grep -qx "time since the first snapshot (s)" "$dir/texts"
check svg_address_axis grep -qx "mapped address ranges, gaps left out (66 MiB in all)" "$dir/texts"
check svg_colour_axis grep -qx "accesses found per aggregation (100 ms: 20 samples)" "$dir/texts"
check svg_names_program grep -qxF "work (132 KiB)" "$dir/texts"
check svg_names_heap grep -qxF "[heap] (132 KiB)" "$dir/texts"
check svg_names_anonymous grep -qxF "[anon] (64 MiB)" "$dir/texts"
check svg_names_library grep -qxF "libc.so.6 (1.8 MiB)" "$dir/texts"
check svg_names_stack grep -qxF "[stack] (132 KiB)" "$dir/texts"
# 400 rows a snapshot, all covered: a box each; the hot and the cold colours.
boxes=$(grep -c "<polygon fill = 'rgb(" "$dir/out.svg")
check svg_a_box_per_cell [ "$boxes" -ge 4000 ]
colours=$(grep -o "<polygon fill = 'rgb([^)]*)" "$dir/out.svg" | sort -u | wc -l)
check svg_hot_and_cold [ "$colours" -ge 2 ]

# Refusals: not a heatmap log, no log of a PID, --record's options alone.
printf '# pfprof samples log 2\n' > "$dir/samples.log"
"$ctl" -c "$dir/pfprofd.conf" heatmap -o "$dir/bad.png" "$dir/samples.log" 2> "$dir/err"
check not_a_heatmap_log_refused [ $? -eq 1 ]
check not_a_heatmap_log_said grep -q "samples.log is not a heatmap log: its first line is not" "$dir/err"
check not_a_heatmap_log_no_png [ ! -e "$dir/bad.png" ]
"$ctl" -c "$dir/pfprofd.conf" heatmap 99 2> "$dir/err"
check no_log_refused [ $? -eq 1 ]
check no_log_hint grep -q "hint: record one first: pfprofctl heatmap --record 99" "$dir/err"
"$ctl" -c "$dir/pfprofd.conf" heatmap -s 5 4242 2> "$dir/err"
check seconds_alone_usage [ $? -eq 2 ]
check seconds_alone_said grep -q -- "-s goes with --record" "$dir/err"

# screen FILE: what a terminal shows of FILE's output, escapes left out.
screen() {
	sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\r$//' "$1"
}

# One more snapshot, 10 s after the first, while --watch draws the log:
# the anonymous memory's upper half hot now.
add_snapshot() {
	sleep 1
	t=$((1764220000000000000 + 10 * 1000000000))
	{
		printf 'region\t%s\t55d0c0a00000\t7f1c2c000000\t0\t0\n' $t
		printf 'region\t%s\t7f1c2c000000\t7f1c2e000000\t20\t0\n' $t
		printf 'region\t%s\t7f1c2e000000\t7ffd5c3c2000\t0\t0\n' $t
	} >> "$dir/heatmap-4242.log"
}
add_snapshot &
# --foreground: where script(1)'s shell forks (dash, the shell of a
# build whose environment has no SHELL), timeout would otherwise put the
# view in a background process group, stopped at its first tcsetattr().
script -qec "timeout --foreground -k 2 -s INT 3 '$ctl' -c '$dir/pfprofd.conf' heatmap --watch -d 0.2 4242" \
	/dev/null < /dev/null > "$dir/watch.raw"
wait
screen "$dir/watch.raw" > "$dir/watch"
check watch_drew test -s "$dir/watch"
# The first screen drawn, and the last (the same rows, after the header).
sed -n '1,/^ *work 132 KiB |/{p}' "$dir/watch" > "$dir/first"
tac "$dir/watch" | sed -n '/^PID 4242/{p;q};p' | tac > "$dir/last"
check watch_header grep -q "^PID 4242 (work): DAMON's accesses, 10 of 10 snapshots to " "$dir/first"
check watch_scale grep -qF "'.:-=+*#%@': none to 20 of 20 samples in 100 ms; ' ': no region" \
	"$dir/first"
for name in "\[stack\] 132 KiB" "libc.so.6 1.8 MiB" "\[anon\] 64 MiB" "\[heap\] 132 KiB" \
	"work 132 KiB"; do
	label=$(printf '%s' "${name%% *}" | tr -d '\\[]')
	check "watch_names_$label" grep -q "^ *$name |" "$dir/first"
done
check watch_highest_first sh -c "grep -n . '$dir/first' | grep -q '^3:.*\[stack\]' &&
	[ \"\$(tail -n 1 '$dir/first')\" = '            work 132 KiB |..........' ]"
check watch_hot_half grep -qx " *|@@@@@@@@@@" "$dir/first"
check watch_cold_half grep -qx " *|.........." "$dir/first"
check watch_sees_growth grep -q "^PID 4242 (work): DAMON's accesses, 11 of 11 snapshots" "$dir/last"
check watch_new_column grep -qx " *|@@@@@@@@@@\." "$dir/last"
check watch_new_column_hot grep -qx " *|\.\.\.\.\.\.\.\.\.\.@" "$dir/last"
"$ctl" -c "$dir/pfprofd.conf" heatmap --watch 4242 < /dev/null > /dev/null 2> "$dir/err"
check watch_no_terminal [ $? -eq 1 ]
check watch_no_terminal_said grep -q "heatmap --watch draws on a terminal" "$dir/err"

result_end
