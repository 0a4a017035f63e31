#!/bin/bash
# AF_XDP on this machine, without QEMU (issue 22): veth pairs in a network namespace the test makes and removes.
#
#   test_xdp_veth.sh <apps dir> <xdp_open> <source dir>
#
# Pairs vethA<->vethB and vethC<->vethD, all inside the namespace; nothing outside it is touched.
# 1. ixy-pktgen xdp:vethA -> ixy-fwd xdp:vethB xdp:vethC -> ixy-pcap xdp:vethD. The kernel observes: its interface
#    counters (ip -s link) of vethB and vethD, and tcpdump on vethD, which sees what ixy-fwd sent before ixy-pcap
#    took vethD over. Checked: the packets byte for byte and in order (check_xdp_capture.py), and that the counts of
#    the apps' totals lines (test/vm/totals.sh), the kernel's counters and the captures agree exactly; ixy-fwd copies
#    nothing (one UMEM shared by both devices), ixy-pktgen copies each packet (its own pool is not the UMEM).
# 2. The XDP program is gone after a normal exit and after SIGKILL (ip link shows no xdp).
# 3. Every refusal: one line, exit status 1, the interfaces as they were, no program left attached.
# Needs root, ip, tcpdump, setpriv, python3: exits 77 (skipped) without them.
set -u
bin=$1
xdp_open=$2
src=$3
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (network namespaces, XDP)"; exit 77; }
for tool in ip tcpdump setpriv python3; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool is missing"; exit 77; }
done
. "$src/test/vm/totals.sh"

