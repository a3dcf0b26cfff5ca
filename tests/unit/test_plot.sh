#!/bin/sh
# Host test of `pfprofctl plot` with the real gnuplot script: a log laid out
# in the documented format becomes a PNG, with a panel of per-process curves
# when there is a per-process log and a panel per target when its processes
# have targets; no logs is an error with a hint.
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
ctl=$here/../../pfprofctl/pfprofctl
export PFPROF_PLOT_SCRIPT="$here/../../plots/pfprof-log.gp"
dir=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-plot-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
# shellcheck source=tests/unit/result.sh
. "$here/result.sh"

mkdir "$dir/log"
printf 'log_dir = %s/log\n' "$dir" > "$dir/pfprofd.conf"

# No logs yet: exit 1 and a hint.
"$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/none.png" 2> "$dir/err"
check no_logs_fails [ $? -eq 1 ]
check no_logs_hint grep -q 'hint: pfprofd writes them' "$dir/err"

# Logs that cannot be drawn, each with its own message and exit status 1:
# only the header (as right after pfprofd starts), not a pfprof log, and a
# header over lines that are not samples.
mkdir "$dir/bad"
printf 'log_dir = %s/bad\n' "$dir" > "$dir/bad.conf"
bad_plot() {	# name, the message expected; the log is $dir/bad/pfprof.log
	"$ctl" -c "$dir/bad.conf" plot --out "$dir/bad.png" 2> "$dir/err"
	check "$1_fails" [ $? -eq 1 ]
	check "$1_says" grep -q "$2" "$dir/err"
	check "$1_no_png" [ ! -e "$dir/bad.png" ]
}
printf '# pfprof log format 2\n# created 1763890000\n# columns: seq\n' > "$dir/bad/pfprof.log"
bad_plot header_only "no samples in $dir/bad yet: its log holds only the header"
printf 'seq wall\n1,2,3\n' > "$dir/bad/pfprof.log"
bad_plot garbage "$dir/bad/pfprof.log is not a pfprof samples log"
: > "$dir/bad/pfprof.log"
bad_plot empty "$dir/bad/pfprof.log is not a pfprof samples log"
printf '# pfprof log format 2\nsome text\n1 2 3\n' > "$dir/bad/pfprof.log"
bad_plot no_sample_columns "no line of $dir/bad has a sample's columns"

# Two rotated files and the current one, 20 samples each.
for f in pfprof.log.2 pfprof.log.1 pfprof.log; do
	awk -v base="$n" 'BEGIN {
		print "# pfprof log format 1"
		print "# load_id 00000000deadbeef hz 250 period_ns 50000000"
		for (i = base; i < base + 20; i++)
			printf "%d %.6f %.6f %d %d %d %.3f 1 %d %d %.3f\n", i,
				1763890000 + i * 0.05, 100 + i * 0.05, 1000 + i * 12,
				30, i % 7 == 0, 12.5, 30 * (i + 1), 0, 12.5 * (i + 1)
	}' > "$dir/log/$f"
	n=$((${n:-0} + 20))
done
"$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/out.png" > "$dir/out" 2>&1
check plot_succeeds [ $? -eq 0 ]
check plot_says_what grep -q 'from 3 log files' "$dir/out"
check plot_is_png is_png "$dir/out.png"
check plot_not_empty [ "$(wc -c < "$dir/out.png")" -gt 10000 ]

# A failed plot leaves the PNG there as it was, and no temporary file.
cp "$dir/out.png" "$dir/before.png"
printf 'set terminal pngcairo\nset output out\nplot no_such_variable\n' > "$dir/fail.gp"
PFPROF_PLOT_SCRIPT=$dir/fail.gp "$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/out.png" \
	2> "$dir/err"
check failed_plot_fails [ $? -eq 1 ]
check failed_plot_keeps_png cmp -s "$dir/out.png" "$dir/before.png"
check failed_plot_no_temporary [ -z "$(find "$dir" -maxdepth 1 -name 'out.png.*')" ]
check new_png_mode_umask [ "$(umask 027 && "$ctl" -c "$dir/pfprofd.conf" plot \
	--out "$dir/mode.png" > /dev/null && stat -c %a "$dir/mode.png")" = 640 ]

# An -o that cannot be written is named, before anything is drawn.
"$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/no/such/dir.png" 2> "$dir/err"
check out_unwritable_fails [ $? -eq 1 ]
check out_unwritable_named grep -q "writing $dir/no/such/dir.png: No such file or directory" \
	"$dir/err"

