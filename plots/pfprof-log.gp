# pfprof: page faults and CPU time, totals and rates, from pfprofd's logs.
#   gnuplot -e "files='pfprof.log.1 pfprof.log'; out='pfprof.png'" pfprof-log.gp
# files: the logs, oldest first (pfprofctl plot passes one file holding them
# all); label: what the title names them (default: files). Columns are those
# of the log format: 2 wall_time_s, 5 minor_faults, 6 major_faults, 7 cpu_ms,
# and from format 3 17-21 the waits, ms (swapin, thrashing, reclaim, compact,
# blkio; "-" while delay accounting is off): a panel when a sample has them.
# The per-period columns are summed here, so a module reload (its totals
# restart at 0) does not break the curves.
# procfiles, proctitles (optional, as many words each): one file per process,
# "<wall_time_s> <minor_faults> <major_faults>" lines (pfprofctl plot splits
# pfprof-procs.log so), and "name/pid" titles; they get a panel.
# targetfiles, targettitles (optional, as many words each): per target, all
# its processes' lines in one file (the same three columns, a line per
# process per sample, exited processes too), and its label; a panel each,
# with the target's total and, beneath it, the curves of targetprocs (a
# count per target) of targetprocfiles and targetproctitles, in target order.
# The processes of procfiles are then those without a target.
# mapfiles, maptitles (optional, as many words each): per mapping of a
# process added with --maps, its lines of pfprof-faults.log in the same three
# columns, and "name:comm/pid" titles; mapmajor 1 draws their major faults,
# 0 their minor + major ones (no mapping had a major fault). A panel.
if (!exists("files")) files = 'pfprof.log'
if (!exists("out")) out = 'pfprof.png'
if (!exists("label")) label = files
if (!exists("procfiles")) procfiles = ''
if (!exists("proctitles")) proctitles = procfiles
if (!exists("targetfiles")) targetfiles = ''
if (!exists("targettitles")) targettitles = targetfiles
if (!exists("targetprocs")) targetprocs = ''
if (!exists("targetprocfiles")) targetprocfiles = ''
if (!exists("targetproctitles")) targetproctitles = targetprocfiles
if (!exists("mapfiles")) mapfiles = ''
if (!exists("maptitles")) maptitles = mapfiles
if (!exists("mapmajor")) mapmajor = 1
data = '< cat ' . files
nprocs = words(procfiles)
ntargets = words(targetfiles)
nmaps = words(mapfiles)

# Exit status 3: no line has a sample's time, faults and CPU (not a pfprof log).
stats data using ($2 + 0 * ($5 + $6 + $7)) nooutput   # column 2, where 5 to 7 are too
if (!exists("STATS_records")) { exit status 3 }
t0 = STATS_min
span = STATS_max - t0
samples = STATS_records
# Lines with waits: every line counts 0 or 1, so that none is invalid (no warning).
stats data using (valid(17) && valid(21) ? 1 : 0) name "WAITS" nooutput
waits = WAITS_sum > 0
panels = 4 + waits + (nprocs ? 1 : 0) + ntargets + (nmaps ? 1 : 0)
# wall_time_s is UTC; gnuplot's strftime() does not apply a time zone.
start = strftime("%Y-%m-%d %H:%M:%S UTC", t0)
# Rates are the sums of the per-period columns over bins of bin seconds
# (at most 1000 bins), divided by bin; a bin a sample was missed in, and
# the last, partial one, are low, and one without samples (pfprofd or the
# module not running) is 0. gnuplot's bins are centred on the binrange's
# ends and the binwidth's steps between: [0, bin) is the first.
bin = span > 1000 ? ceil(span / 1000.0) : 1
binfirst = bin / 2.0
binlast = binfirst + bin * (span < bin ? 1 : floor(span / bin))   # two bins at least

set terminal pngcairo size 1200,(400 * panels) font ",10"
set output out
set datafile commentschars "#"
set multiplot layout panels,1 \
    title sprintf("pfprof: %d sample%s from %s, the first at %s", samples, \
                  samples == 1 ? "" : "s", label, start) \
    noenhanced
set grid
set lmargin 12   # the same plot width and place in every panel
set rmargin 4
set key top left
set xrange [0:(span > 0 ? span : 1)]   # the same time axis in every panel
set yrange [0:*]   # counts and rates: from 0, and never an empty range
set offsets 0, 0, graph 0.05, 0   # a curve at its top clear of the border
set xlabel sprintf("time since the first sample, %s (s)", start)

