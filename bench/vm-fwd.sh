#!/bin/bash
# ixy-fwd's throughput in a QEMU/TCG guest, this tree against an older commit, alternating boots (docs/benchmark.md).
# Each boot (test/vm/run-vm.sh --scenario bench-fwd, four NICs of one kind) runs ixy-pktgen on A and ixy-fwd B -> C
# for SECONDS, ROUNDS times. Boots alternate between the two builds so that drifts of the shared machine hit both.
# Prints every run, the median per build and the ratio. A benchmark, not a test: nothing is asserted.
#
# Usage: bench/vm-fwd.sh BASE_COMMIT [BOOTS_EACH [SECONDS [ROUNDS [NIC_KIND]]]]   (defaults 2, 10, 2, legacy)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/bench/lib.sh"
base=${1:?usage: $0 BASE_COMMIT [BOOTS_EACH [SECONDS [ROUNDS [NIC_KIND]]]]}
boots=${2:-2}
seconds=${3:-10}
rounds=${4:-2}
kind=${5:-legacy}
work=${BUILD_DIR:-$repo/build-vm-fwd}
mkdir -p "$work"

# The base commit in a worktree of its own; both built as released (Release, no sanitizers).
if [ ! -d "$work/base-src" ]; then
	git -C "$repo" worktree add --detach "$work/base-src" "$base" >/dev/null
fi
git -C "$work/base-src" checkout -q --detach "$base"
for build in "new:$repo" "base:$work/base-src"; do
	name=${build%%:*}
	cmake -S "${build#*:}" -B "$work/$name" -DCMAKE_BUILD_TYPE=Release -DIXY_SANITIZE=OFF >/dev/null
	make -C "$work/$name" -j2 >/dev/null
done

results=$work/results.txt
: >"$results"
for boot in $(seq "$boots"); do
	for name in new base; do
		out=$work/boot-$name-$boot
		# This tree's run-vm.sh and scenario, the build's binaries.
		"$repo/test/vm/run-vm.sh" --build-dir "$work/$name" --scenario bench-fwd --nics "$kind" --out "$out" \
			--env "IXY_BENCH_SECONDS=$seconds" --env "IXY_BENCH_ROUNDS=$rounds" >"$out.log" 2>&1 ||
			echo "($name boot $boot: run-vm.sh exit $?, see $out.log)"
		tr -d '\r' <"$out/console.log" | sed -n "s/.*IXY-VM: bench fwd run \([0-9]*\): forwarded \([0-9]*\) in .*/$name $boot \1 \2/p" >>"$results"
	done
done
awk -v s="$seconds" -v kind="$kind" "$bench_awk"'
	{ kpps = $4 / s / 1000; printf "%-4s boot %s run %s: %7.1f kpps\n", $1, $2, $3, kpps; rate[$1, ++n[$1]] = kpps }
	function median(b,   i, k, a) {
		k = n[b]
		for (i = 1; i <= k; i++) a[i] = rate[b, i]
		bench_sort(a, k)
		return bench_median(a, k)
	}
	END {
		if (!n["new"] || !n["base"]) { print "no results: see the boot logs"; exit 1 }
		printf "%s NICs, median: new %.1f kpps, base %.1f kpps, new / base = %.2f\n", kind, median("new"),
			median("base"), median("new") / median("base")
	}' "$results"
