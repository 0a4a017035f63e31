#!/bin/bash
# AF_XDP on this machine, without QEMU (issue 22): veth pairs and bridges in a network namespace the test makes and
# removes; nothing outside it is touched.
#
#   test_xdp_veth.sh <apps dir> <xdp_open> <xsk_umems> <source dir>
#
#   ixy-pktgen xdp:vethA --- brA [br0] brB --- vethB ixy-fwd vethC --- brC [br1] brD --- xdp:vethD ixy-pcap
#
# Each --- is a veth pair; br0 and br1 are bridges of two ports each. An XDP program runs before the kernel's capture
# point on RX, and AF_XDP's TX bypasses it, so tcpdump on the apps' own interfaces sees nothing of their packets; the
# bridge ports have no XDP program, and tcpdump there (-Q out) records every frame on its way toward vethB and
# toward vethD. The bridges add no frame of their own (no STP, no multicast snooping and so no queries, no IPv6 in
# the namespace) and repeat none: ixy-pktgen's destination MAC 02:00:00:00:00:02 (apps/common/packet.c) is no
# interface's, so each bridge floods each frame to its one other port, once.
# 1. ixy-pktgen -> ixy-fwd -> ixy-pcap. Checked: the kernel holds ixy-fwd's two sockets on one UMEM (xsk_umems.c);
#    the frames toward vethB are ixy-pktgen's byte for byte, sequence numbers 0..N-1 in order, those toward vethD
#    ixy-fwd's, those ixy-pcap wrote among them (check_xdp_capture.py); and the counts agree exactly: the apps'
#    totals lines (test/vm/totals.sh), the kernel's interface counters (ip -s link) and tcpdump's records.
# 2. The XDP program is gone after a normal exit and after SIGKILL (ip link shows no xdp).
# 3. Every refusal: one line, exit status 1, the interfaces as they were, no program left attached. IXY_FORCE=1
#    beside another process's program (ixy's, and programs attached with netlink, the old way): one warning, then
#    the kernel's refusal in one error line, the program there unchanged.
# Needs root, network namespaces, veth pairs, bridges, AF_XDP sockets, ip, tcpdump, setpriv, python3: exits 77
# (skipped) without one of them, with a line "skipped: ..." naming it. The last line: "N passed, N failed".
set -u
bin=$1
xdp_open=$2
xsk_umems=$3
src=$4
veth_features=bridge # br0 and br1
. "$src/test/xdp/veth_lib.sh" ixy-xdp-test "$src" ip tcpdump setpriv python3
none_attached() { [ "$(attached)" = 0 ]; }
# xdp_programs DEV: the XDP programs attached to the interface, "mode=M id=N" each (ip -j -d link: mode 1 the
# driver's, 2 generic), or "none".
xdp_programs() {
	ip -n "$ns" -j -d link show dev "$1" | python3 -c '
import json, sys
xdp = json.load(sys.stdin)[0].get("xdp") or {}
print(" ".join("mode=%d id=%d" % (a["mode"], a["prog"]["id"]) for a in xdp.get("attached", [])) or "none")'
}
# kernel_deltas: the kernel's counters of every interface in the namespace (ip -s -j link), as shell assignments
# k_<dev>_<rx|tx>_<packets|dropped>=N of what they grew by since $work/before.json.
kernel_deltas() {
	ip -n "$ns" -s -j link show | python3 -c '
import json, sys
before = {d["ifname"]: d["stats64"] for d in json.load(open(sys.argv[1]))}
for d in json.load(sys.stdin):
    name, now = d["ifname"], d["stats64"]
    for way in ("rx", "tx"):
        for what in ("packets", "dropped"):
            print("k_%s_%s_%s=%d" % (name, way, what, now[way][what] - before[name][way][what]))' "$work/before.json"
}
# A process stops only once what it has to take has reached it: stopped before, what waits in its RX ring is counted
# nowhere. (Fixed waits of 0.5 s and "the capture file's size did not change for 0.3 s" were guesses that a busy
# machine exceeds.) These compare the kernel's counters (deltas since $work/before.json) and the capture files.
# fwd_drained: vethB received all ixy-pktgen sent ($gen_sent), and each frame left vethC or was dropped at ixy-fwd's
# socket (vethB's rx_dropped).
# shellcheck disable=SC2154 # k_*: assigned by eval "$(kernel_deltas)"; gen_sent: by count
fwd_drained() {
	eval "$(kernel_deltas)"
	[ "$k_vethB_rx_packets" = "$gen_sent" ] && [ "$(add "$k_vethC_tx_packets" "$k_vethB_rx_dropped")" = "$gen_sent" ]
}
# pcap_drained: each frame vethD received ($k_vethD_rx_packets, all of vethC's) is in ixy-pcap's file (flushed once
# a second) or was dropped at its socket (vethD's rx_dropped).
# shellcheck disable=SC2154 # k_*: assigned by eval "$(kernel_deltas)"; gen_sent: by count
pcap_drained() {
	eval "$(kernel_deltas)"
	[ "$k_vethD_rx_packets" = "$k_vethC_tx_packets" ] &&
		[ "$(add "$(pcap_records "$work/ixy.pcap")" "$k_vethD_rx_dropped")" = "$k_vethD_rx_packets" ]
}
# tcpdump_count PORT WORDS: tcpdump's own count at its exit: "captured" (written), "received by filter" (that the
# kernel handed it), "dropped by kernel" (no room in its buffer).
tcpdump_count() { sed -n "s/^\([0-9]*\) packets\{0,1\} $2\$/\1/p" "$work/$1.err"; }
# count VAR APP DEV KEY: VAR = the number KEY has on the totals line of xdp:DEV in $work/APP.out (test/vm/totals.sh),
# or "?APP:DEV:KEY" if there is none, which equals no other count.
count() {
	local value
	value=$(total "$work/$2.out" "totals app=ixy-$2 pci=xdp:$3" "$4") || value="?$2:$3:$4"
	printf -v "$1" %s "$value"
}
# The state of the interfaces a refusal must leave as it was: all but the counters and the bridges' timers.
link_state() { ip -n "$ns" -d link show | grep -v -E '^ +(RX|TX|[0-9]+ )' | sed -E 's/[a-z_]+_timer +[0-9.]+//g'; }

