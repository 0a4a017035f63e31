#!/bin/sh
# ctest bench_lib: what bench/peers.sh and bench/interrupts.sh build their tables from (bench/lib.sh): the runs read
# from host_ends's stamped marks, and the table written between its two marker lines of a document, nothing else
# changed, and a document without those lines left alone.
set -u
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
expect() { # expect WHAT GOT WANTED
	if [ "$2" = "$3" ]; then echo "PASS $1"; else echo "FAIL $1: got '$2', wanted '$3'"; failed=1; fi
}

# host_ends_runs: "<name> <run> <packets> <seconds>" for each begin/end pair, other lines ignored.
printf '%s\r\n' "10.0 0 IXY-VM: booted" "12.5 100 IXY-VM: bench poll run 1: begin" "12.6 150 ixy: something" \
	"22.5 800100 IXY-VM: bench poll run 1: end" "23.0 800200 IXY-VM: bench poll run 1: cpu 99.0 slept 0 in 14.0 s" \
	"25.0 900000 IXY-VM: bench wait run 1: begin" "35.25 1700000 IXY-VM: bench wait run 1: end" \
	"40.0 1800000 IXY-VM: bench wait run 2: begin" >"$tmp/marks"
expect "runs from the marks (an unfinished run left out)" "$(host_ends_runs "$tmp/marks")" \
	"$(printf 'poll 1 800000 10\nwait 1 800000 10.25')"

printf '%s\n' "# Doc" "text before" "<!-- t: begin -->" "old line 1" "old line 2" "<!-- t: end -->" "text after" \
	>"$tmp/doc.md"
printf '%s\n' "caption:" "" "| a | b |" "|---|---|" | doc_table "$tmp/doc.md" t
expect "doc_table succeeds" $? 0
expect "the table replaces what was between the markers" "$(cat "$tmp/doc.md")" "$(printf '%s\n' "# Doc" \
	"text before" "<!-- t: begin -->" "caption:" "" "| a | b |" "|---|---|" "<!-- t: end -->" "text after")"
cp "$tmp/doc.md" "$tmp/before.md"
echo "| new |" | doc_table "$tmp/doc.md" other 2>"$tmp/err"
expect "doc_table refuses a document without the table's markers" $? 1
expect "... with a message" "$(grep -c "other: begin" "$tmp/err")" 1
expect "... and changes nothing" "$(cmp -s "$tmp/doc.md" "$tmp/before.md" && echo same)" same
printf '%s\n' "<!-- t: end -->" "<!-- t: begin -->" >"$tmp/reversed.md"
echo "| new |" | doc_table "$tmp/reversed.md" t 2>/dev/null
expect "doc_table refuses markers in the wrong order" $? 1
printf '%s\n' "<!-- t: begin -->" "<!-- t: end -->" "<!-- t: begin -->" "<!-- t: end -->" >"$tmp/twice.md"
echo "| new |" | doc_table "$tmp/twice.md" t 2>/dev/null
expect "doc_table refuses a table marked twice" $? 1
exit $failed
