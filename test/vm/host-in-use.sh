# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario in-use, the host's side (the guest's is scenario-in-use.sh, which holds all the checks): NICs whose
# kernel interface is up or has an address are refused, unless IXY_FORCE=1 (always kmod).
mode=${mode:-kmod}
network() { hub_network; }
checks() { guest_checks; }
