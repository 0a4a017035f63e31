# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario bench-peers, the host's side (the guest's is scenario-bench-peers.sh): a benchmark, ixy-fwd (with ixy's
# VirtIO driver and over AF_XDP on virtio_net), the Linux bridge, afpacket_fwd and DPDK's testpmd (if the host has
# it) forwarding B -> C in turn, with ixy-pktgen on A as the source and ixy-pcap on D as the sink, or a source and a
# sink on the host (--host-ends; bench/peers.sh).
mode=kmod      # the bridge, afpacket_fwd and AF_XDP need the kernel's driver
time_limit=1200 # the benchmark's command chooses its runs' length
command -v dpdk-testpmd >/dev/null && guest_options+=(--with-testpmd)
# shellcheck source=bench/vm/host-ends.sh
. "$src/bench/vm/host-ends.sh"
# DPDK's testpmd needs SSE4.2, which QEMU's default CPU model lacks: TCG's "max" model has it. For all peers alike.
devices() { qemu_args+=(-cpu max); }
checks() { guest_checks; }
