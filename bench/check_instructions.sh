#!/bin/sh
# Regression test (ctest bench_instructions, bench_instructions_virtio and bench_instructions_xdp, labels bench and
# novalgrind): counts the instructions per forwarded packet of the ixgbe (or VirtIO, or AF_XDP) forwarding path with
# callgrind, as bench/run.sh does, and fails if the total is more than 2% above the documented figure in
# bench/expected_instructions.txt. Counts are exact: no time is measured.
#
# Usage: check_instructions.sh <bench binary> <compiler id> <compiler version> [<key> <bench argument>...]
#   key: the line of the expected file to check (default instructions_per_packet, the ixgbe); the bench arguments go
#   in front of the packet count (virtio_fwd_bench: the layout). Key pcap_report_instructions_per_packet counts
#   pcap_report_bench's report_step (ixy-pcap --report, 64 flows) instead of the forwarding path; key
#   pktgen_instructions_per_frame pktgen_bench's generator_send (ixy-pktgen's default frame).
# Exits 77 (ctest: skipped) if the build's compiler is not the one the figure was measured with.
set -eu

bench_dir=$(cd "$(dirname "$0")" && pwd)
expected_file=$bench_dir/expected_instructions.txt
binary=$1
compiler="$2 ${3%%.*}" # id and major version
packets=${CALLGRIND_PACKETS:-64000}
key=${4:-instructions_per_packet}
shift $(($# < 4 ? $# : 4))

value() { # value KEY: the rest of the line "KEY ..." in the expected file
	sed -n "s/^$1 //p" "$expected_file"
}
expected=$(value "$key")
expected_compiler=$(value compiler)
if [ "$compiler" != "$expected_compiler" ]; then
	echo "skipped: the figure was measured with $expected_compiler, this build uses $compiler"
	exit 77
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if [ "$key" = pcap_report_instructions_per_packet ]; then
	# ixy-pcap --report's path (bench/pcap_report_bench.c, as bench/run.sh --pcap-report counts it): report_step's
	# instructions, and what it calls, divided by the packets; 64 flows.
	if ! valgrind --tool=callgrind --collect-atstart=no --toggle-collect=report_step \
		--callgrind-out-file="$out/callgrind.out" "$binary" "$packets" 64 >"$out/valgrind.log" 2>&1; then
		cat "$out/valgrind.log"
		exit 1
	fi
	total=$(awk -v packets="$packets" '/^(summary|totals):/ { printf "%.1f", $2 / packets; exit }' \
		"$out/callgrind.out")
	echo "total $total"
elif [ "$key" = pktgen_instructions_per_frame ]; then
	# ixy-pktgen's generator (bench/pktgen_bench.c, the default frame): generator_send's own instructions (with what
	# it inlines; not the pool's or the driver's functions) divided by the frames.
	if ! valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" "$binary" "$packets" default \
		>"$out/valgrind.log" 2>&1; then
		cat "$out/valgrind.log"
		exit 1
	fi
	total=$(callgrind_annotate "$out/callgrind.out" | awk -v packets="$packets" '/:generator_send / {
		gsub(",", "", $1); printf "%.1f", $1 / packets; exit }')
	echo "total $total"
else
	if ! valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no --toggle-collect=bench_measured_rounds \
		--callgrind-out-file="$out/callgrind.out" "$binary" "$@" "$packets" >"$out/valgrind.log" 2>&1; then
		cat "$out/valgrind.log"
		exit 1
	fi
	python3 "$bench_dir/callgrind_parts.py" "$out/callgrind.out" | tee "$out/parts.txt"
	total=$(awk '$1 == "total" { print $2 }' "$out/parts.txt")
fi
limit=$(awk -v e="$expected" 'BEGIN { printf "%.1f", e * 1.02 }')
if awk -v t="$total" -v l="$limit" 'BEGIN { exit !(t > l) }'; then
	echo "FAILED: $total instructions per packet, more than 2% above the documented $expected (limit $limit)"
	echo "If the rise is intended, update bench/expected_instructions.txt and docs/benchmark.md."
	exit 1
fi
echo "ok: $total instructions per packet (documented: $expected, limit $limit)"
