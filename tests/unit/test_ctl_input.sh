#!/bin/bash
# Host test of pfprofctl's bad input (issues 26 and 27): each row of the
# table is a command line, the exit status it must end with and a part of
# what it must say; none may change the targets file. These are refused before
# the module is asked, so no module is needed (status_file names nothing:
# input that passes every check ends with exit status 3, no module). Then
# what list and del do without the module, and every --help's lines.
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
ctl=$here/../../pfprofctl/pfprofctl
dir=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-ctl-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
# shellcheck source=tests/unit/result.sh
. "$here/result.sh"

printf 'targets_file = %s/pids\nstatus_file = %s/no-status\nlog_dir = %s/logs\n' "$dir" "$dir" \
	"$dir" > "$dir/pfprofd.conf"
printf '# kept\n42\ncomm postgres\nmaps 43\n' > "$dir/pids"
cp "$dir/pids" "$dir/pids.before"
printf '# pfprof heatmap log 1\n# pid 42 comm x sample_us 5000 aggr_us 100000\n' > "$dir/header-only"

# why_not STATUS MESSAGE ARGS...: runs pfprofctl ARGS (stdout into
# $dir/out) and prints why it did not exit with STATUS saying MESSAGE on
# stderr, or nothing.
why_not() {
	local want=$1 message=$2 got
	shift 2
	"$ctl" -c "$dir/pfprofd.conf" "$@" 2> "$dir/err" > "$dir/out"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "exit status $got, want $want: $(head -c 300 "$dir/err")"
	elif ! grep -qF -- "$message" "$dir/err"; then
		echo "no '$message' in: $(head -c 300 "$dir/err")"
	fi
}

# run_row NAME STATUS MESSAGE ARGS...: pfprofctl ARGS exits with STATUS,
# says MESSAGE on stderr and leaves the targets file as it was.
run_row() {
	local name=$1 why
	shift
	why=$(why_not "$@")
	if [ -z "$why" ] && ! cmp -s "$dir/pids" "$dir/pids.before"; then
		why="the targets file changed: $(cat "$dir/pids")"
	fi
	result "$name" "$why"
}

mapfile -t ten_thousand < <(seq -f 'name%g' 10000)

