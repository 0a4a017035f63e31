#!/bin/bash
# ixy-pktgen's addresses, VLAN tag, IPv6, --queues and end markers (issue 37) over AF_XDP, without QEMU: in a network
# namespace the test makes and removes,
#
#   ixy-pktgen xdp:vethA --- brA [br0] brB --- xdp:vethB ixy-pcap --queues 2 --report
#
# (veths of 2 queues each, over which the kernel spreads the flows; br0 a bridge of two ports, no STP, no multicast snooping, no IPv6 of its own: it floods
# each frame, the destination MACs being no interface's, once). tcpdump on the bridge port brB (-Q out) records every
# frame on its way to vethB; check_forms.py checks every field of each against the options, written from the RFCs.
# Runs, each with --mark-end:
#   1. IPv4: --src-mac, --dst-mac, --src-ip and --dst-ip ranges, --src-port and --dst-port ranges, --vlan 42:3
#   2. IPv6: --src-ip range, --dst-ip, --vlan 7, --queues 2 (a thread and a TX queue each)
# and each time ixy-pcap --report on vethB must count them all as ixy-pktgen's: received = sent, lost 0, no foreign
# frame, every flow ended (its markers came) with the count it sent.
# Needs root, ip, tcpdump, python3: exits 77 (skipped) without them. The last line: "N passed, N failed".
# Usage: test_xdp_veth_forms.sh <apps dir> <source dir>
set -u
bin=$1
src=$2
. "$src/test/xdp/veth_lib.sh" ixy-xdp-forms "$src" ip tcpdump python3

COUNT=4000
ip netns add "$ns" || exit 1
in_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 || exit 1
for pair in vethA:brA vethB:brB; do
	ip -n "$ns" link add "${pair%:*}" numtxqueues 2 numrxqueues 2 type veth peer name "${pair#*:}" \
		numtxqueues 2 numrxqueues 2 || exit 1
done
ip -n "$ns" link add br0 type bridge stp_state 0 mcast_snooping 0 || exit 1
for port in brA brB; do
	ip -n "$ns" link set "$port" master br0 || exit 1
done
for dev in vethA vethB brA brB br0; do
	in_ns sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1"
	ip -n "$ns" link set "$dev" up || exit 1
done

# run NAME CHECKER-ARGS -- PKTGEN-ARGS: one run, recorded on brB, received by ixy-pcap --report on vethB.
run() {
	local name=$1 checker=() status
	shift
	while [ "$1" != -- ]; do
		checker+=("$1")
		shift
	done
	shift
	echo "== $name: ixy-pktgen $*"
	ip netns exec "$ns" tcpdump -i brB -Q out -w "$work/$name.pcap" --immediate-mode -U -s 256 -B 65536 -n \
		2>"$work/$name.tcpdump" &
	local tcpdump=$!
	pids="$pids $tcpdump"
	wait_for 10 grep -qs "listening on" "$work/$name.tcpdump" || echo "tcpdump did not start"
	ip netns exec "$ns" "$bin/ixy-pcap" --poll --queues 2 --report xdp:vethB "$work/$name.ixy.pcap" >"$work/$name.pcap.out" 2>"$work/$name.pcap.err" &
	local pcap=$!
	pids="$pids $pcap"
	check "$name: ixy-pcap attached its program to vethB" wait_for 10 is_attached vethB
	ip netns exec "$ns" timeout -k 5 30 "$bin/ixy-pktgen" "$@" xdp:vethA >"$work/$name.gen.out" 2>"$work/$name.gen.err"
	status=$?
	# What was sent reaches ixy-pcap: its file (flushed each second) holds every frame and end marker, at most 60 s
	# (a lost frame fails the report's checks below, after the wait).
	wait_until 60 eval '[ "$(pcap_records "$work/$name.ixy.pcap")" -ge $((COUNT + ${checker[1]} * 3)) ]' ||
		echo "    ixy-pcap's file has $(pcap_records "$work/$name.ixy.pcap") records after 60 s"
	kill -TERM "$pcap"
	finish 30 "$pcap"
	status="$status $?"
	wait_for 10 eval '[ "$(stat -c %s "$work/$name.pcap")" = "$(sleep 0.3; stat -c %s "$work/$name.pcap")" ]'
	kill -TERM "$tcpdump"
	finish 30 "$tcpdump"
	pids=""
	check "$name: ixy-pktgen and ixy-pcap exited with status 0" eq "$status" "0 0"
	grep -h -E '^(totals|queue|report)' "$work/$name.gen.out" "$work/$name.pcap.out" | sed 's/^/    /'
	local sent end_frames r_received r_lost r_foreign r_ended r_tail_lost r_end_frames r_sent
	sent=$(total "$work/$name.gen.out" "totals app=ixy-pktgen pci=xdp:vethA" sent || echo "?sent")
	end_frames=$(total "$work/$name.gen.out" "totals app=ixy-pktgen pci=xdp:vethA" end_frames || echo "?end")
	for key in received lost foreign ended tail_lost end_frames sent; do
		printf -v "r_$key" %s "$(total "$work/$name.pcap.out" "report app=ixy-pcap pci=xdp:vethB end=1" "$key" ||
			echo "?$key")"
	done
	check "$name: ixy-pktgen sent $COUNT frames and end markers for each flow" eq "$sent $end_frames" \
		"$COUNT $(("${checker[1]}" * 3))"
	check "$name: ixy-pcap --report: all ixy-pktgen's, none lost, none foreign" \
		eq "$r_received $r_lost $r_tail_lost $r_foreign" "$COUNT 0 0 0"
	check "$name: ixy-pcap --report: every flow ended, the markers' counts sum to sent" \
		eq "$r_ended $r_sent $r_end_frames" "${checker[1]} $COUNT $end_frames"
	python3 "$src/test/xdp/check_forms.py" "$work/$name.pcap" --count "$COUNT" "${checker[@]:2}" \
		--flows "${checker[1]}" | sed 's/^/    /' >"$work/$name.check"
	cat "$work/$name.check"
	check "$name: check_forms.py: every field of every frame on the wire" grep -q " 0 failed$" "$work/$name.check"
}

run ipv4-vlan --flows 4 --src-mac 02:11:22:33:44:55 --dst-mac 00:1b:21:0a:0b:0c --src-ip 192.168.7.1-192.168.7.4 \
	--dst-ip 10.20.0.1-10.20.0.2 --src-port 5000-5003 --dst-port 6000-6001 --vlan 42:3 --mark-end -- \
	--src-mac 02:11:22:33:44:55 --dst-mac 00:1b:21:0a:0b:0c --src-ip 192.168.7.1-192.168.7.4 \
	--dst-ip 10.20.0.1-10.20.0.2 --src-port 5000-5003 --dst-port 6000-6001 --vlan 42:3 --mark-end --count $COUNT \
	--rate 50kpps
vethA_mac=$(ip -n "$ns" -j link show dev vethA | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['address'])")
run ipv6-queues --flows 4 --src-mac "$vethA_mac" --dst-mac 02:00:00:00:00:02 --src-ip fd00::1-fd00::4 \
	--dst-ip fd00::100 --vlan 7 --queues 2 --mark-end -- \
	--src-ip fd00::1-fd00::4 --dst-ip fd00::100 --vlan 7 --queues 2 --mark-end --count $COUNT --rate 50kpps
summary
