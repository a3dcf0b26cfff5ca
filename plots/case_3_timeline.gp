# Case study 3 over time: each pgbench run after the other, the MemoryMax
# of each named above it; pgbench's transactions per second (-P 1) and the
# unit's major faults per second (pfprofd's samples log).
#   gnuplot -e "timeline='timeline.dat'; marks='marks.gp'; out='case_3_timeline.png'; config='...'" case_3_timeline.gp
# timeline: plots/case-3-table.sh's timeline.dat; marks: gnuplot commands
# that mark each run's start and name its MemoryMax (plots/case-3-render.sh
# writes them).
if (!exists("out")) out = 'case_3_timeline.png'
if (!exists("config")) config = ''

set datafile commentschars "#"
set terminal pngcairo size 1400,800 font ",10"
set output out
set multiplot layout 2,1 \
    title sprintf("case 3: PostgreSQL's throughput and major faults as its memory limit steps down\n%s", config) noenhanced
set grid
set xlabel "seconds since the first run"
set key top right box opaque
set yrange [0:*]

set title "pgbench: transactions per second" noenhanced
set ylabel "tps"
load marks
plot timeline using 1:3 with steps lc 1 lw 1.5 title "tps (each second)"

set title "pfprof: the unit's major faults per second" noenhanced
set ylabel "major faults/s"
plot timeline using 1:6 with steps lc 7 lw 1.5 title "major faults (pfprofd's samples log)"
unset multiplot
