#!/bin/sh
# Usage: tests/lib/readme-block.sh NAME [README]
#
# Prints the commands of the README's block marked "<!-- tested: NAME ...
# -->": the indented code block that follows the marker, without its four
# spaces of indentation, so that a test can run the lines exactly as a reader
# types them. Fails if there is no such block.
name=$1
readme=${2:-$(dirname "$0")/../../README.md}
awk -v name="$name" '
	index($0, "<!-- tested: " name " ") == 1 || $0 == "<!-- tested: " name " -->" { found = 1; next }
	found == 1 && /^    / { in_block = 1; print substr($0, 5); next }
	found == 1 && in_block { exit }
	END { exit !in_block }
' "$readme"