ip netns add "$ns" || exit 1
# No IPv6, on every interface made from here on: its router solicitations, neighbour discovery and MLD reports
# would be the only other frames on the links.
no_ipv6 || exit 1
for pair in vethA:brA vethB:brB vethC:brC vethD:brD; do
	ip -n "$ns" link add "${pair%:*}" type veth peer name "${pair#*:}" || exit 1
done
# Bridges without STP (no BPDUs, ports forward at once) and without multicast snooping (no IGMP/MLD queries).
for bridge in br0:brA:brB br1:brC:brD; do
	IFS=: read -r br first second <<<"$bridge"
	ip -n "$ns" link add "$br" type bridge stp_state 0 mcast_snooping 0 || exit 1
	ip -n "$ns" link set "$first" master "$br" || exit 1
	ip -n "$ns" link set "$second" master "$br" || exit 1
done
for dev in vethA vethB vethC vethD brA brB brC brD br0 br1; do
	no_ipv6 "$dev"
	ip -n "$ns" link set "$dev" up || exit 1
done
src_mac=$(ip -n "$ns" -j link show dev vethA | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['address'])")

echo "== 1. ixy-pktgen xdp:vethA -> br0 -> ixy-fwd xdp:vethB xdp:vethC -> br1 -> ixy-pcap xdp:vethD"
# Every frame the bridge ports send toward vethB and vethD, no filter. --immediate-mode: each frame is handed to
# tcpdump at once (not in blocks that wait up to a second), -U: and written at once, so that a capture file that
# stopped growing holds all. Buffers of 128 MiB in slots of 128 bytes (-s): room for all frames of the run even if
# tcpdump falls behind on a busy machine.
tcpdumps=""
for port in brB brD; do
	ip netns exec "$ns" tcpdump -i "$port" -Q out -w "$work/$port.pcap" --immediate-mode -U -s 128 -B 131072 \
		-Z root -n 2>"$work/$port.err" &
	tcpdumps="$tcpdumps $!"
	pids="$pids $!"
