#!/bin/sh
# ctest bench_lib: what the benchmark scripts of bench/ build their tables from (bench/lib.sh): the runs read from
# host_ends's stamped marks; the median and spread of a few numbers (bench_awk), and the table of forwarders' rates
# made from runs (bench_rates_table: peers.sh, xdp_veth.sh), the table per NIC layout (peers_layouts_table: peers.sh
# --layouts); the table written between its two marker lines of a
# document (doc_table, bench_write_table), nothing else changed, and a document without those lines left alone; the
# commit a table names (bench_commit).
set -u
# shellcheck source=bench/lib.sh
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

printf '%s\n' "# Doc" "text before" "<!-- begin: t, written by: cmd -->" "old line 1" "old line 2" "<!-- end: t -->" "text after" \
	>"$tmp/doc.md"
printf '%s\n' "caption:" "" "| a | b |" "|---|---|" | doc_table "$tmp/doc.md" t
expect "doc_table succeeds" $? 0
expect "the table replaces what was between the markers" "$(cat "$tmp/doc.md")" "$(printf '%s\n' "# Doc" \
	"text before" "<!-- begin: t, written by: cmd -->" "caption:" "" "| a | b |" "|---|---|" "<!-- end: t -->" "text after")"
cp "$tmp/doc.md" "$tmp/before.md"
echo "| new |" | doc_table "$tmp/doc.md" other 2>"$tmp/err"
expect "doc_table refuses a document without the table's markers" $? 1
expect "... with a message" "$(grep -c "begin: other, written by" "$tmp/err")" 1
expect "... and changes nothing" "$(cmp -s "$tmp/doc.md" "$tmp/before.md" && echo same)" same
printf '%s\n' "<!-- end: t -->" "<!-- begin: t, written by: cmd -->" >"$tmp/reversed.md"
echo "| new |" | doc_table "$tmp/reversed.md" t 2>/dev/null
expect "doc_table refuses markers in the wrong order" $? 1
printf '%s\n' "<!-- begin: t, written by: cmd -->" "<!-- end: t -->" "<!-- begin: t, written by: cmd -->" "<!-- end: t -->" >"$tmp/twice.md"
echo "| new |" | doc_table "$tmp/twice.md" t 2>/dev/null
expect "doc_table refuses a table marked twice" $? 1

# bench_commit: the short commit; marked when the tree outside docs/ differs from it; "?" outside a git checkout.
git init -q "$tmp/repo" && echo a >"$tmp/repo/file" && mkdir "$tmp/repo/docs" && echo d >"$tmp/repo/docs/doc.md" &&
	git -C "$tmp/repo" add . && git -C "$tmp/repo" -c user.name=t -c user.email=t@t commit -qm t
head=$(git -C "$tmp/repo" rev-parse --short HEAD)
echo e >"$tmp/repo/docs/doc.md"
expect "bench_commit: the commit (an edit under docs/ does not count)" "$(bench_commit "$tmp/repo")" "$head"
echo b >"$tmp/repo/file"
expect "bench_commit: a changed file marked" "$(bench_commit "$tmp/repo")" "$head with uncommitted changes"
mkdir "$tmp/nogit"
expect "bench_commit outside a git checkout" "$(GIT_CEILING_DIRECTORIES=$tmp bench_commit "$tmp/nogit")" "?"

# bench_awk: sorted as numbers (as strings, 100 < 9), the median of an odd and of an even count, one number.
stats() { awk "$bench_awk"'BEGIN { print bench_stats(ARGV[1], ARGV[2]) }' "$@"; }
expect "median and spread of an odd count, sorted as numbers" "$(stats "100 9 10" %.1f)" "10.0 (9.0..100.0)"
expect "median of an even count: the mean of the middle two" "$(stats "4 1 30 2" %.2f)" "3.00 (1.00..30.00)"
expect "one number" "$(stats "7" %.0f)" "7 (7..7)"