# PNG height, from its IHDR chunk.
png_height() {
	od -An -tu1 -j20 -N4 "$1" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }'
}
check plot_four_panels_without_processes [ "$(png_height "$dir/out.png")" -eq 1600 ]

# The per-process logs, one of each format (2 adds the target column; 0 is
# none): their processes get a fifth panel. Each process is in one file only,
# so both are read.
awk 'BEGIN {
	print "# pfprof per-process log format 1"
	for (i = 40; i < 60; i++)
		printf "%d\t%.6f\t%d\t%s\t%d\t%d\t%.3f\n", i, 1763890000 + i * 0.05, 101,
			"work3", 20, i % 7 == 0, 6.0
}' > "$dir/log/pfprof-procs.log.1"
awk 'BEGIN {
	print "# pfprof per-process log format 2"
	for (i = 40; i < 60; i++)
		printf "%d\t%.6f\t%d\t%s\t%d\t%d\t%.3f\t%d\n", i, 1763890000 + i * 0.05, 102,
			"work 4", 10, 0, 6.5, 0
}' > "$dir/log/pfprof-procs.log"
"$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/procs.png" > "$dir/out" 2>&1
check plot_with_processes_succeeds [ $? -eq 0 ]
check plot_says_two_processes grep -q 'from 3 log files, 2 processes' "$dir/out"
check plot_five_panels [ "$(png_height "$dir/procs.png")" -eq 2000 ]

# A directory given (logs copied from another machine) instead of log_dir,
# here one with a bad log: its logs and per-process logs; a samples log
# given: that log alone; a directory without pfprof.log*, and no such file.
"$ctl" -c "$dir/bad.conf" plot --out "$dir/dir.png" "$dir/log" > "$dir/out" 2>&1
check plot_dir_succeeds [ $? -eq 0 ]
check plot_dir_says grep -q "wrote $dir/dir.png from 3 log files, 2 processes" "$dir/out"
check plot_dir_five_panels [ "$(png_height "$dir/dir.png")" -eq 2000 ]
"$ctl" -c "$dir/bad.conf" plot --out "$dir/file.png" "$dir/log/pfprof.log.1" > "$dir/out" 2>&1
check plot_file_succeeds [ $? -eq 0 ]
check plot_file_says grep -q "wrote $dir/file.png from 1 log file, 0 processes" "$dir/out"
check plot_file_four_panels [ "$(png_height "$dir/file.png")" -eq 1600 ]
"$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/x.png" "$dir" 2> "$dir/err"
check plot_dir_without_logs_fails [ $? -eq 1 ]
check plot_dir_without_logs_says grep -q "$dir holds no pfprof logs (pfprof.log\*)" "$dir/err"
check plot_dir_without_logs_hint grep -q 'hint: a log of another name: pfprofctl plot FILE' \
	"$dir/err"
"$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/x.png" "$dir/nothing" 2> "$dir/err"
check plot_no_such_file_fails [ $? -eq 1 ]
check plot_no_such_file_says grep -q "reading $dir/nothing: No such file" "$dir/err"

# Format 1 alone: the same three panels.
mv "$dir/log/pfprof-procs.log" "$dir/format2.log"
"$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/format1.png" > "$dir/out" 2>&1
check plot_format1_succeeds [ $? -eq 0 ]
check plot_format1_says_one_process grep -q 'from 3 log files, 1 process$' "$dir/out"
check plot_format1_five_panels [ "$(png_height "$dir/format1.png")" -eq 2000 ]
rm "$dir/log/pfprof-procs.log.1"

# Targets. gnuplot is given a script that keeps what pfprofctl split (its
# temporary directory goes when it ends) and the words naming it, then draws
# (into out, a temporary file: --out and .XXXXXX).
real_script=$PFPROF_PLOT_SCRIPT
export PFPROF_PLOT_SCRIPT="$dir/keep.gp"
cat > "$PFPROF_PLOT_SCRIPT" <<'GP'
split = out[1:strlen(out) - 7] . '.split'
system sprintf("cp -r \"$(dirname '%s')\" '%s'", files, split)
set print split . '/words'
print 'procfiles ' . procfiles
print 'proctitles ' . proctitles
print 'targetfiles ' . targetfiles
print 'targettitles ' . targettitles
print 'targetprocs ' . targetprocs
print 'targetprocfiles ' . targetprocfiles
print 'targetproctitles ' . targetproctitles
print 'mapfiles ' . mapfiles
print 'maptitles ' . maptitles
print sprintf('mapmajor %d', mapmajor)
set print
GP
cat >> "$PFPROF_PLOT_SCRIPT" <<GP
load '$real_script'
set print split . '/words' append
print 'start ' . start
print sprintf('bin %g', bin)
set print
GP

