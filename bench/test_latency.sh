#!/bin/sh
# Test of bench/latency.sh's tooling without QEMU (--from): host_ends output made up for every run the scenario
# measures (3 max runs, baselines, ring sizes, 3 rounds of the peers with CPU ticks), with a median under overload of
# 2000 µs + 25 µs per descriptor at 40 kpps (25 µs per packet), becomes a CSV with a row per run, tables in a copy of
# docs/benchmark.md between the markers (the maximum the largest max run, a row per ring size and load, the peers'
# median over their runs with the spread of the runs' medians, a run without frames left out of them, ixy-fwd's CPU
# time per frame and its sleeps per second, also at 1 %), the slope recovered
# from the medians (25.0 µs per descriptor, slope / (1 / rate) = 1.00), and four SVG plots (gnuplot required) whose x
# axis is a log axis of nines (the ticks 90 %, 99 %, 99.9 %, 99.99 % equally spaced), y a log axis (ticks powers of
# ten, equally spaced), and the max a separate tick, and whose series (10, 8 under overload) each have a colour and a
# marker of their own.
#
#   test_latency.sh WORKDIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=${1:?usage: $0 WORKDIR}
rm -rf "$work"
mkdir -p "$work/out"
fail() { echo "FAIL: $*"; exit 1; }

# latency <name> run <i>: offered <kpps> kpps sent <n> received <n> in <s> s frames <n> p50 .. max (ns)
point() { # point NAME RUN OFFERED_KPPS FORWARDED_KPPS MEDIAN_US
	awk -v name="$1" -v run="$2" -v o="$3" -v f="$4" -v m="$5" 'BEGIN {
		printf "latency %s run %d: offered %.3f kpps sent %d received %d in 4.000 s frames %d", name, run, o, o * 4000, f * 4000, f * 4000
		printf " p50 %d p90 %d p99 %d p99.9 %d p99.99 %d max %d\n", m * 1000, m * 1100, m * 1300, m * 1600, m * 2000, m * 2500 }'
}
{
	echo "12.000000 0 IXY-VM: latency load max"
	point ixy-poll,r512,lmax 1 100 30 14800
	echo "latency maximum 30.000 kpps (this run 30.000)"
	point ixy-poll,r512,lmax 2 100 40 14800
	echo "latency maximum 40.000 kpps (this run 40.000)"
	point ixy-poll,r512,lmax 3 100 35 14800
	echo "latency maximum 40.000 kpps (this run 35.000)"
	for path in direct hub; do
		for load in 10 50 90; do point "$path,r0,l$load" 1 $((load * 40 / 100)) $((load * 40 / 100)) 20; done
	done
	for ring in 64 256 1024 4096; do
		for load in 10 50 90; do point "ixy-poll,r$ring,l$load" 1 $((load * 40 / 100)) $((load * 40 / 100)) 300; done
		point "ixy-poll,r$ring,loverload" 1 100 40 $((2000 + 25 * ring))
	done
	for round in 1 2 3; do
		# ixy-fwd --poll 512: medians 14800 +- 100 (14700, 14800, 14900) over the rounds under overload, 280, 300, 320 at the loads
		for load in 10 50 90; do point "ixy-poll,r512,l$load" $round $((load * 40 / 100)) $((load * 40 / 100)) $((260 + 20 * round)); done
		point "ixy-poll,r512,loverload" $round 100 40 $((14600 + 100 * round))
		# ixy-fwd --wait: medians 400, 100, 250 at 10 % (median 250, spread 100..400); 4 ticks = 40 ms for 16000 frames;
		# 400 switches in 4 s: 100 sleeps per second
		for load in 10 50 90; do
			point "ixy-wait,r512,l$load" $round $((load * 40 / 100)) $((load * 40 / 100)) $((round == 1 ? 400 : round == 2 ? 100 : 250))
			echo "13.0 0 IXY-VM: cpu ixy-wait,r512,l$load run $round: ticks $((load / 10 * 4)) switches $((load * 40))"
		done
		# at 1 %: 0.4 kpps, a sleep between frames (1600 switches in 4 s, 400 per second), medians 900, 1000, 1100
		point "ixy-wait,r512,l1" $round 0.4 0.4 $((800 + 100 * round))
		echo "13.0 0 IXY-VM: cpu ixy-wait,r512,l1 run $round: ticks 2 switches 1600"
		# round 1 under overload: no frame arrived (a stalled NIC): no latency, left out of the medians
		if [ $round = 1 ]; then point "ixy-wait,r512,loverload" 1 100 0 0; else point "ixy-wait,r512,loverload" $round 100 30 9000; fi
		for peer in testpmd,r512 bridge,r0; do
			for load in 10 50 90; do point "$peer,l$load" $round $((load * 40 / 100)) $((load * 40 / 100)) 500; done
			point "$peer,loverload" $round 100 30 9000
		done
	done
} >"$work/marks.txt"
printf '# doc\n<!-- begin: latency, written by: cmd -->\nold\n<!-- end: latency -->\nafter\n' >"$work/doc.md"
IXY_BENCH_DOC=$work/doc.md "$here/latency.sh" --from "$work/marks.txt" "$work/out" >"$work/log.txt" 2>&1 ||
	{ cat "$work/log.txt"; fail "latency.sh --from"; }
