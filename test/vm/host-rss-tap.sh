# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario rss-tap, the host's side (the guest's is scenario-rss-tap.sh): NIC A (--nics modern-mq,... or
# modern-mq-packed,...) is QEMU's virtio-net with mq=on,rss=on,vectors=10 (and packed=on) behind a multiqueue tap
# (queues=4). QEMU runs inside a network namespace this script makes and removes, so the tap never exists in the host's
# own namespace. Once the guest's vm_rss_tap has A open with 4 queue pairs and says "rss ready", host_rss_tap.py (in
# the namespace) writes frames of 64 flows into the tap; afterwards it predicts each frame's queue with its own
# Toeplitz hash (default key, table i % 4) and compares with what the guest reports: every frame once, each flow on its
# predicted queue, in order, the per-queue counts equal.
mode=${mode:-bare}
out=${out:-$build_dir/vm-$scenario}
rss_ns=ixy-rss-$$
rss_tap=ixyrss$$
case "$nics" in modern-mq,* | modern-mq-packed,*) ;; *) echo "host-rss-tap.sh: NIC A must be modern-mq or modern-mq-packed (--nics modern-mq,modern,modern,modern)" >&2; exit 2 ;; esac
qemu_prefix=(ip netns exec "$rss_ns")
host_needs=(netns tap)

# The namespace is made here, right before QEMU starts (after every reason run-vm.sh may have to give up), and
# removed in checks(). No IPv6 in it: the tap coming up would send neighbour discovery frames to the guest.
network() {
	ip netns add "$rss_ns" || { echo "host-rss-tap.sh: cannot make network namespace $rss_ns" >&2; exit 1; }
	ip netns exec "$rss_ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	qemu_args+=(-netdev "tap,id=nic_a,queues=4,ifname=$rss_tap,script=no,downscript=no")
	socket_pair nic_b "$port_b" nic_c "$port_c"
	hub nic_d 0
}
devices() {
	: >"$out/console.log"
	ip netns exec "$rss_ns" python3 "$here/host_rss_tap.py" send "$rss_tap" "$out/console.log" "$out/rss-sent.txt" \
		>"$out/rss-sender.log" 2>&1 &
	rss_sender=$!
}

checks() {
	guest_checks
	kill "$rss_sender" 2>/dev/null
	wait "$rss_sender"
	sed 's/^/  /' "$out/rss-sender.log"
	ip netns del "$rss_ns"
	expect "the network namespace $rss_ns is gone" sh -c "! ip netns list | grep -qw $rss_ns"
	expect "the guest's vm_rss_tap opened A with 4 queue pairs" grep -q "^rss ready queues=4" "$out/guest/rss.log"
	expect "the host sent the test frames" test -s "$out/rss-sent.txt"
	grep -v "^rss_frame " "$out/guest/rss.log" 2>/dev/null | sed 's/^/  guest: /'
	python3 "$here/host_rss_tap.py" check "$out/rss-sent.txt" "$out/guest/rss.log" 4 >"$out/rss-check.txt"
	local rc=$?
	sed 's/^/  /' "$out/rss-check.txt"
	expect "every frame on the queue the host's Toeplitz hash predicts, each flow in order, none twice" test $rc = 0
}
