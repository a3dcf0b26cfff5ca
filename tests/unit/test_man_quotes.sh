#!/bin/bash
# Host test (issue 27): every message that the man pages of pfprofd and
# pfprofctl quote is one that the programs print.
#
# The quotes: each "\(dq "TEXT" \(dq" on an .RI line (how the pages quote
# what a program says, in italics; a quote too long for one line ends there
# with "TEXT" and goes on as '.IR "TEXT" \(dq'), and in DIAGNOSTICS sections
# each .TP tag and each line after .RS; roff escapes are undone and the
# prefix that dlog() or ctl_error()/ctl_hint() put before every message
# ("pfprofd: ", "pfprofctl: ", "pfprofctl: hint: ") is left out.
# The messages: the string literals of lib/, daemon/ and pfprofctl/ (adjacent
# ones joined, PRIu64 and the like as "llu"), each made a pattern that must
# match the whole quote: a %s stands for one word (dir/name joined as %s/%s
# for one FILE), a number's conversion for digits or a placeholder word
# (N, LINE, line). A literal without a lower-case letter of its own (such as
# "%s: %s") only counts for a quote without one, so that a message of words
# is matched by its own words.
# The version quoted is checked against -V. Quotes that show the syntax of a
# line rather than a message are listed in syntax below, each of which must
# still be quoted somewhere, so that the list cannot go stale.
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
# shellcheck source=tests/unit/result.sh
. "$here/result.sh"
pages=("$top/daemon/pfprofd.8" "$top/daemon/pfprofd.conf.5" "$top/pfprofctl/pfprofctl.8")
dir=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-man-quotes-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# Quoted, but not messages: what a line of the targets file, the state file, a
# log header or a command to the module looks like, and the form of all
# messages.
syntax=(
	"# created" "# pfprof log format N" "tree PID" "tree pid" "maps PID" "maps pid" "R pid maps" "unit name" "cgroup path" "comm name" "key value" "maps tree PID" "maps unit name" "maps cgroup path" "maps comm name" "M target" "maps unit nginx.service" "R pid latency" "R pid maps latency" "L target" "latency pid" "latency unit nginx.service" "maps latency unit nginx.service" "latency PID" "latency tree PID" "maps latency unit name" "R pid pages" "S target" "pages pid" "pages PID" "pages unit name"
	"R pid" "U pid" "T pid pid" "X pid" "X target" "C id target" "C cgroup-id target"
	"N target name" "P target uid name" "user=user comm name" "pfprofd: message" "pfprofctl: WHAT: REASON" "pfprofctl: hint: ..."
)

# The string literals of the C sources, one a line, adjacent ones joined.
literals() {
	sed -E 's/"[[:space:]]*PRI([a-z])(64|MAX|PTR)[[:space:]]*"/ll\1/g' \
		"$top"/lib/*.[ch] "$top"/daemon/*.[ch] "$top"/pfprofctl/*.[ch] \
		"$top"/pfprofctl/*/*.[ch] | awk '
	function flush() { if (have) print lit; have = 0; lit = "" }
	{
		n = length($0)
		for (i = 1; i <= n; ) {
			c = substr($0, i, 1)
			if (comment) {
				if (substr($0, i, 2) == "*/") { comment = 0; i += 2 } else i++
			} else if (string) {
				if (c == "\\") { lit = lit substr($0, i, 2); i += 2 }
				else { if (c == "\"") string = 0; else lit = lit c; i++ }
			} else if (substr($0, i, 2) == "/*") { comment = 1; i += 2
			} else if (substr($0, i, 2) == "//") { break
			} else if (c == "\047") { i += substr($0, i + 1, 1) == "\\" ? 4 : 3
			} else if (c == "\"") { string = 1; have = 1; i++
			} else { if (c != " " && c != "\t") flush(); i++ }
		}
	}
	END { flush() }'
}