done
for port in brB brD; do
	wait_for 30 grep -q "listening on" "$work/$port.err" || echo "tcpdump on $port did not start: $(cat "$work/$port.err")"
done
ip -n "$ns" -s -j link show >"$work/before.json"
ip netns exec "$ns" "$bin/ixy-fwd" --wait 1000 xdp:vethB xdp:vethC >"$work/fwd.out" 2>"$work/fwd.err" &
fwd=$!
pids="$pids $fwd"
check "ixy-fwd attached its program to vethB and vethC" wait_for 30 eval 'is_attached vethB && is_attached vethC'
# Rings of the default size (issue 29: 4096 descriptors, room for a scheduling hiccup), and a UMEM that holds them
# all: one slice, per device an RX queue's fill and RX rings and a TX queue's TX and completion rings, 2 x 4 x 4096
# frames, and 4096 spare (a whole number of huge pages' worth: 36864).
# (The init line's key=value data, not its words: one RX queue fills its whole fill ring at start, so fill_frames is
# the ring's size.)
check "ixy-fwd's AF_XDP rings have 4096 descriptors by default: vethB's fill_frames=4096" \
	wait_for 30 eval 'grep "xdp:vethB: " "$work/fwd.err" | grep -q " fill_frames=4096$"'
check "... and its UMEM holds them and the spare: umem_frames=36864" wait_for 30 grep -q "umem_frames=36864 " "$work/fwd.err"
# An AF_XDP-only process has ordinary memory: no hugetlbfs file, no anonymous huge pages (xdp_memory_access).
check "ixy-fwd maps no huge pages" eq "$(grep -cE 'hugetlbfs|/mnt/huge|anon_hugepage' "/proc/$fwd/maps")" 0
# One UMEM for both devices (XDP_SHARED_UMEM), as the kernel holds ixy-fwd's sockets: nothing else tells, as each
# socket registering a UMEM of its own over the same memory forwards just as well, without a copy.
in_ns_bounded "$xsk_umems" "$fwd" >"$work/umems" 2>&1
sed 's/^/    kernel: ixy-fwd: /' "$work/umems"
check "the kernel: ixy-fwd has two AF_XDP sockets, on vethB and vethC, queue 0 each" \
	eq "$(sed -n 's/^xsk fd=[0-9]* \(ifname=[^ ]* queue=[0-9]*\) umem=.*$/\1/p' "$work/umems" | sort | tr '\n' ' ')" \
	"ifname=vethB queue=0 ifname=vethC queue=0 "
check "the kernel: ixy-fwd's sockets on vethB and vethC share one UMEM" \
	eq "$(sed -n 's/^xsk .* umem=\([0-9][0-9]*\)$/\1/p' "$work/umems" | sort -u | wc -l)" 1
ip netns exec "$ns" "$bin/ixy-pcap" xdp:vethD "$work/ixy.pcap" >"$work/pcap.out" 2>"$work/pcap.err" &
pcap=$!
pids="$pids $pcap"
check "ixy-pcap attached its program to vethD" wait_for 30 is_attached vethD
ip netns exec "$ns" "$bin/ixy-pktgen" xdp:vethA >"$work/pktgen.out" 2>"$work/pktgen.err" &
pktgen=$!
pids="$pids $pktgen"
for counter in k_vethA_tx_packets k_vethB_rx_packets k_vethB_rx_dropped k_vethC_tx_packets k_vethD_rx_packets \
	k_vethD_rx_dropped; do
	printf -v "$counter" '?%s' "$counter" # if ip fails: equals no count
done
# 1.5 s from the first frame at vethB (ixy-pktgen opened its device), not from its start
wait_until 60 eval 'eval "$(kernel_deltas)"; positive "$k_vethB_rx_packets"' ||
	echo "    no frame reached vethB in 60 s"
