#!/usr/bin/env bash
# Test of afpacket_fwd (the AF_PACKET peer of bench/peers.sh) without any NIC: in a network namespace of its own,
# frames sent into one veth pair must leave the other pair byte for byte and in order, while afpacket_fwd forwards
# between the two inner ends; then, with a second afpacket_fwd stopped (SIGSTOP) while a burst fills its RX ring, the
# kernel drops frames at its socket, and its totals line must count them: forwarded + dropped = the frames that
# reached its interface, kernel_dropped > 0. Needs root, network namespaces, veth pairs,
# iproute2 (exit 77 otherwise, with a line "skipped: ..." naming what is missing). Touches nothing outside the namespace.
#
#   test_afpacket_fwd.sh <afpacket_fwd binary>
set -euo pipefail
fwd=$1
for tool in ip nsenter python3; do
	command -v "$tool" >/dev/null || { echo "skipped: $tool is missing"; exit 77; }
done
# shellcheck source=test/host_features.sh
. "$(dirname "$0")/../../test/host_features.sh"
missing=$(host_feature_missing root netns veth)
[ -z "$missing" ] || { echo "skipped: this host has no $missing"; exit 77; }
ns=ixy-afpacket-$$
ip netns add "$ns"
work=$(mktemp -d)
fwd_pid=
cleanup() {
	[ -n "$fwd_pid" ] && kill -9 "$fwd_pid" 2>/dev/null
	ip netns delete "$ns"
	rm -rf "$work"
}
trap cleanup EXIT
in_ns() { ip netns exec "$ns" "$@"; }
# src -> in (forwarder) -> out -> sink
in_ns ip link add src type veth peer name in
in_ns ip link add out type veth peer name sink
for dev in lo src in out sink; do in_ns ip link set "$dev" up; done
# No IPv6 on the veths: the kernel's own router solicitations would mix into the frames that are checked.
if [ -d /proc/sys/net/ipv6 ]; then # (a kernel without IPv6 sends no IPv6 frames)
	for dev in src in out sink; do in_ns sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1"; done
fi

# nsenter runs the forwarder itself (ip netns exec may stay in between), so that the signals below reach it.
start_fwd() {
	# Emptied here, not only by the redirect below, which runs in the child at some point after this function goes
	# on: the wait below must never read the last run's "forwarding" line.
	: >"$work/fwd.log"
	nsenter --net="/run/netns/$ns" "$fwd" in out >"$work/fwd.log" 2>&1 &
	fwd_pid=$!
	# (Up to 30 s: a process started on a busy machine may wait seconds for a CPU.)
	for _ in $(seq 300); do grep -q forwarding "$work/fwd.log" && break; sleep 0.1; done
	grep -q forwarding "$work/fwd.log" || { cat "$work/fwd.log"; echo "FAIL: afpacket_fwd did not start"; exit 1; }
}
stop_fwd() { # prints its log; fails if it did
	kill -TERM "$fwd_pid"
	_rc=0
	wait "$fwd_pid" || _rc=1
	fwd_pid=
	cat "$work/fwd.log"
	return $_rc
}
# total NAME: the value of NAME=<n> in the forwarder's totals line
total() { sed -n "s/^totals app=afpacket_fwd .* $1=\([0-9]*\).*/\1/p" "$work/fwd.log"; }
in_rx() { in_ns cat /sys/class/net/in/statistics/rx_packets; }

start_fwd
# 2000 frames of different lengths with a sequence number; the sink must see exactly these, in order.
rc=0
in_ns python3 - <<'PY' || rc=1
import socket, struct, sys, time
count = 2000
def frame(i):
    payload = struct.pack("!I", i) * ((i % 300) // 4 + 12)
    return b"\x02\x00\x00\x00\x00\x02" + b"\x02\x00\x00\x00\x00\x01" + b"\x88\xb5" + payload
sink = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88b5))
sink.bind(("sink", 0))
sink.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE: room for every frame until they are read
# Until all came or 30 s passed (not 5 s without a frame: on a busy machine the forwarder may wait that long for a CPU)
deadline = time.monotonic() + 30
src = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
src.bind(("src", 0))
received = []
for i in range(count):
    src.send(frame(i))
    if i % 100 == 99:
        time.sleep(0.01)  # the veth's backlog holds 1000 frames: stay below it
