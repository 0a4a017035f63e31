#!/bin/sh
# The line ledger: cloc code lines (no blank or comment lines) of ixy, on one line per part.
#   paper    the paper's forwarder: ixy-fwd between two 82599s reached through sysfs, as root, polling, one queue
#            each, rates every second, totals and a clean stop at Ctrl-C. The paper's budget is BUDGET lines; until
#            the path is down to it, it may not grow past PAPER_CEILING, where it stands (or this fails).
#   feature  each feature in files of its own, which the paper's files enter by one call. Its count may only go
#            down (its ceiling is in the table below), unless an issue adds to that feature.
# Every .c and .h file of apps/, include/ixy/ and src/ is named on exactly one line; a file on none fails the count,
# and so does a README.md whose first screen does not give the two sums.
# Prints "paper <n> <file>" per file, "feature <name> <n> <file>..." per feature, then a line of the sums.
#   count-lines.sh --default-run             prints the lines ixy-fwd's default run executes beside the paper's (below)
#   count-lines.sh --files paper|<feature>   prints that line's files, one per line, and counts nothing: the one list
#                                            the paper-only build (CMakeLists.txt, IXY_PAPER_ONLY) and the coverage of
#                                            the paper's scenario (scripts/coverage-paper.sh) read.
#   count-lines.sh --lines                   prints the names of the ledger's lines, paper first, one per line.
set -eu
cd "$(dirname "$0")/.."

BUDGET=1000
PAPER_CEILING=1255
# The paper's path in the book's reading order (chapters 1-4): the app and the device API, memory, PCI and taking a
# device, the driver.
paper="apps/ixy-fwd.c apps/fwd.h apps/fwd_paper.c apps/common/rates.h apps/common/signals.h apps/common/signals.c
	include/ixy/ixy.h src/no_queue.c src/stats.c include/ixy/memory.h src/dma_provider.h src/memory.c src/mempool.c
	src/device.c src/entries.h src/paper_entries.c src/pci.h src/pci.c src/log.h src/driver/driver.h
	src/driver/plain/reg_io.h src/driver/delay.h src/driver/ixgbe.h src/driver/ixgbe.c"
# The register and descriptor names the paper's driver includes: compiled with the paper's files, but counted apart,
# as the original counts its ixgbe_type.h apart (data from the datasheet, not code to read).
paper_registers="src/driver/ixgbe_regs.h src/driver/intel_adv_desc.h"
# name, ceiling, files (shell patterns), in the order of the book's chapters.
features="
other-drivers     2421 src/driver/igb.c src/driver/virtio.c src/driver/virtio_legacy.c src/driver/virtio_modern.c
                       src/driver/virtio_transport.h src/driver/virtio_queue.[ch] src/driver/virtio_packed.c
