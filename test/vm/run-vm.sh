#!/usr/bin/env bash
# The end-to-end test: boots the test guest under QEMU (TCG, never KVM) with four legacy VirtIO NICs and checks
# what ixy did there.
#
#   run-vm.sh --build-dir DIR [--mode bare|kmod] [--packets N] [--out DIR] [--cache DIR]
#
# Network (nothing reaches the host's network): NIC A and B on QEMU hub 0, NIC C and D on hub 1. Each hub also
# has a UDP socket port sending to 127.0.0.1:9 (discard), which always accepts frames, so that a hub never stalls
# its sender while a guest receiver is busy. QEMU's filter-dump records, on the host, what NIC A sends and what
# reaches NIC D: an observer the guest cannot fake. (A netdev filter's "rx" queue holds what the NIC sends to the
# hub port, its "tx" queue what the hub port passes to the NIC.)
#
# The guest (guest-init.sh) runs vm_selftest on A and B, then ixy-pcap on D, ixy-fwd on B and C, and ixy-pktgen
# on A; check_capture.py then compares the guest's capture with the host's records. --mode kmod loads the
# kernel's virtio_pci/virtio_net first, so ixy must unbind them.
#
# Exit: 0 passed, 1 failed, 77 skipped (not root, or QEMU cannot be installed).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build_dir=
mode=bare
packets=30000
out=
cache=/var/cache/ixy-vm
time_limit=300   # seconds for the whole QEMU run
while [ $# -gt 0 ]; do
	case "$1" in
		--build-dir) build_dir=$2; shift 2 ;;
		--mode) mode=$2; shift 2 ;;
		--packets) packets=$2; shift 2 ;;
		--out) out=$2; shift 2 ;;
		--cache) cache=$2; shift 2 ;;
		*) echo "usage: $0 --build-dir DIR [--mode bare|kmod] [--packets N] [--out DIR] [--cache DIR]" >&2; exit 2 ;;
	esac
done
[ -n "$build_dir" ] || { echo "run-vm.sh: --build-dir is required" >&2; exit 2; }
case "$mode" in bare | kmod) ;; *) echo "run-vm.sh: --mode must be bare or kmod" >&2; exit 2 ;; esac
out=${out:-$build_dir/vm-$mode}

say() { echo "run-vm: $*"; }

if [ "$(id -u)" != 0 ]; then
	say "SKIP: needs root (installs packages, boots QEMU)"
	exit 77
