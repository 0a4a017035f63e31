#!/bin/sh
# The line ledger: cloc code lines (no blank or comment lines) of ixy, on one line per part.
#   paper    the paper's forwarder: ixy-fwd between two 82599s reached through sysfs, as root, polling, one queue
#            each, rates every second, totals and a clean stop at Ctrl-C. The paper's budget is BUDGET lines; until
#            the path is down to it, it may not grow past PAPER_CEILING, where it stands (or this fails).
#   feature  each feature in files of its own, which the paper's files enter by one call. Its count may only go
#            down (its ceiling is in the table below), unless an issue adds to that feature.
# Every .c and .h file of apps/, include/ixy/ and src/ is named on exactly one line; a file on none fails the count.
# Prints "paper <n> <file>" per file, "feature <name> <n> <file>..." per feature, then a line of the sums.
set -eu
cd "$(dirname "$0")/.."

BUDGET=1000
PAPER_CEILING=1134
# The paper's path in reading order: the app, then down the floors to the driver.
paper="apps/ixy-fwd.c apps/fwd.h apps/common/rates.h apps/common/signals.h apps/common/signals.c include/ixy/ixy.h
	include/ixy/memory.h src/device.c src/pci.h src/pci.c src/memory.c src/mempool.c src/stats.c src/log.h
	src/driver/driver.h src/driver/ixgbe.c"
# name, ceiling, files (shell patterns), in the order of the book's chapters.
features="
other-drivers     2010 src/driver/igb.c src/driver/virtio.c src/driver/virtio_legacy.c src/driver/virtio_modern.c
                       src/driver/virtio_transport.h
registers          392 src/driver/*_regs.h src/driver/intel_adv_desc.h src/driver/virtio_spec.h
vfio               352 src/vfio.[ch] src/access.[ch] src/dma_provider.c
interrupts         304 src/interrupts.c include/ixy/interrupts.h src/pci_interrupts.h src/driver/*_interrupts.[ch]
af-xdp             982 src/driver/xdp*.[ch] src/xdp_memory.[ch]
many-cores         445 apps/fwd_queues.h apps/common/queue_rate.h include/ixy/rss.h src/rss.c src/driver/*_rss.[ch]
fail-safety        410 src/checks.[ch] src/failsafe.[ch] include/ixy/checks.h src/driver/injected_failure.h
options            141 apps/common/options.[ch]
trace              281 src/trace.[ch] src/driver/trace_io.h src/driver/*_trace.c
least-privilege    385 src/sandbox.c include/ixy/sandbox.h
other-apps         494 apps/ixy-pktgen.c apps/ixy-pcap.c apps/common/generator.[ch] apps/common/packet.[ch]
                       apps/common/pcap.[ch]
"

if ! command -v cloc >/dev/null 2>&1; then
	echo "count-lines: cloc is missing; install it with: apt-get install -y cloc" >&2
	exit 2
fi
code_lines() { # cloc --csv: "files,language,blank,comment,code" per language, then SUM
	cloc --quiet --csv --hide-rate "$@" | awk -F, '$2 != "language" && $2 != "SUM" { n += $5 } END { print n + 0 }'
}

fail=0
listed=$(mktemp)
trap 'rm -f "$listed"' EXIT
paper_n=0
for f in $paper; do
	n=$(code_lines "$f")
	echo "paper $n $f"
	echo "$f" >>"$listed"
	paper_n=$((paper_n + n))
done
features_n=0
# One feature per line that starts with a name; lines that start with blanks continue its file list.
echo "$features" | awk 'NF && $0 !~ /^ / { if (l) print l; l = $0; next } NF { l = l " " $0 } END { print l }' |
	while read -r name ceiling patterns; do
		files=$(for p in $patterns; do if [ -e "$p" ]; then echo "$p"; fi; done)
		n=0
		if [ -n "$files" ]; then
			n=$(code_lines $files)
		fi
		echo "feature $name $n" $files
		echo "$files" >>"$listed"
		if [ "$n" -gt "$ceiling" ]; then
			echo "count-lines: feature $name has $n lines, above its $ceiling" >&2
			echo fail >>"$listed"
		fi
	done >"$listed.out"
cat "$listed.out"
features_n=$(awk '{ n += $3 } END { print n + 0 }' "$listed.out")
rm -f "$listed.out"
grep -qx fail "$listed" && fail=1
for f in $(find apps include/ixy src -name '*.[ch]' | sort); do
	case $(grep -cx "$f" "$listed") in
	0) echo "count-lines: $f is on no line of the ledger" >&2 && fail=1 ;;
	1) ;;
	*) echo "count-lines: $f is on more than one line of the ledger" >&2 && fail=1 ;;
	esac
done
echo "paper=$paper_n budget=$BUDGET features=$features_n total=$((paper_n + features_n))"
if [ "$paper_n" -gt "$PAPER_CEILING" ]; then
	echo "count-lines: the paper's path has $paper_n code lines, above its ceiling of $PAPER_CEILING" >&2
	fail=1
elif [ "$paper_n" -gt "$BUDGET" ]; then
	echo "count-lines: the paper's path has $paper_n code lines, $((paper_n - BUDGET)) above the budget of $BUDGET"
fi
exit $fail
