#!/bin/sh
# Throughput of ixy-fwd when it may sleep (--wait 1000: interrupts, issue 11) against pure polling (--poll), under
# ixy-pktgen's full load, in one QEMU guest (TCG, modern VirtIO NICs through VFIO), alternating runs. A benchmark,
# not a test: it prints each run and the ratio of the medians; under load the waiter should never sleep, so the
# ratio should be close to 1. Needs root (boots QEMU like the VM tests); takes about two minutes.
#
# Usage: bench/interrupts.sh [seconds per run (10)] [runs of each (3)]
# Environment: BUILD_DIR (default build-bench-vm)
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$repo/build-bench-vm}
seconds=${1:-10}
rounds=${2:-3}
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DIXY_SANITIZE=OFF >/dev/null
make -C "$build" -j2 >/dev/null
out=$build/bench-interrupts
rc=0
"$repo/test/vm/run-vm.sh" --build-dir "$build" --scenario bench-interrupts --vfio --nics modern --out "$out" \
	--env "IXY_BENCH_SECONDS=$seconds" --env "IXY_BENCH_ROUNDS=$rounds" >"$out.log" 2>&1 || rc=$?
tr -d '\r' <"$out/console.log" | awk -v s="$seconds" '
	/IXY-VM: bench / {
		mode = $3; n = $7
		printf "%-7s run %s %8d packets forwarded, %7.1f kpps\n", mode, $5, n, n / s / 1000
		rate[mode, ++count[mode]] = n / s
	}
	function median(mode,   i, j, t, k, a) {
		k = count[mode]
		for (i = 1; i <= k; i++) a[i] = rate[mode, i]
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	END {
		if (count["--poll"] && count["--wait"]) {
			p = median("--poll"); w = median("--wait")
			printf "median: --poll %.1f kpps, --wait %.1f kpps, --wait / --poll = %.3f\n", p / 1000, w / 1000, w / p
		} else {
			print "no results: see the guest console log"
		}
	}'
[ $rc = 0 ] || echo "run-vm.sh failed (exit $rc): $out.log"
exit $rc
