#!/bin/sh
# Per-packet forwarding latency in a QEMU guest (TCG, one vCPU, four emulated 82576 NICs through VFIO): the paper's
# Table 2 (latency by ring size and load) and ixy-languages' tail-latency plots, regenerated. One boot (scenario
# bench-latency, bench/vm/scenario-bench-latency.sh, which lists the runs): the source and the sink run on the host
# (bench/peers/host_ends: every frame carries its due time, the sink keeps each frame's latency in an HDR-style
# histogram); the guest runs only the forwarder. First the forwarder's maximum (ixy-fwd --poll, 512 descriptors,
# overloaded at IXY_BENCH_KPPS, default 100 kpps: after 4 s of warm-up the largest of 3 runs); then baselines with the
# guest idle (the measuring path alone, and QEMU's netdevs joined by its hub: no NIC, no guest) at 1, 10, 50, 90 % of
# the maximum; then ixy-fwd --poll --ring 64, 256, 1024 and 4096 at 1, 10, 50, 90 % and overload; then 3 rounds, the
# order rotated, of ixy-fwd --poll and --wait 1000 (512 descriptors), DPDK's testpmd (if the host has dpdk-testpmd:
# apt-get install dpdk-dev) and the Linux bridge at the same loads. Each point is measured for <seconds> after a
# second of settling (4 s under overload). host_ends runs on CPU 0 and QEMU on CPU 1 where the host has two CPUs
# (taskset; the tables' first line says so), and every row gives the offered rate beside the forwarded one: a
# forwarder that forwards less than it was offered is the bottleneck. A benchmark, not a test. Needs root (boots QEMU like the VM tests), and
# installs gnuplot-nox (Debian) if it is missing (it is needed: without gnuplot the script fails). 91 runs of
# <seconds> plus settling, starts and the boot: with 4 s about 11 minutes (2026-11-25, 73 runs without the 1 % load:
# 9 min 8 s).
#
# Writes OUT/latency.csv (one row per measured run: forwarder, ring, load, run, offered and forwarded kpps, frames,
# percentiles 50, 90, 99, 99.9, 99.99 and max in microseconds, and for ixy-fwd its CPU time per frame forwarded and
# its sleeps per second),
# OUT/latency-<load>.svg (gnuplot: latency against the percentile on a log "nines" axis, one line per forwarder and
# ring size, median of its runs; the max a separate point), and the tables into docs/benchmark.md between
# "<!-- begin: latency, ... -->" and "<!-- end: latency -->" (another file with IXY_BENCH_DOC, none with
# IXY_BENCH_DOC=)
# if every point was measured.
#
# Usage: bench/latency.sh [seconds per point (4)]
#        bench/latency.sh --from MARKS [OUT]   only the CSV, plots and tables, from host_ends's output MARKS of an
#                                              earlier run (no QEMU; bench/test_latency.sh)
# Environment: BUILD_DIR (default build-bench-vm), IXY_BENCH_KPPS (overload rate, default 100), IXY_BENCH_RINGS
# (ring sizes, default 64:256:512:1024:4096), IXY_BENCH_ROUNDS (rounds of the peers, default 3), IXY_BENCH_OUT
# (default docs/benchmark), IXY_BENCH_DOC, IXY_BENCH_SETUP (with --from: the tables' first words, e.g. the earlier
# run's date, version and host)
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
	setup=${IXY_BENCH_SETUP:-from $(basename "$marks")}
else
	seconds=${1:-4}
	case "$seconds$kpps" in
		'' | *[!0-9]*) echo "usage: bench/latency.sh [seconds per point]" >&2; exit 2 ;;
	esac
	if ! command -v gnuplot >/dev/null && [ "$(id -u)" = 0 ]; then
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			gnuplot-nox >/dev/null || { echo "latency: could not install gnuplot-nox"; exit 1; }
	fi
	build=${BUILD_DIR:-$repo/build-bench-vm}
	cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DIXY_SANITIZE=OFF >/dev/null
	make -C "$build" -j2 >/dev/null
	vm_out=$build/bench-latency
	setup="$(date -u +%Y-%m-%d), \`bench/latency.sh $seconds\`, overload $kpps kpps; $(bench_setup "$repo")"
	# The source and the sink (host_ends) on CPU 0, QEMU and so the guest's forwarder on CPU 1 (issue 29); with one
	# CPU they share it.
	vm_pin=
	if [ "$(nproc)" -ge 2 ]; then
		vm_pin="taskset -c 1"
		setup="$setup, host_ends (source and sink) on CPU 0, QEMU on CPU 1"
	else
		setup="$setup, host_ends and QEMU on the one CPU"
	fi
	echo "latency: ${setup#*; }"
	host_ends_start "$build" "$vm_out" "$kpps" hub
	[ -z "$vm_pin" ] || taskset -pc 0 "$host_ends_pid" >/dev/null
	$vm_pin "$repo/test/vm/run-vm.sh" --build-dir "$build" --scenario bench-latency --vfio --nics igb --out "$vm_out" \
		--host-ends "$host_ends_vm" --env "IXY_BENCH_SECONDS=$seconds" --env "IXY_BENCH_ROUNDS=${IXY_BENCH_ROUNDS:-3}" \
		--env "IXY_BENCH_RINGS=${IXY_BENCH_RINGS:-64:256:512:1024:4096}" >"$vm_out.log" 2>&1 ||
		{ rc=1; echo "run-vm.sh failed: $vm_out.log"; }
	host_ends_stop || rc=1
	marks=$host_ends_marks
	setup="$setup, $(cut -d' ' -f1 /proc/loadavg) at the end"
