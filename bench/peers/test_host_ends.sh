#!/bin/sh
# host_ends against a stand-in for QEMU's two netdevs (a Python loop on 127.0.0.1 that checks each frame and sends
# it on to the sink port, as a forwarder in the guest would): the frames are well-formed 60-byte IPv4/UDP frames, the
# source is paced (about the rate asked for), and the count that prefixes each copied input line grows with what
# arrived. Usage: test_host_ends.sh <host_ends binary>
set -eu
host_ends=$1
dir=$(mktemp -d)
relay=
trap 'kill $relay 2>/dev/null || :; rm -rf "$dir"' EXIT
read -r source_port nic_port sink_port <<EOF2
$(python3 -c '
import socket
socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(3)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')
EOF2
# The stand-in: receives on nic_port for 2 s, checks every frame, relays it to sink_port, reports what it saw.
python3 - "$nic_port" "$sink_port" >"$dir/relay.txt" <<'EOF2' &
import socket, struct, sys, time
nic = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
nic.bind(("127.0.0.1", int(sys.argv[1])))
nic.settimeout(0.2)
out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
good = bad = 0
end = time.monotonic() + 2.0
while time.monotonic() < end:
    try:
        frame = nic.recv(2048)
    except socket.timeout:
        continue
    words = struct.unpack("!10H", frame[14:34])
    total = sum(words)
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    ok = len(frame) == 60 and frame[12:14] == b"\x08\x00" and frame[23] == 17 and total == 0xffff
    good, bad = good + ok, bad + (not ok)
    out.sendto(frame, ("127.0.0.1", int(sys.argv[2])))
print(good, bad)
EOF2
relay=$!
sleep 0.3
{
	echo "first line"
	sleep 2.2
	echo "second line"
} | "$host_ends" "$source_port" "$nic_port" "$sink_port" 5 >"$dir/out.txt"
wait $relay
read -r good bad <"$dir/relay.txt"
cat "$dir/out.txt"
echo "relay: $good good frames, $bad bad"
fail() { echo "FAIL: $*"; exit 1; }
[ "$bad" = 0 ] || fail "malformed frames"
# 5 kpps for about 2 s: 10000 frames; allow a wide margin for a loaded machine, but not an unpaced source.
[ "$good" -ge 2000 ] && [ "$good" -le 14000 ] || fail "$good frames in 2 s at 5 kpps"
first=$(awk '$3 == "first" { print $2 }' "$dir/out.txt")
second=$(awk '$3 == "second" { print $2 }' "$dir/out.txt")
[ -n "$first" ] && [ -n "$second" ] || fail "input lines not copied"
[ "$second" -gt "$first" ] || fail "count did not grow ($first -> $second)"
[ "$second" -le "$good" ] || fail "counted $second, more than the $good relayed"
grep -q "^sent [0-9]* frames, received $second\$" "$dir/out.txt" || fail "no totals line"
echo "PASS"