ns=ixy-xdp-test-$$-$RANDOM
work=$(mktemp -d)
pids=""
cleanup() {
	for pid in $pids; do kill -9 "$pid" 2>/dev/null; done
	wait 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

failed=0
check() { # check WHAT COMMAND...: PASS if the command succeeds
	local what=$1
	shift
	if "$@"; then echo "PASS  $what"; else echo "FAIL  $what"; failed=$((failed + 1)); fi
}
eq() { [ "$1" = "$2" ] || { echo "      $1 != $2" >&2; return 1; }; }
in_ns() { ip netns exec "$ns" "$@"; }
# Processes in the background are started with ip netns exec itself, not in_ns: $! is then the app's process
# (ip netns exec executes it), not a subshell's.
# Interfaces with an XDP program: ip link prints "xdp", "xdpgeneric", "xdpdrv" or "xdpoffload" and "prog/xdp".
attached() { ip -n "$ns" link show ${1:+dev "$1"} | grep -cE ' xdp(generic|drv|offload)? |prog/xdp'; }
wait_for() { # wait_for SECONDS COMMAND...: until the command succeeds
	local tries=$(($1 * 10))
	shift
	until "$@"; do
		tries=$((tries - 1))
		[ $tries -gt 0 ] || return 1
		sleep 0.1
	done
}
is_attached() { [ "$(attached "$1")" -gt 0 ]; }
none_attached() { [ "$(attached)" = 0 ]; }
# kernel_counter DEV rx|tx packets|dropped: the interface's counter (ip -s -j link)
kernel_counter() {
	ip -n "$ns" -s -j link show dev "$1" |
		python3 -c "import json,sys; print(json.load(sys.stdin)[0]['stats64']['$2']['$3'])"
}
# The state of the interfaces a refusal must leave as it was: all but the counters.
link_state() { ip -n "$ns" -d link show | grep -v -E '^ +(RX|TX|[0-9]+ )'; }

ip netns add "$ns" || exit 1
ip -n "$ns" link add vethA type veth peer name vethB || exit 1
ip -n "$ns" link add vethC type veth peer name vethD || exit 1
# No IPv6: its router solicitations would be the only other packets on the links.
in_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
for dev in vethA vethB vethC vethD; do
	in_ns sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1"
	ip -n "$ns" link set "$dev" up || exit 1
done
src_mac=$(ip -n "$ns" -j link show dev vethA | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['address'])")

echo "== 1. ixy-pktgen xdp:vethA -> ixy-fwd xdp:vethB xdp:vethC -> ixy-pcap xdp:vethD, the kernel observing"
for dev in vethB vethD; do
	eval "before_${dev}_rx=$(kernel_counter $dev rx packets) before_${dev}_drop=$(kernel_counter $dev rx dropped)"
done
ip netns exec "$ns" tcpdump -i vethD -w "$work/kernel.pcap" -U -B 65536 -Z root -n udp 2>"$work/tcpdump.err" &
tcpdump=$!
pids="$pids $tcpdump"
wait_for 10 grep -q "listening on" "$work/tcpdump.err" || echo "tcpdump did not start: $(cat "$work/tcpdump.err")"
ip netns exec "$ns" "$bin/ixy-fwd" xdp:vethB xdp:vethC >"$work/fwd.out" 2>"$work/fwd.err" &
fwd=$!
pids="$pids $fwd"
check "ixy-fwd attached its program to vethB and vethC" wait_for 10 eval 'is_attached vethB && is_attached vethC'
# An AF_XDP-only process has ordinary memory: no hugetlbfs file, no anonymous huge pages (xdp_memory_access).
check "ixy-fwd maps no huge pages" eq "$(grep -cE 'hugetlbfs|/mnt/huge|anon_hugepage' "/proc/$fwd/maps")" 0
ip netns exec "$ns" "$bin/ixy-pktgen" xdp:vethA >"$work/pktgen.out" 2>"$work/pktgen.err" &
pktgen=$!
pids="$pids $pktgen"
sleep 1 # the kernel's stack receives on vethD
ip netns exec "$ns" "$bin/ixy-pcap" xdp:vethD "$work/ixy.pcap" >"$work/pcap.out" 2>"$work/pcap.err" &
pcap=$!
pids="$pids $pcap"
check "ixy-pcap attached its program to vethD" wait_for 10 is_attached vethD
sleep 1 # ixy-pcap receives on vethD
# Stop the generator first and let the rest drain into ixy-pcap, then stop ixy-pcap, ixy-fwd and tcpdump.
statuses=""
for pid in $pktgen $pcap $fwd $tcpdump; do
	kill -TERM "$pid"
	wait "$pid"
	statuses="$statuses $?"
	sleep 0.5
done
pids=""
check "ixy-pktgen, ixy-pcap, ixy-fwd and tcpdump exited with status 0 when stopped" eq "$statuses" " 0 0 0 0"
cat "$work/pktgen.err" "$work/fwd.err" "$work/pcap.err" | grep -E '^ixy: xdp:' | sed 's/^/    /'
grep -h '^totals' "$work/pktgen.out" "$work/fwd.out" "$work/pcap.out" | sed 's/^/    /'
sed 's/^/    tcpdump: /' "$work/tcpdump.err"

gen_tx=$(total "$work/pktgen.out" "totals app=ixy-pktgen pci=xdp:vethA" tx_packets)
gen_sent=$(total "$work/pktgen.out" "totals app=ixy-pktgen pci=xdp:vethA" sent)
b_rx=$(total "$work/fwd.out" "totals app=ixy-fwd pci=xdp:vethB" rx_packets)
b_drop=$(total "$work/fwd.out" "totals app=ixy-fwd pci=xdp:vethB" rx_dropped)
b_forwarded=$(total "$work/fwd.out" "totals app=ixy-fwd pci=xdp:vethB" forwarded)
c_tx=$(total "$work/fwd.out" "totals app=ixy-fwd pci=xdp:vethC" tx_packets)
d_rx=$(total "$work/pcap.out" "totals app=ixy-pcap pci=xdp:vethD" rx_packets)
d_drop=$(total "$work/pcap.out" "totals app=ixy-pcap pci=xdp:vethD" rx_dropped)
captured=$(total "$work/pcap.out" "totals app=ixy-pcap pci=xdp:vethD" captured)
kernel_b_rx=$(($(kernel_counter vethB rx packets) - before_vethB_rx))
kernel_b_drop=$(($(kernel_counter vethB rx dropped) - before_vethB_drop))
kernel_d_rx=$(($(kernel_counter vethD rx packets) - before_vethD_rx))
# tcpdump's own count of what it wrote and of what it lost ("N packets captured", "N packets dropped by kernel").
td_captured=$(sed -n 's/^\([0-9]*\) packets\{0,1\} captured$/\1/p' "$work/tcpdump.err")
td_lost=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by kernel$/\1/p' "$work/tcpdump.err")
echo "    kernel counters: vethB received $kernel_b_rx (dropped $kernel_b_drop), vethD received $kernel_d_rx"

check "ixy-pktgen sent packets" [ "${gen_tx:-0}" -gt 0 ]
check "vethB received what ixy-pktgen counts as sent (tx_packets)" eq "$kernel_b_rx" "$gen_tx"
check "ixy-fwd on vethB: received + dropped = what the kernel counted on vethB" eq "$((b_rx + b_drop))" "$kernel_b_rx"
check "the kernel counts ixy-fwd's RX drops (its socket's RX ring was full) as vethB's drops" eq "$kernel_b_drop" "$b_drop"
check "ixy-fwd forwarded packets" [ "${b_forwarded:-0}" -gt 0 ]
check "ixy-fwd: vethC sent what it forwarded from vethB" eq "$c_tx" "$b_forwarded"
check "vethD received what vethC sent" eq "$kernel_d_rx" "$c_tx"
check "vethD: tcpdump (captured + lost) + ixy-pcap (received + dropped) = what vethD received" \
	eq "$((td_captured + td_lost + d_rx + d_drop))" "$kernel_d_rx"
check "ixy-pcap wrote every packet it received" eq "$captured" "$d_rx"
check "ixy-pcap received packets" [ "${d_rx:-0}" -gt 0 ]
check "packets: byte for byte, in order (check_xdp_capture.py)" \
	python3 "$src/test/xdp/check_xdp_capture.py" --kernel "$work/kernel.pcap" --ixy "$work/ixy.pcap" --src-mac "$src_mac"
# The drivers' closing words (xdp.c): forwarding between two AF_XDP devices shares one UMEM, so nothing is copied;
# ixy-pktgen's packets come from its own pool, so each is copied into a frame.
check "ixy-fwd copied no packet (one UMEM for vethB and vethC)" \
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
check "ixy-fwd attached its programs again" wait_for 10 eval 'is_attached vethB && is_attached vethC'
kill -KILL "$victim"
wait "$victim" 2>/dev/null
pids=""
check "after SIGKILL: no XDP program in the namespace (the BPF links died with the process)" wait_for 5 none_attached

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
	timeout -s TERM 20 ip netns exec "$ns" "$@" >"$work/refusal.out" 2>"$work/refusal.err"
	local status=$?
	local lines
	lines=$(wc -l <"$work/refusal.err")
	printf '    | %s | %s | %s |\n' "$what" "$(head -n 1 "$work/refusal.err")" "$status"
	check "refused: $what: exit status 1" eq "$status" 1
	check "refused: $what: one line naming it" eval '[ "$lines" = 1 ] && grep -q "^ixy: error: .*$words" "$work/refusal.err"'
	check "refused: $what: the interfaces as they were" eq "$(link_state)" "$before"
	check "refused: $what: no program left attached" eq "$(attached)" "$programs"
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
in_ns ip link set vethD mtu 3000
refuse "an MTU above what a frame holds" "MTU 3000 is above" "$bin/ixy-pcap" xdp:vethD "$work/r.pcap"
in_ns ip link set vethD mtu 1500
refuse "a queue the interface does not have" "2 queue(s) asked, but vethD has 1 RX and 1 TX" \
	"$xdp_open" xdp:vethD 2 2
# Another program on vethD: ixy-pcap's, from a second ixy-pcap.
ip netns exec "$ns" "$bin/ixy-pcap" xdp:vethD "$work/first.pcap" >"$work/first.out" 2>&1 &
first=$!
pids="$first"
check "a first ixy-pcap attached its program to vethD" wait_for 10 is_attached vethD
first_program=$(ip -n "$ns" link show dev vethD)
refuse "an XDP program attached already" "has an XDP program attached already" \
	"$bin/ixy-pcap" xdp:vethD "$work/r.pcap"
# IXY_FORCE=1 goes past the check, and the kernel refuses a second program in the same mode: nothing is left.
in_ns env IXY_FORCE=1 "$bin/ixy-pcap" xdp:vethD "$work/r.pcap" >"$work/force.out" 2>"$work/force.err"
status=$?
check "IXY_FORCE=1 beside an attached program: the kernel refuses, exit status 1" eq "$status" 1
check "IXY_FORCE=1: the warning, then the kernel's refusal" \
	grep -q "^ixy: error: xdp:vethD: .*Device or resource busy" "$work/force.err"
sed 's/^/    IXY_FORCE=1: /' "$work/force.err"
check "IXY_FORCE=1: the first ixy-pcap's program is still the only one" eq "$(ip -n "$ns" link show dev vethD)" "$first_program"
kill -INT "$first"
wait "$first"
pids=""
check "after all: no XDP program in the namespace" none_attached

echo "== 4. The UMEM holds every frame the rings can give the kernel, and frames to send besides"
# Four queues of 4096 descriptors: their fill rings alone hold 16384 frames. Each TX queue must still take a batch of
# the app's packets (copied into UMEM frames).
ip -n "$ns" link add vethQ numtxqueues 4 numrxqueues 4 type veth peer name vethR numtxqueues 4 numrxqueues 4
in_ns sysctl -qw net.ipv6.conf.vethQ.disable_ipv6=1 net.ipv6.conf.vethR.disable_ipv6=1
ip -n "$ns" link set vethQ up && ip -n "$ns" link set vethR up
in_ns "$xdp_open" --send 4096 xdp:vethQ 4 4 >"$work/send.out" 2>"$work/send.err"
status=$?
sed 's/^/    /' "$work/send.out" "$work/send.err"
check "4 queues of 4096 descriptors: opened, every TX queue took its batch" eq "$status" 0
check "4 queues of 4096 descriptors: 4 batches of 64 taken" eq "$(grep -c 'taken=64 of=64' "$work/send.out")" 4
check "after it: no XDP program in the namespace" none_attached

echo "$failed check(s) failed"
[ "$failed" = 0 ]
