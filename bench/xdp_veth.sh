#!/bin/sh
# Forwarders on this machine's veth pairs (issues 22 and 29), without QEMU: a benchmark, not a test. In a network
# namespace it makes and removes, two veth pairs vethA<->vethB and vethC<->vethD; ixy-pktgen xdp:vethA sends as fast
# as it can, the forwarder moves frames from vethB to vethC, and the kernel's receive counter of vethD (nothing is
# attached there: the frames are counted, then dropped by the stack) is the sink. The forwarders, in alternating runs
# of the same length:
#   xdp             ixy-fwd xdp:vethB xdp:vethC (AF_XDP, one UMEM for both, copy mode on veth)
#   afpacket        afpacket_fwd vethB vethC (packet sockets with TPACKET_V3 rings, bench/peers/afpacket_fwd.c)
#   testpmd-xdp     DPDK testpmd, io forwarding, over its AF_XDP PMD (net_af_xdp)
#   testpmd-packet  DPDK testpmd, io forwarding, over its AF_PACKET PMD (net_af_packet)
# testpmd comes from Debian's dpdk package (dpdk-testpmd); where it or a PMD is missing, that peer is skipped with one
# line. It runs without huge pages (--no-huge), as nothing in the namespace needs them.
#
# Who is the bottleneck: each run counts at every hop (the veths' counters inside the namespace): the frames the
# source put on vethA (offered), those that reached vethB (the forwarder's NIC), those the forwarder sent on vethC,
# and those vethD received (forwarded). Offered counts vethA's TX drops too: frames vethB's backlog refused
# (netdev_max_backlog; its rx_dropped), work of the kernel on the source's CPU before the forwarder sees them. The loss inside the forwarder is 1 - vethC's TX / vethB's RX; each run also
# prints vethB's drop counter and the forwarder's own totals (ixy-fwd's rx_dropped counts its XDP sockets' drops,
# afpacket_fwd's dropped the kernel's drops at its socket, testpmd's RX-dropped its PMD's). A forwarder that forwards
# (vethD's RX) at least 99 % of what reached it (vethB's RX, not what was offered: vethB's backlog drops are the
# kernel's work on the source's CPU) with under 1 % loss is limited by the source, not itself: its row says
# "source-limited" instead of a ratio (bench_offered_table). Two placements of the CPUs, each run in every round:
#   pinned     the source on CPU 0, the forwarder on CPU 1 (taskset; testpmd's lcores too)
#   contended  the source and the forwarder both on CPU 0: the forwarder loses its CPU to the source, as on a
#              loaded machine (what its rings must hold)
# With one CPU only "contended" runs (said so). The kernel's veth work runs where the sending process runs (vethA's
# TX and vethB's RX with the source, vethC's TX and vethD's RX with the forwarder) and in softirqs.
#
# Prints every run and a table (bench_offered_table in bench/lib.sh) with a row per placement and forwarder. The full
# benchmark (both placements, every peer this machine has, the default rings) writes that table into docs/benchmark.md
# between "<!-- begin: xdp-veth, ... -->" and "<!-- end: xdp-veth -->" (another file with IXY_BENCH_DOC, none with
# IXY_BENCH_DOC=) if every run completed; a partial one (--pinned, --contended, --peers, --ring) writes nothing.
# Needs root; nothing outside the namespace is touched.
#
# Usage: bench/xdp_veth.sh [--pinned | --contended] [--peers "PEER..."] [--ring N] [seconds per run (5)] [rounds (3)]
#   --ring N   ixy-fwd's AF_XDP rings of N descriptors (--ring of ixy-fwd) instead of the driver's default
# Environment: BUILD_DIR (default build-bench-vm, as bench/peers.sh), IXY_BENCH_DOC
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$repo/build-bench-vm}
usage() {
	echo "usage: bench/xdp_veth.sh [--pinned | --contended] [--peers \"PEER...\"] [--ring N] [seconds per run] [rounds]" >&2
	exit 2
}
modes="pinned contended"
peers="xdp afpacket testpmd-xdp testpmd-packet"
ring=
partial=
while [ $# -gt 0 ]; do
	case "$1" in
		--pinned | --contended) modes=${1#--}; partial=1; shift ;;
		--peers) [ $# -ge 2 ] || usage; peers=$2; partial=1; shift 2 ;;
		--ring) [ $# -ge 2 ] || usage; ring=$2; partial=1; shift 2 ;;
		-*) usage ;;
		*) break ;;
	esac