# One axis for all faults: the curves compare as they are.
set ylabel "faults (cumulative)"
minor = 0; major = 0; both = 0
plot data using ($2 - t0):(minor = minor + $5) with lines lw 2 title "minor", \
     data using ($2 - t0):(major = major + $6) with lines lw 2 title "major", \
     data using ($2 - t0):(both = both + $5 + $6) with lines lw 1 dt 2 lc "black" \
          title "minor + major"

set ylabel sprintf("faults per second (%g s bins)", bin)
set key top right
plot data using ($2 - t0):($5 / bin) bins binrange [binfirst:binlast] binwidth=bin \
          with histeps lw 2 title "minor", \
     data using ($2 - t0):($6 / bin) bins binrange [binfirst:binlast] binwidth=bin \
          with histeps lw 2 title "major"

set key top left
set ylabel "CPU time, utime + stime (s, cumulative)"
cpu = 0
plot data using ($2 - t0):(cpu = cpu + $7 / 1000.0) with lines lw 2 title "CPU"

set ylabel sprintf("CPU use (%% of one CPU, %g s bins)", bin)
set key top right
plot data using ($2 - t0):($7 / (10.0 * bin)) bins binrange [binfirst:binlast] binwidth=bin \
          with histeps lw 2 title "CPU"
set key top left

# Time lost waiting, per second, as CPU use is: the threads' waits added, so
# that it can exceed 1. Samples without waits ("-") are left out of the bins,
# and a bin with none of them shows 0, as a bin without samples does: the
# title says how many there were.
if (waits) {
    set ylabel sprintf("time waiting (s per s, threads added, %g s bins)", bin)
    if (WAITS_sum < samples) {
        set title sprintf("%d of %d samples without waits (delay accounting off), not counted", \
                          samples - WAITS_sum, samples) noenhanced
    }
    set key top right
    wait(c) = valid(c) ? column(c) / (1000.0 * bin) : NaN
    plot data using ($2 - t0):(wait(17) + wait(18) + wait(19) + wait(20)) \
              bins binrange [binfirst:binlast] binwidth=bin with histeps lw 3 lc "black" \
              title "memory stall (all four)", \
         data using ($2 - t0):(wait(17)) bins binrange [binfirst:binlast] binwidth=bin \
              with histeps lw 1.5 title "swap-in", \
         data using ($2 - t0):(wait(18)) bins binrange [binfirst:binlast] binwidth=bin \
              with histeps lw 1.5 title "thrashing (refaults)", \
         data using ($2 - t0):(wait(19) + wait(20)) bins binrange [binfirst:binlast] \
              binwidth=bin with histeps lw 1.5 title "direct reclaim + compaction", \
         data using ($2 - t0):(wait(21)) bins binrange [binfirst:binlast] binwidth=bin \
              with histeps lw 1.5 dt 2 title "block I/O (swap-in and refault I/O included)"
    set key top left
    unset title
}

# Per process: its minor + major faults; the total of all, dashed, to compare.
if (nprocs) {
    set ylabel "faults per process, minor + major (cumulative)"
    set key noenhanced
    if (ntargets) { set title "processes without a target" }
    total = 0
    plot for [i = 1:nprocs] word(procfiles, i) \
             using ($1 - t0):(c = (column(0) == 0 ? 0 : c) + $2 + $3) \
             with lines lw 2 title word(proctitles, i), \
         data using ($2 - t0):(total = total + $5 + $6) with lines lw 1 dt 2 lc "black" \
             title "all processes"
}

# Per target: the faults of all its processes (smooth cumulative sums the
# lines of one time, then adds up), thick; its processes beneath.
set ylabel "faults, minor + major (cumulative)"
set key noenhanced
last = 0
do for [i = 1:ntargets] {
    first = last + 1
    last = last + word(targetprocs, i)
    set title word(targettitles, i) noenhanced
    plot word(targetfiles, i) using ($1 - t0):($2 + $3) smooth cumulative \
             with lines lw 4 lc "black" title "all its processes", \
         for [j = first:last] word(targetprocfiles, j) using ($1 - t0):($2 + $3) \
             smooth cumulative with lines lw 1.5 title word(targetproctitles, j)
}

# Per mapping (processes added with --maps): where the faults were.
if (nmaps) {
    set title "mappings with the most faults (pfprof-faults.log)" noenhanced
    set ylabel (mapmajor ? "major faults per mapping (cumulative)" : \
                "faults per mapping, minor + major (cumulative)")
    set key noenhanced
    plot for [i = 1:nmaps] word(mapfiles, i) \
             using ($1 - t0):(c = (column(0) == 0 ? 0 : c) + (mapmajor ? $3 : $2 + $3)) \
             with lines lw 2 title word(maptitles, i)
}
unset multiplot