cat "$work/log.txt"
csv=$work/out/latency.csv
[ "$(head -1 "$csv")" = "forwarder,ring,load,run,offered_kpps,forwarded_kpps,frames,p50_us,p90_us,p99_us,p99_9_us,p99_99_us,max_us,cpu_us_per_frame,sleeps_per_s" ] ||
	fail "CSV header: $(head -1 "$csv")"
# 3 max runs, 6 baselines, 4 ring sizes x 4 loads, 3 rounds x 4 forwarders x 4 loads, 3 runs of --wait at 1 %
[ "$(wc -l <"$csv")" = $((1 + 3 + 6 + 16 + 48 + 3)) ] || fail "$(wc -l <"$csv") CSV lines, expected a header and 76 runs"
grep -qx "ixy-poll,4096,overload,1,100.00,40.00,160000,104400.0,114840.0,135720.0,167040.0,208800.0,261000.0,," "$csv" ||
	fail "the row of ring 4096 under overload"
grep -qx "ixy-wait,512,90,2,36.00,36.00,144000,100.0,110.0,130.0,160.0,200.0,250.0,2.5,900" "$csv" ||
	fail "the row of ixy-fwd --wait at 90 %, round 2 (36 ticks of 10 ms for 144000 frames: 2.5 µs each; 900 sleeps/s)"
grep -q "the largest of 30.00, 40.00, 35.00 kpps): 40.000 kpps" "$work/doc.md" || fail "the maximum: the largest of the max runs"
grep -q "^| hub | 50 % | 20.0 | 20.0 | 80000 | 20 |" "$work/doc.md" || fail "the hub baseline at 50 %"
grep -q "^| 4096 | overload | 1 | 100.0 | 40.0 | 160000 | 104400 |" "$work/doc.md" || fail "Table 2's row of 4096 under overload"
grep -q "^| 512 | overload | 3 | 100.0 | 40.0 | 160000 | 14800 |" "$work/doc.md" || fail "Table 2's row of 512 under overload: the median of 3"
grep -q "^| ixy-fwd --wait 1000 | 10 % | 3 | 4.0 | 250 | 100..400 | 325 | 130..520 | 625 | 2.5 |" "$work/doc.md" ||
	fail "ixy-fwd --wait at 10 %: median, spread and CPU per frame"
grep -q "^| ixy-fwd --wait 1000 | 10 % | 3 | 4.0 | 250 | 100..400 | 325 | 130..520 | 625 | 2.5 | 100 |\$" "$work/doc.md" ||
	fail "ixy-fwd --wait at 10 %: 100 sleeps per second"
grep -q "^| ixy-fwd --wait 1000 | 1 % | 3 | 0.4 | 1000 | 900..1100 | 1300 | 1170..1430 | 2500 | 12.5 | 400 |\$" "$work/doc.md" ||
	fail "ixy-fwd --wait at 1 %: median, spread, CPU per frame and 400 sleeps per second"
