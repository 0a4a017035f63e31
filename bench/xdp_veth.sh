#!/bin/sh
# ixy-fwd over AF_XDP against afpacket_fwd on this machine's veth pairs (issue 22), without QEMU: a benchmark, not a
# test. In a network namespace it makes and removes, two veth pairs vethA<->vethB and vethC<->vethD; ixy-pktgen
# xdp:vethA sends as fast as it can, the forwarder moves frames from vethB to vethC, and the kernel's receive counter
# of vethD (nothing is attached there: the frames are counted, then dropped by the stack) is the sink. The
# forwarders, in alternating runs of the same length:
#   xdp       ixy-fwd xdp:vethB xdp:vethC (AF_XDP, one UMEM for both, copy mode on veth)
#   afpacket  afpacket_fwd vethB vethC (packet sockets with TPACKET_V3 rings, bench/peers/afpacket_fwd.c)
# Prints every run, each forwarder's median rate with its spread (min..max) and the ratio to ixy-fwd's median, and
# writes that table into docs/benchmark.md between "<!-- begin: xdp-veth, ... -->" and "<!-- end: xdp-veth -->"
# (another
# file with IXY_BENCH_DOC, none with IXY_BENCH_DOC=) if every run completed. Source, forwarder and the kernel's veth
# work share this machine's CPUs (and with whatever else runs): the ratio compares the two forwarders on the same
# load, the rates themselves say little. Needs root; nothing outside the namespace is touched.
#
# Usage: bench/xdp_veth.sh [seconds per run (5)] [runs of each (3)]
# Environment: BUILD_DIR (default build-bench-vm, as bench/peers.sh), IXY_BENCH_DOC
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$repo/build-bench-vm}
seconds=${1:-5}
rounds=${2:-3}
case "$seconds$rounds" in
	'' | *[!0-9]*) echo "usage: bench/xdp_veth.sh [seconds per run] [runs of each]" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "bench/xdp_veth.sh: needs root (a network namespace, XDP)" >&2; exit 2; }
doc=${IXY_BENCH_DOC-$repo/docs/benchmark.md}
. "$repo/bench/lib.sh"
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
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

in_ns() { ip netns exec "$ns" "$@"; }
rx_packets() { ip -n "$ns" -s -j link show dev vethD | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['stats64']['rx']['packets'])"; }
wait_for() { # wait_for FILE TEXT: up to 10 s until FILE holds TEXT
	for _ in $(seq 100); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}

ip netns add "$ns"
ip -n "$ns" link add vethA type veth peer name vethB
ip -n "$ns" link add vethC type veth peer name vethD
in_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
for dev in vethA vethB vethC vethD; do
	in_ns sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1"
	ip -n "$ns" link set "$dev" up
done
setup="$(date -u +%Y-%m-%d), \`bench/xdp_veth.sh $seconds $rounds\`; $(bench_setup "$repo" | sed 's/, QEMU [^,]*,/,/'), kernel $(uname -r)"

ip netns exec "$ns" "$build/apps/ixy-pktgen" xdp:vethA >"$work/pktgen.log" 2>&1 &
pktgen=$!
wait_for "$work/pktgen.log" " TX: " || { echo "ixy-pktgen did not start:"; cat "$work/pktgen.log"; exit 1; }
rc=0
: >"$work/runs.txt"
for i in $(seq "$rounds"); do
	for peer in xdp afpacket; do
		: >"$work/fwd.log"
		if [ $peer = xdp ]; then
			ip netns exec "$ns" "$build/apps/ixy-fwd" xdp:vethB xdp:vethC >"$work/fwd.log" 2>&1 &
			fwd=$!
			wait_for "$work/fwd.log" " RX: " || rc=1
		else
			ip netns exec "$ns" "$build/bench/peers/afpacket_fwd" vethB vethC >"$work/fwd.log" 2>&1 &
			fwd=$!
			wait_for "$work/fwd.log" forwarding || rc=1
		fi
		sleep 1 # the same warm-up for both
		n0=$(rx_packets)
		t0=$(cut -d' ' -f1 /proc/uptime)
		sleep "$seconds"
		n1=$(rx_packets)
		t1=$(cut -d' ' -f1 /proc/uptime)
		kill -0 "$fwd" 2>/dev/null || { echo "$peer run $i: the forwarder ended early:"; cat "$work/fwd.log"; rc=1; }
		kill -INT "$fwd" 2>/dev/null || true
		wait "$fwd" || { echo "$peer run $i: the forwarder exited with $?"; rc=1; }
		fwd=
		grep -E "AF_XDP on vethB|^totals|forwarded" "$work/fwd.log" | sed 's/^/    /'
		echo "$peer $i $((n1 - n0)) $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" >>"$work/runs.txt"
	done
done
kill -INT "$pktgen" 2>/dev/null || true
wait "$pktgen" || true
pktgen=
echo "$setup"
bench_rates_table xdp median "ixy-fwd over AF_XDP" "" xdp "ixy-fwd over AF_XDP (copy mode)" \
	afpacket "afpacket_fwd (TPACKET_V3)" <"$work/runs.txt" >"$work/table.txt" || rc=1
cat "$work/table.txt"
if [ $rc = 0 ]; then # (only a complete benchmark)
	bench_write_table "$doc" xdp-veth "$setup" "$work/table.txt" || rc=1
fi
[ $rc = 0 ] || echo "failed (exit $rc)"
exit $rc
