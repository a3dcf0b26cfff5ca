# Case study 1: accumulated page faults of two work processes profiled together.
#   gnuplot -e "log='case_1_work_1_2.log'; times='case_1_work_1_2.times'" \
#           -e "out='case_1_work_1_2.png'; config='2 CPUs, ...'; title='case 1a'" case_1.gp
# log: pfprofd's log, or the output of `monitor` (columns jiffies minor major
# cpu; then give hz='<the kernel HZ>'). times (pfprofd logs only): one line
# "label start_s end_s status" per process, in the clock of the log's
# monotonic column (CLOCK_MONOTONIC = /proc/uptime in a guest that never
# sleeps); it sets x = 0 at the first start and marks each process's end.
# The module sums all registered processes: the curves are both together.
if (!exists("out")) out = 'case_1.png'
if (!exists("config")) config = ''
if (!exists("times")) times = ''
if (!exists("title")) title = log[strstrt(log, "case_"):]

set datafile commentschars "#"
stats log using 0 nooutput
monitor = (STATS_columns == 4)
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

set terminal pngcairo size 1200,900 font ",10"
set output out
set multiplot layout 2,1 title sprintf("%s\n%s", title, config) noenhanced
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
plot log using (t(0) - t0):(minor = minor + column(minor_col)) axes x1y1 with lines lw 2 \
          title "minor (left)", \
     log using (t(0) - t0):(all = all + column(minor_col) + column(major_col)) axes x1y1 \
          with lines lw 1 dt 2 title "minor + major (left)", \
     log using (t(0) - t0):(major = major + column(major_col)) axes x1y2 with lines lw 2 \
          title "major (right)"
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
plot log using (t(0) - t0):(window_ms(cpu_ms(0)) / 10.0) with lines lw 2 title "both processes"
unset multiplot
