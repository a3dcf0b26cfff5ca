# shellcheck shell=bash
# Sourced by the test drivers. Every suite ends with one line,
# "N passed, N failed"; these read it back and add to it.

# tally_of FILE: sets passed and failed from FILE's last tally line. A file
# without one counts as one failure, and tally_of returns 1.
tally_of() {
	local line rest

	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$1" | tail -n 1 || true)
	if [ -z "$line" ]; then
		passed=0
		failed=1
		return 1
	fi
	passed=${line%% passed*}
	rest=${line#*passed, }
	failed=${rest%% failed*}
}

# guest_tally LOGDIR STATUS WHO: sets passed and failed to the tally of the
# suite a guest ran (LOGDIR/payload.txt) plus one check of our own, the
# guest's kernel log, judged by tests/vm/boot.sh's exit STATUS: 0 or 1 clean,
# 2 a splat, anything else the guest did not finish.
guest_tally() {
	local log=$1 status=$2 who=$3

	tally_of "$log/payload.txt" || echo "FAIL $who: the suite did not report a result"
	case $status in
	0|1)	passed=$((passed + 1))
		echo "PASS $who kernel log has no warning, BUG, oops or lockdep report" ;;
	2)	failed=$((failed + 1))
		echo "FAIL $who kernel log has a splat (see $log/dmesg.txt)" ;;
	*)	failed=$((failed + 1))
		echo "FAIL $who did not finish (see $log/console.log)" ;;
	esac
}

# stage_time NAME: the time since the previous stage of this script ended
# (or since it started), on stderr, and as "NAME<TAB>seconds" in the file
# $PFPROF_STAGES if that is set (tests/check-all.sh prints them at the end).
stage_time() {
	local took=$((SECONDS - ${stage_start:-0}))

	stage_start=$SECONDS
	printf 'stage: %s took %dm%02ds\n' "$1" $((took / 60)) $((took % 60)) >&2
	if [ -n "${PFPROF_STAGES:-}" ]; then
		printf '%s\t%d\n' "$1" "$took" >> "$PFPROF_STAGES"
	fi
}