fi
mkdir -p "$out"
csv=$out/latency.csv
table=$(mktemp)
tmp=$(mktemp -d)
trap 'rm -rf "$table" "$tmp"' EXIT

# latency <forwarder>,r<ring>,l<load> run <i>: offered <kpps> kpps sent <n> received <n> in <s> s frames <n>
#   p50 <ns> p90 <ns> p99 <ns> p99.9 <ns> p99.99 <ns> max <ns>
# <host s> <count> IXY-VM: cpu <forwarder>,r<ring>,l<load> run <i>: ticks <n> switches <n>   (after the run's end;
#   USER_HZ 100; the voluntary context switches, the waiter's sleeps: not in runs before 2026-11-28)
tr -d '\r' <"$marks" >"$tmp/marks"
awk 'FNR == NR {
		if ($3 == "IXY-VM:" && $4 == "cpu" && $8 == "ticks") cpu[$5 " " $7] = $9
		if ($3 == "IXY-VM:" && $4 == "cpu" && $10 == "switches") switches[$5 " " $7] = $11
		next
	}
	FNR == 1 { print "forwarder,ring,load,run,offered_kpps,forwarded_kpps,frames,p50_us,p90_us,p99_us,p99_9_us,p99_99_us,max_us,cpu_us_per_frame,sleeps_per_s" }
	$1 == "latency" && $3 == "run" && NF == 28 {
		split($2, part, ",")
		run = $4; sub(":", "", run)
		printf "%s,%s,%s,%s,%.2f,%.2f,%d", part[1], substr(part[2], 2), substr(part[3], 2), run, $6, ($13 > 0 ? $11 / $13 / 1000 : 0), $16
		for (i = 18; i <= 28; i += 2) printf ",%.1f", $i / 1000
		key = $2 " " $4
		printf ",%s", ((key in cpu) && $11 > 0 ? sprintf("%.1f", cpu[key] * 10000 / $11) : "")
		printf ",%s\n", ((key in switches) && $13 > 0 ? sprintf("%.0f", switches[key] / $13) : "")
	}' "$tmp/marks" "$tmp/marks" >"$csv"
points=$(($(wc -l <"$csv") - 1))
# The maximum host_ends used: the largest of the max runs (its last "latency maximum" line).
maximum=$(awk '$1 == "latency" && $2 == "maximum" { m = $3 } END { print m }' "$tmp/marks")
echo "$points runs, maximum ${maximum:-?} kpps: $csv"
[ "$points" -gt 0 ] || { echo "no latency lines in $marks"; exit 1; }

# The median over a point's runs of each column (one run: its values), and the smallest and largest median:
# forwarder,ring,load,runs,offered,forwarded,frames,p50,p90,p99,p99.9,p99.99,max,cpu,sleeps,p50 min,p50 max,p99 min,
# p99 max
# A run in which no frame arrived (the NIC stopped receiving: it happens, see docs/benchmark.md) has no latency: it
# is left out of the medians and counted in the runs column as "+<n> no frames".
awk -F, "$bench_awk"'NR > 1 { key = $1 "," $2 "," $3; if (!(key in seen)) { seen[key] = 1; order[++keys] = key } }
	NR > 1 && $7 == 0 { stalled[key]++; next }
	NR > 1 { n[key]++; for (c = 5; c <= 15; c++) v[key, c, n[key]] = $c }
	function median(key, c,   m, i, a) {
		m = 0
		for (i = 1; i <= n[key]; i++) if (v[key, c, i] != "") a[++m] = v[key, c, i] + 0
		if (m == 0) return ""
		bench_sort(a, m)
		lo = a[1]; hi = a[m]
		return bench_median(a, m)
	}
	END {
		for (k = 1; k <= keys; k++) {
			key = order[k]; line = key "," n[key] + 0 (stalled[key] ? "+" stalled[key] " no frames" : "")
			for (c = 5; c <= 15; c++) line = line "," median(key, c)
			median(key, 8); line = line "," lo "," hi
			median(key, 10); line = line "," lo "," hi
			print line
		}
	}' "$csv" >"$tmp/points"

