#!/bin/sh
# Measures what the ixgbe driver costs per forwarded packet (docs/benchmark.md) and prints the table.
#
# Builds fwd_bench in its own directory (release flags, no sanitizers), counts instructions with callgrind
# (repeatable) and, on x86, TSC ticks natively (noisy: the machine may be shared). Not a test (the test of the count
# is bench/check_instructions.sh, figure in bench/expected_instructions.txt); takes about a minute.
#
# Usage: bench/run.sh [--cache | --virtio | --xdp | --queues [--doc DOC]]
#   --cache  also runs callgrind's cache simulation (L1d 32 KiB 8-way, like the CPU measured in docs/benchmark.md)
#            and prints the L1 data cache misses per packet by part
#   --virtio instead: the VirtIO driver against the VirtIO model (bench/virtio_fwd_bench.c), instructions per
#            packet for each descriptor layout: two descriptors (legacy without ANY_LAYOUT), one (legacy with it),
#            one (modern, VERSION_1, split virtqueues), and the packed virtqueues (modern, VIRTIO_F_RING_PACKED)
#   --xdp    instead: the AF_XDP driver's ring handling against a simulated kernel side (bench/xdp_fwd_bench.c), the
#            kernel's side excluded
#   --queues instead: instructions per packet with 1, 2 and 4 queues per port (FWD_BENCH_QUEUES, fwd_bench.c: every
#            queue forwarded in turn, as each of ixy-fwd --queues' threads does for its own), which should not grow;
#            with --doc DOC also writes that table into DOC between "<!-- begin: queues, ... -->" and
#            "<!-- end: queues -->" (bench/run.sh --queues --doc docs/benchmark.md regenerates the document's)
# Environment: BUILD_DIR (default build-bench), CALLGRIND_PACKETS (default 640000), TIME_PACKETS (default 2000000)
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
build=${BUILD_DIR:-$repo/build-bench}
callgrind_packets=${CALLGRIND_PACKETS:-640000}
time_packets=${TIME_PACKETS:-2000000}
cache=no
virtio=no
xdp=no
queues=no
doc=
if [ "${1:-}" = "--queues" ] && [ "${2:-}" = "--doc" ] && [ $# = 3 ]; then
	doc=$3
	set -- --queues
fi
if [ "${1:-}" = "--cache" ]; then
	cache=yes
elif [ "${1:-}" = "--virtio" ]; then
	virtio=yes
elif [ "${1:-}" = "--xdp" ]; then
	xdp=yes
elif [ "${1:-}" = "--queues" ]; then
	queues=yes
elif [ $# -gt 0 ]; then
	echo "usage: $0 [--cache | --virtio | --xdp | --queues [--doc DOC]]" >&2
	exit 2
fi
for tool in cmake make valgrind python3; do
	command -v "$tool" >/dev/null || { echo "$0: needs $tool" >&2; exit 1; }
done

cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DIXY_SANITIZE=OFF >/dev/null
# use_batch_of_bench PREFIX: callgrind_parts.py counts forward()'s calls times FWD_BATCH_SIZE packets; take the batch
# size from what the bench printed ("PREFIX: ... batch N,"), so that a build with another FWD_BATCH_SIZE (apps/fwd.h,
# or -DFWD_BATCH_SIZE=n in CMAKE_C_FLAGS) is counted right.
use_batch_of_bench() {
	FWD_BATCH_SIZE=$(sed -n "s/^$1: .*batch \([0-9][0-9]*\),.*/\1/p" "$out/valgrind.log")
	[ -n "$FWD_BATCH_SIZE" ] || { echo "$0: the bench printed no batch size" >&2; cat "$out/valgrind.log" >&2; exit 1; }
	export FWD_BATCH_SIZE
}
if [ "$virtio" = yes ]; then
	make -C "$build" -j2 virtio_fwd_bench >/dev/null
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
	for layout in two one modern packed; do
		valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no \
			--toggle-collect=bench_measured_rounds --callgrind-out-file="$out/$layout.out" \
			"$build/bench/virtio_fwd_bench" "$layout" "$callgrind_packets" >"$out/valgrind.log" 2>&1 || {
			cat "$out/valgrind.log" >&2
			exit 1
		}
		use_batch_of_bench "virtio_fwd_bench $layout"
		python3 "$repo/bench/callgrind_parts.py" "$out/$layout.out" >"$out/$layout.txt"
	done
	echo "ixy $(bench_commit "$repo"): VirtIO driver against the" \
		"VirtIO model, queues of 512 descriptors, batch $FWD_BATCH_SIZE, both directions, model excluded"
	python3 - "$out" <<'TABLE'
import sys
parts = ("RX", "TX", "memory", "forwarding", "total")
layouts = (("two", "2 desc (legacy)"), ("one", "1 desc (ANY_LAYOUT)"), ("modern", "1 desc (modern)"),
           ("packed", "packed (modern)"))
values = {}
for layout, _ in layouts:
    for line in open(f"{sys.argv[1]}/{layout}.txt"):
        part = line[:32].strip().split(" (")[0]  # callgrind_parts.py: the label in 32 columns, then instructions
        if part in parts:
            values[(layout, part)] = float(line[32:40])
print(f"{'instructions per packet':<24}" + "".join(f"{name:>22}" for _, name in layouts))
for part in parts:
    print(f"{part:<24}" + "".join(f"{values[(layout, part)]:>22.1f}" for layout, _ in layouts))
TABLE
	sed -n '$p' "$out/two.txt"
	exit 0
fi
if [ "$xdp" = yes ]; then
	make -C "$build" -j2 xdp_fwd_bench >/dev/null
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
	valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no --toggle-collect=bench_measured_rounds \
		--callgrind-out-file="$out/xdp.out" "$build/bench/xdp_fwd_bench" "$callgrind_packets" \
		>"$out/valgrind.log" 2>&1 || {
		cat "$out/valgrind.log" >&2
		exit 1
	}
	use_batch_of_bench xdp_fwd_bench
	echo "ixy $(bench_commit "$repo"): AF_XDP driver's rings" \
		"(xdp_ring.c) against a simulated kernel side, shared UMEM, rings of 512, batch $FWD_BATCH_SIZE, both" \
		"directions, the kernel's side excluded"
	python3 "$repo/bench/callgrind_parts.py" "$out/xdp.out"
	exit 0
fi
make -C "$build" -j2 fwd_bench_count >/dev/null
timed=no
if make -C "$build" -j2 fwd_bench_time >/dev/null 2>&1; then
	timed=yes
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "ixy $(bench_commit "$repo")" \
	"(driver: $(git -C "$repo" log -1 --format=%h -- src/driver/ixgbe.c 2>/dev/null || echo '?')$(
	git -C "$repo" diff --quiet -- src/driver/ixgbe.c src/mempool.c 2>/dev/null || echo ', with uncommitted changes'))"