run_row empty_comm          2 "command name ''"                 add --comm ''
run_row long_comm           2 "--comm '123456789012345'"        add --comm 1234567890123456
run_row spaced_comm         2 "command name 'Web Content'"      add --comm 'Web Content'
run_row comment_comm        2 "command name 'a#b'"              add --comm 'a#b'
run_row one_bad_comm_of_two 2 "command name ''"                 add --comm ok ''
# 10 000 names and the one kept: more than the module's 256, refused whole.
run_row many_comms          1 "10001 command names"             add --comm "${ten_thousand[@]}"
run_row many_comms_errno    1 "No space left on device"         add --comm "${ten_thousand[@]}"
# One name 300 times is one name: past the limit check, it stops at the module.
mapfile -t one_name_300_times < <(yes dup | head -n 300)
run_row repeated_comm       3 "the mp3 module is not loaded"    add --comm "${one_name_300_times[@]}"
run_row bad_unit            2 "unit 'a/b.service'"              add --unit a/b.service
run_row empty_unit          2 "unit ''"                         add --unit ''
run_row outside_cgroup      2 "cgroup /tmp"                     add --cgroup /tmp
run_row two_kinds           2 "name different things"           add --unit --comm a
run_row user_without_comm   2 "give it with --comm"             add --user root --unit a.service
run_row no_such_user        1 "user mp3-nobody-x: no such user" add --comm --user mp3-nobody-x pg
run_row spaced_user         2 "user 'a b'"                      add --comm --user 'a b' pg
run_row user_comm_no_module 3 "the mp3 module is not loaded"    add --comm --user root pg
run_row not_a_pid           2 "'x' is not a PID"                add x
run_row no_operand          2 "which PIDs"                      add --comm
run_row del_bad_comm        2 "command name ''"                 del --comm ''
run_row negative_pid        2 "'-1' is not a PID"               add -1
run_row negative_pid_later  2 "'-5' is not a PID"               del 42 -5
run_row top_n_not_a_number  2 "pfprofctl top: -n wants a number" top -n abc
run_row top_long_not_number 2 "top: --iterations wants a number" top --iterations=abc
run_row top_n_zero          2 "-n wants a number from 1, not '0'" top -n 0
run_row top_d_typed         2 "top: -d wants seconds"           top -d x
run_row top_delay_typed     2 "top: --delay wants seconds"      top --delay x
run_row follow_count_typed  2 "follow: --count wants a number, not" follow --count x
run_row maps_with_tree      3 "the mp3 module is not loaded"    add --maps --tree 42
run_row maps_with_comm      3 "the mp3 module is not loaded"    add -m --comm postgres
run_row del_has_no_maps     2 "--maps"                          del --maps 42
run_row where_not_a_pid     2 "where: 'x' is not a PID"         where x
run_row where_no_operand    2 "which PID?"                      where
run_row where_two_operands  2 "where"                           where 42 43
run_row where_last_typed    2 "where: --last wants seconds, not 'x'" where --last x 42
run_row where_last_zero     2 "-l wants seconds, not '0'"       where -l 0 42
run_row where_delay_alone   2 "-d goes with --watch"            where -d 1 42
run_row where_delay_bad     2 "--delay wants seconds from 0.05" where --watch --delay 0 42
run_row where_no_log        1 "no faults of PID 42 placed in $dir/logs/" where 42
run_row where_no_log_hint   1 "hint: pfprofctl add --maps 42"   where 42
run_row where_watch_no_tty  1 "where --watch draws on a terminal" where --watch 42
run_row memory_not_a_pid    2 "memory: 'x' is not a PID"        memory x
run_row memory_two_operands 2 "memory"                          memory 42 43
run_row memory_kind_alone   2 "--unit names a target: give its name" memory --unit
run_row memory_two_kinds    2 "name different things"           memory --unit --comm x
run_row memory_user_alone   2 "--user names one user's command name" memory --user root 42
run_row memory_last_bad     2 "--last wants seconds, not '-1'"  memory --last -1
run_row memory_json_picture 2 "--json goes without -o"          memory --json -o x.png
run_row page_one_operand    2 "which PID and address?"          page 42
run_row page_not_a_pid      2 "page: 'x' is not a PID"          page x 1000
run_row page_not_address    2 "'xyz' is not an address (hex)"   page 42 xyz
run_row page_count_big      2 "-n: at most 1000 events"         page -n 1001 42 1000
run_row page_no_log         1 "no swap traffic of page 1000 of PID 42" page 42 0x1abc
run_row swap_delay_alone    2 "-d goes with --watch"            swap -d 1
run_row swap_operand        2 "swap"                            swap 42
run_row swap_no_log         1 "no page of a process or target added with --pages is out" swap
run_row swap_watch_no_tty   1 "swap --watch draws on a terminal" swap --watch
run_row physical_picture    2 "-o wants a .png or .svg file, not 'x.txt'" physical -o x.txt
run_row physical_operand    2 "physical"                        physical 42
run_row physical_rows_zero  2 "-n"                              physical -n 0
run_row memory_timeline_one 2 "--timeline draws one process's or target's paging" memory --timeline -o x.png
run_row memory_timeline_out 2 "--timeline draws one process's or target's paging" memory --timeline 42
run_row memory_no_log       1 "no swap traffic of any process or target in $dir/logs/" memory
run_row memory_no_log_hint  1 "hint: pfprofctl add --pages"     memory 42
run_row heatmap_no_log      1 "$dir/logs/heatmap-42.log: No such file or directory" heatmap 42
run_row heatmap_take_alone  2 "--take-damon goes with --record" heatmap --take-damon 42
run_row heatmap_not_a_pid   2 "heatmap: 'x' is not a PID"       heatmap --record x
run_row heatmap_no_operand  2 "which PID?"                      heatmap --record
run_row heatmap_seconds_0   2 "-s wants a number from 1, not '0'" heatmap --record -s 0 42
run_row heatmap_no_process  1 "process 2147483647: No such process" heatmap --record 2147483647
run_row heatmap_record_watch 2 "--watch goes without --record"  heatmap --record --watch 42
run_row heatmap_delay_alone 2 "-d goes with --watch"            heatmap -d 1 42
run_row heatmap_delay_bad   2 "wants seconds from 0.05 to 3600" heatmap --watch -d 0 42
run_row heatmap_watch_out   2 "-o goes without --watch"         heatmap --watch -o x.png 42
run_row heatmap_jpeg        2 "-o wants a .png or .svg file, not 'x.jpg'" heatmap 42 -o x.jpg
run_row plot_svg            2 "--output wants a .png file"      plot --output=x.svg
run_row plot_old_out        1 "$dir/logs holds no pfprof logs"  plot --out x.png
run_row where_last_after    1 "no faults of PID 1 placed"       where 1 --last 5
run_row add_comm_equals     3 "the mp3 module is not loaded"    add --comm=postgres
run_row add_comm_equals_bad 2 "command name 'a b'"             add '--comm=a b'
run_row heatmap_tree_alone  2 "--tree goes with --record"       heatmap --tree 42
run_row heatmap_tree_unit   2 "--tree and --unit name different things" heatmap --record --tree --unit 42
run_row heatmap_two_trees   2 "one target at a time: 2 given"   heatmap --record --tree 42 43
run_row heatmap_bad_unit    2 "'a b': not a unit's name"        heatmap --record --unit 'a b'
run_row heatmap_two_one_log 2 "-o names one log"                heatmap --record -o x.log 42 43
run_row heatmap_no_tree     1 "process 2147483647: No such process" heatmap --record --tree 2147483647
run_row where_tree_not_pid  2 "where: 'x' is not a PID"         where --tree x
run_row where_two_kinds     2 "name different things"           where --unit --comm a
run_row where_no_unit_log   1 "no faults of unit a.service placed" where --unit a.service
run_row where_unit_hint     1 "pfprofctl add --maps --unit a.service" where -u a.service
run_row global_unknown      2 "pfprofctl: unknown option '-x'"  -x list
run_row global_unknown_long 2 "pfprofctl: unknown option '--bogus'" --bogus list
run_row cgroup_missing      2 "cgroup /nonexistent: No such file or directory" add --cgroup /nonexistent/
run_row plot_dir_no_logs    1 "$dir holds no pfprof logs (pfprof.log*)" plot "$dir"
run_row heatmap_not_a_log   1 "$dir/pids is not a heatmap log: its first line" heatmap "$dir/pids"
run_row heatmap_no_snapshot 1 "holds no snapshot of mapped regions yet" heatmap "$dir/header-only"
# One message per mistake, and the option or command it may have meant (issue 59).
run_row list_o_json         2 "unknown option '-o'; did you mean --json?" list -o json
run_row where_format_json   2 "unknown option '--format'; did you mean --json?" where --format=json 42
run_row add_l_is_not_latency 2 "unknown option '-l'; did you mean --latency?" add -l 60 1234
run_row unknown_long        2 "add: unknown option '--bogus'"   add --bogus 42
run_row value_missing       2 "top: -d wants SECS"              top -d
run_row long_value_missing  2 "top: --delay wants SECS"         top --delay
run_row letter_in_a_bundle  2 "top: unknown option '-x'"        top -d 1 -xb
run_row letter_after_flag   2 "top: unknown option '-x'"        top -b --json -xb
run_row ambiguous_long      2 "ambiguous option '--co': --count or --config" follow --co 3
run_row flag_given_value    2 "add: --maps takes no value: '--maps=yes'" add --maps=yes 42
run_row rm_means_del        2 "unknown command 'rm'; did you mean 'del'?" rm 42
run_row remove_means_del    2 "unknown command 'remove'; did you mean 'del'?" remove 42
run_row config_after_command 1 "reading $dir/other.conf: No such file or directory" status -c "$dir/other.conf"
run_row config_after_long   1 "reading $dir/other.conf: No such file or directory" list --config="$dir/other.conf"