sleep 1.5
# Stop the generator first and let what it sent drain through ixy-fwd into ixy-pcap, then stop those two; the
# tcpdumps once they have written all they saw.
statuses=""
stop() { # stop PID: SIGTERM, its exit status into $statuses
	kill -TERM "$1"
	finish 30 "$1"
	statuses="$statuses $?"
}
stop "$pktgen"
count gen_sent pktgen "vethA" sent
wait_until 60 fwd_drained || echo "    not drained through ixy-fwd in 60 s (a frame lost or dropped for a full TX queue)"
stop "$fwd"
wait_until 60 pcap_drained || echo "    not drained into ixy-pcap in 60 s (a frame lost)"
stop "$pcap"
eval "$(kernel_deltas)"
# tcpdump -U writes each frame as soon as it has read it: the files hold all once they hold what the kernel counted
# (toward vethB: what vethB received; toward vethD: what vethD received).
wait_until 60 eval '[ "$(pcap_records "$work/brB.pcap")" = "$k_vethB_rx_packets" ]' ||
	echo "    tcpdump on brB did not record all vethB received in 60 s"
wait_until 60 eval '[ "$(pcap_records "$work/brD.pcap")" = "$k_vethD_rx_packets" ]' ||
	echo "    tcpdump on brD did not record all vethD received in 60 s"
for pid in $tcpdumps; do
	kill -TERM "$pid"
	finish 30 "$pid"
	statuses="$statuses $?"
done
pids=""
check "ixy-pktgen, ixy-fwd, ixy-pcap and both tcpdumps exited with status 0 when stopped" eq "$statuses" " 0 0 0 0 0"
cat "$work/pktgen.err" "$work/fwd.err" "$work/pcap.err" | grep -E '^ixy: xdp:' | sed 's/^/    /'
grep -h '^totals' "$work/pktgen.out" "$work/fwd.out" "$work/pcap.out" | sed 's/^/    /'
for port in brB brD; do
	grep -v '^$' "$work/$port.err" | sed "s/^/    tcpdump on $port: /"
done

count gen_tx pktgen "vethA" tx_packets
count gen_sent pktgen "vethA" sent
count b_rx fwd "vethB" rx_packets
count b_drop fwd "vethB" rx_dropped
count b_forwarded fwd "vethB" forwarded
count b_tx_full fwd "vethB" tx_full
count c_tx fwd "vethC" tx_packets
count d_rx pcap "vethD" rx_packets
count d_drop pcap "vethD" rx_dropped
count captured pcap "vethD" captured
count not_written pcap "vethD" not_written
to_b=$(tcpdump_count brB captured)
to_b=${to_b:-?brB}
to_d=$(tcpdump_count brD captured)
to_d=${to_d:-?brD}
echo "    kernel counters: vethA sent $k_vethA_tx_packets, vethB received $k_vethB_rx_packets" \
	"(dropped $k_vethB_rx_dropped), vethC sent $k_vethC_tx_packets, vethD received" \
	"$k_vethD_rx_packets (dropped $k_vethD_rx_dropped)"
echo "    tcpdump: toward vethB $to_b, toward vethD $to_d"

for port in brB brD; do
	check "tcpdump on $port recorded every frame (captured = received by filter, none dropped by the kernel)" \
		eq "$(tcpdump_count $port captured) $(tcpdump_count $port 'dropped by kernel')" \
		"$(tcpdump_count $port 'received by filter') 0"
done
# ixy-pktgen -> vethB: what ixy-pktgen counts as sent (queued into its socket's TX ring) is what the kernel sent.
check "ixy-pktgen sent packets" positive "$gen_sent"
check "ixy-pktgen: the kernel sent all it queued (tx_packets = sent)" eq "$gen_tx" "$gen_sent"
check "vethB received what ixy-pktgen counts as sent" eq "$k_vethB_rx_packets" "$gen_sent"
check "tcpdump toward vethB: what ixy-pktgen counts as sent" eq "$to_b" "$gen_sent"
check "the kernel from vethA to vethB: vethA sent = toward vethB = vethB received = ixy-pktgen's tx_packets" \
	eq "$k_vethA_tx_packets $to_b $k_vethB_rx_packets" "$gen_tx $gen_tx $gen_tx"
# ixy-fwd: what it did not take the kernel dropped at its socket (its RX ring full) and counts as vethB's drops.
check "ixy-fwd on vethB: received + dropped = what vethB received" \
	eq "$(add "$b_rx" "$b_drop")" "$k_vethB_rx_packets"
