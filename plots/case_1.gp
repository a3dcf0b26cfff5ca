# Case study 1: page faults of two work processes profiled together.
#   gnuplot -e "log='case_1_work_1_2.log'; times='case_1_work_1_2.times'" \
#           -e "procs='case_1_work_1_2.procs'" \
#           -e "out='case_1_work_1_2.png'; config='2 CPUs, ...'; title='case 1a'" case_1.gp
# log: pfprofd's log, or the output of `monitor` (columns jiffies minor major
# cpu; then give hz='<the kernel HZ>'). times (pfprofd logs only): one line
# "label start_s end_s status [pid]" per process, in the clock of the log's
# monotonic column (CLOCK_MONOTONIC = /proc/uptime in a guest that never
# sleeps); it sets x = 0 at the first start and marks each process's end.
# procs (optional, with times giving the PIDs): pfprofd's per-process log;
# each process then gets its own curves of faults and CPU. A log of format 2
# also gets a panel of the whole system's swapping and memory pressure; a
# per-process log of format 3 with the waits (delay accounting on) one of the
# time each process lost to memory stalls.
# brief=1 (make demo; needs procs): each process's fault rates instead of the
# accumulated faults, and no panels of the group.
if (!exists("out")) out = 'case_1.png'
if (!exists("config")) config = ''
if (!exists("times")) times = ''
if (!exists("procs")) procs = ''
if (!exists("title")) title = log[strstrt(log, "case_"):]
if (!exists("brief")) brief = 0

set datafile commentschars "#"
stats log using 0 nooutput
monitor = (STATS_columns == 4)
# Format 2: sys_pswpin, sys_pswpout, psi_some_avg10, psi_full_avg10 in 13 to 16.
system_panel = !monitor && STATS_columns >= 16
if (monitor && !exists("hz")) print "monitor output needs hz='<the kernel HZ>'"; exit status 1
# pfprofd's log: 3 monotonic_s, 5 minor, 6 major, 7 cpu_ms.
# monitor: 1 jiffies, 2 minor, 3 major, 4 cpu (jiffies).
t(x) = monitor ? column(1) / hz : column(3)
minor_col = monitor ? 2 : 5
major_col = monitor ? 3 : 6
cpu_ms(x) = monitor ? column(4) * 1000.0 / hz : column(7)

stats log using (t(0)) nooutput
t0 = STATS_min
if (strlen(times) > 0 && !monitor) { stats times using 2 nooutput; t0 = STATS_min }
labels = ''; pids = ''
if (strlen(procs) > 0 && strlen(times) > 0 && !monitor) {
	labels = system("awk 'NF >= 5 { printf \"%s \", $1 }' " . times)
	pids = system("awk 'NF >= 5 { printf \"%s \", $5 }' " . times)
}
nprocs = words(pids)
# The per-process log has wall-clock times: the offset to the log's monotonic ones.
if (nprocs) { stats log using ($2 - $3) nooutput; wall_to_mono = STATS_mean }
# One process's lines of the per-process log: wall_s, its minor and major
# faults accumulated, its CPU time over the last 20 samples (1 s at 20 Hz) in %
# of one CPU, its minor and major faults over those samples (per second),
# and its memory stall over them (s per s; 0 where format 3's waits are "-").
proc_series(pid) = sprintf("< awk -F'\\t' -v p=%s '!/^#/ && $3 == p { n++; mi += $5; ma += $6; " . \
	"k = n %% 20; s += $7 - w[k]; w[k] = $7; smi += $5 - wmi[k]; wmi[k] = $5; " . \
	"sma += $6 - wma[k]; wma[k] = $6; st = NF >= 13 && $9 != \"-\" ? $9 + $10 + $11 + $12 : 0; " . \
	"sst += st - wst[k]; wst[k] = st; print $2, mi, ma, s / 10, smi, sma, sst / 1000 }' '%s'", pid, procs)
if (brief && !nprocs) print "brief=1 needs procs and times with PIDs"; exit status 1
# Format 3 of the per-process log, with a sample whose waits are known.
stall_panel = nprocs && system("awk -F'\t' '!/^#/ && NF >= 13 && $9 != \"-\" { print 1; exit }' '" . procs . "'") eq "1"
panels = (brief ? 2 : 2 + (nprocs ? 2 : 0)) + (system_panel ? 1 : 0) + stall_panel

set terminal pngcairo size 1200,(450 * panels) font ",10"
set output out
set multiplot layout panels,1 title sprintf("%s\n%s", title, config) noenhanced
set grid
set key top left
set rmargin 12
set xlabel "time since the processes started (s)"
set xrange [0:*]

if (strlen(times) > 0 && !monitor) {
	ends = system("awk '{ printf \"%s %s \", $1, $3 }' " . times)
	do for [i = 1:words(ends):2] {
		x = word(ends, i + 1) - t0
		set arrow from x, graph 0 to x, graph 1 nohead dt 3 lc "gray40"
		set label word(ends, i) . sprintf(" ends, %.0f s", x) at x, graph 0.5 right rotate by 90 offset -0.8, 0
	}
}