# Every column top shows is explained in its --help.
for column in MINOR/s MAJOR/s CPU% STALL% IOWAIT% FAULT%; do
	why=
	"$ctl" top --help | grep -qF "  $column: " || why="no '$column: ' in top --help"
	result "top_help_explains_$column" "$why"
done

# run_edit NAME STATUS MESSAGE LINE ARGS...: without the module, pfprofctl
# ARGS exits with STATUS, says MESSAGE and removes LINE from the targets file,
# keeping the others.
run_edit() {
	local name=$1 line=$4 why
	shift
	cp "$dir/pids.before" "$dir/pids"
	why=$(why_not "$1" "$2" "${@:4}")
	if [ -z "$why" ] && ! grep -vx -- "$line" "$dir/pids.before" | cmp -s - "$dir/pids"; then
		why="the targets file is not the one without '$line': $(cat "$dir/pids")"
	fi
	result "$name" "$why"
}

no_module="the mp3 module is not loaded ($dir/no-status: No such file or directory)"
run_edit del_without_module      0 "$no_module: removing from $dir/pids only" 42 del 42
run_edit del_comm_without_module 0 "$no_module: removing" "comm postgres" del --comm postgres
run_edit del_maps_without_module 0 "$no_module: removing" "maps 43" del 43
cp "$dir/pids.before" "$dir/pids"

