# Case study 2: multiprogramming. N copies of `work 200 R 10000` at once, in
# two series: paced (the handout's work, a 1 s pause after each of its 20
# iterations) and CPU-bound (no pause).
#   gnuplot -e "paced='case_2_paced.dat'; cpu='case_2_cpu.dat'; out='case_2.png'" \
#           -e "config='2 CPUs, ...'" case_2.gp
# paced, cpu: plots/case-2-table.sh's summary of each series (N runs, then
# median min max of utilisation_pct, wall_s and max_completion_s, then the
# medians of cpu_s, major, pswpin, psi_some_mean, then failed, then the memory
# stall: stall_s, stall_per_process_s median min max, mean_completion_s,
# stall_share_pct). The points are medians, the bars the range over the runs.
if (!exists("out")) out = 'case_2.png'
if (!exists("config")) config = ''

set datafile commentschars "#"
set terminal pngcairo size 1200,2000 font ",10"
set output out
set multiplot layout 4,1 \
    title sprintf("case 2: N copies of work 200 R 10000, profiled together (median and range of the runs)\n%s", config) noenhanced
set grid
set key top left
set xlabel "N (processes)"
set xrange [0:23]
set xtics 1, 1
set yrange [0:*]

set title "total CPU utilisation of the N processes" noenhanced
set key bottom right
set ylabel "% of one CPU"
plot paced using 1:3:4:5 with yerrorlines lc 1 lw 2 pt 7 title "paced: 20 iterations, 1 s pause after each (the handout)", \
     paced using 1:3:(sprintf("%.0f %%", $3)) with labels offset 0, 1 notitle, \
     cpu using 1:3:4:5 with yerrorlines lc 2 lw 2 pt 5 dt 2 title "CPU-bound: no pause", \
     cpu using 1:3:(sprintf("%.0f %%", $3)) with labels offset 0, -1 notitle

set title "completion time of the last of the N processes" noenhanced
set key top left
set ylabel "seconds"
plot paced using 1:9:10:11 with yerrorlines lc 1 lw 2 pt 7 title "paced", \
     cpu using 1:9:10:11 with yerrorlines lc 2 lw 2 pt 5 dt 2 title "CPU-bound"

# The whole system over each run: pages swapped in, and how much of the time
# some task stalled on memory (PSI some avg10, its mean over the run).
set title "the whole system during the run" noenhanced
set ylabel "pages swapped in"
set format y "%.1s%c"
set ytics nomirror
# Logs of format 1 (the earliest CPU-bound runs) have no PSI: "-" there.
psi_rows = int(system(sprintf("awk '!/^#/ && $15 != \"-\" { n++ } END { print n + 0 }' '%s'", paced)))
swap_plot = 'paced using 1:14 with linespoints lc 1 lw 2 pt 7 title "swapped in, paced", ' . \
	'cpu using 1:14 with linespoints lc 2 lw 2 pt 5 dt 2 title "swapped in, CPU-bound"'
if (psi_rows) {
	set y2label "memory pressure, mean PSI some avg10 (%)"
	set y2range [0:100]
	set y2tics
	eval("plot " . swap_plot . ', paced using 1:15 axes x1y2 with linespoints lc 3 lw 1 pt 4 dt 3 title "PSI some, paced (right)"')
} else {
	eval("plot " . swap_plot)
}
set format y "% h"
unset y2label
unset y2tics
set ytics mirror

# What the processes lost to memory stalls (log format 3, with delay
# accounting on): each process's swap-in, thrashing, reclaim and compaction
# waits (total / N), beside its completion time (thin); the labels give the
# share of it. A series whose logs are of an older format has none ("-"): not
# drawn then, rather than drawn as 0.
set title "time each process lost to memory stalls (swap-in, thrashing, reclaim, compaction)" noenhanced
set ylabel "seconds per process"
set key top left
stall_rows(file) = int(system(sprintf("awk '!/^#/ && $17 != \"-\" { n++ } END { print n + 0 }' '%s'", file)))
stall_plot = ''
if (stall_rows(paced)) {
	stall_plot = 'paced using 1:18:19:20 with yerrorlines lc 1 lw 2 pt 7 title "memory stall, paced", ' . \
		'paced using 1:18:(sprintf("%.0f %%", $22)) with labels offset 0, 1 notitle, ' . \
		'paced using 1:21 with linespoints lc 1 lw 1 pt 6 dt 3 title "completion time (mean), paced"'
}
if (stall_rows(cpu)) {
	stall_plot = stall_plot . (strlen(stall_plot) ? ', ' : '') . \
		'cpu using 1:18:19:20 with yerrorlines lc 2 lw 2 pt 5 dt 2 title "memory stall, CPU-bound", ' . \
		'cpu using 1:18:(sprintf("%.0f %%", $22)) with labels offset 0, -1 notitle, ' . \
		'cpu using 1:21 with linespoints lc 2 lw 1 pt 4 dt 3 title "completion time (mean), CPU-bound"'
}
if (strlen(stall_plot)) {
	eval("plot " . stall_plot)
} else {
	set yrange [0:1]
	set label 1 "no memory stall times in these logs (log format 3 with delay accounting on has them)" at graph 0.5, 0.5 center
	plot NaN notitle
	unset label 1
}
unset multiplot