done
seconds=${1:-5}
rounds=${2:-3}
case "$seconds$rounds$ring" in
	'' | *[!0-9]*) usage ;;
esac
for peer in $peers; do
	case "$peer" in xdp | afpacket | testpmd-xdp | testpmd-packet) ;; *) echo "bench/xdp_veth.sh: no peer $peer" >&2; usage ;; esac
done
[ "$(id -u)" = 0 ] || { echo "bench/xdp_veth.sh: needs root (a network namespace, XDP)" >&2; exit 2; }
doc=${IXY_BENCH_DOC-$repo/docs/benchmark.md}
. "$repo/bench/lib.sh"

# The CPUs: the source on 0; the forwarder on 1 (pinned) or 0 (contended).
if [ "$(nproc)" -lt 2 ]; then
	echo "one CPU: the source and the forwarder share it; only the contended placement runs"
	modes=contended
fi
fwd_cpu() { if [ "$1" = pinned ]; then echo 1; else echo 0; fi; }
for mode in $modes; do
	echo "$mode: the source (ixy-pktgen) on CPU 0, the forwarder on CPU $(fwd_cpu "$mode")"
done

# testpmd and its PMDs (Debian: apt-get install dpdk), each peer skipped with one line where missing.
pmd_dir=$(ls -d /usr/lib/*/dpdk/pmds-* 2>/dev/null | head -1) || true
available=
for peer in $peers; do
	case "$peer" in
		testpmd-*)
			pmd=$([ "$peer" = testpmd-xdp ] && echo af_xdp || echo af_packet)
			if ! command -v dpdk-testpmd >/dev/null; then
				echo "$peer: skipped, no dpdk-testpmd (Debian: apt-get install dpdk)"
				continue
			elif [ -n "$pmd_dir" ] && ! ls "$pmd_dir"/librte_net_"$pmd".so* >/dev/null 2>&1; then
				echo "$peer: skipped, this DPDK has no $pmd PMD (none in $pmd_dir)"
				continue
			fi ;;
	esac
	available="$available $peer"
done

cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DIXY_SANITIZE=OFF >/dev/null
make -C "$build" -j2 ixy-fwd ixy-pktgen afpacket_fwd >/dev/null
ns=ixy-xdp-bench-$$
work=$(mktemp -d)
pktgen=
fwd=
cleanup() {
	for pid in $fwd $pktgen; do kill -9 "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	ip netns del "$ns" 2>/dev/null || true
	rm -rf "$work" "/var/run/dpdk/ixy-xdp-bench-$$" # (testpmd's runtime directory, its --file-prefix)
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# counters: "<vethA TX + TX dropped> <vethB RX> <vethB RX dropped> <vethC TX> <vethD RX>" packets, read at once.
counters() {
	ip -n "$ns" -s -j link show | python3 -c '
import json, sys
stats = {link["ifname"]: link["stats64"] for link in json.load(sys.stdin)}
print(stats["vethA"]["tx"]["packets"] + stats["vethA"]["tx"]["dropped"], stats["vethB"]["rx"]["packets"], stats["vethB"]["rx"]["dropped"],
      stats["vethC"]["tx"]["packets"], stats["vethD"]["rx"]["packets"])'
}
wait_for() { # wait_for FILE TEXT [SECONDS]: up to SECONDS (10) until FILE holds TEXT
	for _ in $(seq "${3:-10}0"); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}

# start_fwd PEER CPU: the forwarder PEER on CPU, in the background ($fwd), its output in $work/fwd.log; fails if it
# does not start.
start_fwd() {
	: >"$work/fwd.log"
	case "$1" in
		xdp)
			ip netns exec "$ns" taskset -c "$2" "$build/apps/ixy-fwd" --wait 1000 ${ring:+--ring "$ring"} xdp:vethB xdp:vethC \
				>"$work/fwd.log" 2>&1 &
			fwd=$!
			wait_for "$work/fwd.log" " RX: " ;;
		afpacket)
			ip netns exec "$ns" taskset -c "$2" "$build/bench/peers/afpacket_fwd" vethB vethC >"$work/fwd.log" 2>&1 &
			fwd=$!
			wait_for "$work/fwd.log" forwarding ;;
		testpmd-*)
			if [ "$1" = testpmd-xdp ]; then
				vdevs="--vdev net_af_xdp0,iface=vethB --vdev net_af_xdp1,iface=vethC"
			else
				vdevs="--vdev net_af_packet0,iface=vethB,qdisc_bypass=1 --vdev net_af_packet1,iface=vethC,qdisc_bypass=1"
			fi
			# Both lcores (the main one waits for input, the other forwards) on the CPU; no huge pages; it
			# runs until SIGINT, reading its standard input (a FIFO this script holds open: fd 9); its output
			# line by line (stdbuf), to see it start.
			# shellcheck disable=SC2086  # (vdevs: several words)
			ip netns exec "$ns" taskset -c "$2" stdbuf -oL dpdk-testpmd --lcores "0@$2,1@$2" --no-huge -m 512 --no-pci \
				--file-prefix "ixy-xdp-bench-$$" $vdevs -- --forward-mode=io --nb-cores=1 --total-num-mbufs=16384 \
				--disable-link-check <"$work/stdin" >"$work/fwd.log" 2>&1 &
			fwd=$!
			wait_for "$work/fwd.log" "Press enter to exit" 30 ;;
	esac
}

ip netns add "$ns"
ip -n "$ns" link add vethA type veth peer name vethB
ip -n "$ns" link add vethC type veth peer name vethD
in_ns() { ip netns exec "$ns" "$@"; }
in_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
for dev in vethA vethB vethC vethD; do
	in_ns sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1"
	ip -n "$ns" link set "$dev" up
done
mkfifo "$work/stdin"
exec 9<>"$work/stdin"
setup="$(date -u +%Y-%m-%d), \`bench/xdp_veth.sh $seconds $rounds\`; $(bench_setup "$repo" | sed 's/, QEMU [^,]*,/,/'), kernel $(uname -r)"

ip netns exec "$ns" taskset -c 0 "$build/apps/ixy-pktgen" xdp:vethA >"$work/pktgen.log" 2>&1 &
pktgen=$!
wait_for "$work/pktgen.log" " TX: " || { echo "ixy-pktgen did not start:"; cat "$work/pktgen.log"; exit 1; }
rc=0
: >"$work/runs.txt"
for i in $(seq "$rounds"); do
	for mode in $modes; do
		for peer in $available; do
			start_fwd "$peer" "$(fwd_cpu "$mode")" || { echo "$peer did not start:"; cat "$work/fwd.log"; rc=1; }
			sleep 1 # the same warm-up for all
			c0=$(counters)
			t0=$(cut -d' ' -f1 /proc/uptime)
			sleep "$seconds"
			c1=$(counters)
			t1=$(cut -d' ' -f1 /proc/uptime)
			kill -0 "$fwd" 2>/dev/null || { echo "$mode $peer run $i: the forwarder ended early:"; cat "$work/fwd.log"; rc=1; }
			kill -INT "$fwd" 2>/dev/null || true
			wait "$fwd" || { echo "$mode $peer run $i: the forwarder exited with $?"; rc=1; }
			fwd=
			# shellcheck disable=SC2086  # (five numbers each)
			set -- $c0 $c1
			echo "$mode $peer run $i: vethB rx_dropped $((${8} - ${3})), the forwarder's own count:"
			{ grep -E "AF_XDP on vethB|^totals" "$work/fwd.log" || true; sed -n '/Accumulated forward statistics/,/+++$/p' \
				"$work/fwd.log" | grep -- -packets; } | sed 's/^ */    /'
			echo "$mode $peer $i $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" \
				"$((${6} - ${1})) $((${7} - ${2})) $((${9} - ${4})) $((${10} - ${5}))" >>"$work/runs.txt"
		done
	done
done
kill -INT "$pktgen" 2>/dev/null || true
wait "$pktgen" || true
pktgen=
echo "$setup, load average $(cut -d' ' -f1 /proc/loadavg) at the end"
bench_offered_table xdp xdp "ixy-fwd over AF_XDP (copy mode${ring:+, --ring $ring})" afpacket "afpacket_fwd (TPACKET_V3)" \
	testpmd-xdp "DPDK testpmd, AF_XDP PMD" testpmd-packet "DPDK testpmd, AF_PACKET PMD" \
	<"$work/runs.txt" >"$work/table.txt" || rc=1
cat "$work/table.txt"
if [ $rc = 0 ] && [ -z "$partial" ]; then # (only the complete benchmark)
	bench_write_table "$doc" xdp-veth "$setup, load average $(cut -d' ' -f1 /proc/loadavg) at the end" \
		"$work/table.txt" || rc=1
elif [ $rc = 0 ]; then
	echo "a partial benchmark (--pinned, --contended, --peers or --ring): no table written"
fi
[ $rc = 0 ] || echo "failed (exit $rc)"
exit $rc