# list without the module: what the targets file keeps, and a note why no more.
why=$(why_not 0 "$no_module: showing what $dir/pids keeps" list)
if [ -z "$why" ] && ! { grep -q '^42 .* kept, not profiled$' "$dir/out" &&
	grep -q '^43 .* kept with maps, not profiled$' "$dir/out" &&
	grep -q '^comm:postgres ' "$dir/out"; }; then
	why="not 42, 43 and comm:postgres in: $(cat "$dir/out")"
fi
result list_without_module "$why"

# The same as JSON, read back with jq: one object, the targets file's processes
# and target as the text shows them, with the number the logs give the target
# (the same on every machine: a hash of its kind and name, targets.h).
"$ctl" -c "$dir/pfprofd.conf" list --json > "$dir/out" 2> /dev/null
why=$(jq -e '(.processes | length) == 2
	and (.processes[] | select(.pid == 42) | .kept and (.maps | not) and (.profiled | not))
	and (.processes[] | select(.pid == 43) | .kept and .maps and (.latency | not) and .target == null)
	and .targets == [{ target: "comm:postgres", kind: "comm", name: "postgres",
		number: 1977650594, maps: false, latency: false, pages: false, cgroup: null, present: true,
		processes: 0 }]' \
	"$dir/out" 2>&1 > /dev/null || echo "not the list: $(head -c 400 "$dir/out")")
[ -n "$why" ] || [ "$(wc -l < "$dir/out")" = 1 ] || why="not one line: $(cat "$dir/out")"
result list_json "$why"

# status --json without the module or pfprofd: said as fields, exit status 3.
"$ctl" -c "$dir/pfprofd.conf" status --json > "$dir/out" 2> /dev/null
status=$?
why=$(jq -e '.module.loaded == false and (.module.installed | type) == "boolean"
	and .daemon.running == false and .daemon.error == null' "$dir/out" 2>&1 > /dev/null ||
	echo "not the status: $(head -c 400 "$dir/out")")
[ -n "$why" ] || [ "$status" = 3 ] || why="exit status $status, want 3"
result status_json "$why"

# A file that is not pfprofd's configuration: three of its problems, then a count.
seq -f 'line %g' 30 > "$dir/not-a-config"
"$ctl" -c "$dir/not-a-config" list > /dev/null 2> "$dir/err"
why=
if [ "$(grep -c '(line ignored)$' "$dir/err")" != 3 ] ||
	! grep -q "not-a-config: 27 more lines ignored; is it pfprofd's configuration" "$dir/err"; then
	why=$(head -c 400 "$dir/err")
fi
result config_problems_capped "$why"

# where_json_row NAME FILTER: pfprofctl where --json 42, over the faults log
# in $dir/faults, gives what jq's FILTER holds true.
where_json_row() {
	local status why
	"$ctl" -c "$dir/faults.conf" where --json 42 > "$dir/out" 2> "$dir/err"
	status=$?
	why=$(jq -e "$2" "$dir/out" 2>&1 > /dev/null ||
		echo "exit $status: $(head -c 600 "$dir/out" "$dir/err")")
	result "$1" "$why"
}

# where --json over a faults log: its rows, as the table has them.
mkdir "$dir/faults"
printf 'log_dir = %s/faults\n' "$dir" > "$dir/faults.conf"
printf '%s\n' "# pfprof faults log format 1" "# created 1" "# columns: ..." "# units: ..." \
	"1	100.000000	42	app	0	anon	5000	8192	0	10	2	[anon]" \
	"2	200.000000	42	app	0	file	7000	4096	12	0	6	/lib/x.so" \
	> "$dir/faults/pfprof-faults.log"
where_json_row where_json '.pid == 42 and .target == null and .comm == "app"
	and .minor_faults == 10 and .major_faults == 8 and .first_unix_time == 100
	and .last_unix_time == 200
	and [.mappings[] | [.name, .kind, .major_faults, .swap_ins, .file_reads, .start]]
	    == [["/lib/x.so", "file", 6, 0, 6, "7000"], ["[anon]", "anon", 2, 2, 0, "5000"]]
	and .mappings[0].share_percent == 33.333'

# And the times, after an upgrade (the format 1 log rotated): ns of the
# faults timed, null where no line knows them.
mv "$dir/faults/pfprof-faults.log" "$dir/faults/pfprof-faults.log.1"
printf '%s\n' "# pfprof faults log format 2" "# created 1" "# columns: ..." "# units: ..." \
	"3	300.000000	42	app	0	anon	5000	8192	0	4	0	[anon]	0.004000	0.000000" \
	"3	300.000000	42	app	0	heap	9000	8192	0	1	1	[heap]	0.000900	-" \
	> "$dir/faults/pfprof-faults.log"
where_json_row where_json_times '.minor_time_ns == 4900 and .minor_timed_faults == 5
	and .major_time_ns == 0 and .major_timed_faults == 0
	and [.mappings[] | [.name, .minor_time_ns, .minor_timed_faults, .major_time_ns,
			    .major_timed_faults]]
	    == [["/lib/x.so", null, 0, null, 0], ["[anon]", 4000, 4, 0, 0],
		["[heap]", 900, 1, null, 0]]'
"$ctl" -c "$dir/faults.conf" where 42 > "$dir/out" 2> "$dir/err"
why=$(awk '$NF == "[anon]" && $6 == "0.004" && $7 == "1.00" { a = 1 }
	$NF == "/lib/x.so" && $6 == "-" && $7 == "-" { l = 1 }
	END { if (!a || !l) print "no such rows" }' "$dir/out")
result where_times "${why:+$why: $(head -c 600 "$dir/out" "$dir/err")}"
run_row where_json_watch    2 "--json goes without --watch"     where --json --watch 42

# A process that names itself, or a file, with a terminal's escape sequence:
# where, from a log written before names were made printable, prints none.
printf '%s\n' "# pfprof faults log format 2" "# created 1" "# columns: ..." "# units: ..." \
	$'4\t400.000000\t43\t\e[2Jevil\t0\tfile\t5000\t8192\t7\t3\t1\t/tmp/\e]0;owned\a.so\t-\t-' \
	> "$dir/faults/pfprof-faults.log"
"$ctl" -c "$dir/faults.conf" where 43 > "$dir/out" 2> "$dir/err"
why=
if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$dir/out" "$dir/err"; then
	why="control characters printed: $(od -c "$dir/out" | head -5)"
elif ! grep -qF '/tmp/_]0;owned_.so' "$dir/out"; then
	why="no printable name: $(head -c 400 "$dir/out" "$dir/err")"
fi
result where_prints_no_escape "$why"

# where on a faults log that is not pfprof's says what the file is.
mkdir "$dir/foreign"
printf 'log_dir = %s/foreign\n' "$dir" > "$dir/foreign.conf"
echo "root:x:0:0:root:/root:/bin/bash" > "$dir/foreign/pfprof-faults.log"
"$ctl" -c "$dir/foreign.conf" where 1 2> "$dir/err" > /dev/null
status=$?
why=
if [ "$status" != 1 ] || ! grep -q "is not a pfprof faults log" "$dir/err"; then
	why="exit $status: $(cat "$dir/err")"
fi
result where_foreign_log "$why"

# No line of any --help ends in a space (list's "Usage: pfprofctl list " did).
commands=$("$ctl" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z]\+\) .*/\1/p')
spaced=$(for c in $commands; do "$ctl" "$c" --help | grep -n ' $' | sed "s/^/$c:/"; done)
[ -n "$commands" ] || spaced="no commands in pfprofctl --help"
result help_no_trailing_space "$spaced"

# And every --help fits 80 columns (the main one had lines of 181).
wide=$("$ctl" --help | awk 'length($0) > 80 { print "pfprofctl: " $0 }'
	for c in $commands; do "$ctl" "$c" --help | awk -v c="$c" 'length($0) > 80 { print c ": " $0 }'; done)
result help_80_columns "$wide"

result_end
