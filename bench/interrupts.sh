#!/bin/sh
# Throughput of ixy-fwd when it may sleep (--wait 1000: interrupts, issue 11) against pure polling (--poll), with
# the forwarder alone on the guest's vCPU: the source and the sink are on the host (bench/peers/host_ends, as in
# bench/peers.sh --host-ends), the source sending IXY_BENCH_KPPS thousand frames per second, more than the forwarder
# takes, so that it never runs out of packets. One QEMU guest (TCG, one vCPU, NICs through VFIO: ixy has interrupts
# only there) per kind of NIC, igb and modern VirtIO by default; in each boot the runs alternate --poll, --wait. A
# benchmark, not a test: it prints every run (the rate at the sink, the forwarder's CPU time, how often the waiter
# slept), then a table per NIC kind with the ratio --wait / --poll of each round (median and min..max), and writes
# the table into docs/benchmark.md (between "<!-- begin: interrupts-KPPS, ... -->" and "<!-- end: interrupts-KPPS -->";
# another
# file with IXY_BENCH_DOC, none with IXY_BENCH_DOC=) if every run completed. Needs root (boots QEMU like the VM tests); takes about
# 1 + runs * 2 * (seconds + 6) / 60 minutes per NIC kind.
#
# Usage: bench/interrupts.sh [--nics KIND[,KIND...] (igb,modern)] [seconds per run (10)] [runs of each (3)]
# Environment: BUILD_DIR (default build-bench-vm), IXY_BENCH_KPPS (default 150), IXY_BENCH_DOC
set -eu
kinds=igb,modern
if [ "${1:-}" = --nics ]; then
	kinds=$2
	shift 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$repo/build-bench-vm}
seconds=${1:-10}
rounds=${2:-3}
kpps=${IXY_BENCH_KPPS:-150}
doc=${IXY_BENCH_DOC-$repo/docs/benchmark.md}
case "$seconds$rounds$kpps" in
	'' | *[!0-9]*) echo "usage: bench/interrupts.sh [--nics KIND[,KIND...]] [seconds per run] [runs of each]" >&2; exit 2 ;;
esac
. "$repo/bench/lib.sh"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DIXY_SANITIZE=OFF >/dev/null
make -C "$build" -j2 >/dev/null
setup="$(date -u +%Y-%m-%d), \`bench/interrupts.sh $seconds $rounds\`, source $kpps kpps; $(bench_setup "$repo")"
rc=0
results=$build/bench-interrupts-results.txt
: >"$results"
for kind in $(echo "$kinds" | tr , ' '); do
	out=$build/bench-interrupts-$kind
	host_ends_start "$build" "$out" "$kpps"
	"$repo/test/vm/run-vm.sh" --build-dir "$build" --scenario bench-interrupts --vfio --nics "$kind" --out "$out" \
		--host-ends "$host_ends_vm" --env "IXY_BENCH_SECONDS=$seconds" --env "IXY_BENCH_ROUNDS=$rounds" \
		>"$out.log" 2>&1 || { rc=1; echo "run-vm.sh failed: $out.log"; }
	host_ends_stop || rc=1
	# Per run: "<kind> <mode> <run> <packets> <seconds> <cpu %> <sleeps> <app's seconds>"
	host_ends_runs "$host_ends_marks" | while read -r mode run packets s; do
		echo "$kind $mode $run $packets $s $(tr -d '\r' <"$out/console.log" |
			sed -n "s/^IXY-VM: bench $mode run $run: cpu \([0-9.]*\) slept \([0-9?]*\) in \([0-9.]*\) s$/\1 \2 \3/p")"
	done >>"$results"
done
awk -v kinds="$kinds" -v kpps="$kpps" "$bench_awk"'
	NF == 8 {
		rate = $5 > 0 ? $4 / $5 / 1000 : 0
		printf "%-7s %-4s run %s %9d packets in %6.2f s, %7.1f kpps, CPU %5.1f %%, slept %s times in %s s\n",
			$1, $2, $3, $4, $5, rate, $6, $7, $8
		r[$1, $2, $3] = rate; cpu[$1, $2, ++n[$1, $2]] = $6; runs[$1, $2] = runs[$1, $2] " " rate
		if ($2 == "wait") sleeps[$1] = sleeps[$1] " " ($7 != "?" && $8 > 0 ? $7 / $8 : "?")
	}
	NF != 8 { print "incomplete: " $0; bad = 1 }
	END {
		print ""
		print "| NIC | `--poll`: kpps at the sink | `--wait 1000`: kpps at the sink | `--wait` / `--poll`, per round |" \
			" `--wait`: sleeps per second | CPU % (poll; wait) |"
		print "|---|---|---|---|---|---|"
		m = split(kinds, kind, ",")
		for (i = 1; i <= m; i++) {
			k = kind[i]; ratios = ""; pc = ""; wc = ""
			for (j = 1; (k, "poll", j) in r || (k, "wait", j) in r; j++)
				if (r[k, "poll", j] > 0 && (k, "wait", j) in r) ratios = ratios " " r[k, "wait", j] / r[k, "poll", j]
			for (j = 1; j <= n[k, "poll"]; j++) pc = pc " " cpu[k, "poll", j]
			for (j = 1; j <= n[k, "wait"]; j++) wc = wc " " cpu[k, "wait", j]
			if (ratios == "") { printf "| %s | no results: see the guest console log | | | | |\n", k; bad = 1; continue }
			printf "| %s | %s | %s | %s | %s | %s; %s |\n", k, bench_stats(runs[k, "poll"], "%.1f"),
				bench_stats(runs[k, "wait"], "%.1f"), bench_stats(ratios, "%.2f"),
				sleeps[k] ~ /\?/ ? "?" : bench_stats(sleeps[k], "%.0f"), bench_stats(pc, "%.0f"),
				bench_stats(wc, "%.0f")
		}
		exit bad
	}' "$results" >"$results.table" || rc=1
cat "$results.table"
if [ $rc = 0 ]; then # (only a complete benchmark)
	bench_write_table "$doc" "interrupts-$kpps" "$setup" "$results.table" || rc=1
fi
exit $rc
