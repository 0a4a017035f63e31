#!/bin/bash
# AF_XDP queues in threads of their own (issue 28), without QEMU: veth pairs of two queues in a network namespace the
# test makes and removes; nothing outside it is touched.
#
#   test_xdp_veth_queues.sh <ixy-fwd> <source dir> [--tsan]
#
#   2 senders -> vethA --- vethB  ixy-fwd --queues 2 --poll  vethC --- vethD -> tcpdump
#
# Two senders (xdp_flows.py, raw packet sockets) send frames of 64 flows into vethA, each flow's frames numbered; the
# kernel spreads the flows over vethA's two TX queues, and a veth hands a frame to its peer's RX queue of the same
# number, so that both of ixy-fwd's queues (a thread each) get frames. ixy-fwd forwards queue i of xdp:vethB to queue
# i of xdp:vethC, and tcpdump records what vethD receives. Checked:
#   - every frame at vethD is one the senders sent, byte for byte, with the byte ixy-fwd changes plus one; no frame
#     twice; each flow's frames in order (xdp_flows.py check);
#   - no loss but the counted ones: vethB received what was sent; ixy-fwd received it, or the kernel dropped it at its
#     socket (rx_dropped); it forwarded it, or dropped it for a full TX queue (tx_full); vethC sent what it forwarded
#     and vethD received that, and tcpdump recorded all of it;
#   - both of ixy-fwd's queues received frames, and their counts ("queue ... rx_packets=") add up to the device's;
#   - ixy-fwd copied no frame and the kernel wrote no address outside a queue's slice (refused=0).
# With --tsan, ixy-fwd is a ThreadSanitizer build (-DIXY_TSAN=ON), run with --no-sandbox (the filter refuses TSan's
# system calls) and halt_on_error: ThreadSanitizer must report nothing.
# Needs root, network namespaces, veth pairs, AF_XDP sockets, ip, tcpdump, python3: exits 77 (skipped) without one
# of them, with a line "skipped: ..." naming it. The last line: "N passed, N failed".
set -u
fwd_bin=$1
src=$2
tsan=${3:-}
. "$src/test/xdp/veth_lib.sh" ixy-xdpq-test "$src" ip tcpdump python3

FLOWS=64
FRAMES=48000 # per sender
# count DEV KEY: the number KEY has on ixy-fwd's totals line of xdp:DEV, or "?DEV:KEY", which equals no count
count() { total "$work/fwd.out" "totals app=ixy-fwd pci=xdp:$1" "$2" || echo "?$1:$2"; }
# queue_count DEV Q: rx_packets on ixy-fwd's line of queue Q of xdp:DEV
queue_count() { total "$work/fwd.out" "queue app=ixy-fwd pci=xdp:$1 queue=$2" rx_packets || echo "?$1:$2"; }

ip netns add "$ns" || exit 1
no_ipv6 || exit 1
for pair in vethA:vethB vethC:vethD; do
	ip -n "$ns" link add "${pair%:*}" numtxqueues 2 numrxqueues 2 type veth peer name "${pair#*:}" \
		numtxqueues 2 numrxqueues 2 || exit 1
done
for dev in vethA vethB vethC vethD; do
	no_ipv6 "$dev"
	ip -n "$ns" link set "$dev" up || exit 1
done

ip netns exec "$ns" tcpdump -i vethD -Q in -w "$work/vethD.pcap" --immediate-mode -U -s 512 -B 131072 -n \
	2>"$work/tcpdump.err" &
tcpdump=$!
pids="$pids $tcpdump"
wait_for 30 grep -qs "listening on" "$work/tcpdump.err" || echo "tcpdump did not start: $(cat "$work/tcpdump.err")"
fwd_env=()
fwd_args=(--queues 2 --poll)
if [ "$tsan" = --tsan ]; then
	fwd_env=(env "TSAN_OPTIONS=halt_on_error=1 exitcode=66 history_size=7")
	fwd_args=(--no-sandbox "${fwd_args[@]}")
fi
ip netns exec "$ns" "${fwd_env[@]}" "$fwd_bin" "${fwd_args[@]}" xdp:vethB xdp:vethC >"$work/fwd.out" 2>"$work/fwd.err" &
fwd=$!
pids="$pids $fwd"
check "ixy-fwd attached its program to vethB and vethC" wait_for 30 eval 'is_attached vethB && is_attached vethC'
# Both devices opened (their sockets bound, the fill rings filled): the line each prints then, not a fixed wait.
wait_for 30 eval '[ "$(grep -c "^ixy: xdp:veth[BC]: AF_XDP on " "$work/fwd.err")" = 2 ]' ||
	echo "    ixy-fwd did not say it opened both devices in 30 s"
