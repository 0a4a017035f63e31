#!/bin/sh
# Packets per second of wall time with ixy-fwd's forwarding in 1, 2 and (with 4 CPUs or more) 4 threads, a queue pair
# each, against two modelled 82599s (bench/threads_bench.c; docs/benchmark.md, "Many cores: queues and threads"). Runs
# alternate between the thread counts; prints every run, then a table of the median rate per thread count, the spread
# and the ratio to 1 thread, and the ratio of each round's runs (median, min..max).
# A benchmark, not a test: nothing is asserted about speed (the ctest bench_threads only checks that it runs).
# Who is the bottleneck (issue 29): there is no separate source or sink to pin or to saturate. Each forwarding thread
# is its own source and sink: the model puts a burst into its queues, then the thread forwards it, in turn, so what
# is offered is what is forwarded; threads_bench pins thread q to CPU q (modulo the CPUs it may use), as ixy-fwd.
#
# Usage: bench/threads.sh [--doc DOC] [PACKETS [RUNS]]   (defaults: 2000000 packets per run, 5 runs of each)
#   --doc DOC  also writes the table into DOC between "<!-- begin: threads, ... -->" and
#              "<!-- end: threads -->"
#              (bench/threads.sh --doc docs/benchmark.md regenerates the document's table)
# Environment: BUILD_DIR (default build-bench; release flags, no sanitizers), THREADS_BENCH (a built threads_bench:
# then nothing is built)
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
doc=
if [ "${1:-}" = "--doc" ]; then
	doc=${2:?usage: $0 [--doc DOC] [PACKETS [RUNS]]}
	shift 2
fi
packets=${1:-2000000}
runs=${2:-5}
bench=${THREADS_BENCH:-}
if [ -z "$bench" ]; then
	build=${BUILD_DIR:-$repo/build-bench}
	cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DIXY_SANITIZE=OFF >/dev/null
	make -C "$build" -j2 threads_bench >/dev/null
	bench=$build/bench/threads_bench
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

load=$(cut -d' ' -f1 /proc/loadavg)
"$bench" "$packets" "$runs" >"$out/bench.txt" || { cat "$out/bench.txt"; echo "$0: threads_bench failed" >&2; exit 1; }
grep -v '^run ' "$out/bench.txt"
echo "closed loop: each thread is its own source and sink (offered = forwarded), thread q pinned to CPU q modulo $(nproc)"
# "run <threads> <i> <packets> <wall> <cpu>" -> bench_rates_table's "<name> <run> <packets> <seconds>"
awk '$1 == "run" { print $2 "thread", $3, $4, $5 }' "$out/bench.txt" |
	bench_rates_table 1thread min "1 thread" " (see threads_bench's output)" \
		1thread "1 thread (queue 0)" 2thread "2 threads (queues 0 and 1)" 4thread "4 threads (queues 0 to 3)" \
		>"$out/table.txt" ||
	{ cat "$out/table.txt"; exit 1; }
cat "$out/table.txt"
# per thread count: "<n> thread(s) <CPUs busy> (<CPU ns per packet> ns)"
cpu=$(awk '$1 == "threads" { printf "%s%s thread%s %s (%s ns)", sep, $2, $2 == 1 ? "" : "s", $NF, $(NF - 2); sep = ", " }' \
	"$out/bench.txt")
# per thread count > 1: "<n> threads <median> (<min>..<max>)"
rounds=$(awk '$1 == "ratio_rounds" { printf "%s%s threads %s (%s..%s)", sep, $2, $4, $6, $8; sep = ", " }' \
	"$out/bench.txt")
setup="ixy $(bench_commit "$repo"), host: $(grep -m1 'model name' \
	/proc/cpuinfo | sed 's/.*: //') with $(nproc) CPUs, load average $load at the start; $runs runs of $packets \
packets each, alternating; CPUs busy (process CPU time / wall time) and CPU time per packet, medians: $cpu; \
the ratio of a round's run to its 1-thread run, median (min..max): $rounds"
bench_write_table "$doc" threads "$setup" "$out/table.txt"
