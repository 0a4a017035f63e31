#!/bin/sh
# ctest bench_kicks: bench/vm/kicks.sh on a made-up QEMU trace. Four NICs reset in another order (val 0), then
# acknowledged (val 1) in the order A, B, C, D at addresses that do not sort that way, again acknowledged later (a
# second driver: no new NIC); notifications before, between and after two measured runs, some of a device that is not a
# NIC; the marks written one character at a time to the serial port's transmit register (with "\r", and a write to
# another register in between), and a line that only looks like a mark. Wants exactly the notifications inside each
# run, per NIC; and a failure for a trace with fewer than four NICs.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
serial() { # the characters of a line, as the serial port's events
	printf '%s\r\n' "$1" | od -An -v -tx1 | tr ' ' '\n' | grep . | while read -r c; do
		echo "serial_write write addr 0x00 val 0x$c"
	done
	echo "serial_write write addr 0x01 val 0x02"
}
notify() { # notify ADDRESS QUEUE COUNT
	for _ in $(seq "$3"); do echo "virtio_queue_notify vdev $1 n $2 vq 0x5555000000"; done
}
a=0x55d000000300 b=0x55d000000100 c=0x55d000000400 d=0x55d000000200 other=0x55d000000900
{
	for v in $d $c $b $a; do echo "virtio_set_status vdev $v val 0"; done
	for v in $a $b $c $d; do echo "virtio_set_status vdev $v val 1"; done
	echo "virtio_set_status vdev $other val 1"
	serial "IXY-VM: booted"
	notify $b 0 5
	serial "IXY-VM: bench ixy run 1: begin"
	notify $b 0 7
	notify $c 1 3
	notify $a 1 2
	notify $other 0 9
	serial "IXY-VM: ixy run 1: end"
	notify $d 0 4
	serial "IXY-VM: bench ixy run 1: end"
	notify $c 1 6
	echo "virtio_set_status vdev $b val 1"
	serial "IXY-VM: bench testpmd run 1: begin"
	notify $b 0 1
	notify $c 1 11
	serial "IXY-VM: bench testpmd run 1: end"
	notify $b 0 8
} >"$dir/trace.log"
"$here/vm/kicks.sh" "$dir/trace.log" >"$dir/out.txt"
cat "$dir/out.txt"
printf '%s\n' "kicks ixy run 1: A 2 B 7 C 3 D 4" "kicks testpmd run 1: A 0 B 1 C 11 D 0" >"$dir/want.txt"
cmp -s "$dir/out.txt" "$dir/want.txt" || { echo "FAIL: wanted"; cat "$dir/want.txt"; exit 1; }
grep -v -e "vdev $d val 1" -e "vdev $other val 1" "$dir/trace.log" >"$dir/three.log"
if "$here/vm/kicks.sh" "$dir/three.log" >/dev/null 2>&1; then
	echo "FAIL: a trace with three NICs counted"
	exit 1
fi
echo PASS