check "the kernel counts ixy-fwd's RX drops as vethB's drops" eq "$k_vethB_rx_dropped" "$b_drop"
check "ixy-fwd forwarded packets" positive "$b_forwarded"
check "ixy-fwd: every packet received on vethB forwarded, or dropped for a full TX queue (tx_full)" \
	eq "$(add "$b_forwarded" "$b_tx_full")" "$b_rx"
# ixy-fwd -> vethD: what ixy-fwd counts as forwarded (queued into vethC's TX ring) is what the kernel sent.
check "ixy-fwd: vethC sent (tx_packets) what it forwarded from vethB" eq "$c_tx" "$b_forwarded"
check "vethC: the kernel sent what ixy-fwd forwarded" eq "$k_vethC_tx_packets" "$b_forwarded"
check "tcpdump toward vethD: what ixy-fwd forwarded" eq "$to_d" "$b_forwarded"
check "vethD received what ixy-fwd forwarded" eq "$k_vethD_rx_packets" "$b_forwarded"
# ixy-pcap writes each packet into a file and falls behind: the kernel drops at its socket what its RX ring has no
# room for (XDP_STATISTICS rx_ring_full; none lack a fill ring frame here), counts it as vethD's drops, and ixy-pcap
# reports the socket's count as rx_dropped.
check "ixy-pcap: captured + dropped by the kernel at its socket = toward vethD" \
	eq "$(add "$captured" "$d_drop")" "$to_d"
check "the kernel counts ixy-pcap's RX drops as vethD's drops" eq "$k_vethD_rx_dropped" "$d_drop"
check "ixy-pcap received packets" positive "$d_rx"
check "ixy-pcap wrote every packet it received" eq "$captured $not_written" "$d_rx 0"
check "packets: byte for byte, in order (check_xdp_capture.py)" \
	python3 "$src/test/xdp/check_xdp_capture.py" --to-b "$work/brB.pcap" --to-d "$work/brD.pcap" \
	--ixy "$work/ixy.pcap" --src-mac "$src_mac"
# The drivers' closing words (xdp.c): ixy-fwd sends the frames it received, ixy-pktgen's packets come from its own
# pool and are copied into a frame each.
check "ixy-fwd copied no packet (tx_copied=0 on vethB and vethC)" \
	eq "$(grep -cE '^ixy: xdp:veth[BC]: closed: tx_copied=0 tx_too_large=0 refused=0$' "$work/fwd.err")" 2
check "ixy-pktgen copied each packet it queued into the UMEM" \
	grep -qE "^ixy: xdp:vethA: closed: tx_copied=$gen_sent tx_too_large=0 refused=0\$" "$work/pktgen.err"
check "ixy-pcap: the kernel's descriptors were all in bounds" \
	grep -qE '^ixy: xdp:vethD: closed: tx_copied=0 tx_too_large=0 refused=0$' "$work/pcap.err"

echo "== 2. The program is gone when the process ends"
check "after the normal exits: no XDP program in the namespace" none_attached
ip netns exec "$ns" "$bin/ixy-fwd" xdp:vethB xdp:vethC >"$work/kill.out" 2>&1 &
victim=$!
pids="$victim"
check "ixy-fwd attached its programs again" wait_for 30 eval 'is_attached vethB && is_attached vethC'
kill -KILL "$victim"
finish 30 "$victim" 2>/dev/null
pids=""
check "after SIGKILL: no XDP program in the namespace (the BPF links died with the process)" wait_for 30 none_attached

