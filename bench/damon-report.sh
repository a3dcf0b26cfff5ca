#!/bin/sh
# Usage: bench/damon-report.sh bench/raw/damon-output.txt
# Turns bench/damon-guest.sh's lines into bench/damon-results.md (on stdout).
if [ $# -ne 1 ] || [ ! -r "$1" ]; then
	sed -n '2s/^# //p' "$0" >&2
	exit 64
fi
awk '
function value(key,   i, kv) {
	for (i = 2; i <= NF; i++) {
		split($i, kv, "=")
		if (kv[1] == key)
			return kv[2]
	}
	return ""
}
function pct(ns, seconds) { return sprintf("%.3f %%", 100 * ns / (seconds * 1e9)) }
# A figure README.md and docs/ quote (bench/figures.sh), as bench/report.sh has them.
function figure(key, fmt, v) { figures = figures "damon_" key " " sprintf(fmt, v) "\n" }
/^commit / { commit = $2 }
/^date / { date = $2 }
/^guest / { guest = $2 " " $3 }
/^case / { n = value("n"); cases[++nr] = n }
/^ticks / { sampler[n] = pct(value("cpu_ns"), value("seconds")); tick[n] = value("ns_per_tick") }
/^cpu / {
	name = value("name")
	share = value("cpu_ns") / (value("seconds") * 1e9)
	if (name == "pfprofd") pfprofd[n] = sprintf("%.3f %%", 100 * share)
	else if (name == "recorder") recorder[n] = sprintf("%.3f %%", 100 * share)
	else if (name ~ /^kdamond/) { kdamond[n] += share; kdamonds[n]++ }
}
/^recorded / { recorded[n] = value("processes") }
/^regions / { regions[n] = value("per_snapshot") }
/^bench: [^d]/ { failed = failed "\n" $0 }
END {
	print "# DAMON beside the fault sampler: what each costs"
	print ""
	printf "Run of commit %s by `make bench-damon` on %s. Guest: %s, QEMU TCG, 2 CPUs.\n", \
		commit, date, guest
	print "Each process maps 64 MiB and makes 64 accesses to random pages every 2 ms."
	print "Over the same processes, one after the other, 20 s each: the fault sampler"
	print "(the module'"'"'s ticks at 20 Hz, from the versioned header; pfprofd logging"
	print "them), then DAMON as `pfprofctl heatmap --record` drives it (a kdamond per"
	print "process sampling every 5 ms, 10 to 1000 regions, a snapshot a second)."
	print "CPU is the share of one CPU over the window. Under TCG absolute costs are"
	print "not hardware costs; the ratios in one run are the figures to compare."
	print ""
	print "| processes | sampler (module) | ns per tick | pfprofd | kdamonds | recorder | regions a snapshot | kdamonds / sampler |"
	print "|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= nr; i++) {
		c = cases[i]
		split(sampler[c], s, " ")
		ratio = s[1] > 0 ? sprintf("%.0f×", 100 * kdamond[c] / s[1]) : "-"
		printf "| %s | %s | %s | %s | %.3f %% (%d) | %s | %s | %s |\n", c, sampler[c], tick[c], \
			pfprofd[c], 100 * kdamond[c], kdamonds[c], recorder[c], regions[c], ratio
		figure("sampler_cpu_" c, "%.2f", s[1])
		figure("pfprofd_cpu_" c, "%.2f", pfprofd[c])
		figure("kdamonds_cpu_" c, "%.0f", 100 * kdamond[c])
		figure("recorder_cpu_" c, "%.0f", recorder[c])
		figure("regions_" c, "%d", regions[c])
		figure("kdamonds_vs_sampler_" c, "%.0f", s[1] > 0 ? 100 * kdamond[c] / s[1] : 0)
	}
	figure("commit", "%s", commit)
	print ""
	print "Kdamonds: the sum of their CPU, (how many). The recorder'"'"'s time is mostly"
	print "system time (the raw output has user and system apart): each second and"
	print "process, an update, four sysfs files per region (start, end, nr_accesses,"
	print "age) and /proc/PID/maps. Which kernel path costs the most was not profiled."
	if (failed != "")
		printf "\nThe run failed:%s\n", failed
	print ""
	print "<!-- figures: what README.md and docs/ quote of this run (bench/figures.sh puts them there)"
	printf "%s", figures
	print "-->"
}' "$1"