fi
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
{ command -v busybox >/dev/null && ! readelf -l "$(command -v busybox)" | grep -q INTERP; } || need+=(busybox-static)
command -v cpio >/dev/null || need+=(cpio)
if [ ${#need[@]} -gt 0 ]; then
	say "installing ${need[*]}"
	if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"; } >/dev/null 2>&1; then
		say "SKIP: cannot install ${need[*]}"
		exit 77
	fi
fi

rm -rf "$out"
mkdir -p "$out/guest"
"$here/build-guest.sh" --build-dir "$build_dir" --out "$out" --cache "$cache" || { say "FAIL: building the guest"; exit 1; }

# Two free UDP ports on the loopback for the hubs' socket ports (they only send, to the discard port 9).
read -r port0 port1 < <(python3 -c '
import socket
socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')

mac_a=52:54:00:12:34:0a
mac_b=52:54:00:12:34:0b
qemu_args=(-accel tcg -m 512 -smp 1 -display none -monitor none -no-reboot
	-serial stdio -serial "file:$out/serial1.txt"
	-kernel "$out/vmlinuz" -initrd "$out/initrd.gz"
	-append "console=ttyS0 quiet panic=-1 ixy_mode=$mode ixy_packets=$packets ixy_mac_a=$mac_a ixy_mac_b=$mac_b"
	-nic none)
nic() {   # nic NAME HUB PCI_SLOT MAC: a hub port and a legacy-only (disable-modern) VirtIO NIC on it
	qemu_args+=(-netdev "hubport,id=$1,hubid=$2" -device "virtio-net-pci,netdev=$1,disable-modern=on,addr=$3,mac=$4")
}
nic nic_a 0 0x8 $mac_a
nic nic_b 0 0x9 $mac_b
nic nic_c 1 0xa 52:54:00:12:34:0c
nic nic_d 1 0xb 52:54:00:12:34:0d
qemu_args+=(
	-netdev "socket,id=sink0,udp=127.0.0.1:9,localaddr=127.0.0.1:$port0" -netdev "hubport,id=hub0_sink,hubid=0,netdev=sink0"
	-netdev "socket,id=sink1,udp=127.0.0.1:9,localaddr=127.0.0.1:$port1" -netdev "hubport,id=hub1_sink,hubid=1,netdev=sink1"
	-object "filter-dump,id=dump_a,netdev=nic_a,queue=rx,file=$out/host-a.pcap"
	-object "filter-dump,id=dump_d,netdev=nic_d,queue=tx,file=$out/host-d.pcap")
say "booting the guest (mode $mode, TCG, at most $time_limit s); console:"
start=$(date +%s)
timeout --kill-after=10 $time_limit qemu-system-x86_64 "${qemu_args[@]}" </dev/null 2>&1 | tee "$out/console.log"
qemu_rc=${PIPESTATUS[0]}
elapsed=$(($(date +%s) - start))
say "QEMU exited with $qemu_rc after $elapsed s"

# Files the guest sent over ttyS1: base64 between "BEGIN name" and "END name".
tr -d '\r' <"$out/serial1.txt" | awk -v dir="$out/guest" '
	/^BEGIN / { name = $2; file = dir "/" name ".b64"; printf "" > file; next }
	/^END / { close(file); name = ""; next }
	name != "" { print > file }'
for encoded in "$out"/guest/*.b64; do
	[ -e "$encoded" ] && base64 -d "$encoded" >"${encoded%.b64}" && rm "$encoded"
done

passed=0
failed=0
expect() {   # expect DESCRIPTION COMMAND...
	if "${@:2}"; then
		passed=$((passed + 1))
		echo "PASS  $1"
	else
		failed=$((failed + 1))
		echo "FAIL  $1"
	fi
}
marker() { tr -d '\r' <"$out/console.log" | grep -q "^IXY-VM: $1"; }

echo
say "results"
expect "QEMU ran within $time_limit s and the guest finished" marker "done"
expect "driver self test passed" marker "selftest exit 0$"
grep -E "passed, .* failed|CHECK|selftest:" "$out/guest/selftest.log" 2>/dev/null | sed 's/^/  selftest: /'
if [ "$mode" = kmod ]; then
	for slot in 08 09 0a 0b; do
		expect "kernel driver virtio-pci was bound to 0000:00:$slot.0 before ixy took it" \
			marker "kernel driver of 0000:00:$slot.0: virtio-pci"
	done
	expect "ixy unbound the kernel driver of all four NICs" \
		test "$(cat "$out"/guest/*.log 2>/dev/null | grep -c 'unbound the kernel driver')" = 4
fi
expect "receivers started before the generator" marker "receivers running"
expect "ixy-pcap captured $packets packets and exited 0" marker "pcap exit 0$"
expect "ixy-fwd stopped cleanly on SIGINT" marker "fwd exit 0$"
expect "ixy-pktgen stopped cleanly on SIGINT" marker "pktgen exit 0$"

# The apps' output: the rate lines of seconds with traffic (the last few), then their totals.
for app in pktgen fwd pcap; do
	log=$out/guest/$app.log
	[ -f "$log" ] || continue
	echo "  ixy-$app:"
	grep -E ' (RX|TX): ' "$log" | grep -v ' 0 Mbit/s' | tail -n 6 | sed 's/^/    /'
	grep -vE ' (RX|TX): ' "$log" | sed 's/^/    /'
done

# The byte ixy-fwd changes (FWD_MODIFIED_BYTE in apps/), and what the apps say they sent (their last lines, see apps/*.c).
modified_byte=$(cat "$src"/apps/*.[ch] | sed -n 's/^#define FWD_MODIFIED_BYTE \([0-9][0-9]*\).*/\1/p' | head -1)
claims=()
sent=$(sed -n 's/^\[.*\] sent \([0-9][0-9]*\) packets.*/\1/p' "$out/guest/pktgen.log" 2>/dev/null)
[ -n "$sent" ] && claims+=(--pktgen-sent "$sent")
forwarded=$(sed -n 's/^0000:00:09.0 -> 0000:00:0a.0: forwarded \([0-9][0-9]*\) .*/\1/p' "$out/guest/fwd.log" 2>/dev/null)
[ -n "$forwarded" ] && claims+=(--fwd-forwarded "$forwarded")
echo
if [ -n "$modified_byte" ] && [ -f "$out/guest/capture.pcap" ]; then
	python3 "$here/check_capture.py" --host-a "$out/host-a.pcap" --host-d "$out/host-d.pcap" \
		--guest "$out/guest/capture.pcap" --packets "$packets" --modified-byte "$modified_byte" --src-mac $mac_a \
		"${claims[@]}" | sed 's/^/  packets: /'
	checker_rc=${PIPESTATUS[0]}
	expect "captured packets check out against the host's records" test "$checker_rc" = 0
else
	expect "the guest sent its capture and apps/ defines FWD_MODIFIED_BYTE" false
fi

echo "vm ($mode, ${elapsed}s): $passed passed, $failed failed"
[ $failed = 0 ]