# Each literal as "PATTERN<tab>WORDS": an ERE for a whole message, and 1 when
# the literal has letters of its own.
patterns() {
	awk '
	function literal(c) {
		if (c == "\\") return "[\\\\]"
		if (c == "^") return "\\^"
		if (c ~ /[].[$|()*+?{}]/) return "[" c "]"
		return c
	}
	{
		f = $0
		sub(/\\n$/, "", f)
		gsub(/\\"/, "\"", f)
		sub(/^pfprof(ctl|d): /, "", f)
		gsub(/%s\/%s/, "%s", f)
		re = ""; words = 0
		while (f != "") {
			if (match(f, /^%[-+ #0]*([0-9]+|\*)?(\.([0-9]+|\*))?(hh|h|ll|l|z|j|t)?[diouxXcs%]/)) {
				c = substr(f, RLENGTH, 1)
				re = re (c == "s" ? "[^ ]+" : c == "%" ? "%" : "([0-9.]+|[A-Za-z]+)")
				f = substr(f, RLENGTH + 1)
			} else {
				c = substr(f, 1, 1)
				if (c ~ /[a-z]/) words = 1
				re = re literal(c)
				f = substr(f, 2)
			}
		}
		if (re != "") print "^" re "$\t" words
	}'
}

# Each quote as "PAGE:LINE<tab>TEXT", roff escapes undone.
quotes() {
	awk '
	function plain(t) {
		gsub(/\\f(\[[^]]*\]|\(..|.)/, "", t)
		gsub(/\\-/, "-", t); gsub(/\\\(aq/, "\047", t); gsub(/\\\(dq/, "\"", t)
		gsub(/\\\(ha/, "^", t); gsub(/\\ /, " ", t); gsub(/\\&/, "", t)
		gsub(/\\e/, "\\", t)
		return t
	}
	# The text a font macro line prints: .B and .I join their arguments
	# with spaces, .BI, .IB, .BR and the like without.
	function macro_text(line,   m, rest, out, sep, arg, i) {
		m = line; sub(/[ \t].*/, "", m)
		rest = line; sub(/^[^ \t]*[ \t]*/, "", rest)
		sep = (m == ".B" || m == ".I") ? " " : ""
		out = ""
		for (first = 1; rest != ""; first = 0) {
			if (substr(rest, 1, 1) == "\"") {
				rest = substr(rest, 2)
				i = index(rest, "\"")
				if (!i) i = length(rest) + 1
				arg = substr(rest, 1, i - 1); rest = substr(rest, i + 1)
			} else {
				match(rest, /^[^ \t]+/)
				arg = substr(rest, 1, RLENGTH); rest = substr(rest, RLENGTH + 1)
			}
			sub(/^[ \t]+/, "", rest)
			out = out (first ? "" : sep) arg
		}
		return out
	}
	function emit(text) { print page ":" FNR "\t" plain(text) }
	FNR == 1 { page = FILENAME; sub(/.*\//, "", page); diag = 0; prev = ""; held = "" }
	# A line ending in a backslash goes on on the next (roff'"'"'s escaped newline).
	/[^\\]\\$/ { held = held substr($0, 1, length($0) - 1); next }
	held != "" { $0 = held $0; held = "" }
	/^\.SH/ { diag = $0 ~ /^\.SH DIAGNOSTICS/ }
	diag && (prev == ".TP" || prev == ".RS") && /^\.[BIR]/ { emit(macro_text($0)) }
	open != "" {
		if (match($0, /^\.IR "[^"]*" \\\(dq/))
			emit(open " " substr($0, 6, RLENGTH - 11))
		open = ""
	}
	/^\.RI/ {
		line = $0
		while (match(line, /\\\(dq "[^"]*" \\\(dq/)) {
			emit(substr(line, RSTART + 6, RLENGTH - 12))
			line = substr(line, RSTART + RLENGTH)
		}
		if (match(line, /\\\(dq "[^"]*"$/))
			open = substr(line, RSTART + 6, RLENGTH - 7)
	}
	{ prev = $0 }' "${pages[@]}"
}

# The message a quote stands for: without the prefix every message has.
unprefixed() {
	local text=$1
	text=${text#pfprofctl: hint: }
	text=${text#pfprofctl: }
	printf '%s\n' "${text#pfprofd: }"
}

# printed TEXT: succeeds when one of the patterns matches TEXT whole.
printed() {
	awk -F '\t' -v text="$1" '
	BEGIN { lower = text ~ /[a-z]/ }
	($2 || !lower) && text ~ $1 { found = 1; exit }
	END { exit !found }' "$dir/patterns"
}

is_syntax() {
	local s
	for s in "${syntax[@]}"; do
		[ "$s" = "$1" ] && return 0
	done
	return 1
}

version_of() {	# the quoted version's program, or nothing
	case $1 in
	"pfprofd (pfprof) "*) echo "$top/daemon/pfprofd" ;;
	"pfprofctl (pfprof) "*) echo "$top/pfprofctl/pfprofctl" ;;
	esac
}

literals | patterns > "$dir/patterns"
quotes > "$dir/quotes"
# Far fewer would mean that the extraction broke, not that the pages agree.
if [ "$(wc -l < "$dir/patterns")" -lt 300 ] || [ "$(wc -l < "$dir/quotes")" -lt 30 ]; then
	result extraction "$(wc -l < "$dir/patterns") patterns, $(wc -l < "$dir/quotes") quotes"
fi

while IFS=$'\t' read -r where text; do
	prog=$(version_of "$text")
	if [ -n "$prog" ]; then
		got=$("$prog" -V)
		result "$where" "$([ "$got" = "$text" ] || echo "quotes '$text', $prog -V says '$got'")"
	elif is_syntax "$text"; then
		continue
	elif printed "$(unprefixed "$text")"; then
		result "$where" ""
	else
		result "$where" "no message of the programs is '$text'"
	fi
done < "$dir/quotes"

for s in "${syntax[@]}"; do
	cut -f 2 "$dir/quotes" | grep -qxF -- "$s" || result "syntax '$s'" "no page quotes it any more"
done

result_end
