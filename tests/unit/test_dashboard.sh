#!/bin/bash
# Host test of the Grafana dashboard pfprofd ships (prometheus/pfprof-dashboard.json):
# its queries, with the variables replaced as Grafana replaces them, parse
# and are evaluated by Prometheus' own promtool (PROMTOOL, or the one
# tests/lib/promtool.sh finds) on made-up series: "All" targets keeps the
# processes added by PID (target=""), a per-target panel keeps each instance
# apart, no panel draws seconds and counts on one axis, and every query names
# a series (test_promfile checks that pfprofd writes each one it names).
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
# shellcheck source=tests/unit/result.sh
. "$here/result.sh"
dashboard=$top/prometheus/pfprof-dashboard.json
promtool=${PROMTOOL:-$("$top/tests/lib/promtool.sh")} || exit 1
dir=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-dashboard-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# The value Grafana gives variable $1 when "All" is chosen: its allValue, else
# the regex of every value its query found ($2, one per line).
all_value() {
	local custom
	custom=$(jq -r --arg v "$1" '.templating.list[] | select(.name == $v) | .allValue // empty' \
		"$dashboard")
	if [[ -n $custom ]]; then
		echo "$custom"
	else
		echo "($(paste -sd'|' <<<"$2"))"
	fi
}

# Every query as "title<TAB>expr", the variables replaced: "All" instances
# and targets (the made-up series' targets are unit:a.service, unit:b.service;
# instances h1, h2), a rate interval of 1m.
queries() {
	local instance target
	instance=$(all_value instance $'h1\nh2')
	target=$(all_value target $'unit:a.service\nunit:b.service')
	jq -r '.panels[] | .title as $t | .targets[] | [$t, .expr] | @tsv' "$dashboard" |
		awk -F'\t' -v i="$instance" -v t="$target" '{
			e = $2
			gsub(/\$__rate_interval/, "1m", e)
			gsub(/\$instance/, i, e)
			gsub(/\$target/, t, e)
			print $1 "\t" e }'
}
queries > "$dir/queries"

# A rules file of the queries, panel $1's only if given: one recording rule
# each, dashboard:q<N> (JSON, which promtool reads as YAML).
rules_of() {
	awk -F'\t' -v only="${1:-}" 'only == "" || $1 == only { print $2 }' "$dir/queries" |
		jq -R -s '{ groups: [ { name: "dashboard",
			rules: [ split("\n")[] | select(length > 0) ] | to_entries |
				map({ record: "dashboard:q\(.key)", expr: .value }) } ] }'
}

queries_parse() {
	local out
	rules_of > "$dir/all.rules.json"
	[[ $(wc -l < "$dir/queries") -ge 10 ]] || { echo "fewer than 10 queries"; return; }
	out=$("$promtool" check rules "$dir/all.rules.json" 2>&1) || echo "$out"
}
result dashboard_queries_parse "$(queries_parse)"

# evaluates PANEL SERIES EXPECTED: panel PANEL's first query on the input
# series SERIES (promtool's "series: ... values: ..." lines, indented by 6)
# gives exactly EXPECTED, promtool's exp_samples lines (indented by 10).
evaluates() {
	local out
	rules_of "$1" > "$dir/panel.rules.json"
	cat > "$dir/panel.test.yml" <<-EOF
	rule_files: [panel.rules.json]
	evaluation_interval: 1m
	tests:
	  - interval: 1m
	    input_series:
	$2
	    promql_expr_test:
	      - expr: dashboard:q0
	        eval_time: 5m
	        exp_samples:
	$3
	EOF
	out=$(cd "$dir" && "$promtool" test rules panel.test.yml 2>&1) || echo "$out" | head -20
}

# "All" targets: a process added by PID has target="", as the README's first
# example adds one; it is among the processes with the most major faults.
result dashboard_all_targets_keeps_pids "$(evaluates 'Processes with the most major faults' \
"      - series: 'pfprof_process_major_faults_total{instance=\"h1\",pid=\"42\",comm=\"work\",target=\"\"}'
        values: '0+60x10'
      - series: 'pfprof_process_major_faults_total{instance=\"h1\",pid=\"43\",comm=\"nginx\",target=\"unit:a.service\"}'
        values: '0+120x10'" \
"          - labels: 'dashboard:q0{instance=\"h1\",pid=\"42\",comm=\"work\",target=\"\"}'
            value: 1
          - labels: 'dashboard:q0{instance=\"h1\",pid=\"43\",comm=\"nginx\",target=\"unit:a.service\"}'
            value: 2")"

# Two hosts running one unit: a line each, not their sum under one name.
result dashboard_targets_keep_instances "$(evaluates 'Major faults per target' \
"      - series: 'pfprof_target_major_faults_total{instance=\"h1\",target=\"unit:a.service\"}'
        values: '0+60x10'
      - series: 'pfprof_target_major_faults_total{instance=\"h2\",target=\"unit:a.service\"}'
        values: '0+600x10'" \
"          - labels: 'dashboard:q0{instance=\"h1\",target=\"unit:a.service\"}'
            value: 1
          - labels: 'dashboard:q0{instance=\"h2\",target=\"unit:a.service\"}'
            value: 10")"

# Every aggregation by target keeps the instance too.
grouped_without_instance() {
	grep -o 'by ([^)]*)' "$dir/queries" | grep -w target | grep -vw instance
}
result dashboard_every_target_sum_keeps_instance "$(grouped_without_instance)"

# What a query draws: "seconds" (a quantile of durations), "seconds/s" (a rate
# of seconds), "ratio", "per second" (a rate of a count) or "count" (a gauge).
measure_of() {
	case $1 in
	*histogram_quantile*) echo seconds ;;
	*rate\(*_seconds_total*) echo seconds/s ;;
	*_ratio*) echo ratio ;;
	*rate\(*) echo "per second" ;;
	*) echo count ;;
	esac
}

# The panels that draw more than one measure on their axis.
mixed_panels() {
	local title expr
	while IFS=$'\t' read -r title expr; do
		printf '%s\t%s\n' "$title" "$(measure_of "$expr")"
	done < "$dir/queries" | sort -u | cut -f1 | uniq -d
}
result dashboard_one_measure_per_panel "$(mixed_panels)"

# Every query names a pfprof_ series (whether pfprofd writes it: test_promfile).
nameless_queries() {
	grep -v 'pfprof_[a-z_]*' "$dir/queries"
}
result dashboard_queries_name_series "$(nameless_queries)"

result_end