grep -q "^| ixy-fwd --wait 1000 | overload | 2+1 no frames | 30.0 | 9000 | 9000..9000 |" "$work/doc.md" ||
	fail "ixy-fwd --wait under overload: a run without frames left out of the median"
grep -q "^| Linux bridge | 50 % | 3 |" "$work/doc.md" || fail "the bridge at 50 %"
[ -z "$(grep '^| ' "$work/doc.md" | sort | uniq -d)" ] || fail "rows twice: $(grep '^| ' "$work/doc.md" | sort | uniq -d)"
grep -q "rises by 25.0 µs per descriptor.*1 / forwarding rate = 25.0 µs.*= 1.00\." "$work/doc.md" || fail "the slope"
grep -q "^old$" "$work/doc.md" && fail "the old table is still there"
[ "$(sed -n '$p' "$work/doc.md")" = after ] || fail "the text after the markers is gone"
for load in 10 50 90 overload; do # (1 %: only ixy-fwd --wait, one series)
	svg=$work/out/latency-$load.svg
	[ -f "$svg" ] || fail "no $svg"
	grep -q "ixy-fwd --poll, 4096" "$svg" || fail "latency-$load.svg has no line for ring 4096"
	# The tick labels and where they are: x ticks of the nines equally spaced (a log axis), y ticks powers of ten,
	# equally spaced, and a max tick right of 99.99 %.
	python3 - "$svg" <<'EOF2' || fail "latency-$load.svg: axes"
import math, re, sys, xml.dom.minidom
text = open(sys.argv[1]).read()
xml.dom.minidom.parseString(text)
ticks = re.findall(r'translate\(([0-9.]+),([0-9.]+)\)[^>]*>\s*<text><tspan[^>]*>([^<]*)</tspan>', text)
ticks = [(tx, ty, label.strip()) for tx, ty, label in ticks]
x = {label: float(tx) for tx, ty, label in ticks if label.endswith("%") or label == "max"}
nines = [x.get(label) for label in ("90%", "99%", "99.9%", "99.99%")]
assert None not in nines and "max" in x, "x ticks: %s" % x
steps = [b - a for a, b in zip(nines, nines[1:])]
assert max(steps) - min(steps) < 1 and steps[0] > 10, "x ticks not equally spaced (no log axis): %s" % nines
assert x["max"] > nines[-1], "max is not right of 99.99 %"
y = sorted((float(ty), float(label)) for tx, ty, label in ticks if re.fullmatch(r"[0-9]+", label))
assert len(y) >= 2, "y ticks: %s" % y
powers = all(v > 0 and abs(round(math.log10(v)) - math.log10(v)) < 1e-9 for _, v in y)
ysteps = [b[0] - a[0] for a, b in zip(y, y[1:])]
assert powers and max(ysteps) - min(ysteps) < 1, "y ticks not powers of ten equally spaced (no log axis): %s" % y
print(sys.argv[1].rsplit("/", 1)[1], "x", nines, "max", x["max"], "y", y)
EOF2
	# Every series (a titled plot) has a colour and a marker of its own.
	python3 - "$svg" <<'EOF2' || fail "latency-$load.svg: series share a colour or a marker"
import re, sys
text = open(sys.argv[1]).read()
plots = re.findall(r'<g id="gnuplot_plot_\d+" ><title>([^<]*)</title>(.*?)(?=<g id="gnuplot_plot_|\Z)', text, re.S)
styles = {}
for title, body in plots:
    if title.startswith("gnuplot_plot_"):
        continue  # the max points, untitled
    colour = re.search(r"<path stroke='([^']*)'", body).group(1)
    marker = re.search(r"xlink:href='#(gpPt\d+)'", body).group(1)
    styles[title] = (colour, marker)
assert len(styles) >= 8, "only %d series: %s" % (len(styles), styles)
for kind, i in (("colour", 0), ("marker", 1)):
    used = [s[i] for s in styles.values()]
    shared = [t for t, s in styles.items() if used.count(s[i]) > 1]
    assert not shared, "%s shared by %s" % (kind, shared)
print(sys.argv[1].rsplit("/", 1)[1], len(styles), "series, each its own colour and marker")
EOF2
done
echo PASS