# The tables: the maximum, the baselines, Table 2's layout (ring size and load), the peers at the same loads (median
# of their runs and the spread of the runs' medians), and the slope of the median under overload.
{
	awk -F, -v setup="$setup" -v maximum="${maximum:-?}" '
		$1 == "ixy-poll" && $3 == "max" { runs = runs (runs ? ", " : "") $6 }
		$1 == "ixy-poll" && $3 == "overload" && $6 > over { over = $6; at = $2 }
		END {
			printf "%s; the forwarder'"'"'s maximum (ixy-fwd --poll, 512 descriptors, overloaded, after 4 s of warm-up, ", setup
			printf "the largest of %s kpps): %s kpps. The largest rate ixy-fwd --poll forwarded in an overload run below: %.2f kpps (ring %s).\n", runs, maximum, over, at
		}' "$csv"
	echo
	echo "Baselines, the guest idle (one run each): the measuring path alone (\`direct\`: host_ends's source to its sink)"
	echo "and QEMU's path without NIC or guest (\`hub\`: QEMU's hub joins the netdev the source sends to to the one that"
	echo "sends to the sink):"
	echo
	echo "| path | load | offered kpps | forwarded kpps | frames | median µs | 90th µs | 99th µs | 99.9th µs | 99.99th µs | max µs |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F, '$1 == "direct" || $1 == "hub" {
		printf "| %s | %s %% | %.1f | %.1f | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |\n", $1, $3, $5, $6, $7, $8, $9, $10, $11, $12, $13 }' "$tmp/points"
	echo
	echo "Table 2: ixy-fwd --poll by ring size and load (512 descriptors: the median of its runs in the rounds below;"
	echo "the 99.99th is the max below 10^4 frames and among the 10 largest below 10^5: only a run of 10^5 frames or"
	echo "more has a 99.99th that is not its tail's few largest values):"
	echo
	echo "| ring size | load | runs | offered kpps | forwarded kpps | frames | median µs | 90th µs | 99th µs | 99.9th µs | 99.99th µs | max µs |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F, '$1 == "ixy-poll" && $3 != "max" { print $2 + 0, ($3 == "overload" ? 1000 : $3), $0 }' "$tmp/points" | sort -n -k1,1 -k2,2 |
		cut -d' ' -f3- | awk -F, '{
		printf "| %s | %s | %s | %.1f | %.1f | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |\n", $2, $3 == "overload" ? "overload" : $3 " %",
			$4, $5, $6, $7, $8, $9, $10, $11, $12, $13 }'
	echo
	echo "The peers at the same loads (512 descriptors; the bridge: the kernel's igb driver and its rings), the median"
	echo "of their runs, in brackets the smallest and largest of the runs' medians and 99th percentiles; CPU: ixy-fwd's"
	echo "CPU time per frame forwarded (guest /proc, 10 ms ticks); sleeps: ixy-fwd's voluntary context switches per"
	echo "second (guest /proc: each sleep of --wait's waiter is one; --poll's count is how often it blocks otherwise):"
	echo
	echo "| forwarder | load | runs | forwarded kpps | median µs | (runs) | 99th µs | (runs) | max µs | CPU µs/frame | sleeps/s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F, 'BEGIN { names["ixy-poll"] = "ixy-fwd --poll"; names["ixy-wait"] = "ixy-fwd --wait 1000"
			names["testpmd"] = "DPDK testpmd io-fwd"; names["bridge"] = "Linux bridge"
			rank["ixy-poll"] = 1; rank["ixy-wait"] = 2; rank["testpmd"] = 3; rank["bridge"] = 4 }
		($1 == "ixy-poll" && $2 == 512 || $1 in rank && $1 != "ixy-poll") && $3 != "max" {
			printf "%d %d | %s | %s | %s | %.1f | %.0f | %.0f..%.0f | %.0f | %.0f..%.0f | %.0f | %s | %s |\n", rank[$1], ($3 == "overload" ? 1000 : $3),
				names[$1], $3 == "overload" ? "overload" : $3 " %", $4, $6, $8, $16, $17, $10, $18, $19, $13, $14 == "" ? "" : sprintf("%.1f", $14),
				$15 == "" ? "" : sprintf("%.0f", $15) }' "$tmp/points" |
		sort -n -k1,1 -k2,2 | cut -d' ' -f3-
	echo
	# least squares of the median over the ring size, ixy-fwd --poll under overload; against 1 / forwarding rate
	awk -F, '$1 == "ixy-poll" && $3 == "overload" { n++; x[n] = $2; y[n] = $8; rate += $6 }
		END {
			if (n < 2) { print "(fewer than two ring sizes under overload: no slope)"; exit }
			for (i = 1; i <= n; i++) { mx += x[i] / n; my += y[i] / n }
			for (i = 1; i <= n; i++) { sxy += (x[i] - mx) * (y[i] - my); sxx += (x[i] - mx) ^ 2 }
			slope = sxy / sxx; per_packet = 1000 / (rate / n)
			printf "Under overload the median rises by %.1f µs per descriptor (least squares over %d ring sizes, intercept %.0f µs); ", slope, n, my - slope * mx
			printf "one packet takes 1 / forwarding rate = %.1f µs (mean forwarded rate %.1f kpps): slope / (1 / rate) = %.2f.\n", per_packet, rate / n, slope / per_packet
		}' "$tmp/points"
} >"$table"
cat "$table"

