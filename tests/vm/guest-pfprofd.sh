# shellcheck shell=sh
# Sourced inside a guest by payloads that run a pfprofd of their own
# (bench/guest.sh, plots/case-studies-guest.sh); the caller defines fail().
# Its logs go to /tmp/logs, its stderr to /tmp/pfprofd.err.

# pfprofd_configure [LINES]: /tmp/pfprofd.conf, with LINES added.
# Delay accounting stays as the guest booted it (off): this pfprofd runs as
# root and would turn it on, and the figures measured with it so far were
# measured without; a measurement of it says delay_accounting = on in LINES
# (the last line of a key wins).
pfprofd_configure() {
	cat > /tmp/pfprofd.conf <<CONF
log_dir = /tmp/logs
pid_file = /tmp/pids
runtime_dir = /tmp/run
state_dir = /tmp/state
delay_accounting = leave
${1:-}
CONF
}

# pfprofd_start [TARGET_LINE]: a fresh pfprofd keeping TARGET_LINE (a line
# of its targets file; none by default), its PID in $pfprofd, once its log
# exists.
# shellcheck disable=SC2120 # its callers without a line want none, not theirs
pfprofd_start() {
	rm -rf /tmp/logs /tmp/run /tmp/state
	mkdir -p /tmp/logs /tmp/run /tmp/state
	printf '%s\n' "${1:-}" > /tmp/pids
	pfprofd -f -c /tmp/pfprofd.conf 2> /tmp/pfprofd.err &
	pfprofd=$!
	for _ in $(seq 50); do [ -s /tmp/logs/pfprof.log ] && return; sleep 0.1; done
	cat /tmp/pfprofd.err
	fail "pfprofd did not start"
}

# pfprofd_stop: SIGTERM; pfprofd writes everything it has before it exits.
pfprofd_stop() {
	kill -TERM "$pfprofd"
	wait "$pfprofd" || { cat /tmp/pfprofd.err; fail "pfprofd failed"; }
}