registers          254 src/driver/igb_regs.h src/driver/virtio_regs.h src/driver/virtio_spec.h
vfio               327 src/vfio.[ch] src/access.[ch]
interrupts         329 src/interrupts.c include/ixy/interrupts.h src/pci_interrupts.h src/driver/i*_interrupts.[ch]
af-xdp            1176 src/driver/xdp*.[ch] src/xdp_memory.[ch]
many-cores         463 apps/fwd_queues.h apps/common/queue_rate.h include/ixy/rss.h src/rss.c src/driver/*_rss.[ch]
fail-safety        382 src/checks.[ch] src/failsafe.[ch] include/ixy/checks.h src/driver/injected_failure.h
options            259 apps/common/options.[ch] apps/common/parse.[ch] apps/fwd_features.c
trace              280 src/trace.[ch] src/driver/traced/reg_io.h src/driver/[iv]*_trace.c
entries             29 src/feature_entries.c src/driver/ixgbe_features.c
settings            59 include/ixy/settings.h src/driver/ixgbe_settings.c
least-privilege    382 src/sandbox.c include/ixy/sandbox.h
other-apps        2483 apps/ixy-pktgen.c apps/ixy-pcap.c apps/common/generator.[ch] apps/common/packet.[ch]
                       apps/common/pcap.[ch] apps/common/pacing.[ch] apps/common/sizes.[ch]
                       apps/common/pcap_read.[ch] apps/common/replay.[ch] apps/common/sender.h
                       apps/common/histogram.[ch] apps/common/report.[ch] apps/common/flows.[ch]
                       apps/common/pktgen_options.[ch]
e1000              555 src/driver/e1000.c src/driver/e1000_regs.h src/driver/e1000_interrupts.[ch]
                       src/driver/e1000_trace.c
"

features_lines() { # one feature per line: a line that starts with a name; lines starting with blanks continue it
	echo "$features" | awk 'NF && $0 !~ /^ / { if (l) print l; l = $0; next } NF { l = l " " $0 } END { print l }'
}
if [ "${1:-}" = --lines ]; then
	echo paper
	features_lines | awk '{ print $1 }'
	exit 0
fi
if [ "${1:-}" = --files ]; then
	[ $# -eq 2 ] || { echo "usage: count-lines.sh [--lines | --files paper|<feature>]" >&2; exit 2; }
	if [ "$2" = paper ]; then
		list="$paper $paper_registers"
	else
		list=$(features_lines | awk -v n="$2" '$1 == n { $1 = ""; $2 = ""; print }')
		[ -n "$list" ] || { echo "count-lines: no line of the ledger is named '$2'" >&2; exit 2; }
	fi
	for p in $list; do
		for f in $p; do echo "$f"; done # a pattern becomes its files
	done
	exit 0
fi

# What ixy-fwd's default run (ixy-fwd <pci1> <pci2>, the full build) executes beside the paper's files, why, and what
# turns it off: the paper-only build (cmake -DIXY_PAPER_ONLY=ON) runs none of it; in the full build each of these is a
# check or a question asked once or once a round, and only the sandbox has an option that skips it. Measured, not claimed: the coverage stage of
# scripts/test.sh (scripts/coverage-paper.sh) fails when a line of the ledger executes that is not named here, or one
# named here executes nothing. name, then why and what turns it off.
default_run="
options          the command line is parsed strictly; features join main through fwd_entry. off: paper-only build
entries          drivers and features join ixy_init and ixgbe_init through their tables. off: paper-only build
fail-safety      both NICs are checked before either is taken (in use, root, huge pages). off: paper-only build
vfio             the way to the NICs is chosen: sysfs, or VFIO for one bound to vfio-pci. off: paper-only build
af-xdp           its driver is asked whether the name is its own (xdp:<ifname>). off: paper-only build
interrupts       ixgbe_init and each round ask whether to wait (--wait <ms> waits). off: paper-only build
many-cores       queue 0's counters pass the queues' file; RSS is off with one queue. off: paper-only build
trace            ixy_init and ixgbe_init ask whether to trace (IXY_TRACE=1 traces). off: paper-only build
least-privilege  root is dropped, the seccomp filter entered once the NICs run. off: --no-sandbox (filter only)
"
if [ "${1:-}" = --default-run ]; then
	echo "$default_run" | awk 'NF { print $1 }'
	exit 0
fi

if ! command -v cloc >/dev/null 2>&1; then
	echo "count-lines: cloc is missing; install it with: apt-get install -y cloc" >&2
	exit 2
fi
code_lines() { # cloc --csv: "files,language,blank,comment,code" per language, then SUM
	cloc --quiet --csv --hide-rate "$@" | awk -F, '$2 != "language" && $2 != "SUM" { n += $5 } END { print n + 0 }'
}

fail=0
problem() { # problem TEXT: a reason to fail, on stderr
	echo "count-lines: $*" >&2
	fail=1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
paper_n=0
for f in $paper; do
	[ -e "$f" ] || problem "$f, a file of the paper's path, does not exist"
	n=$(code_lines "$f")
	echo "paper $n $f"
	echo "$f" >>"$tmp/listed"
	paper_n=$((paper_n + n))
done
n=$(code_lines $paper_registers)
echo "paper-registers $n" $paper_registers "(counted apart)"
echo $paper_registers | tr ' ' '\n' >>"$tmp/listed"
registers_n=$n
features_n=0
# One feature per line that starts with a name; lines that start with blanks continue its file list.
features_lines >"$tmp/features"
while read -r name ceiling patterns; do
	files=
	for p in $patterns; do
		if [ -e "$p" ]; then
			files="$files $p"
		else
			problem "feature $name: no file is $p"
		fi
	done
	n=$(code_lines $files)
	echo "feature $name $n" $files
	echo $files | tr ' ' '\n' >>"$tmp/listed"
	features_n=$((features_n + n))
	[ "$n" -le "$ceiling" ] || problem "feature $name has $n lines, above its $ceiling"
done <"$tmp/features"
for f in $(find apps include/ixy src -name '*.[ch]' | sort); do
	case $(grep -cx "$f" "$tmp/listed") in
	0) problem "$f is on no line of the ledger" ;;
	1) ;;
	*) problem "$f is on more than one line of the ledger" ;;
	esac
done
[ "$paper_n" -le "$PAPER_CEILING" ] || problem "the paper's path has $paper_n code lines, above its $PAPER_CEILING"
# The README's first screen gives both sums.
total_n=$((paper_n + registers_n + features_n)) # all of ixy: the paper's register names too
grep -q "\*\*$paper_n code lines\*\*" README.md && grep -q "\*\*$total_n\*\*" README.md ||
	problem "README.md does not say **$paper_n code lines** (the paper's path) and **$total_n** (all)"
echo "$default_run" | awk 'NF { name = $1; $1 = ""; printf "default-run %-16s%s\n", name, $0 }'
echo "paper=$paper_n budget=$BUDGET paper-registers=$registers_n features=$features_n total=$total_n"
exit $fail
