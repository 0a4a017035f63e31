# Scenario xdp-mixed-reverse (sourced by guest-init.sh): scenario xdp, where ixy_xdp=B (host-xdp-mixed-reverse.sh)
# makes ixy-fwd take B over AF_XDP and drive C with ixy's own driver.
# shellcheck source=test/vm/scenario-xdp.sh
. /scenarios/xdp.sh
