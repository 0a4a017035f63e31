#!/bin/sh
# Per-packet forwarding latency in a QEMU guest (TCG, one vCPU, four emulated 82576 NICs through VFIO): the paper's
# Table 2 (latency by ring size and load) and ixy-languages' tail-latency plots, regenerated. One boot (scenario
# bench-latency, bench/vm/scenario-bench-latency.sh): the source and the sink run on the host (bench/peers/host_ends:
# every frame carries its send time, the sink keeps each frame's latency in an HDR-style histogram); the guest runs
# only the forwarder. First ixy-fwd --poll under overload (the source at IXY_BENCH_KPPS, default 100 kpps: several
# times what it forwards) gives the forwarder's maximum; then ixy-fwd --poll --ring 64, 256, 512, 1024 and 4096, each
# at 10, 50 and 90 % of that maximum and under overload; then at the same loads ixy-fwd --wait 1000 (interrupts),
# DPDK's testpmd (if the host has dpdk-testpmd: apt-get install dpdk-dev) and the Linux bridge. Each point is
# measured for <seconds> after a second of settling (4 s under overload, for the RX ring to fill). A benchmark, not
# a test. Needs root (boots QEMU like the VM tests); takes about 4 + 33 * (seconds + 2.5) / 60 minutes.
#
# Writes OUT/latency.csv (one row per point: forwarder, ring, load, offered and forwarded kpps, frames, percentiles
# 50, 90, 99, 99.9, 99.99 and max in microseconds), OUT/latency-<load>.svg (with gnuplot, Debian package
# gnuplot-nox, installed if missing and root: latency against the percentile on a log "nines" axis, one line per
# forwarder and ring size), and the tables into docs/benchmark.md between "<!-- latency: begin -->" and
# "<!-- latency: end -->" (another file with IXY_BENCH_DOC, none with IXY_BENCH_DOC=) if every point was measured.
#
# Usage: bench/latency.sh [seconds per point (4)]
#        bench/latency.sh --from MARKS [OUT]   only the CSV, plots and tables, from host_ends's output MARKS of an
#                                              earlier run (no QEMU; bench/test_latency.sh)
# Environment: BUILD_DIR (default build-bench-vm), IXY_BENCH_KPPS (overload rate, default 100), IXY_BENCH_RINGS
# (ring sizes, default 64:256:512:1024:4096), IXY_BENCH_OUT (default docs/benchmark), IXY_BENCH_DOC
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/bench/lib.sh"
doc=${IXY_BENCH_DOC-$repo/docs/benchmark.md}
out=${IXY_BENCH_OUT:-$repo/docs/benchmark}
kpps=${IXY_BENCH_KPPS:-100}
rc=0
if [ "${1:-}" = --from ]; then
	marks=${2:?usage: bench/latency.sh --from MARKS [OUT]}
	out=${3:-$out}
	setup="from $(basename "$marks")"
else
	seconds=${1:-4}
	case "$seconds$kpps" in
		'' | *[!0-9]*) echo "usage: bench/latency.sh [seconds per point]" >&2; exit 2 ;;
	esac
	if ! command -v gnuplot >/dev/null && [ "$(id -u)" = 0 ]; then
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			gnuplot-nox >/dev/null || echo "latency: could not install gnuplot-nox: no plots"
	fi
	build=${BUILD_DIR:-$repo/build-bench-vm}
	cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DIXY_SANITIZE=OFF >/dev/null
	make -C "$build" -j2 >/dev/null
	vm_out=$build/bench-latency
	setup="$(date -u +%Y-%m-%d), \`bench/latency.sh $seconds\`, overload $kpps kpps; $(bench_setup "$repo")"
	host_ends_start "$build" "$vm_out" "$kpps"
	"$repo/test/vm/run-vm.sh" --build-dir "$build" --scenario bench-latency --vfio --nics igb --out "$vm_out" \
		--host-ends "$host_ends_vm" --env "IXY_BENCH_SECONDS=$seconds" \
		--env "IXY_BENCH_RINGS=${IXY_BENCH_RINGS:-64:256:512:1024:4096}" >"$vm_out.log" 2>&1 ||
		{ rc=1; echo "run-vm.sh failed: $vm_out.log"; }
	host_ends_stop || rc=1
	marks=$host_ends_marks
fi
mkdir -p "$out"
csv=$out/latency.csv
table=$(mktemp)
trap 'rm -f "$table"' EXIT

# latency <forwarder>,r<ring>,l<load> run 1: offered <kpps> kpps sent <n> received <n> in <s> s frames <n>
#   p50 <ns> p90 <ns> p99 <ns> p99.9 <ns> p99.99 <ns> max <ns>
tr -d '\r' <"$marks" | awk '
	BEGIN { print "forwarder,ring,load,offered_kpps,forwarded_kpps,frames,p50_us,p90_us,p99_us,p99_9_us,p99_99_us,max_us" }
	$1 == "latency" && $3 == "run" && NF == 28 {
		split($2, part, ",")
		printf "%s,%s,%s,%.2f,%.2f,%d", part[1], substr(part[2], 2), substr(part[3], 2), $6, ($13 > 0 ? $11 / $13 / 1000 : 0), $16
		for (i = 18; i <= 28; i += 2) printf ",%.1f", $i / 1000
		printf "\n"
	}' >"$csv"