echo "CPU: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p'), $(nproc) CPUs, load average" \
	"$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"

# The measured rounds only: instrumentation starts after the warm-up (client request in fwd_bench.c) and costs are
# collected inside bench_measured_rounds() only.
callgrind() {
	profile=$1
	shift
	valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no --toggle-collect=bench_measured_rounds \
		--callgrind-out-file="$profile" "$@" >"$out/valgrind.log" 2>&1 || {
		cat "$out/valgrind.log" >&2
		exit 1
	}
}
if [ "$queues" = yes ]; then
	for n in 1 2 4; do
		FWD_BENCH_QUEUES=$n callgrind "$out/queues$n.out" "$build/bench/fwd_bench_count" "$callgrind_packets"
		use_batch_of_bench "# fwd_bench_count"
		echo
		echo "queues per port: $n"
		python3 "$repo/bench/callgrind_parts.py" "$out/queues$n.out" | tee "$out/queues$n.txt"
	done
	[ -n "$doc" ] || exit 0
	# The rows of callgrind_parts.py's output (a label of 32 characters, then the instructions) side by side.
	{
		echo "ixy $(bench_commit "$repo"), $(date -u +%Y-%m-%d), counted by callgrind, $(cc --version | head -1)" \
			"-O2, batch $FWD_BATCH_SIZE, ring 512, the 82599 model excluded:"
		echo
		echo "| instructions per packet | 1 queue | 2 queues | 4 queues |"
		echo "|---|---:|---:|---:|"
		awk 'BEGIN { label["RX"] = "RX (`ixgbe_rx_batch`)"; label["TX"] = "TX (`ixgbe_tx_batch`, `tx_clean`)"
				label["memory"] = "memory (`pkt_buf_*`)"; label["forwarding"] = "forwarding (`forward()` loop)"
				label["total"] = "total"; n = split("RX TX memory forwarding total", order, " ") }
			$1 in label { row[$1] = row[$1] " | " sprintf("%.1f", substr($0, 33, 8)) }
			END { for (i = 1; i <= n; i++) print "| " label[order[i]] row[order[i]] " |" }' \
			"$out/queues1.txt" "$out/queues2.txt" "$out/queues4.txt"
	} | doc_table "$doc" queues && echo "table written into $doc"
	exit
fi
callgrind "$out/callgrind.out" "$build/bench/fwd_bench_count" "$callgrind_packets"
use_batch_of_bench "# fwd_bench_count"
if [ "$timed" = yes ]; then
	"$build/bench/fwd_bench_time" "$time_packets" >"$out/ticks.txt"
	python3 "$repo/bench/callgrind_parts.py" "$out/callgrind.out" "$out/ticks.txt"
else
	echo "(no fwd_bench_time: TSC timing needs x86)"
	python3 "$repo/bench/callgrind_parts.py" "$out/callgrind.out"
fi
if [ "$cache" = yes ]; then
	echo
	echo "callgrind cache simulation: L1d 32 KiB 8-way, L2 1 MiB 8-way, 64 byte lines"
	callgrind "$out/callgrind-cache.out" --cache-sim=yes --D1=32768,8,64 --I1=32768,8,64 --LL=1048576,8,64 \
		"$build/bench/fwd_bench_count" "$callgrind_packets"
	python3 "$repo/bench/callgrind_parts.py" "$out/callgrind-cache.out"
fi
