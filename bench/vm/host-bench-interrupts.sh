# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario bench-interrupts, the host's side (the guest's is scenario-bench-interrupts.sh): with --vfio and usually
# --host-ends, a benchmark: ixy-fwd --poll against --wait, alone on the vCPU, under the load of a source on the host,
# alternating runs (bench/interrupts.sh).
mode=${mode:-kmod}
[ $vfio = yes ] || { echo "run-vm.sh: the bench-interrupts scenario needs --vfio (ixy has interrupts only there)" >&2; exit 2; }
time_limit=1200 # the benchmark's command chooses its runs' length
# shellcheck source=bench/vm/host-ends.sh
. "$src/bench/vm/host-ends.sh"
checks() { guest_checks; }
