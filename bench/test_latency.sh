#!/bin/sh
# Test of bench/latency.sh's tooling without QEMU (--from): host_ends output made up for every point the scenario
# measures, with a median under overload of 2000 µs + 25 µs per descriptor at 40 kpps (25 µs per packet), becomes a
# CSV with a row per point, tables in a copy of docs/benchmark.md between the markers, the slope recovered from the
# medians (25.0 µs per descriptor, slope / (1 / rate) = 1.00), and with gnuplot four SVG plots.
#
#   test_latency.sh WORKDIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=${1:?usage: $0 WORKDIR}
rm -rf "$work"
mkdir -p "$work/out"
fail() { echo "FAIL: $*"; exit 1; }

# latency <name> run 1: offered <kpps> kpps sent <n> received <n> in <s> s frames <n> p50 .. max (ns)
point() { # point NAME OFFERED_KPPS FORWARDED_KPPS MEDIAN_US
	awk -v name="$1" -v o="$2" -v f="$3" -v m="$4" 'BEGIN {
		printf "latency %s run 1: offered %.3f kpps sent %d received %d in 4.000 s frames %d", name, o, o * 4000, f * 4000, f * 4000
		printf " p50 %d p90 %d p99 %d p99.9 %d p99.99 %d max %d\n", m * 1000, m * 1100, m * 1300, m * 1600, m * 2000, m * 2500 }'
}
{
	echo "12.000000 0 IXY-VM: latency load max"
	point ixy-poll,r512,lmax 100 40 14800
	echo "latency maximum 40.000 kpps"
	for ring in 64 256 512 1024 4096; do
		for load in 10 50 90; do point "ixy-poll,r$ring,l$load" $((load * 40 / 100)) $((load * 40 / 100)) 300; done
		point "ixy-poll,r$ring,loverload" 100 40 $((2000 + 25 * ring))
	done
	for peer in ixy-wait,r512 testpmd,r512 bridge,r0; do
		for load in 10 50 90; do point "$peer,l$load" $((load * 40 / 100)) $((load * 40 / 100)) 500; done
		point "$peer,loverload" 100 30 9000
	done
} >"$work/marks.txt"
printf '# doc\n<!-- latency: begin -->\nold\n<!-- latency: end -->\nafter\n' >"$work/doc.md"
IXY_BENCH_DOC=$work/doc.md "$here/latency.sh" --from "$work/marks.txt" "$work/out" >"$work/log.txt" 2>&1 ||
	{ cat "$work/log.txt"; fail "latency.sh --from"; }
cat "$work/log.txt"
csv=$work/out/latency.csv
[ "$(head -1 "$csv")" = "forwarder,ring,load,offered_kpps,forwarded_kpps,frames,p50_us,p90_us,p99_us,p99_9_us,p99_99_us,max_us" ] ||
	fail "CSV header: $(head -1 "$csv")"
[ "$(wc -l <"$csv")" = 34 ] || fail "$(wc -l <"$csv") CSV lines, expected a header and 33 points"
grep -qx "ixy-poll,4096,overload,100.00,40.00,160000,104400.0,114840.0,135720.0,167040.0,208800.0,261000.0" "$csv" ||
	fail "the row of ring 4096 under overload"
grep -q "^| 4096 | overload | 100.0 | 40.0 | 104400 |" "$work/doc.md" || fail "Table 2's row of 4096 under overload"
grep -q "^| Linux bridge | 50 % |" "$work/doc.md" || fail "the bridge at 50 %"
grep -q "rises by 25.0 µs per descriptor.*1 / forwarding rate = 25.0 µs.*= 1.00\." "$work/doc.md" || fail "the slope"
grep -q "^old$" "$work/doc.md" && fail "the old table is still there"
[ "$(sed -n '$p' "$work/doc.md")" = after ] || fail "the text after the markers is gone"
if command -v gnuplot >/dev/null; then
	for load in 10 50 90 overload; do
		python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$work/out/latency-$load.svg" ||
			fail "latency-$load.svg is no SVG"
		grep -q "ixy-fwd --poll, 4096" "$work/out/latency-$load.svg" || fail "latency-$load.svg has no line for ring 4096"
	done
else
	echo "(no gnuplot: plots not checked)"
fi
echo PASS
