# Case study 2: multiprogramming. N copies of `work 200 R 10000` at once.
#   gnuplot -e "table='case_2.dat'; out='case_2.png'; config='2 CPUs, ...'" case_2.gp
# table: plots/case-2-table.sh's output (N wall_s cpu_s utilisation_pct
# mean_completion_s max_completion_s minor major failed pswpin pswpout
# psi_some_mean); the columns after "failed" give a second panel.
if (!exists("out")) out = 'case_2.png'
if (!exists("config")) config = ''

set datafile commentschars "#"
stats table using 0 nooutput
system_panel = (STATS_columns >= 12)

set terminal pngcairo size 1200,(system_panel ? 1300 : 800) font ",10"
set output out
if (system_panel) {
	set multiplot layout 2,1 \
	    title sprintf("case 2: N copies of work 200 R 10000, profiled together\n%s", config) noenhanced
} else {
	set title sprintf("case 2: N copies of work 200 R 10000, profiled together\n%s", config) noenhanced
}
set grid
set key top center
set xlabel "N (processes)"
set ylabel "total CPU utilisation of the N processes (% of one CPU)"
set y2label "completion time (s)"
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set xrange [0:23]
set xtics 1, 1
set mxtics 1
plot table using 1:4 with linespoints lw 2 pt 7 title "CPU utilisation (left)", \
     table using 1:4:(sprintf("%.0f %%", $4)) with labels offset 0, 1 notitle, \
     table using 1:6 axes x1y2 with linespoints lw 2 pt 5 dt 2 title "completion time, last process (right)", \
     table using 1:5 axes x1y2 with linespoints lw 1 pt 4 dt 3 title "completion time, mean (right)"

# The whole system over each experiment: pages swapped, and how much of the
# time some task stalled on memory (PSI some avg10, its mean over the run).
if (system_panel) {
	set title "the whole system" noenhanced
	set ylabel "pages swapped during the run"
	set format y "%.1s%c"
	# Logs of format 1 have no PSI: "-" in every row, and no right axis then.
	psi_rows = int(system(sprintf("awk '!/^#/ && $12 != \"-\" { n++ } END { print n + 0 }' '%s'", table)))
	if (psi_rows) {
		set y2label "memory pressure, mean PSI some avg10 (%)"
		set y2range [0:100]
	} else {
		unset y2label
		unset y2tics
		set ytics mirror
	}
	swap_plot = 'table using 1:10 with linespoints lw 2 pt 7 title "swapped in", ' . \
		'table using 1:11 with linespoints lw 1 pt 6 title "swapped out"'
	if (psi_rows) {
		eval("plot " . swap_plot . ', table using 1:12 axes x1y2 with linespoints lw 2 pt 5 dt 2 title "PSI some (right)"')
	} else {
		eval("plot " . swap_plot)
	}
	unset multiplot
}
