#!/bin/sh
# host_ends against a stand-in for QEMU's two netdevs (a Python loop on 127.0.0.1 that checks each frame and sends
# it on to the sink port DELAY_MS later, as a forwarder in the guest would): the frames are well-formed 60-byte
# IPv4/UDP frames with a rising sequence number and a due time after the byte ixy-fwd changes, stamped with the time
# each was due (in every 200 ms of arrivals the stamps advance at least 100 us a sequence number: a source that
# stamps frames with a time other than their own fails), the source is paced (about the rate asked for), a
# stall of host_ends (SIGSTOP for 0.3 s in run 4, on the direct path) shows in that run's latencies (the frames due
# during it go out late, stamped with their due time: the 90th percentile at least 100 ms; stamped with the time they
# went out, the stall would vanish from the histogram), the count that prefixes each copied
# input line grows with what arrived, each begin..end pair of marks gives a latency line whose percentiles are in
# order, no shorter than the relay's delay (a bound that holds however slow the machine), and whose median is at
# most the oldest frame the relay sent on (it measures each frame's age, send time to its own send, on the same
# clock) plus 50 ms for the last hop to the sink; "latency load 50" halves the measured maximum (the largest of two
# max runs: the relay drops half of the second's); datagrams that are not the source's frames (the relay sends 40
# with another MAC, 10 short ones, 5 with a sequence number not yet sent, 5 stamped before host_ends started) are
# counted as foreign, not received; "latency path direct" sends straight to the sink, past the relay; an error
# reading standard input ends host_ends with a message. Each end mark also gives a line of what NIC B's socket
# dropped (counted when NIC B's port is a socket nobody reads: it fills).
# Usage: test_host_ends.sh <host_ends binary>
set -eu
host_ends=$1
dir=$(mktemp -d)
relay=
ends=
hole=
trap 'kill $relay $ends $hole 2>/dev/null || :; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
read -r source_port nic_port sink_port <<EOF2
$(python3 -c '
import socket
socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(3)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')
EOF2
delay_ms=3
# The stand-in: receives on nic_port until host_ends has ended (SIGTERM), checks every frame, relays it to sink_port
# delay_ms later, reports what it saw. (It used to stop after 4.5 s: where the CPUs were busy, host_ends read its
# last marks later than that, and NIC B's drops at the end of run 4 were those of no socket, 0, less those at its
# begin.) host_ends starts only once the relay has bound nic_port and taken its start time: the relay writes a
# line into the fifo "ready" (its descriptor 3) then. (A fixed wait of 0.3 s was not enough where Python started
# slowly, a fresh machine or busy CPUs: the relay bound its port after host_ends had begun to send, and the first
# frames it read had been due, and stamped, before its start: "1 bad".) The relay starts 0.5 s late on purpose, so
# that a test that does not wait for it fails every time: its first frame would not be the source's first.
mkfifo "$dir/ready"
python3 - "$nic_port" "$sink_port" "$delay_ms" "$source_port" >"$dir/relay.txt" 3>"$dir/ready" <<'EOF2' &
import collections, os, signal, socket, struct, sys, time
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
time.sleep(0.5)
nic = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
nic.bind(("127.0.0.1", int(sys.argv[1])))
nic.settimeout(0.0005)
out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
delay = int(sys.argv[3]) / 1000.0
held = collections.deque()
start = time.monotonic_ns()  # before host_ends starts: every send time lies between this and the frame's arrival
first_seq = -1  # the sequence number of the first frame received: 0, the relay listened before host_ends sent
good = bad = 0
last_seq = last_stamp = -1
seen = []  # (arrival, stamp) of every frame
relayed = 0
oldest = 0  # the largest age (its send time to the relay's send) of a frame sent on
end = time.monotonic() + 50  # only if the script is gone: it sends SIGTERM once host_ends has ended
os.write(3, b"ready\n")
os.close(3)
while not stop and time.monotonic() < end:
    now = time.monotonic()
    while held and held[0][0] <= now:
        frame = held.popleft()[1]
        out.sendto(frame, ("127.0.0.1", int(sys.argv[2])))
        relayed += 1
        oldest = max(oldest, time.monotonic_ns() - struct.unpack("=Q", frame[50:58])[0])
    try:
        frame, sender = nic.recvfrom(2048)
    except socket.timeout:
        continue
    words = struct.unpack("!10H", frame[14:34])
    total = sum(words)
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    ok = len(frame) == 60 and frame[12:14] == b"\x08\x00" and frame[23] == 17 and total == 0xffff
    # bytes 42..45 untouched (ixy-fwd changes 45), then the sequence number and the send time (host order)
    seq, stamp = struct.unpack("=IQ", frame[46:58])
    first_seq = seq if first_seq < 0 else first_seq
    ok = ok and frame[42:46] == b"\0\0\0\0" and seq > last_seq and stamp >= last_stamp and start <= stamp <= time.monotonic_ns()
    if not ok and bad < 3:  # the first bad frames, for the log
        sys.stderr.write("relay: bad frame: length %d seq %d after %d, stamp %d after %d, relay start %d, now %d, "
                         "header sum %#x, bytes 42..45 %s, from port %d (host_ends: %s)\n" % (
                             len(frame), seq, last_seq, stamp, last_stamp, start, time.monotonic_ns(), total,
                             frame[42:46].hex(), sender[1], sys.argv[4]))
    last_seq, last_stamp = seq, stamp
    good, bad = good + ok, bad + (not ok)
    seen.append((time.monotonic_ns(), stamp, seq))
    # Frames 3600 to 6500 (the second max run, 0.7 to 1.2 s at 5 kpps): every other one dropped, so that the two
    # max runs differ and the maximum must be the larger.
    if not (3600 <= seq < 6500 and seq % 2):
        held.append((time.monotonic() + delay, frame))
    if good == 10:  # not the source's frames: another source MAC (byte 11), too short, a sequence number not sent
        sink = ("127.0.0.1", int(sys.argv[2]))  # yet, a send time before host_ends started
        for i in range(40):
            out.sendto(frame[:11] + b"\x99" + frame[12:], sink)
        for i in range(10):
            out.sendto(frame[:40], sink)
        for i in range(5):
            out.sendto(frame[:46] + struct.pack("=IQ", 0xFFFFFFF0, stamp) + frame[58:], sink)
            out.sendto(frame[:46] + struct.pack("=IQ", seq, 0) + frame[58:], sink)
# In every 200 ms of arrivals (with 20 frames or more), the stamps advance with the sequence numbers by at least half
# the source's spacing at 5 kpps, 200 us a frame (400 us at 2.5 kpps), however late the frames went out or arrived.
# (Against the time they arrived over, as before, a busy machine failed it: where the relay or host_ends was not
# scheduled for long, the frames' age grew by half the window or more, "0.450", or frames were dropped.)
worst, windows = 1.0, {}
for arrival, stamp, seq in seen:
    windows.setdefault(arrival // 200000000, []).append((stamp, seq))
for w in windows.values():
    if len(w) >= 20 and w[-1][1] > w[0][1]:
        worst = min(worst, (w[-1][0] - w[0][0]) / ((w[-1][1] - w[0][1]) * 200000))
print(good, bad, "%.3f" % worst, len(windows), oldest, relayed, first_seq)
EOF2
relay=$!
read -r _ <"$dir/ready" || fail "the relay did not start"
test_start=$(date +%s%N)
# host_ends reads a fifo, so that the lines written into it can stop and continue it by its process id.
mkfifo "$dir/in"
"$host_ends" "$source_port" "$nic_port" "$sink_port" 5 <"$dir/in" >"$dir/out.txt" &
ends=$!
{
	echo "first line"
	echo "IXY-VM: latency load max"
	sleep 0.2
	echo "IXY-VM: bench x run 1: begin"
	sleep 0.5
	echo "IXY-VM: bench x run 1: end"
	echo "IXY-VM: bench x run 2: begin"
	sleep 0.5
	echo "IXY-VM: bench x run 2: end"
	echo "IXY-VM: latency load 50"
	sleep 0.2
	echo "IXY-VM: bench x run 3: begin"
	sleep 1
	echo "IXY-VM: bench x run 3: end"
	echo "second line"
	echo "IXY-VM: latency path direct"
	echo "IXY-VM: latency path hub"
	echo "IXY-VM: bench x run 4: begin"
	sleep 0.1
	kill -STOP "$ends"
	sleep 0.3
	kill -CONT "$ends"
	sleep 0.2
	echo "IXY-VM: bench x run 4: end"
} >"$dir/in"
wait $ends
ends=
test_end=$(date +%s%N)
kill -TERM $relay
wait $relay
relay=
read -r good bad worst windows oldest relayed first_seq <"$dir/relay.txt"
cat "$dir/out.txt"
echo "relay: $good good frames, $bad bad; stamps advance at least $worst of 200 us a frame in each of $windows windows of 200 ms; oldest $oldest ns; $relayed sent on; first sequence number $first_seq"
[ "$first_seq" = 0 ] || fail "the relay's first frame has sequence number $first_seq: host_ends sent before the relay listened"
[ "$bad" = 0 ] || fail "malformed frames"
awk -v w="$worst" 'BEGIN { exit !(w >= 0.5) }' ||
	fail "in a window of 200 ms the stamps advance $worst of 200 us a frame: not stamped with the time each was due"
# 5 kpps for about 1.4 s, then 2.5 kpps for 1.2 s: 10000 frames; allow a wide margin for a loaded machine, but not
# an unpaced source: at most 5 kpps (and 10 %) over the time host_ends ran, however long a busy machine made that
# (not 14000, the count of a fixed 2.8 s: marks read late leave the source longer at 5 kpps).
most=$(((test_end - test_start) / 1000000 * 55 / 10 + 64))
[ "$good" -ge 2000 ] && [ "$good" -le "$most" ] ||
	fail "$good frames in $(((test_end - test_start) / 1000000)) ms at 5 and 2.5 kpps (at most $most)"
first=$(awk '$3 == "first" { print $2 }' "$dir/out.txt")
second=$(awk '$3 == "second" { print $2 }' "$dir/out.txt")
[ -n "$first" ] && [ -n "$second" ] || fail "input lines not copied"
[ "$second" -gt "$first" ] || fail "count did not grow ($first -> $second)"
[ "$second" -le "$relayed" ] || fail "counted $second, more than the $relayed relayed"
# After "second line" the source sends past the relay ("hub": no hub port, ignored), so the sink counts more.
grep -q "^latency path direct: port $sink_port\$" "$dir/out.txt" || fail "path direct not taken"
grep -q "^latency: path 'hub' ignored" "$dir/out.txt" || fail "path hub taken without a hub port"
received=$(sed -n 's/^sent [0-9]* frames, received \([0-9]*\), foreign \([0-9]*\)$/\1/p' "$dir/out.txt")
foreign=$(sed -n 's/^sent [0-9]* frames, received \([0-9]*\), foreign \([0-9]*\)$/\2/p' "$dir/out.txt")
[ -n "$received" ] || fail "no totals line"
[ "$foreign" = 60 ] || fail "foreign $foreign, the relay sent 60 datagrams that are not the source's"
[ "$received" -gt "$relayed" ] || fail "received $received, no more than the $relayed relayed: path direct did nothing"
# latency x run <i>: offered <kpps> sent <n> received <n> in <s> s frames <n> p50 <ns> ... max <ns>
# A frame's latency cannot be shorter than the relay's delay, nor longer than the whole test took; the median is
# at most the oldest frame the relay sent on plus 50 ms for the hop to the sink.
for run in 1 2 3; do
	awk -v run="$run:" -v min=$((delay_ms * 1000000)) -v longest=$((test_end - test_start)) -v oldest="$oldest" \
		'$1 == "latency" && $2 == "x" && $4 == run {
		if ($28 > longest) { print "run " run ": a latency of " $28 " ns, longer than the test"; exit 1 }
		if ($18 > oldest + 50000000) { print "run " run ": median " $18 " ns, the relay held none longer than " oldest " ns"; exit 1 }
		found = 1
		if ($16 < 100) { print "run " run " only " $16 " frames with a latency"; exit 1 }
		for (i = 18; i <= 28; i += 2) if ($i < min || (i > 18 && $i < $(i - 2))) {
			print "run " run " percentiles not in order or below the relay delay: " $0; exit 1 }
	} END { if (!found) { print "no latency line for run " run; exit 1 } }' "$dir/out.txt" || fail "latency of run $run"
done
# Run 4 (path direct, no relay): host_ends stopped for 0.3 s of its 0.6 s; at 2.5 kpps half of the run's frames were
# due during the stall and went out when it ended, the earliest 0.3 s late: the 90th percentile at least 100 ms.
awk '$1 == "latency" && $2 == "x" && $4 == "4:" { found = 1
	if ($20 < 100000000) { print "run 4: 90th percentile " $20 " ns after a stall of 300 ms: " $0; exit 1 } }
	END { if (!found) { print "no latency line for run 4"; exit 1 } }' "$dir/out.txt" ||
	fail "a stall of the source vanished from the latencies (frames stamped when sent, not when due)"