# One plot per load: the median over a point's runs of each percentile against the percentile, on a log axis of
# "nines" (x = 1 / (1 - p): 50 % at 2, 99.99 % at 10^4); the max a separate point at 3 * 10^4, not on the line (it is
# no percentile, and below 10^4 frames the 99.99th is the second largest value). Each series (forwarder and ring size)
# has a line style of its own, the same in every plot: its colour and marker, numbered by the series' first row in
# the points (15 styles; more series than that share them).
command -v gnuplot >/dev/null || { echo "latency: no gnuplot (apt-get install gnuplot-nox)"; exit 1; }
for load in 1 10 50 90 overload; do
	awk -F, -v load="$load" -v maxfile="$tmp/$load.max" -v stylefile="$tmp/$load.styles" '
	FNR == NR { if (!(($1, $2) in style)) style[$1, $2] = ++styles; next }
	$3 == load {
		name = $1 == "ixy-poll" ? "ixy-fwd --poll, " $2 : $1 == "ixy-wait" ? "ixy-fwd --wait, " $2 : $1 == "bridge" ? "Linux bridge" : $1 == "hub" ? "QEMU hub (baseline)" : $1 == "direct" ? "host only (baseline)" : $1 ", " $2
		if (blocks++) { printf "\n\n" >maxfile; printf "\n\n" }
		printf "x \"%s\"\n2 %s\n10 %s\n100 %s\n1000 %s\n10000 %s\n", name, $8, $9, $10, $11, $12
		printf "x \"%s\"\n30000 %s\n", name, $13 >maxfile
		printf "%d ", (style[$1, $2] - 1) % 15 + 1 >stylefile
	}' "$tmp/points" "$tmp/points" >"$tmp/$load.dat"
	[ -s "$tmp/$load.dat" ] || continue
	series=$(grep -c '^x ' "$tmp/$load.dat")
	title="forwarding latency under overload"
	[ "$load" = overload ] || title="forwarding latency at $load % of ixy-fwd's maximum"
	gnuplot <<EOF2 || rc=1
set terminal svg size 900,500 dynamic font "sans,11"
set output "$out/latency-$load.svg"
set title "$title (QEMU TCG, emulated 82576 NICs, source and sink on the host; median of the runs)" noenhanced
set logscale x
set logscale y
set xrange [1.5:60000]
set xtics ("50%%" 2, "90%%" 10, "99%%" 100, "99.9%%" 1000, "99.99%%" 10000, "max" 30000)
set xlabel "percentile (log axis of nines; max: a separate point)"
set ylabel "latency (µs)"
set key outside right
set grid
colours = "#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #bcbd22 #17becf #000080 #b8860b #008080 #800000 #ff00ff #556b2f"
do for [k = 1:15] { set linetype k linecolor rgb word(colours, k) pointtype k }
styles = "$(cat "$tmp/$load.styles")"
plot for [i = 0:$series - 1] "$tmp/$load.dat" index i using 1:2 with linespoints lt word(styles, i + 1) + 0 \\
		title columnheader(2) noenhanced, \\
	for [i = 0:$series - 1] "$tmp/$load.max" index i using 1:2 with points lt word(styles, i + 1) + 0 ps 1.5 notitle
EOF2
	echo "plot: $out/latency-$load.svg"
done

if [ $rc = 0 ] && [ -n "$doc" ]; then # (only a complete benchmark)
	doc_table "$doc" latency <"$table" && echo "tables written into $doc" || rc=1
fi
[ $rc = 0 ] || echo "failed (exit $rc)"
exit $rc
