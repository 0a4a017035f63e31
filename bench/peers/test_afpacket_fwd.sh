#!/usr/bin/env bash
# Test of afpacket_fwd (the AF_PACKET peer of bench/peers.sh) without any NIC: in a network namespace of its own,
# frames sent into one veth pair must leave the other pair byte for byte and in order, while afpacket_fwd forwards
# between the two inner ends. Needs root and iproute2 (exit 77 otherwise). Touches nothing outside the namespace.
#
#   test_afpacket_fwd.sh <afpacket_fwd binary>
set -euo pipefail
fwd=$1
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! command -v nsenter >/dev/null || ! command -v python3 >/dev/null; then
	echo "SKIP: needs root, iproute2, nsenter and python3"
	exit 77
fi
ns=ixy-afpacket-$$
if ! ip netns add "$ns" 2>/dev/null; then
	echo "SKIP: cannot make a network namespace"
	exit 77
fi
work=$(mktemp -d)
fwd_pid=
cleanup() {
	[ -n "$fwd_pid" ] && kill "$fwd_pid" 2>/dev/null
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
for dev in src in out sink; do in_ns sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1"; done

# nsenter runs the forwarder itself (ip netns exec may stay in between), so that the signal below reaches it.
nsenter --net="/run/netns/$ns" "$fwd" in out >"$work/fwd.log" 2>&1 &
fwd_pid=$!
for _ in $(seq 50); do grep -q forwarding "$work/fwd.log" && break; sleep 0.1; done
grep -q forwarding "$work/fwd.log" || { cat "$work/fwd.log"; echo "FAIL: afpacket_fwd did not start"; exit 1; }

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
sink.settimeout(5)
src = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
src.bind(("src", 0))
received = []
for i in range(count):
    src.send(frame(i))
    if i % 100 == 99:
        time.sleep(0.01)  # the veth's backlog holds 1000 frames: stay below it
try:
    while len(received) < count:
        received.append(sink.recv(4096))
except socket.timeout:
    pass
bad = [i for i, got in enumerate(received) if got != frame(i)]
print(f"sent {count}, received {len(received)}, differing {len(bad)}")
sys.exit(0 if len(received) == count and not bad else 1)
PY
kill -TERM "$fwd_pid"
wait "$fwd_pid" || rc=1
fwd_pid=
cat "$work/fwd.log"
grep -q "in -> out: forwarded 2000 packets, dropped 0" "$work/fwd.log" || { echo "FAIL: afpacket_fwd's count"; rc=1; }
[ $rc = 0 ] && echo "PASS: 2000 frames forwarded byte for byte and in order"
exit $rc
