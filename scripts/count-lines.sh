#!/bin/sh
# Counts the code lines (cloc: without blank and comment lines) of what a reader must read to understand ixy on
# an 82599: the forwarder, the library core and the ixgbe driver (issue 3's budget: at most 1000 lines).
# Not counted: the VirtIO and igb drivers, the register headers (offsets and bits from the datasheets), the other
# apps, the tests; and, each printed on a line of its own with the sum, the parts the paper's ixy did not have:
# the fail-safety checks of src/checks.c and src/failsafe.c (refusing a bad request, a device that is not one of
# ixy's NICs, a NIC that is in use or whose DMA memory is missing; giving a NIC back to its kernel driver after a
# failed init), the VFIO way to reach a device (src/vfio.c: the IOMMU) with what a second way needs in the core (the
# operations sysfs and VFIO share, src/pci_access.h; the process's one choice of way and its DMA memory, src/access.c,
# src/dma_provider.c) and waiting for interrupts instead of polling (src/interrupts.c, include/ixy/interrupts.h,
# src/pci_interrupts.h, src/driver/ixgbe_interrupts.c), and the register trace for students
# (src/trace.c, src/driver/trace_io.h).
# Exits 1 if the counted total is above the budget of 1000 lines.
set -eu

BUDGET=1000
cd "$(dirname "$0")/.."

if ! command -v cloc >/dev/null 2>&1; then
	echo "count-lines: cloc is missing; install it with: apt-get install -y cloc" >&2
	exit 2
fi

files="apps/ixy-fwd.c apps/fwd.h"
failsafe_files="src/checks.c src/checks.h src/failsafe.c src/failsafe.h"
vfio_files="src/vfio.c src/vfio.h src/pci_access.h src/access.c src/access.h src/dma_provider.c"
interrupt_files="src/interrupts.c include/ixy/interrupts.h src/pci_interrupts.h src/driver/ixgbe_interrupts.c src/driver/ixgbe_interrupts.h"
trace_files="src/trace.c src/trace.h src/driver/trace_io.h"
core_files=$(ls include/ixy/*.h src/*.c src/*.h |
	grep -v -x -F "$(printf '%s\n' $failsafe_files $vfio_files $interrupt_files $trace_files)")
files="$files $core_files src/driver/driver.h src/driver/ixgbe.c"

# cloc --csv prints "files,language,blank,comment,code" per language and a SUM line; take the code column.
code_lines() {
	cloc --quiet --csv --hide-rate "$1" | awk -F, '$2 != "language" && $2 != "SUM" { n += $5 } END { print n + 0 }'
}

total=0
for file in $files; do
	code=$(code_lines "$file")
	printf '%6d  %s\n' "$code" "$file"
	total=$((total + code))
done
printf '%6d  total (budget %d)\n' "$total" "$BUDGET"
apart() {   # apart WHAT FILES...: prints the code lines of a part counted apart
	local what=$1 lines=0 file
	shift
	for file in "$@"; do
		lines=$((lines + $(code_lines "$file")))
	done
	printf '%6d  not counted: %s (%s)\n' "$lines" "$what" "$*"
	apart_total=$((apart_total + lines))
}
apart_total=0
apart "fail-safety checks" $failsafe_files
apart "a second way to reach a device: VFIO, the operations it shares with sysfs, the DMA memory switch" $vfio_files
apart "interrupts" $interrupt_files
apart "the register trace for students" $trace_files
printf '%6d  with them\n' "$((total + apart_total))"

if [ "$total" -gt "$BUDGET" ]; then
	echo "count-lines: $total code lines, $((total - BUDGET)) above the budget of $BUDGET" >&2
	exit 1
fi
