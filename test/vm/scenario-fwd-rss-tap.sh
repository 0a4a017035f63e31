# Scenario fwd-rss-tap (sourced by guest-init.sh): fwd-rss on modern VirtIO NICs behind multiqueue taps; the host
# (host-fwd-rss-tap.sh) asks it, by ixy_fwd_send, to send for a while and let everything pass.
# shellcheck source=test/vm/scenario-fwd-rss.sh
. /scenarios/fwd-rss.sh
