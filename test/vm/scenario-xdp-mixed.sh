# Scenario xdp-mixed (sourced by guest-init.sh): scenario xdp, where ixy_xdp=C (host-xdp-mixed.sh) makes ixy-fwd drive B
# with ixy's own driver and C over AF_XDP.
# shellcheck source=test/vm/scenario-xdp.sh
. /scenarios/xdp.sh
