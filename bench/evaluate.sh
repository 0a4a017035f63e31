#!/usr/bin/env bash
# The paper's evaluation of the driver itself, regenerated without hardware (docs/benchmark.md, "The paper's figures"):
# ixy-fwd's forwarding step between two ports of the 82599 model (bench/fwd_bench.c), model excluded, measured
#   - over batch sizes 1, 2, 4, ..., 256 at 512 descriptors per ring (the paper's Figure 4): instructions per packet
#     (callgrind, exact), L1 data cache misses per packet (callgrind's cache simulation of a 32 KiB 8-way L1d), and
#     TSC ticks per packet (native, noisy: the median of RUNS runs and their spread);
#   - over ring sizes 64 .. 4096 at batch 32: the same.
# Writes OUT/batch.csv and OUT/ring.csv, and with gnuplot (Debian package gnuplot-nox) OUT/batch.svg, OUT/ring.svg and
# OUT/l1.svg. A batch size is a compile-time constant of forward() (apps/fwd.h): one build per batch size, in
# BUILD_DIR/batch-<n>. Takes a few minutes (about 20 callgrind runs).
#
# Usage: bench/evaluate.sh [--quick] [OUT (default docs/benchmark)]
#   --quick  batch sizes 1 and 32, ring sizes 64 and 512, one TSC run each: checks that the script works (a test)
# Environment: BUILD_DIR (default build-evaluate), RUNS (TSC runs per point, default 5),
#   CALLGRIND_PACKETS (default 128000), TIME_PACKETS (default 1000000)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/bench/lib.sh"
quick=no
if [ "${1:-}" = --quick ]; then
	quick=yes
	shift
fi
out=${1:-$repo/docs/benchmark}
build=${BUILD_DIR:-$repo/build-evaluate}
runs=${RUNS:-5}
callgrind_packets=${CALLGRIND_PACKETS:-128000}
time_packets=${TIME_PACKETS:-1000000}
batches="1 2 4 8 16 32 64 128 256"
rings="64 128 256 512 1024 2048 4096"
if [ $quick = yes ]; then
	batches="1 32" rings="64 512" runs=1 callgrind_packets=16384 time_packets=100000
fi
for tool in cmake make valgrind python3; do
	command -v "$tool" >/dev/null || { echo "evaluate: needs $tool" >&2; exit 1; }
done
mkdir -p "$out" "$build"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# build_for BATCH: fwd_bench_count and (on x86) fwd_bench_time compiled with that batch size; prints the build dir.
build_for() {
	local dir=$build/batch-$1
	cmake -S "$repo" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DIXY_SANITIZE=OFF -DCMAKE_C_FLAGS="-DFWD_BATCH_SIZE=$1" \
		>/dev/null
	make -C "$dir" -j2 fwd_bench_count >/dev/null
	make -C "$dir" -j2 fwd_bench_time >/dev/null 2>&1 || true # x86 only
	echo "$dir"
}

