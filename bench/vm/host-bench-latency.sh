# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario bench-latency, the host's side (the guest's is scenario-bench-latency.sh): with --vfio --nics igb
# --host-ends, a benchmark: per-packet latency of ixy-fwd over ring sizes and loads, and of ixy-fwd --wait, DPDK's
# testpmd (if the host has it) and the Linux bridge at the same loads, alone on the vCPU (bench/latency.sh).
mode=${mode:-kmod}
[ $vfio = yes ] || { echo "run-vm.sh: the bench-latency scenario needs --vfio (ixy-fwd --wait, testpmd)" >&2; exit 2; }
time_limit=1800 # the benchmark's command chooses its runs' length
command -v dpdk-testpmd >/dev/null && guest_options+=(--with-testpmd)
# shellcheck source=bench/vm/host-ends.sh
. "$src/bench/vm/host-ends.sh"
# DPDK's testpmd needs SSE4.2, which QEMU's default CPU model lacks: TCG's "max" model has it. For all alike.
devices() { qemu_args+=(-cpu max,x2apic=off); }
checks() { guest_checks; }
