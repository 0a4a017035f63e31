# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario xdp-mixed, the host's side: scenario xdp with ixy-fwd between B, driven by ixy's own driver, and C over
# AF_XDP (xdp:<interface>) in one process (host-xdp.sh has the checks).
xdp_nics=C
# shellcheck source=test/vm/host-xdp.sh
. "$here/host-xdp.sh"