echo "== 3. Refusals: one line, exit status 1, nothing changed, no program left"
# refuse WHAT WORDS COMMAND...: the command, run in the namespace, exits 1 with one line on stderr, an error that holds WORDS; the
# interfaces are as before, and no program is attached but those attached before.
refuse() {
	local what=$1 words=$2
	shift 2
	local before programs
	before=$(link_state)
	programs=$(attached)
	# In the namespace; a command that is not refused runs until stopped.
	bounded 20 ip netns exec "$ns" "$@" >"$work/refusal.out" 2>"$work/refusal.err"
	local status=$?
	local lines
	lines=$(wc -l <"$work/refusal.err")
	printf '    | %s | %s | %s |\n' "$what" "$(head -n 1 "$work/refusal.err")" "$status"
	check "refused: $what: exit status 1" eq "$status" 1
	check "refused: $what: one line naming it" eval '[ "$lines" = 1 ] && grep -q "^ixy: error: .*$words" "$work/refusal.err"'
	check "refused: $what: the interfaces as they were" eq "$(link_state)" "$before"
	check "refused: $what: no program left attached" eq "$(attached)" "$programs"
}
# forced WHAT ERROR: IXY_FORCE=1 ixy-pcap on vethD beside the program attached there: the check lets it pass with one
# warning, then the kernel refuses, and ixy says so in one error line that holds ERROR; exit status 1, vethD has
# the program it had and no other.
forced() {
	local what=$1 error=$2 before
	before=$(xdp_programs vethD)
	in_ns_bounded env IXY_FORCE=1 "$bin/ixy-pcap" xdp:vethD "$work/r.pcap" >"$work/force.out" 2>"$work/force.err"
	local status=$?
	sed 's/^/    IXY_FORCE=1: /' "$work/force.err"
	check "IXY_FORCE=1 $what: exit status 1" eq "$status" 1
	check "IXY_FORCE=1 $what: one warning" eq "$(grep -c '^ixy: warning:' "$work/force.err")" 1
	check "IXY_FORCE=1 $what: one error line, the kernel's refusal" eval \
		'[ "$(grep -c "^ixy: error:" "$work/force.err")" = 1 ] &&
		grep "^ixy: error: xdp:vethD: " "$work/force.err" | grep -qF "$error"'
	check "IXY_FORCE=1 $what: vethD has the program it had, no other ($before)" eq "$(xdp_programs vethD)" "$before"
}
refuse "no such interface" "no network interface vethX" "$bin/ixy-pcap" xdp:vethX "$work/r.pcap"
refuse "not permitted: CAP_NET_RAW" "lacks CAP_NET_RAW" \
	setpriv --bounding-set=-net_raw "$bin/ixy-pcap" xdp:vethD "$work/r.pcap"
refuse "not permitted: CAP_NET_ADMIN" "lacks CAP_NET_ADMIN" \
	setpriv --bounding-set=-net_admin "$bin/ixy-pcap" xdp:vethD "$work/r.pcap"
refuse "not permitted: CAP_BPF" "lacks CAP_BPF" \
	setpriv --bounding-set=-bpf,-sys_admin "$bin/ixy-pcap" xdp:vethD "$work/r.pcap"
refuse "a kernel without AF_XDP" "no AF_XDP sockets" "$xdp_open" --no-af-xdp xdp:vethD 1 1
refuse "a kernel without BPF links" "no BPF links" "$xdp_open" --no-bpf-links xdp:vethD 1 1
refuse "not permitted: locked memory" "lacks CAP_IPC_LOCK with a locked-memory limit of 1024 KiB" \
	prlimit --memlock=1048576 setpriv --bounding-set=-ipc_lock "$bin/ixy-pcap" xdp:vethD "$work/r.pcap"
in_ns ip link set vethD mtu 3000
refuse "an MTU above what a frame holds" "MTU 3000 is above" "$bin/ixy-pcap" xdp:vethD "$work/r.pcap"
# The boundary: a frame holds 1792 bytes of packet, the MTU and 18 bytes of Ethernet header and VLAN tag.
in_ns ip link set vethD mtu 1775
refuse "an MTU one byte above what a frame holds" "MTU 1775 is above" "$xdp_open" xdp:vethD 1 1
in_ns ip link set vethD mtu 1774
in_ns_bounded "$xdp_open" xdp:vethD 1 1 </dev/null >"$work/mtu.out" 2>&1
check "MTU 1774, the largest a frame holds: opened" eq "$?" 0
in_ns ip link set vethD mtu 1500
refuse "a queue the interface does not have" "2 queue(s) asked, but vethD has 1 RX and 1 TX" \
	"$xdp_open" xdp:vethD 2 2
