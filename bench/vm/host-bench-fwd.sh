# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario bench-fwd, the host's side (the guest's is scenario-bench-fwd.sh): a benchmark, ixy-fwd B -> C under
# ixy-pktgen's load (bench/vm-fwd.sh alternates builds between boots). A and B, and C and D, joined as in e2e.
mode=${mode:-bare}
network() { pair_network; }
checks() { guest_checks; }