# nic_b x run <i>: sent <n> refused <r> dropped <d> sink_dropped <s>, for every run: sent as in its latency line, no
# more refused, dropped and sink-dropped than sent.
for run in 1 2 3 4; do
	awk -v run="$run:" '$1 == "latency" && $2 == "x" && $4 == run { sent = $9 }
		$1 == "nic_b" && $2 == "x" && $4 == run { found = 1; n = $6; refused = $8; dropped = $10; sink = $12 }
		END {
			if (!found) { print "no nic_b line for run " run; exit 1 }
			if (n != sent || n <= 0 || refused + dropped + sink > n) { print "run " run ": nic_b sent " n " refused " refused " dropped " dropped " sink_dropped " sink ", latency line sent " sent; exit 1 }
		}' "$dir/out.txt" || fail "NIC B's counts of run $run"
done
# The maximum: the larger of runs 1 and 2 (both under "load max").
maximum=$(awk '$1 == "latency" && $2 == "maximum" { m = $3 } END { print m }' "$dir/out.txt")
larger=$(awk '$1 == "latency" && $2 == "x" && ($4 == "1:" || $4 == "2:") { k = $11 / $13 / 1000; if (k > m) m = k } END { print m }' "$dir/out.txt")
awk -v m="$maximum" -v l="$larger" 'BEGIN { exit !(m > 0 && m > l * 0.99 && m < l * 1.01) }' ||
	fail "maximum $maximum kpps, the larger of the two max runs forwarded $larger kpps"
