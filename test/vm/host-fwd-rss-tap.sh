# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario fwd-rss-tap, the host's side (the guest's is scenario-fwd-rss.sh; issue 20): fwd-rss (host-fwd-rss.sh) on
# modern VirtIO NICs with 4 queue pairs (--nics modern,modern-mq,modern-mq,modern-mq; QEMU's virtio-net with
# mq=on,rss=on; ixy-pktgen's A has one, the guest's huge pages do not hold four for it), q35 with 4 vCPUs; or the
# same kinds with packed=on (--nics modern-packed,modern-mq-packed,modern-mq-packed,modern-mq-packed).
# A socket netdev has one queue pair, so each NIC sits behind a multiqueue tap (queues=4) in a network namespace this
# script makes and removes (QEMU runs in it): taps A and B on one Linux bridge, C and D on another. QEMU's filter-dump
# refuses multiqueue netdevs, so the host's records are tcpdump's, in the namespace: what tap A got from A, what the
# bridge handed tap B for B, what tap C got from C, what tap D was handed for D. The taps' queues hold 100000 frames
# (txqueuelen), so that a slow guest makes frames wait there, not drop (the check reads the taps' tx_dropped).
# ixy-pktgen sends for --send-seconds (1), then every frame passes and ixy-pcap captures them all (ixy_fwd_send):
# check_fwd_rss.py --drain then checks that every frame A sent reached B, left C, reached D and was captured, once,
# in order per flow, besides B's per-queue counts against the host's Toeplitz prediction.
# With --vfio (mode kmod) the apps run as user ixy through VFIO behind the IOMMU and wait for interrupts, each RX
# queue of B and D on its own MSI-X vector (vfio_queue_checks in run-vm.sh).
mode=${mode:-bare}
queues_ok=yes
queues=${queues:-4}
vcpus=4
case "$queues" in 2 | 4) ;; *) echo "run-vm.sh: fwd-rss-tap takes --queues 2 or 4" >&2; exit 2 ;; esac
case "$nics" in
	modern,modern-mq,modern-mq,modern-mq | modern-packed,modern-mq-packed,modern-mq-packed,modern-mq-packed) ;;
	*) echo "run-vm.sh: fwd-rss-tap runs on --nics modern,modern-mq,modern-mq,modern-mq or its -packed kinds" >&2; exit 2 ;;
esac
tap_ns=ixy-fwdrss-$$
tap_names=(fra$$ frb$$ frc$$ frd$$)
tap_dirs=(in out in out) # tcpdump -Q: what the tap got from the guest's NIC, or what it hands to it
tap_files=(host-a host-b host-c host-d)
qemu_prefix=(ip netns exec "$tap_ns")
host_needs=(netns tap bridge)
host_tools=(tcpdump) # the host's records (run-vm.sh installs it, or skips with one line naming it)
ns() { ip netns exec "$tap_ns" "$@"; }

network() {
	ip netns add "$tap_ns" || { echo "host-fwd-rss-tap.sh: cannot make network namespace $tap_ns" >&2; exit 1; }
	ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	local i netdevs=(nic_a nic_b nic_c nic_d) tap_queues=(1 4 4 4)
	for i in 0 1 2 3; do
		if [ "${tap_queues[$i]}" = 1 ]; then # (QEMU opens a tap of one queue without IFF_MULTI_QUEUE)
			ns ip tuntap add dev "${tap_names[$i]}" mode tap
		else
			ns ip tuntap add dev "${tap_names[$i]}" mode tap multi_queue
		fi
		ns ip link set dev "${tap_names[$i]}" txqueuelen 100000 up
		qemu_args+=(-netdev "tap,id=${netdevs[$i]},queues=${tap_queues[$i]},ifname=${tap_names[$i]},script=no,downscript=no")
	done
	ns ip link add fwdrss-ab type bridge
	ns ip link add fwdrss-cd type bridge
	ns ip link set "${tap_names[0]}" master fwdrss-ab
	ns ip link set "${tap_names[1]}" master fwdrss-ab
	ns ip link set "${tap_names[2]}" master fwdrss-cd
	ns ip link set "${tap_names[3]}" master fwdrss-cd
	ns ip link set fwdrss-ab up
	ns ip link set fwdrss-cd up
	tcpdumps=()
	# 'not igmp': a bridge that comes up sends the host kernel's own IGMPv3 reports (from its MAC, to 224.0.0.22) for
	# a second or two, out of every port; a tcpdump that listens at once (below) records them as frames the guest got.
	for i in 0 1 2 3; do
		ip netns exec "$tap_ns" tcpdump -i "${tap_names[$i]}" -Q "${tap_dirs[$i]}" -s 0 -B 65536 -U -w "$out/${tap_files[$i]}.pcap" \
			'not igmp' 2>"$out/${tap_files[$i]}.tcpdump" &
		tcpdumps+=($!) # tcpdump's own (ip netns exec execs it)
	done
	# Each tcpdump says "listening on" once it captures (not a fixed 1 s, which a busy machine can exceed); up to 60 s.
	for i in 0 1 2 3; do
		for _ in $(seq 600); do
			grep -qs "listening on" "$out/${tap_files[$i]}.tcpdump" && break
			sleep 0.1
		done
		grep -qs "listening on" "$out/${tap_files[$i]}.tcpdump" ||
			{ echo "host-fwd-rss-tap.sh: tcpdump on ${tap_names[$i]} did not start in 60 s" >&2; exit 1; }
	done
}
devices() {
	extra="ixy_fwd_queues=$queues ixy_fwd_send=1 ixy_fwd_ring=default "
}
checks() {
	local i dropped pid
	for pid in "${tcpdumps[@]}"; do kill -TERM "$pid"; done # (a background job ignores SIGINT)
	for pid in "${tcpdumps[@]}"; do wait "$pid"; done
	for i in 0 1 2 3; do
		dropped=$(sed -n 's/^\([0-9]*\) packets dropped by kernel$/\1/p' "$out/${tap_files[$i]}.tcpdump")
		expect "tcpdump recorded every frame of tap ${tap_names[$i]} (${dropped:-?} dropped by the kernel)" \
			test "${dropped:-x}" = 0
		dropped=$(ns cat "/sys/class/net/${tap_names[$i]}/statistics/tx_dropped")
		expect "tap ${tap_names[$i]} dropped no frame for the guest (tx_dropped=$dropped)" test "$dropped" = 0
	done
	ns ip link del fwdrss-ab
	ns ip link del fwdrss-cd
	for i in 0 1 2 3; do ns ip link del "${tap_names[$i]}"; done
	ip netns del "$tap_ns"
	expect "the network namespace $tap_ns is gone" sh -c "! ip netns list | grep -qw $tap_ns"
	[ $vfio = no ] || vfio_queue_checks virtio "$queues"
	expect "the guest has 4 CPUs" marker "fwd-rss: .*, 4 CPUs$"
	expect "receivers started before the generator" marker "receivers running"
	expect_fwd_pinned "$queues"
	expect "everything passed: the capture stopped growing" marker "capture still for 3 s"
	expect "ixy-pcap stopped cleanly on SIGINT" marker "pcap exit 0$"
	expect "ixy-pktgen stopped cleanly on SIGINT" marker "pktgen exit 0$"
	expect "ixy-fwd stopped cleanly on SIGINT" marker "fwd exit 0$"
	show_app_logs
	check_fwd_rss --drain --virtio --packets 0
}
