#!/bin/bash
# Host test of the alert rules pfprofd ships (prometheus/pfprof-rules.yml),
# beside promtool's own tests of them (test_promfile): every alert waits
# (a "for:") before it pages, and has a runbook_url that is a section of
# docs/prometheus.md (make install puts it where the URL points; the
# packaging test checks it is there).
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
# shellcheck source=tests/unit/result.sh
. "$here/result.sh"
rules=$top/prometheus/pfprof-rules.yml
doc=$top/docs/prometheus.md
url_prefix=file:///usr/share/pfprof/prometheus/prometheus.md#

# One line per alert: its name, its "for:" (or -), its runbook_url (or -).
alerts() {
	awk '
		function flush() { if (name != "") print name, wait, url; name = "" }
		/^ *- (alert|record):/ { flush() }
		/^ *- alert:/ { name = $3; wait = "-"; url = "-" }
		name != "" && /^ *for:/ { wait = $2 }
		name != "" && /^ *runbook_url:/ { url = $2; gsub(/"/, "", url) }
		END { flush() }' "$rules"
}

# The anchors of docs/prometheus.md's headings, as GitHub and pandoc make them.
anchors() {
	sed -n 's/^#\{1,6\} //p' "$doc" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9 _-]//g; s/ /-/g'
}

count=$(alerts | wc -l)
result rules_alerts_found "$( ((count >= 5)) || echo "only $count alerts in $rules")"

without_for=$(alerts | awk '$2 == "-" { print $1 }')
result rules_every_alert_waits "${without_for:+no for: in $without_for}"

missing=$(alerts | while read -r name _ url; do
	anchor=${url#"$url_prefix"}
	if [[ $url != "$url_prefix"* ]]; then
		echo "$name: runbook_url $url does not start with $url_prefix"
	elif ! anchors | grep -qx -- "$anchor"; then
		echo "$name: docs/prometheus.md has no section #$anchor"
	fi
done)
result rules_runbooks_are_sections "$missing"

result_end