# 32-bit FNV-1a, as lib/targets.c numbers units and cgroups.
fnv1a() {	# hash, text
	h=$1
	for b in $(printf '%s' "$2" | od -An -tu1); do
		h=$(( ((h ^ b) * 16777619) & 4294967295 ))
	done
	echo "$h"
}
unit_number() {	# name
	echo $(( 1073741824 | ($(fnv1a "$(fnv1a 2166136261 unit)" "$1") & 1073741823) ))
}
check fnv1a_as_targets_c [ "$(unit_number a.service)" -eq $((0x4508f747)) ]
unit=$(unit_number pfprof-prefork.service)

# A unit of six processes (206 exits halfway, 202 faults least), the tree of
# 300 (301 starts later), and a process without a target; 60 samples.
printf 'targets_file = %s/pids\n' "$dir" >> "$dir/pfprofd.conf"
printf 'unit pfprof-prefork.service\ntree 300\n' > "$dir/pids"
awk -v unit="$unit" 'function line(i, pid, comm, minor, major, target) {
	printf "%d\t%.6f\t%d\t%s\t%d\t%d\t%.3f\t%d\n", i, 1763890000 + i * 0.05, pid,
		comm, minor, major, 1.0, target
}
BEGIN {
	print "# pfprof per-process log format 2"
	for (i = 0; i < 60; i++) {
		line(i, 201, "prefork", 5, 0, unit)
		line(i, 202, "worker", 1, 0, unit)
		line(i, 203, "worker", 10, 0, unit)
		line(i, 204, "worker", 20, 0, unit)
		line(i, 205, "worker", 30, i % 7 == 0, unit)
		if (i < 30)
			line(i, 206, "worker", 100, 0, unit)
		line(i, 300, "make", 2, 0, 300)
		if (i >= 20)
			line(i, 301, "cc1", 8, 0, 300)
		line(i, 400, "lone app", 3, 0, 0)
	}
}' > "$dir/log/pfprof-procs.log"
"$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/targets.png" > "$dir/out" 2>&1
check targets_plot_succeeds [ $? -eq 0 ]
check targets_plot_says grep -q 'from 3 log files, 1 process, 2 targets$' "$dir/out"
check targets_plot_is_png is_png "$dir/targets.png"
check targets_seven_panels [ "$(png_height "$dir/targets.png")" -eq 2800 ]
split=$dir/targets.png.split
words() {	# name: the words gnuplot was given
	sed -n "s/^$1 //p" "$split/words"
}
check targets_by_faults [ "$(words targettitles)" = "unit:pfprof-prefork.service tree:300" ]
check targets_five_and_two [ "$(words targetprocs)" = "5 2" ]
check target_procs_by_faults [ "$(words targetproctitles)" = \
	"worker/206 worker/205 worker/204 worker/203 prefork/201 cc1/301 make/300" ]
check lone_process_alone [ "$(words proctitles)" = "lone_app/400" ]
tmp=$(dirname "$(words procfiles)")
check split_into_tmp [ "$(words targetfiles)" = "$tmp/target-$unit $tmp/target-300" ]
check tmp_removed [ ! -e "$tmp" ]
faults() {	# file: the sum of its minor and major faults, and its lines
	awk '{ faults += $2 + $3 } END { print faults + 0, NR }' "$1"
}
# 60 * (5 + 1 + 10 + 20 + 30) + 9 major + 30 * 100 (206, until it exited)
check unit_total_has_every_process [ "$(faults "$split/target-$unit")" = "6969 330" ]
check tree_total [ "$(faults "$split/target-300")" = "440 100" ]
check exited_process_curve [ "$(faults "$split/206")" = "3000 30" ]
check lone_process_curve [ "$(faults "$split/400")" = "180 60" ]
check least_faulting_not_drawn [ ! -e "$split/202" ]

# Seven targets: the six with the most faults are drawn.
awk 'BEGIN {
	print "# pfprof per-process log format 2"
	for (i = 0; i < 60; i++)
		for (t = 1; t <= 7; t++)
			printf "%d\t%.6f\t%d\t%s\t%d\t%d\t%.3f\t%d\n", i,
				1763890000 + i * 0.05, 500 + t, "job", t, 0, 1.0, 500 + t
}' > "$dir/log/pfprof-procs.log"
"$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/seven.png" > "$dir/out" 2>&1
check seven_targets_plot_succeeds [ $? -eq 0 ]
check seven_targets_says grep -q 'from 3 log files, 0 processes, 6 of 7 targets$' "$dir/out"
check seven_targets_ten_panels [ "$(png_height "$dir/seven.png")" -eq 4000 ]
split=$dir/seven.png.split
check least_target_not_drawn [ "$(words targettitles)" = \
	"tree:507 tree:506 tree:505 tree:504 tree:503 tree:502" ]

