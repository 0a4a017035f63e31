#!/bin/bash
# ixy-fwd --queues 1 against --queues 2 in a QEMU/TCG guest with 2 vCPUs and igb NICs (docs/benchmark.md, "Many
# cores: queues and threads"; issue 20). One boot (test/vm/run-vm.sh --scenario bench-mq --nics igb): ixy-pktgen
# --flows 1024 on A, ixy-fwd B -> C with 1 and 2 queues alternating, SECONDS per run, ROUNDS runs of each. Prints every
# run, then a table of the median forwarded rate per queue count, the spread and the ratio to 1 queue. A benchmark,
# not a test: nothing is asserted. The source (ixy-pktgen) and the forwarder run in the guest, on its 2 vCPUs, not on
# this host: nothing here to pin them to (with ixy-fwd --queues 2 three busy threads share 2 vCPUs); the guest prints
# ixy-pktgen's totals (what was offered over the whole boot) beside ixy-fwd's queue and totals lines.
#
# Usage: bench/vm-mq.sh [--doc DOC] [SECONDS [ROUNDS]]   (defaults 10, 3)
#   --doc DOC  also writes the table into DOC between "<!-- begin: vm-threads, ... -->" and
#              "<!-- end: vm-threads -->"
# Environment: BUILD_DIR (default build-vm-mq: release flags, no sanitizers), FROM (a console.log of an earlier boot:
# then nothing is built or booted, the table is made from it)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
doc=
if [ "${1:-}" = "--doc" ]; then
	doc=${2:?usage: $0 [--doc DOC] [SECONDS [ROUNDS]]}
	shift 2
fi
seconds=${1:-10}
rounds=${2:-3}
work=${BUILD_DIR:-$repo/build-vm-mq}
console=${FROM:-}
setup=$(bench_setup "$repo")
if [ -z "$console" ]; then
	cmake -S "$repo" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DIXY_SANITIZE=OFF >/dev/null
	make -C "$work/build" -j2 >/dev/null
	"$repo/test/vm/run-vm.sh" --build-dir "$work/build" --scenario bench-mq --nics igb --out "$work/out" \
		--env "IXY_BENCH_SECONDS=$seconds" --env "IXY_BENCH_ROUNDS=$rounds" >"$work/run-vm.log" 2>&1 ||
		echo "(run-vm.sh: exit $?, see $work/run-vm.log)"
	console=$work/out/console.log
fi
# "IXY-VM: bench mq<q> run <i>: forwarded <n> in <s> s" -> bench_rates_table's "<name> <run> <packets> <seconds>"
tr -d '\r' <"$console" | sed -n 's/.*IXY-VM: bench \(mq[0-9]*\) run \([0-9]*\): forwarded \([0-9]*\) in \([0-9.]*\) s.*/\1 \2 \3 \4/p' \
	>"$work/runs.txt"
tr -d '\r' <"$console" | grep -e "^    queue app=ixy-fwd" -e "^    totals app=ixy-" || true
bench_rates_table mq1 median "1 queue" " (see $console)" mq1 "ixy-fwd --queues 1" mq2 "ixy-fwd --queues 2" \
	<"$work/runs.txt" | tee "$work/table.txt"
bench_write_table "$doc" vm-threads "$setup; guest: q35, 2 vCPUs (TCG), 4 igb NICs on UDP socket pairs, ixy-pktgen \
--flows 1024 on A, ixy-fwd B -> C polling, $rounds runs of $seconds s each, alternating in one boot" "$work/table.txt"