before_b=$(kernel vethB rx packets)
before_b_drop=$(kernel vethB rx dropped)
before_d=$(kernel vethD rx packets)
# Two senders at once, flows 0-31 and 32-63, bounded by count and time.
for sender in 0 1; do
	ip netns exec "$ns" timeout 60 python3 "$src/test/xdp/xdp_flows.py" send vethA $((sender * FLOWS / 2)) \
		$((FLOWS / 2)) $FRAMES 40 >"$work/sender$sender.out" 2>&1 &
	senders="${senders:-} $!"
done
sender_status=""
for pid in $senders; do
	finish 90 "$pid"
	sender_status="$sender_status $?"
done
sent=$(add "$(sed -n 's/^sent=//p' "$work/sender0.out")" "$(sed -n 's/^sent=//p' "$work/sender1.out")")
# What was sent drains through ixy-fwd: stopped before, it leaves frames in its RX rings, counted nowhere. (A fixed
# 1 s, then 0.5 s for tcpdump, were guesses a busy machine can exceed.) Drained: vethB received all that was sent, and
# each is at vethD or was dropped at ixy-fwd's sockets (vethB's rx_dropped); then tcpdump has recorded what vethD got.
drained() {
	[ "$(kernel vethB rx packets)" = "$(add "$sent" "$before_b")" ] &&
		[ "$(add "$(kernel vethD rx packets)" "$(kernel vethB rx dropped)")" = "$(add "$sent" "$before_d" "$before_b_drop")" ]
}
wait_until 60 drained || echo "    not drained through ixy-fwd in 60 s (a frame lost or dropped for a full TX queue)"
kill -TERM "$fwd"
finish 30 "$fwd"
fwd_status=$?
wait_until 60 eval '[ "$(pcap_records "$work/vethD.pcap")" = "$(kernel vethD rx packets)" ]' ||
	echo "    tcpdump did not record all vethD received in 60 s"
kill -TERM "$tcpdump"
finish 30 "$tcpdump"
pids=""

to_b=$(($(kernel vethB rx packets) - before_b))
d_rx=$(kernel vethD rx packets)
recorded=$(sed -n 's/^\([0-9]*\) packets\{0,1\} captured$/\1/p' "$work/tcpdump.err")
b_rx=$(count vethB rx_packets)
b_drop=$(count vethB rx_dropped)
b_forwarded=$(count vethB forwarded)
b_tx_full=$(count vethB tx_full)
c_tx=$(count vethC tx_packets)
q0=$(queue_count vethB 0)
q1=$(queue_count vethB 1)
grep -E '^(ixy: xdp:|totals|queue)' "$work/fwd.err" "$work/fwd.out" -h | sed 's/^/    /'
echo "    sent $sent, vethB received $to_b, vethD received $d_rx, tcpdump recorded ${recorded:-?}"

check "the senders sent all their frames" eq "$sender_status $sent" " 0 0 $((2 * FRAMES))"
check "ixy-fwd exited with status 0 when stopped" eq "$fwd_status" 0
if [ "$tsan" = --tsan ]; then
	check "ThreadSanitizer reported nothing" eval '! grep -q "ThreadSanitizer" "$work/fwd.err"'
	grep -A40 -m1 "WARNING: ThreadSanitizer" "$work/fwd.err" | sed 's/^/    /'
fi
check "vethB received every frame sent" eq "$to_b" "$sent"
check "ixy-fwd on vethB: received + dropped at its sockets = what vethB received" eq "$(add "$b_rx" "$b_drop")" "$to_b"
check "ixy-fwd: received = forwarded + dropped for a full TX queue" eq "$(add "$b_forwarded" "$b_tx_full")" "$b_rx"
check "ixy-fwd: vethC sent what it forwarded" eq "$c_tx" "$b_forwarded"
check "vethD received what ixy-fwd forwarded" eq "$d_rx" "$b_forwarded"
check "tcpdump recorded every frame vethD received" eq "$recorded" "$d_rx"
check "both queues of vethB received frames (queue 0: $q0, queue 1: $q1)" eval 'positive "$q0" && positive "$q1"'
check "the queues' counts add up to vethB's" eq "$(add "$q0" "$q1")" "$b_rx"
check "ixy-fwd copied no frame, refused no address (tx_copied=0 refused=0 on vethB and vethC)" \
	eq "$(grep -cE '^ixy: xdp:veth[BC]: closed: tx_copied=0 tx_too_large=0 refused=0$' "$work/fwd.err")" 2
python3 "$src/test/xdp/xdp_flows.py" check "$work/vethD.pcap" $FLOWS >"$work/check.out" 2>&1
status=$?
sed 's/^/    /' "$work/check.out"
check "every frame at vethD: a frame sent, byte for byte, once, in its flow's order" eq "$status" 0
check "frames at vethD: all recorded ones checked" grep -q "^frames=$recorded valid=$recorded " "$work/check.out"

summary
