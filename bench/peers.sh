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
# With --host-ends on a host of 2 CPUs or more, QEMU runs on CPU 0 and host_ends on CPU 1 (taskset).
#
# With --layouts (issue 29): ixy-fwd against DPDK testpmd (io forwarding) per NIC layout, between the same NICs B
# and C: legacy VirtIO (--nics legacy), modern with split rings (modern) and modern with packed rings offered
# (modern-packed: QEMU's packed=on; a driver that does not take VIRTIO_F_RING_PACKED gets split rings). One boot per
# layout per round, both forwarders in each boot; from round to round the order of the layouts rotates and the two
# forwarders swap places (ixy-fwd first in odd rounds, testpmd in even ones). Per layout and forwarder the table
# gives the median rate and its spread (min..max), the ratio of ixy-fwd's median to testpmd's, and the kicks
# (driver->device notifications) per forwarded packet: QEMU traces every notification (-trace virtio_queue_notify,
# with the serial port's characters for the guest's begin/end marks) and bench/vm/kicks.sh counts those of NICs B
# and C between the marks of each run, the same way for both forwarders (the trace costs QEMU a line per kick). With
# --host-ends also the offered rate (what host_ends sent in the run), the share of it dropped before NIC B (by QEMU's
# socket for NIC B: NIC B's ring full, the forwarder's loss, or QEMU not reading the socket; /proc/net/udp cannot
# tell which; host_ends's "nic_b" line) and the loss inside the forwarder: of what reached NIC B (sent, less what the
# host's socket refused and what was dropped before NIC B), the share that did not leave NIC C (the sink's count and
# its socket's drops). Where both forwarders pass on 95 % or more of what was offered, the source is the limit and
# the table says so instead of a ratio. Without --host-ends, the
# source, the forwarder and the sink share the guest's one vCPU, and kicks per packet are counted over the sink's
# window (a little more than the sink counts: its start). Writes table "peers-layouts" (IXY_BENCH_DOC as above);
# IXY_BENCH_LAYOUTS chooses the layouts (default "legacy modern modern-packed"). Takes about
# rounds * layouts * (60 + 2 * (seconds + 8)) / 60 minutes under TCG (--layouts --host-ends 10 3: about 15).
#
# Usage: bench/peers.sh [--layouts] [--host-ends] [seconds per run (10)] [runs of each (3)]
# Environment: BUILD_DIR (default build-bench-vm), IXY_BENCH_KPPS (--host-ends only), IXY_BENCH_DOC,
# IXY_BENCH_LAYOUTS (--layouts only)
set -eu
host_mode=0
layouts_mode=0
while :; do
	case "${1:-}" in
		--host-ends) host_mode=1 ;;
		--layouts) layouts_mode=1 ;;
		*) break ;;
	esac
	shift
done

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$repo/build-bench-vm}
seconds=${1:-10}
rounds=${2:-3}
case "$seconds$rounds" in
	'' | *[!0-9]*) echo "usage: bench/peers.sh [--layouts] [--host-ends] [seconds per run] [runs of each]" >&2; exit 2 ;;
esac
doc=${IXY_BENCH_DOC-$repo/docs/benchmark.md}
. "$repo/bench/lib.sh"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DIXY_SANITIZE=OFF >/dev/null
make -C "$build" -j2 >/dev/null
out=$build/bench-peers
rc=0
vm_options=
kpps=${IXY_BENCH_KPPS:-100}
[ "$(nproc)" -lt 2 ] || host_ends_cpu=1 # (QEMU: CPU 0, host-bench-peers.sh)
if [ $layouts_mode = 1 ]; then
	# shellcheck source=bench/peers-layouts.sh
	. "$repo/bench/peers-layouts.sh"
	exit $rc
fi
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
	tr -d "\r" <"$out/console.log" |
		awk '$1 == "IXY-VM:" && $2 == "bench" && $7 == "packets" { run = $5; sub(":", "", run); print $3, run, $6, $12 }'
fi | bench_rates_table ixy min ixy-fwd ": see the guest console log" ixy ixy-fwd \
	xdp "ixy-fwd over AF_XDP (virtio_net)" bridge "Linux bridge" afpacket "afpacket_fwd (TPACKET_V3)" \
	testpmd "DPDK testpmd io-fwd" >"$out-table.txt" || rc=1
cat "$out-table.txt"
if [ $rc = 0 ]; then # (only a complete benchmark)
	bench_write_table "$doc" $table "$setup" "$out-table.txt" || rc=1
fi
[ $rc = 0 ] || echo "failed (exit $rc): $out.log"
exit $rc