maximum=$(tr -d '\r' <"$marks" | awk '$1 == "latency" && $2 == "maximum" { print $3 }')
points=$(($(wc -l <"$csv") - 1))
echo "$points points, maximum ${maximum:-?} kpps: $csv"
[ "$points" -gt 0 ] || { echo "no latency lines in $marks"; exit 1; }

# The tables: Table 2's layout (ring size and load; median, 99th, 99.9th percentile, and more), then the peers at the
# same loads, then the slope of the median under overload against the ring size.
{
	echo "$setup; the forwarder's maximum (ixy-fwd --poll, 512 descriptors, overloaded): ${maximum:-?} kpps."
	echo
	echo "| ring size | load | offered kpps | forwarded kpps | median µs | 90th µs | 99th µs | 99.9th µs | 99.99th µs | max µs |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	awk -F, 'NR > 1 && $1 == "ixy-poll" && $3 != "max" {
		printf "| %s | %s | %.1f | %.1f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |\n", $2, $3 == "overload" ? "overload" : $3 " %",
			$4, $5, $7, $8, $9, $10, $11, $12 }' "$csv"
	echo
	echo "At the same loads (512 descriptors; the bridge: the kernel's igb driver and its rings):"
	echo
	echo "| forwarder | load | offered kpps | forwarded kpps | median µs | 90th µs | 99th µs | 99.9th µs | 99.99th µs | max µs |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	awk -F, 'NR > 1 && ($1 == "ixy-poll" && $2 == 512 && $3 != "max" || $1 == "ixy-wait" || $1 == "testpmd" || $1 == "bridge") {
		names["ixy-poll"] = "ixy-fwd --poll"; names["ixy-wait"] = "ixy-fwd --wait 1000"; names["testpmd"] = "DPDK testpmd io-fwd"
		names["bridge"] = "Linux bridge"
		printf "| %s | %s | %.1f | %.1f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |\n", names[$1], $3 == "overload" ? "overload" : $3 " %",
			$4, $5, $7, $8, $9, $10, $11, $12 }' "$csv"
	echo
	# least squares of the median over the ring size, ixy-fwd --poll under overload; against 1 / forwarding rate
	awk -F, 'NR > 1 && $1 == "ixy-poll" && $3 == "overload" { n++; x[n] = $2; y[n] = $7; rate += $5 }
		END {
			if (n < 2) { print "(fewer than two ring sizes under overload: no slope)"; exit }
			for (i = 1; i <= n; i++) { mx += x[i] / n; my += y[i] / n }
			for (i = 1; i <= n; i++) { sxy += (x[i] - mx) * (y[i] - my); sxx += (x[i] - mx) ^ 2 }
			slope = sxy / sxx; per_packet = 1000 / (rate / n)
			printf "Under overload the median rises by %.1f µs per descriptor (least squares over %d ring sizes, intercept %.0f µs); ", slope, n, my - slope * mx
			printf "one packet takes 1 / forwarding rate = %.1f µs (mean forwarded rate %.1f kpps): slope / (1 / rate) = %.2f.\n", per_packet, rate / n, slope / per_packet
		}' "$csv"
} >"$table"
cat "$table"

# One plot per load: latency against the percentile, on a log axis of "nines" (x = 1 / (1 - p)); max at 10^5.
if command -v gnuplot >/dev/null; then
	tmp=$(mktemp -d)
	for load in 10 50 90 overload; do
		awk -F, -v load="$load" 'NR > 1 && $3 == load {
			name = $1 == "ixy-poll" ? "ixy-fwd --poll, " $2 : $1 == "ixy-wait" ? "ixy-fwd --wait, " $2 : $1 == "bridge" ? "Linux bridge" : $1 ", " $2
			if (blocks++) printf "\n\n"
			printf "x \"%s\"\n2 %s\n10 %s\n100 %s\n1000 %s\n10000 %s\n100000 %s\n", name, $7, $8, $9, $10, $11, $12
		}' "$csv" >"$tmp/$load.dat"
		[ -s "$tmp/$load.dat" ] || continue
		series=$(grep -c '^x ' "$tmp/$load.dat")
		title="forwarding latency under overload"
		[ "$load" = overload ] || title="forwarding latency at $load % of ixy-fwd's maximum"
		gnuplot <<EOF || rc=1
set terminal svg size 800,500 dynamic font "sans,11"
set output "$out/latency-$load.svg"
set title "$title (QEMU TCG, emulated 82576 NICs, source and sink on the host)"
set logscale x
set logscale y
set xrange [1.5:150000]
set xtics ("50%%" 2, "90%%" 10, "99%%" 100, "99.9%%" 1000, "99.99%%" 10000, "max" 100000)
set xlabel "percentile"
set ylabel "latency (µs)"
set key outside right
set grid
plot for [i = 0:$series - 1] "$tmp/$load.dat" index i using 1:2 with linespoints title columnheader(2) noenhanced
EOF
		echo "plot: $out/latency-$load.svg"
	done
	rm -rf "$tmp"
else
	echo "latency: no gnuplot (apt-get install gnuplot-nox): no plots"
fi

if [ $rc = 0 ] && [ -n "$doc" ]; then # (only a complete benchmark)
	doc_table "$doc" latency <"$table" && echo "tables written into $doc" || rc=1
fi
[ $rc = 0 ] || echo "failed (exit $rc)"
exit $rc
