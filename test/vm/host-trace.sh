# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario trace, the host's side (the guest's is scenario-trace.sh, which holds all the checks): in a build with
# -DIXY_TRACE=ON and --nics igb,modern,legacy,e1000e, ixy-pktgen's register trace on QEMU's igb, modern and legacy
# VirtIO NICs and e1000e: names from the tables, the init in the datasheet's or spec's order.
mode=${mode:-bare}
network() { hub_network; }
checks() { guest_checks; }