# A batch on a queue number the device does not have (issue 34): refused for every driver in ixy.h's wrappers.
in_ns_bounded "$xdp_open" --bad-queue xdp:vethD </dev/null >"$work/badq.out" 2>"$work/badq.err"
status=$?
sed 's/^/    /' "$work/badq.out" "$work/badq.err"
check "RX and TX queue 1 of a device of one: no packet received, none taken" \
	eq "$status $(head -n 1 "$work/badq.out")" "0 bad_queue rx=0 tx=0"
check "... one error line says so" eval '[ "$(grep -c "^ixy: error:" "$work/badq.err")" = 1 ] &&
	grep -q "^ixy: error: xdp:vethD: RX queue 1 does not exist (the device has 1 RX and 1 TX queues)" "$work/badq.err"'
check "... and the caller's packet goes out on queue 0" grep -qx "queue0 tx=1" "$work/badq.out"
# Another program on vethD: ixy-pcap's, from a second ixy-pcap.
ip netns exec "$ns" "$bin/ixy-pcap" xdp:vethD "$work/first.pcap" >"$work/first.out" 2>&1 &
first=$!
pids="$first"
check "a first ixy-pcap attached its program to vethD" wait_for 30 is_attached vethD
refuse "an XDP program attached already" "has an XDP program attached already" \
	"$bin/ixy-pcap" xdp:vethD "$work/r.pcap"
# The first ixy-pcap's socket has vethD's only queue: the kernel refuses a second socket there (bind) before the
# second program comes to be attached.
forced "beside another ixy-pcap" \
	"binding the AF_XDP socket of queue 0 failed: Device or resource busy (another AF_XDP socket has this queue)"
kill -INT "$first"
finish 30 "$first"
pids=""
check "the first ixy-pcap's program went with it" none_attached
# Programs attached with netlink (IFLA_XDP, as ip link set ... xdp obj ... does), not with a BPF link: they stay
# until detached. ixy's socket binds (no other socket has the queue), then the kernel refuses ixy's BPF link beside
# such a program: beside one of the driver's own mode with EBUSY ("Can't replace active XDP program with BPF link"),
# beside a generic one with EEXIST (native and generic XDP cannot be active at the same time; ixy asks for native).
for attach in native:1:xdpdrv:"Device or resource busy" generic:2:xdpgeneric:"File exists"; do
	IFS=: read -r mode number keyword error <<<"$attach"
	in_ns_bounded "$xdp_open" --attach-netlink "$mode" vethD >"$work/attach.out" 2>&1
	sed 's/^/    /' "$work/attach.out"
	id=$(sed -n 's/^attached: ifname=vethD mode=[a-z]* id=\([0-9]*\)$/\1/p' "$work/attach.out")
	check "a program attached to vethD with netlink, $mode mode (id ${id:-?})" \
		eq "$(xdp_programs vethD)" "mode=$number id=${id:-?}"
	refuse "a program attached with netlink ($mode)" "has an XDP program attached already" \
		"$bin/ixy-pcap" xdp:vethD "$work/r.pcap"
	check "refused: a program attached with netlink ($mode): still attached, the same (id ${id:-?})" \
		eq "$(xdp_programs vethD)" "mode=$number id=${id:-?}"
	forced "beside a program attached with netlink ($mode)" \
		"attaching the XDP program to vethD failed: $error (another XDP program is attached)"
	in_ns ip link set dev vethD "$keyword" off
	check "the program attached with netlink ($mode) detached again" none_attached
done
check "after all: no XDP program in the namespace" none_attached

