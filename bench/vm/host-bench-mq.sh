# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario bench-mq, the host's side (the guest's is scenario-bench-mq.sh; bench/vm-mq.sh runs it; issue 20): a
# benchmark, ixy-fwd --queues 1 against --queues 2 between B and C under ixy-pktgen --flows 1024 on A, alternating in
# one boot of a q35 machine with 2 vCPUs and four igb NICs (QEMU's igb steers received frames by RSS). A and B, and C
# and D, joined by UDP socket pairs as in e2e.
mode=${mode:-bare}
vcpus=2
time_limit=900
[ "$nics" = igb ] || { echo "run-vm.sh: bench-mq runs on --nics igb" >&2; exit 2; }
network() { pair_network; }
checks() { guest_checks; }