# bench_rates_table: each run, then a row per forwarder with runs in the order given (c has none), its median and
# spread in kpps and the ratio of its median to the base's (a: median 20 kpps of 10, 20, 40; b: 2 runs, 30 and 50).
printf '%s\n' "a 1 100000 10" "b 1 300000 10" "a 2 400000 10.00" "b 2 250000 5" "a 3 200000 10" >"$tmp/runs"
bench_rates_table a min "forwarder a" ": see its log" b "B (two runs)" c "C" a "A" <"$tmp/runs" >"$tmp/table"
expect "rates table made" $? 0
expect "... each run, then the table" "$(cat "$tmp/table")" "$(printf '%s\n' \
	"a         run 1    100000 packets in  10.00 s,    10.0 kpps" \
	"b         run 1    300000 packets in  10.00 s,    30.0 kpps" \
	"a         run 2    400000 packets in  10.00 s,    40.0 kpps" \
	"b         run 2    250000 packets in   5.00 s,    50.0 kpps" \
	"a         run 3    200000 packets in  10.00 s,    20.0 kpps" "" \
	"| forwarder | median kpps | spread (min..max) | ratio to forwarder a |" "|---|---|---|---|" \
	"| B (two runs) | 40.0 | 30.0..50.0 | 2.00 |" "| A | 20.0 | 10.0..40.0 | 1.00 |")"
printf '%s\n' "a 1 0 10" "a 2 200000 10" "a 3 300000 10" >"$tmp/zero"
bench_rates_table a min "forwarder a" ": see its log" a A <"$tmp/zero" >"$tmp/out"
expect "CHECK min: a run of the base that forwarded nothing fails" $? 1
expect "... saying so" "$(tail -1 "$tmp/out")" "forwarder a forwarded nothing: see its log"
expect "CHECK median: the table, its median is not 0" \
	"$(bench_rates_table a median "forwarder a" "" a A <"$tmp/zero" | tail -1)" "| A | 20.0 | 0.0..30.0 | 1.00 |"
printf '%s\n' "b 1 100 1" >"$tmp/nobase"
bench_rates_table a median "forwarder a" ": see its log" a A b B <"$tmp/nobase" >"$tmp/out"
expect "no runs of the base: fails" $? 1
expect "... saying so" "$(tail -1 "$tmp/out")" "no results: see its log"

# peers_layouts_table: per layout in the order given (transitional has no runs), ixy-fwd then testpmd; legacy: rates
# of what left NIC C (the sink missed some of ixy-fwd's) 22.5, 40.5, 30 and 15, 25 kpps (ratio of the medians 1.50), kicks per packet that left NIC C 0.1, 0.2, 0.1 and 1.0, 0.5,
# offered 100 kpps, dropped before NIC B 70, 50, 65 % and 85, 74 %, loss inside (reached - left) / reached 10, 10, 0 %
# and 0, 3.85 %; modern: no host ends (offered, drops and loss unknown), testpmd's kicks not counted; modern-packed:
# both passed on 99 and 98 % of what was offered (lost 1 and 2 % inside): the source is the limit, no ratio;
# testpmd's run from before the drops were recorded (9 fields): "-".
printf '%s\n' "legacy ixy 1 200000 10 1000000 250000 225000 22500 700000" \
	"legacy testpmd 1 150000 10 1000000 150000 150000 150000 850000" \
	"modern ixy 1 100000 10 - - - 5000 -" "modern testpmd 1 50000 10 - - - - -" \
	"modern-packed ixy 1 99000 10 100000 100000 99000 990 0" "modern-packed testpmd 1 98000 10 100000 100000 98000 980" \
	"legacy testpmd 2 250000 10 1000000 260000 250000 125000 740000" \
	"legacy ixy 2 400000 10 1000000 450000 405000 81000 500000" \
	"legacy ixy 3 300000 10 1000000 300000 300000 30000 650000" >"$tmp/layouts"
peers_layouts_table "modern-packed transitional legacy modern" <"$tmp/layouts" >"$tmp/out"
expect "layouts table made" $? 0
expect "... a line per run" "$(grep -c "packets in" "$tmp/out")" 9
expect "... with what is known of it" "$(grep "^legacy *testpmd *run 2" "$tmp/out")" \
	"legacy         testpmd  run 2    250000 packets in  10.00 s,    25.0 kpps, 0.500 kicks/packet, offered 100.0 kpps, dropped before NIC B 740000, reached NIC B 260000, the sink counted 250000, lost inside 3.8 %"