try:
    while len(received) < count and time.monotonic() < deadline:
        sink.settimeout(max(deadline - time.monotonic(), 0.001))
        received.append(sink.recv(4096))
except socket.timeout:
    pass
bad = [i for i, got in enumerate(received) if got != frame(i)]
print(f"sent {count}, received {len(received)}, differing {len(bad)}")
sys.exit(0 if len(received) == count and not bad else 1)
PY
stop_fwd || rc=1
grep -q "^totals app=afpacket_fwd in=in out=out forwarded=2000 dropped=0 " "$work/fwd.log" ||
	{ echo "FAIL: afpacket_fwd's count"; rc=1; }
[ $rc = 0 ] && echo "PASS: 2000 frames forwarded byte for byte and in order"

# The kernel's drops: 20000 frames of 1000 bytes while the forwarder is stopped. Its RX ring (64 blocks of 64 KiB)
# holds at most about 4200 of them; once every block waits for it, the kernel drops at the socket.
start_fwd
rx0=$(in_rx)
kill -STOP "$fwd_pid"
in_ns python3 - <<'PY' || rc=1
import socket
src = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
src.bind(("src", 0))
frame = b"\x02\x00\x00\x00\x00\x02" + b"\x02\x00\x00\x00\x00\x01" + b"\x88\xb5" + bytes(986)
for i in range(20000):
    src.send(frame)
PY
kill -CONT "$fwd_pid"
# It empties its ring; stopped before that, it would count neither forwarded nor dropped what is left there. (A fixed
# 0.5 s was not enough for a forwarder that waits for a CPU.) A marker frame sent now comes out at the sink only once
# the forwarder has taken every frame before it; one that finds the ring still full is dropped, so another follows
# after 1 s, until one comes out: then nothing is left in the ring (the markers count as the other frames do).
in_ns python3 - <<'PY' || { echo "FAIL: no marker came through afpacket_fwd in 60 s: it did not empty its ring"; rc=1; }
import socket, struct, sys, time
sink = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88b6))
sink.bind(("sink", 0))
src = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
src.bind(("src", 0))
deadline = time.monotonic() + 60
marker = 0
while time.monotonic() < deadline:
    marker += 1
    src.send(b"\x02\x00\x00\x00\x00\x02" + b"\x02\x00\x00\x00\x00\x01" + b"\x88\xb6" + struct.pack("!I", marker) + bytes(42))
    until = min(time.monotonic() + 1, deadline)
    while time.monotonic() < until:
        sink.settimeout(max(until - time.monotonic(), 0.001))
        try:
            if sink.recv(64)[14:18] == struct.pack("!I", marker):
                print(f"marker {marker} came through")
                sys.exit(0)
        except socket.timeout:
            pass
sys.exit(1)
PY
stop_fwd || rc=1
reached=$(($(in_rx) - rx0))
forwarded=$(total forwarded)
dropped=$(total dropped)
kernel_dropped=$(total kernel_dropped)
echo "reached in: $reached, forwarded $forwarded, dropped $dropped (kernel: $kernel_dropped)"
if [ -z "$kernel_dropped" ] || [ "$kernel_dropped" = 0 ] || [ $((forwarded + dropped)) != "$reached" ]; then
	echo "FAIL: afpacket_fwd's totals must count the kernel's drops (forwarded + dropped = frames that reached in)"
	rc=1
fi
[ $rc = 0 ] && echo "PASS: the kernel's drops are counted"
exit $rc
