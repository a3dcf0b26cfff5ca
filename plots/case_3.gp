# Case study 3: PostgreSQL (pgbench) under a MemoryMax stepped down, as
# pfprof followed its unit: a point per pgbench run.
#   gnuplot -e "runs='runs.dat'; out='case_3.png'; config='...'; setup='...'" case_3.gp
# runs: plots/case-3-table.sh's runs.dat (its columns are named in its
# first line).
if (!exists("out")) out = 'case_3.png'
if (!exists("config")) config = ''
if (!exists("setup")) setup = ''

set datafile commentschars "#"
set terminal pngcairo size 1200,1500 font ",10"
set output out
set multiplot layout 3,1 \
    title sprintf("case 3: PostgreSQL under a shrinking memory limit, profiled by pfprof (a point per %s)\n%s", setup, config) noenhanced
set grid
set logscale x 2
set xrange [*:*] reverse
set xlabel "MemoryMax of postgresql@17-main.service (MiB; less to the right)" noenhanced
set xtics nomirror
set ytics nomirror
set key top left box opaque

set key bottom left
set title "what the clients get: pgbench's throughput and mean latency" noenhanced
set ylabel "transactions per second"
set y2label "mean latency (ms)"
set y2tics
set yrange [0:*]
set y2range [0:*]
plot runs using 2:5:xtic(sprintf("%dM", $2)) with linespoints lc 1 lw 2 pt 7 title "tps", \
     runs using 2:5:(sprintf("%.0f", $5)) with labels offset 0, 1 notitle, \
     runs using 2:6 axes x1y2 with linespoints lc 2 lw 2 pt 5 dt 2 title "latency (ms)"

set key top left
set title "what the memory does: the unit's major faults (pfprof) and the swap traffic, and its memory.pressure" noenhanced
set ylabel "pages per second"
set y2label "memory.pressure (% of the time)"
plot runs using 2:9:xtic(sprintf("%dM", $2)) with linespoints lc 7 lw 2 pt 7 title "major faults/s (pfprof, the unit)", \
     runs using 2:11 with linespoints lc 3 lw 2 pt 5 dt 2 title "pages swapped in/s (system)", \
     runs using 2:12 with linespoints lc 4 lw 1 pt 4 dt 3 title "pages swapped out/s (system)", \
     runs using 2:13 axes x1y2 with linespoints lc 6 lw 2 pt 9 title "pressure some (the unit)", \
     runs using 2:14 axes x1y2 with linespoints lc 8 lw 1 pt 8 dt 2 title "pressure full (the unit)"

set title "where a transaction's time went: the client backends' waits per transaction, against its latency" noenhanced
set ylabel "ms per transaction"
unset y2label
unset y2tics
plot runs using 2:6:xtic(sprintf("%dM", $2)) with linespoints lc 2 lw 2 pt 5 dt 2 title "mean latency (pgbench)", \
     runs using 2:15 with linespoints lc 7 lw 2 pt 7 title "waiting on memory: swap-in, thrashing, reclaim, compaction (delay accounting)", \
     runs using 2:17 with linespoints lc 6 lw 2 pt 9 title "in page faults (pfprof --latency)", \
     runs using 2:16 with linespoints lc 3 lw 1 pt 4 dt 3 title "waiting on block I/O (delay accounting)"
unset multiplot