# measure BATCH RING: one CSV line "BATCH,RING,instructions,L1d misses,TSC median,TSC min,TSC max" per packet.
measure() {
	local batch=$1 ring=$2 dir
	dir=$build/batch-$batch
	# One callgrind run with the cache simulation gives both the instructions and the simulated L1d misses.
	FWD_BENCH_RING=$ring valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no \
		--toggle-collect=bench_measured_rounds --cache-sim=yes --D1=32768,8,64 --I1=32768,8,64 \
		--LL=1048576,8,64 --callgrind-out-file="$tmp/callgrind.out" "$dir/bench/fwd_bench_count" \
		"$callgrind_packets" >"$tmp/valgrind.log" 2>&1 || { cat "$tmp/valgrind.log" >&2; exit 1; }
	FWD_BATCH_SIZE=$batch python3 "$repo/bench/callgrind_parts.py" "$tmp/callgrind.out" >"$tmp/parts.txt"
	# callgrind_parts.py's "total" row: label (32 columns), instructions (8), 2 spaces, ticks (10), misses (10).
	local instr misses ticks="" median="" low="" high=""
	instr=$(awk '/^total  / { print substr($0, 33, 8) + 0 }' "$tmp/parts.txt")
	misses=$(awk '/^total  / { print substr($0, 53, 10) + 0 }' "$tmp/parts.txt")
	if [ -x "$dir/bench/fwd_bench_time" ]; then
		for _ in $(seq "$runs"); do
			FWD_BENCH_RING=$ring "$dir/bench/fwd_bench_time" "$time_packets" 20 >"$tmp/ticks.txt" 2>"$tmp/time.log" ||
				{ cat "$tmp/time.log" >&2; exit 1; }
			ticks="$ticks $(awk '$1 == "total" { print $2 }' "$tmp/ticks.txt")"
		done
		# shellcheck disable=SC2086 # one number per word
		read -r median low high < <(printf '%s\n' $ticks | sort -g | awk "$bench_awk"'
			{ v[NR] = $1 } END { print bench_median(v, NR), v[1], v[NR] }')
	fi
	echo "$batch,$ring,$instr,$misses,$median,$low,$high"
}

header="batch,ring,instructions,l1d_misses,tsc_median,tsc_min,tsc_max"
echo "evaluate: building fwd_bench for batch sizes $batches"
for batch in $batches; do
	build_for "$batch" >/dev/null
done
echo "$header" >"$out/batch.csv"
for batch in $batches; do
	measure "$batch" 512 | tee -a "$out/batch.csv"
done
echo "$header" >"$out/ring.csv"
for ring in $rings; do
	measure 32 "$ring" | tee -a "$out/ring.csv"
done
# What the numbers were measured on, for the text next to the figures.
{
	echo "ixy $(bench_commit "$repo"), $(date -u +%Y-%m-%d)"
	echo "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs," \
		"load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "kernel $(uname -r), $(gcc --version | head -1), valgrind $(valgrind --version)"
	echo "callgrind: $callgrind_packets packets per point; TSC: median of $runs runs of $time_packets packets"
} >"$out/machine.txt"
cat "$out/machine.txt"

if ! command -v gnuplot >/dev/null; then
	echo "evaluate: no gnuplot (apt-get install gnuplot-nox): CSV files only"
	exit 0
fi
gnuplot <<EOF
set terminal svg size 720,420 font "sans,12" background "white"
set datafile separator ","
set key top right
set grid
set output "$out/batch.svg"
set title "Forwarding one packet, 82599 model excluded, ring 512 (cf. the paper's Figure 4)"
set xlabel "batch size (packets per rx\\\\_batch call)"
set logscale x 2
set ylabel "per packet"
set yrange [0:*]
plot "$out/batch.csv" every ::1 using 1:3 with linespoints lw 2 title "instructions (callgrind, exact)", \
     "" every ::1 using 1:5:6:7 with yerrorlines lw 2 title "TSC ticks (median, min..max of runs)"
set output "$out/l1.svg"
set key top left
set title "L1 data cache misses per packet (callgrind's simulated 32 KiB 8-way L1d), ring 512"
set ylabel "L1d misses per packet"
plot "$out/batch.csv" every ::1 using 1:4 with linespoints lw 2 title "L1d misses (reads + writes)"
set output "$out/ring.svg"
set key center right
set title "Forwarding one packet, 82599 model excluded, batch 32"
set xlabel "descriptors per ring"
set ylabel "per packet"
plot "$out/ring.csv" every ::1 using 2:3 with linespoints lw 2 title "instructions (callgrind, exact)", \
     "" every ::1 using 2:5:6:7 with yerrorlines lw 2 title "TSC ticks (median, min..max of runs)", \
     "" every ::1 using 2:(\$4 * 10) with linespoints lw 2 title "L1d misses x 10"
EOF
echo "evaluate: $out/batch.csv $out/ring.csv $out/batch.svg $out/l1.svg $out/ring.svg"