# The faults log of processes added with --maps: a panel of the 8 mappings
# with the most major faults (mapping i of PID 700 has i a sample), each
# mapping's lines in its file; without major faults, minor + major are drawn.
awk 'BEGIN {
	print "# pfprof faults log format 1"
	for (s = 0; s < 20; s++)
		for (i = 1; i <= 9; i++)
			printf "%d\t%.6f\t700\tdb\t0\tfile\t%x\t4096\t%d\t1\t%d\t/data/f%d\n", s,
				1763890000 + s * 0.05, i * 4096, i, i, i
}' > "$dir/log/pfprof-faults.log"
"$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/maps.png" > "$dir/out" 2>&1
check maps_plot_succeeds [ $? -eq 0 ]
check maps_plot_says grep -q ', 8 of 9 mappings$' "$dir/out"
check maps_eleven_panels [ "$(png_height "$dir/maps.png")" -eq 4400 ]
split=$dir/maps.png.split
check maps_by_major_faults [ "$(words maptitles)" = "/data/f9:db/700 /data/f8:db/700 \
/data/f7:db/700 /data/f6:db/700 /data/f5:db/700 /data/f4:db/700 /data/f3:db/700 /data/f2:db/700" ]
check maps_majors_drawn [ "$(words mapmajor)" = 1 ]
check maps_curve_lines [ "$(awk '{ n += $3 } END { print n, NR }' "$split/map-0")" = "180 20" ]
sed 's/\t[0-9]*\t\(\/data\/f[0-9]\)$/\t0\t\1/' "$dir/log/pfprof-faults.log" > "$dir/minor-only"
mv "$dir/minor-only" "$dir/log/pfprof-faults.log"
"$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/minor.png" > /dev/null 2>&1
split=$dir/minor.png.split
check maps_without_majors_draws_all [ "$(words mapmajor)" = 0 ]
rm "$dir/log/pfprof-faults.log"

# The wall-clock time of the first sample is in the picture (UTC); rates are
# per second over 1 s bins, wider over a long log (at most 1000 bins);
# faults have one axis.
check start_time [ "$(words start)" = "2025-11-23 09:26:40 UTC" ]
check rate_bin_1s [ "$(words bin)" = 1 ]
awk 'BEGIN {
	print "# pfprof log format 2"
	printf "1 1763890000.000000 1 1 5 1 2.0 1 5 1 2.0 - - - - -\n"
	printf "2 1763892500.500000 1 1 5 1 2.0 1 10 2 4.0 - - - - -\n"
}' > "$dir/long.log"
"$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/long.png" "$dir/long.log" > /dev/null 2>&1
split=$dir/long.png.split
check rate_bin_wider [ "$(words bin)" = 3 ]
head -2 "$dir/long.log" > "$dir/one.log"
"$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/one.png" "$dir/one.log" > /dev/null 2> "$dir/err"
check one_sample_plots [ $? -eq 0 ]
check one_sample_no_warning [ ! -s "$dir/err" ]
# Rates, from what the script plots (set table): 20 samples of 10 minor
# faults, 1 major and 5 ms of CPU in [0, 1) s, none for 3 s, 20 more in
# [4, 5): 200 and 20 faults per second, 10 % CPU, and 0 between.
awk 'BEGIN {
	print "# pfprof log format 2"
	for (i = 0; i < 40; i++)
		printf "%d %.6f 0 0 10 1 5.0 1 0 0 0 - - - - -\n", i,
			1763890000 + (i < 20 ? 0 : 3) + i * 0.05
}' > "$dir/gap.log"
printf 'set table "%s/tables"\nload "%s"\n' "$dir" "$real_script" > "$dir/table.gp"
PFPROF_PLOT_SCRIPT=$dir/table.gp "$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/gap.png" \
	"$dir/gap.log" > /dev/null 2>&1
