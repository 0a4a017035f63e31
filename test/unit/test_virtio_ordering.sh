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
	# (src/driver/plain: the register accessors of the production build, as CMake puts them on the include path)
	"$cc" -std=c11 -O2 -D_GNU_SOURCE -I"$repo/include" -I"$repo/src" -I"$repo/src/driver/plain" \
		-S "$repo/src/driver/$file.c" -o "$out/$file.s"
done
failed=0
# expect FILE FUNCTION MIN PATTERN WHAT: the function's assembly has at least MIN instructions matching PATTERN. MIN
# is every such access the function makes (inlined helpers included, GCC 12 -O2): one of them made plain fails.
expect() {
	n=$(awk -v f="$2:" '$0 == f { inside = 1 } inside { print } inside && /^\t\.size\t/ { exit }' "$out/$1.s" |
		grep -cE "$4" || true)
	if [ "$n" -ge "$3" ]; then
		echo "ok: $2: $n $5 (at least $3)"
	else
		echo "FAILED: $2 ($1.c) has $n $5, expected at least $3"
		failed=1
	fi
}
# packed RX: the 8 byte word of each used descriptor (in order), the 16 bit flags (any order, the event area, the
# batch's look ahead); the refill's 8 byte stores (in order) and the 16 bit flags (any order).
expect virtio_packed packed_rx_batch 1 '^	(ldar|ldapr)	x' "8 byte acquire loads"
expect virtio_packed packed_rx_batch 4 '^	(ldar|ldapr)h	' "16 bit acquire loads"
expect virtio_packed packed_rx_batch 2 '^	stlr	x' "8 byte release stores"
expect virtio_packed packed_rx_batch 1 '^	stlrh	' "16 bit release stores"
# packed TX: the 8 byte word (in order) and the 16 bit flags (any order) of sent descriptors; the flags of offered ones.
expect virtio_packed packed_tx_batch 1 '^	(ldar|ldapr)	x' "8 byte acquire loads"
expect virtio_packed packed_tx_batch 1 '^	(ldar|ldapr)h	' "16 bit acquire loads"
expect virtio_packed packed_tx_batch 2 '^	stlrh	' "16 bit release stores"
expect virtio virtio_rx_version_1 1 '^	(ldar|ldapr)h	' "16 bit acquire loads"
expect virtio publish_and_notify 2 '^	stlrh	' "16 bit release stores"
exit $failed
