#!/bin/sh
# ctest bench_threads: bench/threads.sh runs with a built threads_bench (few packets, two runs of each) and writes a
# table of two rows, 1 and 2 threads, between the markers of a copy of a document; bench/vm-mq.sh makes its table
# from a made-up guest console. Nothing about speed is asserted: the machine is shared.
#
#   test_threads.sh THREADS_BENCH WORKDIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=${2:?usage: $0 THREADS_BENCH WORKDIR}
mkdir -p "$work"
printf '%s\n' "# Doc" "<!-- begin: threads, written by: cmd -->" "old" "<!-- end: threads -->" "after" >"$work/doc.md"
failed=0
THREADS_BENCH=$1 "$here/threads.sh" --doc "$work/doc.md" 64000 2 >"$work/threads.log" 2>&1 ||
	{ cat "$work/threads.log"; echo "FAIL: threads.sh"; exit 1; }
cat "$work/threads.log"
rows=$(grep -c '^| [12] thread' "$work/doc.md")
[ "$rows" = 2 ] || { echo "FAIL: $rows rows for 1 and 2 threads in the document, wanted 2"; failed=1; }
grep -q '^ratio [0-9]' "$work/threads.log" || { echo "FAIL: no ratio"; failed=1; }
[ "$(tail -1 "$work/doc.md")" = after ] || { echo "FAIL: the text after the table changed"; failed=1; }
# bench/vm-mq.sh's table from a made-up console of a bench-mq boot (FROM: no QEMU): a row per queue count.
printf '%s\r\n' "IXY-VM: bench mq1 run 1: forwarded 1000 in 10 s" "IXY-VM: bench mq2 run 1: forwarded 1500 in 10 s" \
	"    queue app=ixy-fwd pci=0000:01:00.0 queue=0 rx_packets=700 forwarded=700 tx_full=0" \
	"IXY-VM: bench mq1 run 2: forwarded 3000 in 10 s" "IXY-VM: bench mq2 run 2: forwarded 4000 in 10 s" \
	>"$work/console.log"
printf '%s\n' "<!-- begin: vm-threads, written by: cmd -->" "<!-- end: vm-threads -->" >"$work/vm.md"
FROM=$work/console.log BUILD_DIR=$work "$here/vm-mq.sh" --doc "$work/vm.md" >"$work/vm-mq.log" 2>&1 ||
	{ cat "$work/vm-mq.log"; echo "FAIL: vm-mq.sh"; failed=1; }
grep -q '^| ixy-fwd --queues 2 | 0.3 | 0.1..0.4 | 1.38 |$' "$work/vm.md" ||
	{ cat "$work/vm-mq.log" "$work/vm.md"; echo "FAIL: vm-mq.sh's table"; failed=1; }
[ $failed = 0 ] && echo "PASS"
exit $failed
