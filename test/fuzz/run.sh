#!/usr/bin/env bash
# Bounded fuzzing, for CI (scripts/test.sh) and by hand: builds the fuzz targets of test/fuzz with clang, libFuzzer,
# AddressSanitizer and UndefinedBehaviorSanitizer in build-fuzz/, then for each target
#   1. replays the inputs that once crashed (test/fuzz/regressions/<target>/),
#   2. fuzzes for FUZZ_SECONDS (default 15; with --long 300) starting from the seeds in test/fuzz/corpus/<target>/
#      plus what earlier runs in this build directory found (build-fuzz/fuzz-corpus/<target>/, never committed),
# and prints the time and number of executions. Exits non-zero if any target crashed or broke an invariant; the
# crashing input is in build-fuzz/fuzz-artifacts/: keep it in test/fuzz/regressions/<target>/ once fixed.
#
#   test/fuzz/run.sh          CI's run: 15 s per target, one target per CPU at a time
#   test/fuzz/run.sh --long   a longer search by hand: 300 s per target (about half an hour for all on two CPUs)
#
# Environment: FUZZ_SECONDS (per target, over either default; 0: only run the seeds and regressions), FUZZ_TARGETS
# (default "pcap pcap_read args ixgbe_rx ixgbe_tx virtio_rx virtio_tx virtio_caps virtio_mq virtio_packed
# xdp_rings"; a target whose code is not in the build, like ixgbe_rx without test/model, is skipped),
# FUZZ_BUILD_DIR (default build-fuzz), FUZZ_JOBS (targets fuzzed at a time, default one per CPU).
set -uo pipefail
cd "$(dirname "$0")/../.."
default_seconds=15
case "${1:-}" in
	'') ;;
	--long) default_seconds=300 ;;
	*) echo "usage: $0 [--long]" >&2; exit 2 ;;
esac
seconds=${FUZZ_SECONDS:-$default_seconds}
case "$seconds" in '' | *[!0-9]*) echo "fuzz: FUZZ_SECONDS must be a number" >&2; exit 2 ;; esac
build=${FUZZ_BUILD_DIR:-build-fuzz}
targets=${FUZZ_TARGETS:-pcap pcap_read args ixgbe_rx ixgbe_tx virtio_rx virtio_tx virtio_caps virtio_mq virtio_packed xdp_rings}

if ! command -v clang >/dev/null; then
	echo "fuzz: clang is not installed" >&2
	exit 1
fi
# The whole build gets coverage instrumentation (fuzzer-no-link), so libFuzzer sees into the code under test;
# IXY_SANITIZE adds ASan + UBSan everywhere.
mkdir -p "$build"
if ! cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Release -DIXY_SANITIZE=ON -DIXY_FUZZ=ON \
	-DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link -g" >"$build/fuzz-configure.log" 2>&1; then
	cat "$build/fuzz-configure.log" >&2
	exit 1
fi
available=$(cmake --build "$build" --target help 2>/dev/null)
binaries=()
present=""
for target in $targets; do
	if grep -qw "fuzz_$target" <<<"$available"; then
		binaries+=("fuzz_$target")
		present="$present $target"
	else
		echo "fuzz_$target: not part of this build, skipped"
	fi
done
targets=$present
[ ${#binaries[@]} -gt 0 ] || exit 0
if ! cmake --build "$build" -j2 --target "${binaries[@]}" >"$build/fuzz-build.log" 2>&1; then
	cat "$build/fuzz-build.log" >&2
	exit 1
fi

# fuzz_one TARGET: replays its regressions, fuzzes it; its report goes to $build/fuzz-TARGET.out, its summary line
# to $build/fuzz-TARGET.summary. Returns non-zero if it failed.
fuzz_one() {
	local target=$1
	local binary="$build/test/fuzz/fuzz_$target"
	local corpus="$build/fuzz-corpus/$target"
	local artifacts="$build/fuzz-artifacts/$target/"
	local log="$build/fuzz-$target.log"
	local regressions=() limit start rc elapsed executions crash
	mkdir -p "$corpus" "$artifacts"
	if [ -d "test/fuzz/regressions/$target" ]; then
		mapfile -t regressions < <(find "test/fuzz/regressions/$target" -type f | sort)
	fi
	if [ ${#regressions[@]} -gt 0 ] && ! "$binary" "${regressions[@]}" >"$log" 2>&1; then
		tail -n 40 "$log"
		echo "fuzz_$target: a regression input fails again (log: $log)"
		echo "fuzz_$target: a regression input fails again" >"$build/fuzz-$target.summary"
		return 1
	fi
	if [ "$seconds" -gt 0 ]; then
		limit=(-max_total_time="$seconds")
		echo "fuzz_$target: fuzzing for $seconds s"
	else
		limit=(-runs=0) # only the seeds and what earlier runs found
	fi
	start=$(date +%s)
	# -close_fd_mask=3: the target's own output (ixy messages, model violations it provokes on purpose) is
	# dropped; libFuzzer and sanitizer reports still appear. A crash is re-run below with its output.
	"$binary" "${limit[@]}" -timeout=30 -close_fd_mask=3 -print_final_stats=1 \
		-artifact_prefix="$artifacts" "$corpus" "test/fuzz/corpus/$target" >"$log" 2>&1
	rc=$?
	elapsed=$(($(date +%s) - start))
	executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	echo "fuzz_$target: ${elapsed} s, ${executions:-?} executions, exit $rc" >"$build/fuzz-$target.summary"
	if [ $rc != 0 ]; then
		tail -n 60 "$log"
		crash=$(grep -o "Test unit written to .*" "$log" | sed 's/Test unit written to //' | tail -n 1)
		if [ -n "$crash" ] && [ -f "$crash" ]; then
			echo "fuzz_$target: crashing input $crash; its output when replayed:"
			"$binary" "$crash" 2>&1 | tail -n 40
		fi
		return 1
	fi
}

# FUZZ_JOBS targets at a time (default: one per CPU; each fuzzer is one process), their reports in target order.
jobs=${FUZZ_JOBS:-$(nproc)}
case "$jobs" in '' | *[!0-9]* | 0) echo "fuzz: FUZZ_JOBS must be a number above 0" >&2; exit 2 ;; esac
for target in $targets; do
	while [ "$(jobs -pr | wc -l)" -ge "$jobs" ]; do
		wait -n
	done
	rm -f "$build/fuzz-$target.summary" "$build/fuzz-$target.failed"
	{ fuzz_one "$target" || touch "$build/fuzz-$target.failed"; } >"$build/fuzz-$target.out" 2>&1 &
done
wait
failed=()
summary=()
for target in $targets; do
	[ ! -e "$build/fuzz-$target.failed" ] || failed+=("$target")
	cat "$build/fuzz-$target.out"
	summary+=("$(cat "$build/fuzz-$target.summary" 2>/dev/null || echo "fuzz_$target: no summary")")
done

echo
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz: FAILED: ${failed[*]}"
	exit 1
fi
echo "fuzz: no crashes"