set ylabel "minor faults, all faults (accumulated)"
set y2label "major faults (accumulated)"
set ytics nomirror
set y2tics
set format y "%.0s%c"
set format y2 "%.0s%c"
minor = 0; major = 0; all = 0
set title "all registered processes together" noenhanced
if (!brief) plot log using (t(0) - t0):(minor = minor + column(minor_col)) axes x1y1 with lines lw 2 \
          title "minor (left)", \
     log using (t(0) - t0):(all = all + column(minor_col) + column(major_col)) axes x1y1 \
          with lines lw 1 dt 2 title "minor + major (left)", \
     log using (t(0) - t0):(major = major + column(major_col)) axes x1y2 with lines lw 2 \
          title "major (right)"

if (brief) {
	set title "each process: page faults per second" noenhanced
	set key noenhanced
	set ylabel "minor faults per second (1 s mean)"
	set y2label "major faults per second (1 s mean)"
	set format y2 "%g"
	plot for [i = 1:nprocs] proc_series(word(pids, i)) \
	         using ($1 - wall_to_mono - t0):5 axes x1y1 with lines lw 2 lc i \
	         title word(labels, i) . " minor (left)", \
	     for [i = 1:nprocs] proc_series(word(pids, i)) \
	         using ($1 - wall_to_mono - t0):6 axes x1y2 with lines lw 2 dt 2 lc i \
	         title word(labels, i) . " major (right)"
}
if (!brief && nprocs) {
	set title "each process" noenhanced
	set key noenhanced
	set ylabel "faults, minor + major (accumulated)"
	plot for [i = 1:nprocs] proc_series(word(pids, i)) \
	         using ($1 - wall_to_mono - t0):($2 + $3) axes x1y1 with lines lw 2 lc i \
	         title word(labels, i) . " minor + major (left)", \
	     for [i = 1:nprocs] proc_series(word(pids, i)) \
	         using ($1 - wall_to_mono - t0):3 axes x1y2 with lines lw 2 dt 2 lc i \
	         title word(labels, i) . " major (right)"
}
unset y2label
unset y2tics
set ytics mirror
set format y "%g"

# A 20-sample (1 s at 20 Hz) moving sum of the CPU time, in % of one CPU.
set ylabel "CPU utilisation (% of one CPU, 1 s mean)"
set yrange [0:*]
array w[20]
do for [i = 1:20] { w[i] = 0 }
k = 0; s = 0
window_ms(x) = (k = k % 20 + 1, s = s - w[k] + x, w[k] = x, s)
set title "all registered processes together" noenhanced
if (!brief) plot log using (t(0) - t0):(window_ms(cpu_ms(0)) / 10.0) with lines lw 2 title "both processes"

if (nprocs) {
	set title "each process: CPU" noenhanced
	plot for [i = 1:nprocs] proc_series(word(pids, i)) \
	         using ($1 - wall_to_mono - t0):4 with lines lw 2 lc i title word(labels, i)
}

# Each process's time lost to memory stalls (swap-ins, refaults, reclaim,
# compaction; its threads' added), per second over the last 20 samples.
if (stall_panel) {
	set title "each process: time lost waiting for memory (delay accounting)" noenhanced
	set ylabel "memory stall (s per s, 1 s mean)"
	plot for [i = 1:nprocs] proc_series(word(pids, i)) \
	         using ($1 - wall_to_mono - t0):7 with lines lw 2 lc i title word(labels, i)
}

# The whole machine: pages swapped per second over the last 20 samples (1 s
# at 20 Hz), and the share of time some (or all) tasks stalled on memory over
# the last 10 s. A rate needs a sample 20 before: each series keeps its own.
if (system_panel) {
	set title "the whole system" noenhanced
	set ylabel "pages swapped per second (1 s mean)"
	set y2label "memory pressure, PSI avg10 (%)"
	set ytics nomirror
	set y2tics
	set y2range [0:100]
	array in_t[20]; array in_c[20]; array out_t[20]; array out_c[20]
	in_k = 0; in_n = 0; out_k = 0; out_n = 0
	in_rate(c) = (in_k = in_k % 20 + 1, in_n = in_n + 1, \
		r = in_n > 20 ? (c - in_c[in_k]) / ($3 - in_t[in_k]) : NaN, \
		in_t[in_k] = $3, in_c[in_k] = c, r)
	out_rate(c) = (out_k = out_k % 20 + 1, out_n = out_n + 1, \
		r = out_n > 20 ? (c - out_c[out_k]) / ($3 - out_t[out_k]) : NaN, \
		out_t[out_k] = $3, out_c[out_k] = c, r)
	plot log using (t(0) - t0):(in_rate($13)) with lines lw 2 title "swap-in (left)", \
	     log using (t(0) - t0):(out_rate($14)) with lines lw 1 title "swap-out (left)", \
	     log using (t(0) - t0):15 axes x1y2 with lines lw 2 dt 2 title "PSI some (right)", \
	     log using (t(0) - t0):16 axes x1y2 with lines lw 1 dt 3 title "PSI full (right)"
}
unset multiplot
