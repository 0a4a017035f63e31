#!/bin/sh
# Forwarding throughput of ixy-fwd against its peers in one QEMU guest (TCG, two legacy VirtIO NICs B and C): ixy-fwd
# itself over AF_XDP on the kernel's virtio_net (xdp:<interface>), the Linux bridge, afpacket_fwd (packet sockets
# with TPACKET_V3 rings, bench/peers/afpacket_fwd.c) and, if the host has it (Debian package dpdk-dev: apt-get
# install dpdk-dev), DPDK's testpmd in io forwarding mode, with the same source (ixy-pktgen on A) and sink (ixy-pcap
# on D, counting into /dev/null) for all, in alternating runs. A benchmark, not a test: it prints every run, each
# peer's median rate with the spread (min..max), and the ratio of each median to ixy-fwd's, and writes that table
# into docs/benchmark.md (between "<!-- begin: peers, ... -->" and "<!-- end: peers -->", with --host-ends
# "peers-host-ends"; another file with IXY_BENCH_DOC, none with IXY_BENCH_DOC=) if every run completed. Needs root
# (boots QEMU like the VM tests); takes about 2 + runs * 5 * (seconds + 8) / 60 minutes.
#
# With --host-ends the source and the sink are not in the guest but on the host (bench/peers/host_ends: a paced
# UDP source into NIC B's netdev, IXY_BENCH_KPPS thousand frames per second, default 100, and a counter of what NIC
# C's netdev sends), so that the guest's one vCPU runs the forwarder alone: a forwarder's own limit, not its share of
# a vCPU with ixy-pktgen and ixy-pcap. The rate is then the sink's count between the guest's "begin" and "end" marks.
#
# Usage: bench/peers.sh [--host-ends] [seconds per run (10)] [runs of each (3)]
# Environment: BUILD_DIR (default build-bench-vm), IXY_BENCH_KPPS (--host-ends only), IXY_BENCH_DOC
set -eu
host_mode=0
if [ "${1:-}" = --host-ends ]; then
	host_mode=1
	shift
fi

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$repo/build-bench-vm}
seconds=${1:-10}
rounds=${2:-3}
case "$seconds$rounds" in
	'' | *[!0-9]*) echo "usage: bench/peers.sh [--host-ends] [seconds per run] [runs of each]" >&2; exit 2 ;;
esac
doc=${IXY_BENCH_DOC-$repo/docs/benchmark.md}
. "$repo/bench/lib.sh"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DIXY_SANITIZE=OFF >/dev/null
make -C "$build" -j2 >/dev/null
out=$build/bench-peers
rc=0
vm_options=
kpps=${IXY_BENCH_KPPS:-100}
if [ $host_mode = 1 ]; then
	host_ends_start "$build" "$out" "$kpps"
	vm_options="--host-ends $host_ends_vm"
	table=peers-host-ends
	setup="$(date -u +%Y-%m-%d), \`bench/peers.sh --host-ends $seconds $rounds\`, source $kpps kpps; $(bench_setup "$repo")"
else
	table=peers
	setup="$(date -u +%Y-%m-%d), \`bench/peers.sh $seconds $rounds\`; $(bench_setup "$repo")"
fi
# shellcheck disable=SC2086 # vm_options: empty or two words
"$repo/test/vm/run-vm.sh" --build-dir "$build" --scenario bench-peers --nics legacy --out "$out" $vm_options \
	--env "IXY_BENCH_SECONDS=$seconds" --env "IXY_BENCH_ROUNDS=$rounds" >"$out.log" 2>&1 || rc=$?
if [ $host_mode = 1 ]; then
	host_ends_stop || rc=1
fi
echo "$setup"
# Each run as "<peer> <run> <packets> <seconds>", from the guest's sink or from host_ends's marks.
if [ $host_mode = 1 ]; then
	host_ends_runs "$host_ends_marks"
else
	# IXY-VM: bench <peer> run <i>: <packets> packets at the sink in <seconds> s
	tr -d "\r" <"$out/console.log" | awk '$1 == "IXY-VM:" && $2 == "bench" { run = $5; sub(":", "", run); print $3, run, $6, $12 }'
fi | bench_rates_table ixy min ixy-fwd ": see the guest console log" ixy ixy-fwd \
	xdp "ixy-fwd over AF_XDP (virtio_net)" bridge "Linux bridge" afpacket "afpacket_fwd (TPACKET_V3)" \
	testpmd "DPDK testpmd io-fwd" >"$out-table.txt" || rc=1
cat "$out-table.txt"
if [ $rc = 0 ]; then # (only a complete benchmark)
	bench_write_table "$doc" $table "$setup" "$out-table.txt" || rc=1
fi
[ $rc = 0 ] || echo "failed (exit $rc): $out.log"
exit $rc
