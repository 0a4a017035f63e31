#!/bin/sh
# ctest bench_threads: bench/threads.sh runs with a built threads_bench (few packets, two runs of each) and writes a
# table of two rows, 1 and 2 threads, between the markers of a copy of a document. Nothing about speed is asserted:
# the machine is shared.
#
#   test_threads.sh THREADS_BENCH WORKDIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=${2:?usage: $0 THREADS_BENCH WORKDIR}
mkdir -p "$work"
printf '%s\n' "# Doc" "<!-- threads: begin -->" "old" "<!-- threads: end -->" "after" >"$work/doc.md"
failed=0
THREADS_BENCH=$1 "$here/threads.sh" --doc "$work/doc.md" 64000 2 >"$work/threads.log" 2>&1 ||
	{ cat "$work/threads.log"; echo "FAIL: threads.sh"; exit 1; }
cat "$work/threads.log"
rows=$(grep -c '^| [12] thread' "$work/doc.md")
[ "$rows" = 2 ] || { echo "FAIL: $rows rows for 1 and 2 threads in the document, wanted 2"; failed=1; }
grep -q '^ratio [0-9]' "$work/threads.log" || { echo "FAIL: no ratio"; failed=1; }
[ "$(tail -1 "$work/doc.md")" = after ] || { echo "FAIL: the text after the table changed"; failed=1; }
[ $failed = 0 ] && echo "PASS"
exit $failed
