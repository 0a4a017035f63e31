# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario xdp-mixed-reverse, the host's side: scenario xdp with ixy-fwd between B over AF_XDP (xdp:<interface>) and
# C, driven by ixy's own driver, in one process: C sends the UMEM frames B received, without a copy (host-xdp.sh has
# the checks).
xdp_nics=B
# shellcheck source=test/vm/host-xdp.sh
. "$here/host-xdp.sh"
