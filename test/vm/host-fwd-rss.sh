# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario fwd-rss, the host's side (the guest's is scenario-fwd-rss.sh; issue 20): the apps with several queues on a
# q35 machine with 4 vCPUs. ixy-pktgen --flows 64 on A, ixy-fwd --queues N (--queues, default 4) between B and C,
# ixy-pcap --queues 4 on D; A and B, C and D joined by UDP socket pairs on 127.0.0.1 (frames keep their order), in a
# network namespace this script makes and removes (QEMU runs in it, with only its loopback up). QEMU's igb stops
# reading its socket while it cannot receive, and then the host's kernel drops what the socket's receive buffer cannot
# hold; the namespace's UDP counters (/proc/net/snmp, per namespace) count those drops and nobody else's, read before
# QEMU starts and after it ends. QEMU's filter-dump records what A sends, what reaches B, what C sends and what
# reaches D; check_fwd_rss.py predicts from the frames that reached B, with a Toeplitz hash of its own and ixy's table
# (entry i = i % N), how many land on each RX queue of B, and compares with ixy-fwd's queue lines of B exactly; it
# follows every frame of every flow from A through C to ixy-pcap's capture: once each, in order per flow, every one
# accounted for by the records, the apps' counters and, for the frames lost between the NICs, the growth of the
# namespace's RcvbufErrors. With --vfio (mode kmod) the apps run as user ixy through VFIO and wait for interrupts (--wait, their
# default): each RX queue of B and D must have raised its own MSI-X vector (vfio_queue_checks in run-vm.sh).
mode=${mode:-bare}
queues_ok=yes
queues=${queues:-4}
vcpus=4
case "$queues" in 2 | 4) ;; *) echo "run-vm.sh: fwd-rss takes --queues 2 or 4" >&2; exit 2 ;; esac
[ "$nics" = igb ] || { echo "run-vm.sh: fwd-rss runs on --nics igb" >&2; exit 2; }
fwd_ns=ixy-fwdrss-igb-$$
qemu_prefix=(ip netns exec "$fwd_ns")
host_needs=(netns)
udp_counter() { # udp_counter FILE NAME: the UDP counter NAME of a copy of /proc/net/snmp (header line, value line)
	awk -v name="$2" '$1 == "Udp:" && !seen { for (i = 2; i <= NF; i++) col[$i] = i; seen = 1; next }
		$1 == "Udp:" && seen && (name in col) { print $col[name]; found = 1 } END { exit !found }' "$1"
}

network() {
	ip netns add "$fwd_ns" || { echo "host-fwd-rss.sh: cannot make network namespace $fwd_ns" >&2; exit 1; }
	ip netns exec "$fwd_ns" ip link set lo up || { echo "host-fwd-rss.sh: cannot bring up lo in $fwd_ns" >&2; exit 1; }
	ip netns exec "$fwd_ns" cat /proc/net/snmp >"$out/snmp-before.txt"
	pair_network # (run-vm.sh chose the ports free in the host's namespace; the new one has no socket yet)
}
devices() {
	dump nic_a rx "$out/host-a.pcap"
	dump nic_b tx "$out/host-b.pcap"
	dump nic_c rx "$out/host-c.pcap"
	dump nic_d tx "$out/host-d.pcap"
	# ixy-pktgen --rate (issue 30): about what D takes under TCG on a busy host, so that few frames are lost between
	# the NICs (unpaced, 12680 of 16000 were, for 3000 captured).
	extra="ixy_fwd_queues=$queues ixy_fwd_rate=2kpps "
}
checks() {
	local rcvbuf_errors in_errors before after lo_dropped
	ip netns exec "$fwd_ns" cat /proc/net/snmp >"$out/snmp-after.txt"
	# A frame the loopback itself dropped (its backlog full) would be lost without a UDP counter: there must be none.
	lo_dropped=$(ip netns exec "$fwd_ns" cat /sys/class/net/lo/statistics/rx_dropped)
	ip netns del "$fwd_ns"
	expect "the namespace's loopback dropped no frame (rx_dropped=${lo_dropped:-?})" test "${lo_dropped:-x}" = 0
	expect "the network namespace $fwd_ns is gone" sh -c "! ip netns list | grep -qw $fwd_ns"
	before=$(udp_counter "$out/snmp-before.txt" RcvbufErrors) && after=$(udp_counter "$out/snmp-after.txt" RcvbufErrors) &&
		rcvbuf_errors=$((after - before))
	before=$(udp_counter "$out/snmp-before.txt" InErrors) && after=$(udp_counter "$out/snmp-after.txt" InErrors) &&
		in_errors=$((after - before))
	expect "the namespace's UDP counters RcvbufErrors (+${rcvbuf_errors:-?}) and InErrors (+${in_errors:-?}) were read" \
		test -n "${rcvbuf_errors:-}" -a -n "${in_errors:-}"
	[ $vfio = no ] || vfio_queue_checks igb "$queues"
	expect "the guest has 4 CPUs" marker "fwd-rss: .*, 4 CPUs$"
	expect "receivers started before the generator" marker "receivers running"
	expect_fwd_pinned "$queues"
	expect "ixy-pcap captured $packets packets and exited 0" marker "pcap exit 0$"
	expect "ixy-pktgen stopped cleanly on SIGINT" marker "pktgen exit 0$"
	expect "ixy-fwd stopped cleanly on SIGINT" marker "fwd exit 0$"
	expect "ixy-pcap on D once more (what waited for D on the host) stopped cleanly on SIGINT" marker "pcap-drain exit 0$"
	show_app_logs
	check_fwd_rss --packets "$packets" --udp-rcvbuf-errors "${rcvbuf_errors:-x}" --udp-in-errors "${in_errors:-x}"
}
