#!/usr/bin/env bash
# scripts/provision.sh without root and without touching the machine: its refusals of bad command lines (exit 2,
# before any step runs) and --show-nics on fake sysfs trees, where it must pick the VirtIO NICs (1af4:1000 with the
# network subsystem ID, 1af4:1041) and leave out other devices and the management NIC (an interface with an IPv4
# address: the fake tree names it "lo", which has 127.0.0.1 on any machine).
set -uo pipefail
provision=$(cd "$(dirname "$0")/../.." && pwd)/scripts/provision.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }

expect_usage() {   # expect_usage ARGS...: exit 2 and a usage line
	local out rc=0
	out=$("$provision" "$@" 2>&1) || rc=$?
	[ $rc = 2 ] || fail "provision.sh $* exited $rc, not 2: $out"
	grep -q '^usage: ' <<<"$out" || fail "provision.sh $* printed no usage: $out"
}
expect_usage
expect_usage --no-such-step
expect_usage --build
expect_usage --target ixy-fwd
expect_usage --hugepages
expect_usage --hugepages 12x
expect_usage --hugepages 0
expect_usage --apply
expect_usage --hugepages 16 --apply --packages --bogus

device() {   # device TREE ADDRESS VENDOR DEVICE SUBSYSTEM_DEVICE [INTERFACE PATH]
	local dir=$1/$2
	mkdir -p "$dir"
	echo "$3" >"$dir/vendor"
	echo "$4" >"$dir/device"
	echo "$5" >"$dir/subsystem_device"
	[ -z "${6:-}" ] || mkdir -p "$dir/$6"
}
tree=$work/sysfs
device "$tree" 0000:00:03.0 0x1af4 0x1000 0x0001 net/lo            # management NIC: has an address
device "$tree" 0000:00:04.0 0x1af4 0x1000 0x0002                   # VirtIO block device, legacy ID
device "$tree" 0000:00:05.0 0x1af4 0x1041 0x1100                   # modern VirtIO NIC, no kernel driver
device "$tree" 0000:00:06.0 0x8086 0x100e 0x001e net/ixytest0      # Intel e1000: not VirtIO
device "$tree" 0000:00:07.0 0x1af4 0x1000 0x0001 virtio3/net/ixytest1   # legacy NIC, bound to virtio-net, no IP
device "$tree" 0000:00:08.0 0x1af4 0x1042 0x1100                   # modern VirtIO block device
out=$(IXY_SYSFS_PCI=$tree "$provision" --show-nics 2>&1) || fail "--show-nics failed: $out"
grep -q "ixy-pktgen 0000:00:05.0$" <<<"$out" || fail "ixy-pktgen not on 0000:00:05.0: $out"
grep -q "ixy-pcap 0000:00:07.0 capture.pcap" <<<"$out" || fail "ixy-pcap not on 0000:00:07.0: $out"
grep -q "for ixy: 0000:00:05.0 0000:00:07.0," <<<"$out" || fail "not exactly the two NICs named: $out"

rm -rf "$tree/0000:00:07.0"
rc=0
out=$(IXY_SYSFS_PCI=$tree "$provision" --show-nics 2>&1) || rc=$?
[ $rc = 1 ] || fail "--show-nics with one NIC exited $rc, not 1: $out"
grep -q "need two" <<<"$out" || fail "--show-nics with one NIC did not say so: $out"
[ $failed = 0 ] && echo "provision.sh: refusals and NIC discovery as expected"
exit $failed