expect "... and the table" "$(grep "^|" "$tmp/out")" "$(printf '%s\n' \
	"| NIC layout | forwarder | median kpps | spread (min..max) | ixy-fwd / testpmd | kicks per packet | offered kpps | dropped before NIC B | loss inside the forwarder |" \
	"|---|---|---|---|---|---|---|---|---|" \
	"| modern-packed | ixy-fwd | 9.9 | 9.9..9.9 | source-limited | 0.010 | 10.0 | 0.0 % | 1.0 % |" \
	"| modern-packed | testpmd io-fwd | 9.8 | 9.8..9.8 |  | 0.010 | 10.0 | - | 2.0 % |" \
	"| legacy | ixy-fwd | 30.0 | 22.5..40.5 | 1.50 | 0.100 | 100.0 | 65.0 % | 10.0 % |" \
	"| legacy | testpmd io-fwd | 20.0 | 15.0..25.0 |  | 0.750 | 100.0 | 79.5 % | 1.9 % |" \
	"| modern | ixy-fwd | 10.0 | 10.0..10.0 | 2.00 | 0.050 | - | - | - |" \
	"| modern | testpmd io-fwd | 5.0 | 5.0..5.0 |  | - | - | - | - |")"

# bench_write_table: the setup line, a blank line and only the table's lines into the document; none without one.
printf '%s\n' "text" "<!-- begin: r, written by: cmd -->" "<!-- end: r -->" >"$tmp/rates.md"
expect "bench_write_table says where" "$(bench_write_table "$tmp/rates.md" r "on a day" "$tmp/table")" \
	"table written into $tmp/rates.md"
expect "... and writes the setup and the table's lines" "$(cat "$tmp/rates.md")" "$(printf '%s\n' "text" \
	"<!-- begin: r, written by: cmd -->" "on a day:" "" "| forwarder | median kpps | spread (min..max) | ratio to forwarder a |" \
	"|---|---|---|---|" "| B (two runs) | 40.0 | 30.0..50.0 | 2.00 |" "| A | 20.0 | 10.0..40.0 | 1.00 |" \
	"<!-- end: r -->")"
expect "no document: nothing written, no failure" "$(bench_write_table "" r "on a day" "$tmp/table"; echo "exit $?")" \
	"exit 0"
# bench_offered_table (xdp_veth.sh's table, with offered rates and forwarder loss): per mode and peer the medians of offered and forwarded kpps, the spread, the loss inside the
# forwarder and the ratio to the base in that mode; "source-limited" where the forwarder passed >= 99 % of what
# reached it with < 1 % loss (b pinned: 99.5 % of 100); "-" without the base in the mode (c idle).
printf '%s\n' "pinned a 1 10 1000000 1000000 600000 600000" "pinned b 1 10 1000000 1000000 995000 995000" \
	"pinned a 2 10 1200000 1000000 800000 800000" "contended a 1 10 500000 500000 250000 250000" \
	"contended b 1 10 600000 600000 450000 450000" "idle c 1 5 100000 100000 50000 50000" >"$tmp/offered"
bench_offered_table a a "A" b "B" c "C" <"$tmp/offered" >"$tmp/table2"
expect "offered table made" $? 0
expect "... its rows" "$(sed -n '/^|/p' "$tmp/table2")" "$(printf '%s\n' \
	"| CPUs | forwarder | offered kpps | forwarded kpps | spread (min..max) | loss in the forwarder | ratio to A |" \
	"|---|---|---|---|---|---|---|" \
	"| pinned | A | 110.0 | 70.0 | 60.0..80.0 | 30.0 % | 1.00 |" \
	"| pinned | B | 100.0 | 99.5 | 99.5..99.5 | 0.5 % | source-limited |" \
	"| contended | A | 50.0 | 25.0 | 25.0..25.0 | 50.0 % | 1.00 |" \
	"| contended | B | 60.0 | 45.0 | 45.0..45.0 | 25.0 % | 1.80 |" \
	"| idle | C | 20.0 | 10.0 | 10.0..10.0 | 50.0 % | - |")"
expect "... each run first" "$(head -1 "$tmp/table2")" "pinned    a              run 1: offered   100.0 kpps, reached the forwarder   100.0, it sent    60.0, forwarded    60.0 kpps; loss in the forwarder 40.0 %"
bench_offered_table a a A </dev/null >"$tmp/out"
expect "no runs: fails" $? 1
expect "... saying so" "$(tail -1 "$tmp/out")" "no results"

exit $failed
