#!/bin/sh
# host_ends against a stand-in for QEMU's two netdevs (a Python loop on 127.0.0.1 that checks each frame and sends
# it on to the sink port DELAY_MS later, as a forwarder in the guest would): the frames are well-formed 60-byte
# IPv4/UDP frames with a rising sequence number and a send time after the byte ixy-fwd changes, the source is paced
# (about the rate asked for), the count that prefixes each copied input line grows with what arrived, each begin..end
# pair of marks gives a latency line whose percentiles are in order and no shorter than the relay's delay (a bound
# that holds however slow the machine: no wall-clock limit), and "latency load 50" halves the measured maximum.
# Usage: test_host_ends.sh <host_ends binary>
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
delay_ms=3
# The stand-in: receives on nic_port for 3.5 s, checks every frame, relays it to sink_port delay_ms later, reports
# what it saw.
python3 - "$nic_port" "$sink_port" "$delay_ms" >"$dir/relay.txt" <<'EOF2' &
import collections, socket, struct, sys, time
nic = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
nic.bind(("127.0.0.1", int(sys.argv[1])))
nic.settimeout(0.0005)
out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
delay = int(sys.argv[3]) / 1000.0
held = collections.deque()
start = time.monotonic_ns()  # before host_ends starts: every send time lies between this and the frame's arrival
good = bad = 0
last_seq = last_stamp = -1
end = time.monotonic() + 3.5
while time.monotonic() < end:
    now = time.monotonic()
    while held and held[0][0] <= now:
        out.sendto(held.popleft()[1], ("127.0.0.1", int(sys.argv[2])))
    try:
        frame = nic.recv(2048)
    except socket.timeout:
        continue
    words = struct.unpack("!10H", frame[14:34])
    total = sum(words)
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    ok = len(frame) == 60 and frame[12:14] == b"\x08\x00" and frame[23] == 17 and total == 0xffff
    # bytes 42..45 untouched (ixy-fwd changes 45), then the sequence number and the send time (host order)
    seq, stamp = struct.unpack("=IQ", frame[46:58])
    ok = ok and frame[42:46] == b"\0\0\0\0" and seq > last_seq and stamp >= last_stamp and start <= stamp <= time.monotonic_ns()
    last_seq, last_stamp = seq, stamp
    good, bad = good + ok, bad + (not ok)
    held.append((time.monotonic() + delay, frame))
print(good, bad)
EOF2
relay=$!
sleep 0.3
test_start=$(date +%s%N)
{
	echo "first line"
	echo "IXY-VM: latency load max"
	sleep 0.2
	echo "IXY-VM: bench x run 1: begin"
	sleep 1
	echo "IXY-VM: bench x run 1: end"
	echo "IXY-VM: latency load 50"
	sleep 0.2
	echo "IXY-VM: bench x run 2: begin"
	sleep 1
	echo "IXY-VM: bench x run 2: end"
	echo "second line"
} | "$host_ends" "$source_port" "$nic_port" "$sink_port" 5 >"$dir/out.txt"
test_end=$(date +%s%N)
wait $relay
read -r good bad <"$dir/relay.txt"
cat "$dir/out.txt"
echo "relay: $good good frames, $bad bad"
fail() { echo "FAIL: $*"; exit 1; }
[ "$bad" = 0 ] || fail "malformed frames"
# 5 kpps for about 1.4 s, then 2.5 kpps for 1.2 s: 10000 frames; allow a wide margin for a loaded machine, but not
# an unpaced source.
[ "$good" -ge 2000 ] && [ "$good" -le 14000 ] || fail "$good frames in 2.6 s at 5 and 2.5 kpps"
first=$(awk '$3 == "first" { print $2 }' "$dir/out.txt")
second=$(awk '$3 == "second" { print $2 }' "$dir/out.txt")
[ -n "$first" ] && [ -n "$second" ] || fail "input lines not copied"
[ "$second" -gt "$first" ] || fail "count did not grow ($first -> $second)"
[ "$second" -le "$good" ] || fail "counted $second, more than the $good relayed"
grep -q "^sent [0-9]* frames, received $second\$" "$dir/out.txt" || fail "no totals line"
# latency x run <i>: offered <kpps> sent <n> received <n> in <s> s frames <n> p50 <ns> ... max <ns>
# A frame's latency cannot be shorter than the relay's delay, nor longer than the whole test took.
for run in 1 2; do
	awk -v run="$run:" -v min=$((delay_ms * 1000000)) -v longest=$((test_end - test_start)) \
		'$1 == "latency" && $2 == "x" && $4 == run {
		if ($28 > longest) { print "run " run ": a latency of " $28 " ns, longer than the test"; exit 1 }
		found = 1
		if ($16 < 100) { print "run " run " only " $16 " frames with a latency"; exit 1 }
		for (i = 18; i <= 28; i += 2) if ($i < min || (i > 18 && $i < $(i - 2))) {
			print "run " run " percentiles not in order or below the relay delay: " $0; exit 1 }
	} END { if (!found) { print "no latency line for run " run; exit 1 } }' "$dir/out.txt" || fail "latency of run $run"
done
maximum=$(awk '$1 == "latency" && $2 == "maximum" { print $3 }' "$dir/out.txt")
half=$(awk '$1 == "latency" && $2 == "rate" { r = $3 } END { print r }' "$dir/out.txt")
[ -n "$maximum" ] && awk -v m="$maximum" -v h="$half" 'BEGIN { exit !(m > 0 && h * 2 > m * 0.999 && h * 2 < m * 1.001) }' ||
	fail "load 50 gave rate $half kpps, the maximum was $maximum kpps"
echo "PASS"
