#!/bin/sh
# How the VirtIO driver's accesses to memory it shares with the device come out on a weakly ordered CPU (issue 34):
# compiled for AArch64 at -O2, the packet paths must read what the device wrote with acquire loads (ldar, or ldapr
# with RCpc) and hand descriptors over with release stores (stlr). A plain load there (x86 forgives it) lets an
# AArch64 CPU read a packet's bytes before the flags that say the device wrote them.
#   packed_rx_batch      an 8 byte acquire load (length, id and flags) and an 8 byte release store (the refill)
#   packed_tx_batch      an 8 byte acquire load (id and flags) and a 16 bit release store (a descriptor's flags)
#   virtio_rx_version_1  a 16 bit acquire load (the split used index)
#   publish_and_notify   a 16 bit release store (the split available index)
# Usage: test_virtio_ordering.sh <repository>. Skips (77) without the cross compiler aarch64-linux-gnu-gcc.
set -eu
repo=$1
cc=aarch64-linux-gnu-gcc
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "skipped: no $cc (Debian package gcc-aarch64-linux-gnu)"
	exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for file in virtio_packed virtio; do
	"$cc" -std=c11 -O2 -D_GNU_SOURCE -I"$repo/include" -I"$repo/src" -S "$repo/src/driver/$file.c" -o "$out/$file.s"
done
failed=0
# expect FILE FUNCTION PATTERN WHAT: the function's assembly has at least one instruction matching PATTERN.
expect() {
	n=$(awk -v f="$2:" '$0 == f { inside = 1 } inside { print } inside && /^\t\.size\t/ { exit }' "$out/$1.s" |
		grep -cE "$3" || true)
	if [ "$n" -gt 0 ]; then
		echo "ok: $2: $n $4"
	else
		echo "FAILED: $2 ($1.c) has no $4"
		failed=1
	fi
}
expect virtio_packed packed_rx_batch '^	(ldar|ldapr)	x' "8 byte acquire load"
expect virtio_packed packed_rx_batch '^	stlr	x' "8 byte release store"
expect virtio_packed packed_tx_batch '^	(ldar|ldapr)	x' "8 byte acquire load"
expect virtio_packed packed_tx_batch '^	stlrh	' "16 bit release store"
expect virtio virtio_rx_version_1 '^	(ldar|ldapr)h	' "16 bit acquire load"
expect virtio publish_and_notify '^	stlrh	' "16 bit release store"
exit $failed