rates() {	# title, which of the curves so titled: its y values
	awk -v title="# Curve title: \"$1\"" -v n="$2" '
		$0 == title { in_curve = (++seen == n); next }
		/^# Curve/ { in_curve = 0 }
		in_curve && NF >= 2 && $1 !~ /^#/ { printf "%s%s", sep, $2; sep = " " }
	' "$dir/tables"
}
check rate_minor_bins [ "$(rates minor 2)" = "200 0 0 0 200" ]
check rate_major_bins [ "$(rates major 2)" = "20 0 0 0 20" ]
check rate_cpu_bins [ "$(rates CPU 2)" = "10 0 0 0 10" ]
check faults_one_axis sh -c "! grep -qE 'y2|x1y2' '$real_script'"
# The waits (format 3): 20 samples in [0, 1) s, each with 25 ms of swap-in,
# 5 of reclaim and 10 of block I/O; 20 in [4, 5) while delay accounting was
# off ("-"): 0.6 s per s of memory stall, 0.5 of swap-in, 0.1 of reclaim
# and compaction, 0.2 of I/O, then nothing: unknown is not drawn as 0 waits.
awk 'BEGIN {
	print "# pfprof log format 3"
	for (i = 0; i < 40; i++)
		printf "%d %.6f 0 0 10 1 5.0 1 0 0 0 - - - - - %s\n", i,
			1763890000 + (i < 20 ? 0 : 3) + i * 0.05,
			i < 20 ? "25.000 0.000 5.000 0.000 10.000" : "- - - - -"
}' > "$dir/waits.log"
PFPROF_PLOT_SCRIPT=$dir/table.gp "$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/waits.png" \
	"$dir/waits.log" > /dev/null 2>&1
# A panel more than a log without them (format 2, or all "-"): 400 pixels.
"$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/waits.png" "$dir/waits.log" > /dev/null 2>&1
"$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/gap.png" "$dir/gap.log" > /dev/null 2>&1
sed 's/ 25.000 0.000 5.000 0.000 10.000$/ - - - - -/' "$dir/waits.log" > "$dir/off.log"
"$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/off.png" "$dir/off.log" > /dev/null 2>&1
check waits_panel [ "$(png_height "$dir/waits.png")" = 2000 ]
check no_waits_no_panel [ "$(png_height "$dir/gap.png")" = 1600 ]
check waits_off_no_panel [ "$(png_height "$dir/off.png")" = 1600 ]
check waits_memory_stall [ "$(rates 'memory stall (all four)' 1)" = "0.6 0 0 0 0" ]
check waits_swapin [ "$(rates swap-in 1)" = "0.5 0 0 0 0" ]
check waits_reclaim [ "$(rates 'direct reclaim + compaction' 1)" = "0.1 0 0 0 0" ]
check waits_block_io [ "$(rates 'block I/O (swap-in and refault I/O included)' 1)" = \
	"0.2 0 0 0 0" ]

# Not installed: the script is found beside pfprofctl, or in ../plots from
# it as in the source tree (each copy of it says that it ran).
for where in tree/pfprofctl:tree/plots beside:beside; do
	bin=$dir/${where%:*}
	mkdir -p "$bin" "$dir/${where#*:}"
	cp "$ctl" "$bin/"
	printf 'system "touch %s/%s.ran"\nload "%s"\n' "$dir" "${bin##*/}" "$real_script" \
		> "$dir/${where#*:}/pfprof-log.gp"
	env -u PFPROF_PLOT_SCRIPT "$bin/pfprofctl" -c "$dir/pfprofd.conf" plot \
		--out "$dir/${bin##*/}.png" > "$dir/out" 2>&1
	check "script_${where%%[/:]*}_found" [ -e "$dir/${bin##*/}.ran" ]
	check "script_${where%%[/:]*}_plot_is_png" is_png "$dir/${bin##*/}.png"
done
# None: each place is named (unless one is installed on this machine).
installed=$("$ctl" plot --help | sed -n 's/.* or \(\/.*\/pfprof-log.gp\)$/\1/p')
if [ -n "$installed" ] && [ ! -e "$installed" ]; then
	mkdir "$dir/lone"
	cp "$ctl" "$dir/lone/"
	env -u PFPROF_PLOT_SCRIPT "$dir/lone/pfprofctl" -c "$dir/pfprofd.conf" plot \
		--out "$dir/lone.png" 2> "$dir/err"
	check script_none_fails [ $? -eq 1 ]
	check script_none_named grep -qF "finding pfprof-log.gp (in $dir/lone, $dir/lone/../plots, \
$installed): No such file" "$dir/err"
fi
PFPROF_PLOT_SCRIPT=$dir/missing.gp "$ctl" -c "$dir/pfprofd.conf" plot \
	--out "$dir/missing.png" 2> "$dir/err"
check script_missing_fails [ $? -eq 1 ]
check script_missing_named grep -q "reading $dir/missing.gp (PFPROF_PLOT_SCRIPT): No such file" \
	"$dir/err"

"$ctl" -c "$dir/pfprofd.conf" plot "$dir/log" extra 2> /dev/null
check plot_rejects_two_operands [ $? -eq 2 ]

result_end
