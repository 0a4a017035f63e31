#!/usr/bin/env bash
# Test of bench/evaluate.sh --quick (batch sizes 1 and 32, ring sizes 64 and 512): it runs, writes both CSV files with
# the columns docs/benchmark.md describes, and its numbers behave as the method says: batching makes a packet cheaper
# (fewer instructions at batch 32 than at 1), and the ring size changes no instruction of the forwarding path; and
# bench/run.sh, run on the batch-1 build, counts the same instructions per packet.
#
#   test_evaluate.sh WORKDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${1:?usage: $0 WORKDIR}
rm -rf "$work/out"
mkdir -p "$work"
BUILD_DIR=$work/builds "$here/evaluate.sh" --quick "$work/out" >"$work/evaluate.log" 2>&1 ||
	{ cat "$work/evaluate.log"; echo "FAIL: evaluate.sh --quick"; exit 1; }
header="batch,ring,instructions,l1d_misses,tsc_median,tsc_min,tsc_max"
failed=0
for csv in batch ring; do
	if [ "$(head -1 "$work/out/$csv.csv")" != "$header" ] || [ "$(wc -l <"$work/out/$csv.csv")" != 3 ]; then
		echo "FAIL: $csv.csv is not a header and two rows:"
		cat "$work/out/$csv.csv"
		failed=1
	fi
done
instr() { awk -F, -v b="$2" -v r="$3" '$1 == b && $2 == r { print $3 }' "$work/out/$1.csv"; }
one=$(instr batch 1 512) thirty_two=$(instr batch 32 512) ring64=$(instr ring 32 64) ring512=$(instr ring 32 512)
echo "instructions per packet: batch 1 $one, batch 32 $thirty_two; batch 32 with ring 64 $ring64, ring 512 $ring512"
awk -v a="$one" -v b="$thirty_two" 'BEGIN { exit !(b > 0 && a > 2 * b) }' ||
	{ echo "FAIL: batch 32 should cost well under half of batch 1"; failed=1; }
[ "$ring64" = "$ring512" ] || { echo "FAIL: the ring size changed the instruction count"; failed=1; }
# bench/run.sh on evaluate.sh's batch-1 build (the book's chapter 1, exercise 1: another FWD_BATCH_SIZE): the same
# instructions per packet as evaluate.sh measured, not a figure divided by the default batch of 32.
BUILD_DIR=$work/builds/batch-1 CALLGRIND_PACKETS=16384 TIME_PACKETS=100000 "$here/run.sh" >"$work/run.log" 2>&1 ||
	{ cat "$work/run.log"; echo "FAIL: run.sh on the batch-1 build"; failed=1; }
run_one=$(awk '/^total  / { print substr($0, 33, 8) + 0 }' "$work/run.log")
echo "run.sh on the batch-1 build: $run_one instructions per packet"
if [ -z "$run_one" ] || [ "$run_one" != "$one" ]; then
	echo "FAIL: run.sh says ${run_one:-nothing} instructions per packet at batch 1, evaluate.sh $one"
	failed=1
fi
[ $failed = 0 ] && echo "PASS"
exit $failed
