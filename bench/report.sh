#!/bin/sh
# Usage: bench/report.sh PAYLOAD_OUTPUT HOST_REFERENCE
#
# Turns the benchmark guest's output (bench/guest.sh) and the host's run of
# the reference workload (bench/run.sh) into bench/results.md's Markdown on
# stdout: the figures, the ratios, and each target met or not.
set -eu
[ $# -eq 2 ] || { sed -n '2s/^# //p' "$0" >&2; exit 64; }

awk '
function kv(line, key,    i, n, f, p) {
	n = split(line, f, " ")
	for (i = 1; i <= n; i++) {
		p = index(f[i], "=")
		if (p && substr(f[i], 1, p - 1) == key) return substr(f[i], p + 1)
	}
	return ""
}
function median(list,    n, v, i, j, t) {
	n = split(list, v, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
# Prints the top rows of profile kind k, largest share first.
function profile_table(k, rows,    i, j, t, order, m) {
	m = nprof[k]
	for (i = 1; i <= m; i++) order[i] = i
	for (i = 2; i <= m; i++)
		for (j = i; j > 1 && prof_pct[k, order[j - 1]] + 0 < prof_pct[k, order[j]] + 0; j--) {
			t = order[j]; order[j] = order[j - 1]; order[j - 1] = t
		}
	for (i = 1; i <= m && i <= rows; i++)
		printf "| `%s` | %.1f %% |\n", prof_sym[k, order[i]], prof_pct[k, order[i]]
}
# The share of profile kind k that function f has, 0 if it does not appear.
function profile_share(k, f,    i) {
	for (i = 1; i <= nprof[k]; i++)
		if (prof_sym[k, i] == f) return prof_pct[k, i]
	return 0
}
function verdict(ok) { return ok ? "**met**" : "**not met**" }
function spread(list,    n, v, i, lo, hi) {
	n = split(list, v, " ")
	lo = hi = v[1] + 0
	for (i = 2; i <= n; i++) { if (v[i] + 0 < lo) lo = v[i] + 0; if (v[i] + 0 > hi) hi = v[i] + 0 }
	return hi - lo
}
/^guest / { guest = $0; sub(/^guest /, "", guest) }
/^workload / { workload = $0; sub(/^workload /, "", workload) }
/^reference / { reference = $0; sub(/^reference /, "", reference) }
/^poller / { n = kv($0, "n"); poller[n] = $0; ns[++nn] = n }
/^sampler / { sampler[kv($0, "n"), kv($0, "records")] = $0 }
/^profile samples=/ { profile_samples = kv($0, "samples") }
/^profile kind=/ { k = kv($0, "kind"); nprof[k]++; prof_sym[k, nprof[k]] = kv($0, "sym"); prof_pct[k, nprof[k]] = kv($0, "pct") }
/^timing / { timing = $0 }
/^overhead / { m = kv($0, "mode"); walls[m] = walls[m] " " kv($0, "wall_ns") / 1e6; runs[m]++ }
/^consumer / { consumer = $0 }
/^traced / { traced = $0 }
/^missed / { missed = $2 }
/^commit / { commit = $2 }
/^date / { date = $2 }
/^host_reference / { host_ref = host_ref " " kv($0, "wall_ns") / 1e6 }
/^guest_reference / { guest_ref = guest_ref " " kv($0, "wall_ns") / 1e6 }
/^strace end$/ { in_strace = 0 }
in_strace { strace = strace "    " $0 "\n"; if ($NF == "total") calls = $4 }
/^strace begin$/ { in_strace = 1 }
END {
	print "# pfprof benchmark results"
	print ""
	printf "Run of commit %s by `make bench`. Guest: %s.\n", commit, guest
	print "Absolute times under QEMU TCG (software emulation) are not hardware times:"
	print "every instruction, page fault and system call is emulated. The ratios, measured"
	print "side by side in the same guest, are the figures to compare."
	emulation = median(guest_ref) / median(host_ref)
	printf "For scale: the same CPU-bound run (`work %s`, cache-resident) took %.0f ms\n", reference, median(guest_ref)
	printf "in the guest and %.0f ms on the host (medians of 3): user code runs about %.0f times\n", median(host_ref), emulation
	print "slower emulated. Kernel paths (atomics, device accesses) slow down differently, so"
	print "dividing a guest time by this factor gives an order of magnitude, not a measurement."
	print ""
	print "## 1. Sampler cost against a /proc poller"
	print ""
	print "N idle processes. The module: its work handler time per tick (from the versioned"
	print "header, 5 s of ticks), as loaded by default (\"on\": a record per process and tick,"
	print "ring version 2) and with `records=N` (\"off\": the summed sample only, the work of"
	print "version 1), reloaded in turn for each N. The poller: open, read, parse and close"
	print "`/proc/<pid>/stat` of each process at 20 Hz for 5 s, its own CPU time"
	print "(CLOCK_PROCESS_CPUTIME_ID)."
	print ""
	print "| N | module ns/tick | ns/process, on | ns/process, off | on/off | module CPU at 20 Hz | poller ns/process | poller rate | poller CPU | poller/module per process |"
	print "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= nn; i++) {
		n = ns[i]; s = sampler[n, "on"]; o = sampler[n, "off"]; p = poller[n]
		printf "| %d | %d | %.1f | %.1f | %.2f× | %.4f %% | %d | %.1f Hz | %.2f %% | %.1f× |\n", n,
			kv(s, "ns_per_tick"), kv(s, "ns_per_proc"), kv(o, "ns_per_proc"),
			kv(s, "ns_per_proc") / kv(o, "ns_per_proc"), kv(s, "cpu_pct_at_20hz"),
			kv(p, "ns_per_proc"), kv(p, "rate_hz"), kv(p, "cpu_pct"),
			kv(p, "ns_per_proc") / kv(s, "ns_per_proc")
	}
	print ""
	print "### Where the time of the sampler goes"
	print ""
	printf "`perf record -e cpu-clock -F 2000 -a -g` in the guest while the module samples 10000\n"
	printf "processes with records on: %d samples inside its work function `mp3_sampler_fn`.\n", profile_samples
	print "\"Self\": the function the CPU was in; \"total\": the function was on the call chain."
	print "Static functions the compiler inlined count as their caller."
	print ""
	print "| function (self) | share |"
	print "|---|---:|"
	profile_table("self", 10)
	print ""
	print "| function (total) | share |"
	print "|---|---:|"
	profile_table("total", 10)
	print ""
	print "## 2. Workload overhead"
	print ""
	printf "`%s`, %d runs of each, interleaved (the order rotates every round); each run\n", workload, runs["bare"]
	print "starts 1.5 s after its observer, so that the observer is attached; wall time from"
	print "the exec to the exit."
	print ""
	print "| run | median wall | vs bare | runs (ms) |"
	print "|---|---:|---:|---|"
	bare = median(walls["bare"])
	split("bare pfprof perf pidstat", modes, " ")
	names["bare"] = "alone"; names["pfprof"] = "under pfprof (registered, pfprofd logging)"
	names["perf"] = "under `perf stat -e minor-faults,major-faults -I 50`"
	names["pidstat"] = "under `pidstat -r -p <pid> 1`"
	for (i = 1; i <= 4; i++) {
		m = modes[i]; med = median(walls[m])
		printf "| %s | %.1f ms | %+.2f %% |%s |\n", names[m], med, 100 * (med / bare - 1), walls[m]
	}
	print ""
	print "## 3. Timing"
	print ""
	printf "One registered process, pfprofd consuming: %d samples in %d s; intervals between\n",
		kv(timing, "samples"), kv(timing, "seconds")
	printf "consecutive samples p50 %.3f ms, p99 %.3f ms, max %.3f ms, min %.3f ms. At HZ=%d\n",
		kv(timing, "p50_ms"), kv(timing, "p99_ms"), kv(timing, "max_ms"), kv(timing, "min_ms"), kv(timing, "hz")
	printf "a jiffy is %.1f ms: deadlines fall on jiffies, so single intervals cluster on whole\n",
		1000 / kv(timing, "hz")
	print "jiffies around the period, while the absolute deadlines keep the count exact."
	print ""
	print "## 4. Consumer cost"
	print ""
	printf "pfprofd over those 60 s at 20 Hz: %.1f ms of CPU, %.4f %% of one CPU.\n",
		kv(timing, "consumer_cpu_ns") / 1e6, kv(timing, "consumer_cpu_pct")
	printf "At 1000 samples/s (module parameter period_ms=1), 10 s: %d samples, %.0f ns of\n",
		kv(consumer, "samples"), kv(consumer, "ns_per_sample")
	printf "pfprofd CPU per sample, %.1f ms per 10 000 samples; %s `# missed` markers in its log.\n",
		kv(consumer, "ms_per_10000"), missed
	printf "System calls under `strace -c -f` over 10 s more: %d calls for %d samples, %.3f per sample:\n\n",
		calls, kv(traced, "samples"), calls / kv(traced, "samples")
	printf "%s\n", strace
	print "## Targets"
	print ""
	print "| target | measured | |"
	print "|---|---|---|"
	slow = 100 * (median(walls["pfprof"]) / bare - 1)
	noise = 100 * (spread(walls["bare"]) / 2) / bare
	# A difference smaller than the spread of the bare runs is not a measurement.
	if (slow < noise && -slow < noise)
		v = "**not resolved**: within the noise"
	else
		v = verdict(slow <= 0.5)
	printf "| workload slowdown under pfprof ≤ 0.5 %% | %+.2f %% (bare runs vary ±%.1f %%) | %s |\n",
		slow, noise, v
	s = sampler[10000, "on"]; o = sampler[10000, "off"]; p = poller[10000]
	r = kv(s, "ns_per_proc") / kv(o, "ns_per_proc")
	printf "| per process, records on ≤ 1.5× records off (N = 10000) | %.2f× | %s |\n", r, verdict(r <= 1.5)
	r = kv(p, "ns_per_proc") / kv(s, "ns_per_proc")
	printf "| sampler per process, records on, ≤ 1/100 of one `/proc/<pid>/stat` read (N = 10000) | 1/%.1f | %s |\n", r, verdict(r >= 100)
	c = kv(s, "cpu_pct_at_20hz")
	printf "| 10000 processes at 20 Hz < 1 %% of one CPU | %.3f %% | %s |\n", c, verdict(c < 1)
	n = kv(timing, "samples") * 60 / kv(timing, "seconds")
	printf "| 1200 ± 1 samples per 60 s | %d | %s |\n", n, verdict(n >= 1199 && n <= 1201)
	c = kv(timing, "consumer_cpu_pct")
	printf "| pfprofd ≤ 0.1 %% CPU | %.4f %% | %s |\n", c, verdict(c <= 0.1)
	print ""
	print "## The targets not met, and the limits"
	print ""
	s = sampler[10000, "on"]
	printf "**Sampler at N = 10000.** Its cost grows linearly with N: %.0f ns per process and\n", kv(s, "ns_per_proc")
	print "tick in the guest. 1 % of one CPU at 20 Hz leaves 500 µs per tick, 50 ns per process"
	printf "at N = 10000. Divided by the emulation factor (%.0f) the guest figure suggests about\n", emulation
	printf "%.0f ns on the CPU of the host: an estimate, and still above 50 ns. Per process the module\n", kv(s, "ns_per_proc") / emulation
	print "follows its list entry, the struct pid, the task and its signal struct: with 10000"
	print "processes these are cache misses, each tens of ns on hardware, so about 50 ns per"
	print "process is the floor of a design that visits every process every tick; meeting 1 %"
	print "at N = 10000 would take counting at the faults and context switches themselves"
	print "instead of visiting every process. The sampler already looks the tasks up under RCU"
	print "rather than taking a reference, which saved two atomic operations per process and tick."
	print ""
	o = sampler[10000, "off"]; p = poller[10000]
	lo = hi = ""
	for (i = 1; i <= nn; i++) {
		if (ns[i] < 100) continue
		r = kv(sampler[ns[i], "on"], "ns_per_proc") / kv(sampler[ns[i], "off"], "ns_per_proc")
		if (lo == "" || r < lo) lo = r
		if (hi == "" || r > hi) hi = r
	}
	printf "**Per process against a `/proc/<pid>/stat` read (target 1/100).** At N = 10000 the ratio\n"
	printf "is 1/%.0f with records on and 1/%.0f with them off. Writing the records is %.1f %% of the\n",
		kv(p, "ns_per_proc") / kv(s, "ns_per_proc"), kv(p, "ns_per_proc") / kv(o, "ns_per_proc"),
		profile_share("total", "__mp3_buffer_record_counts")
	printf "sampler'"'"'s time in the profile above, while on/off ranges from %.2f× to %.2f× over N = 100\n", lo, hi
	print "to 10000 in this run: two module loads differ by more than the records cost, so the"
	print "difference is run-to-run variation of the same visit, and the target lies within it."
	printf "The time goes to visiting each process: %.0f %% reading its counters (`mp3_read_group`:\n",
		profile_share("total", "mp3_read_group")
	printf "the signal struct and each thread under the stats seqlock), %.0f %% resolving its struct pid\n",
		profile_share("total", "pid_task")
	printf "to the task (`pid_task`) and %.0f %% in the list walk and the deltas (`__mp3_tasks_collect`\n",
		profile_share("self", "__mp3_tasks_collect")
	print "itself): the visit version 1 made too, which only the change above would remove."
	print ""
	printf "**pfprofd at 20 Hz.** Per sample it costs %.1f µs of CPU in the guest (at 1000\n", kv(consumer, "ns_per_sample") / 1000
	printf "samples/s), which at 20 Hz is %.3f %% of a CPU. The rest of the %.3f %% is per wake-up\n",
		kv(consumer, "ns_per_sample") * 20 / 1e7, kv(timing, "consumer_cpu_pct")
	print "and per status update (once a second to write a batch; every 2 s the state file and"
	printf "STATUS=). Divided by the emulation factor that is about %.3f %%: an estimate only.\n",
		kv(timing, "consumer_cpu_pct") / emulation
}' "$1" "$2"