echo "== 4. The UMEM holds every frame the rings can give the kernel, and frames to send besides"
# Four queues of 4096 descriptors: their fill rings alone hold 16384 frames. Each TX queue must still take a batch of
# the app's packets (copied into UMEM frames).
ip -n "$ns" link add vethQ numtxqueues 4 numrxqueues 4 type veth peer name vethR numtxqueues 4 numrxqueues 4
no_ipv6 vethQ vethR
ip -n "$ns" link set vethQ up && ip -n "$ns" link set vethR up
in_ns_bounded "$xdp_open" --send 4096 xdp:vethQ 4 4 </dev/null >"$work/send.out" 2>"$work/send.err"
status=$?
sed 's/^/    /' "$work/send.out" "$work/send.err"
check "4 queues of 4096 descriptors: opened, every TX queue took its batch" eq "$status" 0
check "4 queues of 4096 descriptors: 4 batches of 64 taken" eq "$(grep -c 'taken=64 of=64' "$work/send.out")" 4
check "4 queues of 4096 descriptors: every RX queue's fill ring full" grep -q "fill_frames=16384$" "$work/send.err"
# One RX queue, four TX queues: the TX-only queues' fill rings stay empty (their packets go to the kernel's stack).
in_ns_bounded "$xdp_open" --send 4096 xdp:vethQ 1 4 </dev/null >"$work/send.out" 2>"$work/send.err"
status=$?
sed 's/^/    /' "$work/send.out" "$work/send.err"
check "1 RX and 4 TX queues: opened, every TX queue took its batch" eq "$status" 0
check "1 RX and 4 TX queues: only the RX queue's fill ring filled" grep -q "fill_frames=4096$" "$work/send.err"
check "after it: no XDP program in the namespace" none_attached
# Two devices in one process: checked together (ixy_check_configs) the UMEM is made for both; opened one after the
# other without it, the UMEM is made for the first (rings of 64) and the second (rings of 4096) is refused.
in_ns_bounded "$xdp_open" --two planned xdp:vethQ xdp:vethR </dev/null >"$work/two.out" 2>"$work/two.err"
status=$?
sed 's/^/    planned: /' "$work/two.out" "$work/two.err"
check "two devices checked together: both opened" eval '[ "$status" = 0 ] && grep -qx "opened=2" "$work/two.out"'
# (Another pair: the kernel frees a closed socket's queue a little later, and a bind to it may find it busy.)
ip -n "$ns" link add vethU type veth peer name vethV
no_ipv6 vethU vethV
ip -n "$ns" link set vethU up && ip -n "$ns" link set vethV up
in_ns_bounded "$xdp_open" --two unplanned xdp:vethU xdp:vethV </dev/null >"$work/two.out" 2>"$work/two.err"
status=$?
sed 's/^/    unplanned: /' "$work/two.out" "$work/two.err"
check "two devices opened without the check: the second is refused, exit status 1" eq "$status" 1
check "two devices opened without the check: the first opened" grep -qx "opened=1" "$work/two.out"
check "two devices opened without the check: one line says why" eval \
	'[ "$(grep -c "^ixy: error:" "$work/two.err")" = 1 ] && grep -q "^ixy: error: xdp:vethV: .*cannot also hold" "$work/two.err"'
check "after them: no XDP program in the namespace" none_attached

echo "== 5. What waits in the TX ring at the close is sent"
# vethS is down while xdp_open queues a batch: the kernel sends nothing (ENETDOWN) and the packets stay in the TX
# ring. Then vethS goes up and xdp_open closes the device: ixy_close sends them before it closes the socket.
ip -n "$ns" link add vethS type veth peer name vethT
no_ipv6 vethS vethT
ip -n "$ns" link set vethT up
mkfifo "$work/hold"
ip netns exec "$ns" "$xdp_open" --send 512 xdp:vethS 1 1 <"$work/hold" >"$work/drain.out" 2>"$work/drain.err" &
drain=$!
pids="$pids $drain"
exec 7<>"$work/hold" # (read and write: the open does not wait for xdp_open's; closing it is the end of input)
wait_for 30 grep -q "^sent" "$work/drain.out"
before_t=$(kernel vethT rx packets)
ip -n "$ns" link set vethS up
# (until the kernel reports it operational: "state UP", not a fixed 0.5 s)
wait_until 60 eval 'ip -n "$ns" link show dev vethS | grep -q "state UP"' || echo "    vethS not operational in 60 s"
exec 7>&-
finish 30 "$drain"
status=$?
pids=""
sed 's/^/    /' "$work/drain.out" "$work/drain.err"
check "a batch queued while vethS was down: taken" grep -q "taken=64 of=64" "$work/drain.out"
check "nothing sent before the close" eq "$before_t" 0
check "sent at the close: vethT received the 64 packets" eq "$(kernel vethT rx packets)" 64
check "xdp_open exited with status 0, no warning" eval '[ "$status" = 0 ] && ! grep -q "^ixy: warning" "$work/drain.err"'

summary