[ "$(grep -c '^latency maximum' "$dir/out.txt")" = 2 ] || fail "a maximum measured outside load max"
half=$(awk '$1 == "latency" && $2 == "rate" { r = $3 } END { print r }' "$dir/out.txt")
[ -n "$maximum" ] && awk -v m="$maximum" -v h="$half" 'BEGIN { exit !(m > 0 && h * 2 > m * 0.999 && h * 2 < m * 1.001) }' ||
	fail "load 50 gave rate $half kpps, the maximum was $maximum kpps"
# NIC B's socket full: a socket bound to NIC B's port that nobody reads takes what its buffer holds (a few hundred
# 60-byte datagrams) and drops the rest, which the nic_b line counts: of 1 s at 5 kpps, a quarter or more. As for the
# relay, host_ends starts once the socket is bound ("ready" line), not after a fixed wait, and the socket stays until
# the script ends it (SIGTERM), not for a fixed time. In run 2 it closes between the begin and end marks (QEMU ending
# mid-run): the drops at the end are those of no socket, 0, and the run's are not 0 less those at its begin (nearly
# 2^64), which no count of sent frames bounds.
mkfifo "$dir/hole-ready" "$dir/hole-in"
python3 -c 'import os, signal, socket, sys
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
os.write(3, b"ready\n")
os.close(3)
signal.sigwait([signal.SIGTERM])' "$nic_port" 3>"$dir/hole-ready" &
hole=$!
read -r _ <"$dir/hole-ready" || fail "the socket nobody reads was not bound"
"$host_ends" "$source_port" "$nic_port" "$sink_port" 5 <"$dir/hole-in" >"$dir/hole.txt" &
ends=$!
{
	echo "IXY-VM: bench y run 1: begin"
	sleep 1
	echo "IXY-VM: bench y run 1: end"
	echo "IXY-VM: bench y run 2: begin"
	# host_ends has read the begin mark (and the socket's drops) once it has copied the line.
	tries=0
	until grep -q "bench y run 2: begin" "$dir/hole.txt"; do
		tries=$((tries + 1))
		[ $tries -lt 600 ] || fail "host_ends did not copy the begin mark of run 2"
		sleep 0.05
	done
	kill -TERM "$hole"
	wait "$hole"
	hole=
	echo "IXY-VM: bench y run 2: end"
} >"$dir/hole-in"
wait $ends
ends=
grep nic_b "$dir/hole.txt"
awk '$1 == "nic_b" && $2 == "y" && $4 == "1:" { found = 1; if (!($10 >= $6 / 4 && $8 + $10 <= $6)) { print "sent " $6 ", dropped " $10 " by a socket nobody reads"; exit 1 } }
	END { if (!found) { print "no nic_b line"; exit 1 } }' "$dir/hole.txt" || fail "the drops of NIC B's full socket"
awk '$1 == "nic_b" && $2 == "y" && $4 == "2:" { found = 1; if ($8 + $10 > $6) { print "sent " $6 ", refused " $8 ", dropped " $10 " by a socket that closed during the run"; exit 1 } }
	END { if (!found) { print "no nic_b line for run 2"; exit 1 } }' "$dir/hole.txt" || fail "the drops of a socket that closed"
# A standard input that cannot be read (a directory: EISDIR) ends host_ends with a message, not a loop.
status=0
timeout 20 "$host_ends" "$source_port" "$nic_port" "$sink_port" 5 </ >/dev/null 2>"$dir/err.txt" || status=$?
[ "$status" = 1 ] && [ -s "$dir/err.txt" ] || fail "host_ends reading a directory: exit $status, stderr '$(cat "$dir/err.txt")'"
echo "PASS"
