# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario rss, the host's side (the guest's is scenario-rss.sh): receive side scaling on QEMU's igb (--nics igb).
# NIC A's netdev is a UDP socket on 127.0.0.1 (B, C and D sit on a hub with a sink and stay unused). Once the guest's
# vm_rss has A open with 4 RX queues and the default RSS, check_rss.py sends 329 frames of 85 flows into A's socket (64
# UDP flows that differ in the source port, 16 TCP, 4 ICMP, one ARP frame); afterwards it predicts each frame's
# queue with a Toeplitz hash of its own and checks vm_rss's lines: every frame once, on its predicted queue, the
# per-queue counts exactly, each flow on one queue and in order. QEMU's filter-dump records what reached A.
mode=${mode:-bare}
[ "${nics%%,*}" = igb ] ||
	{ echo "run-vm.sh: the rss scenario needs NIC A to be an igb (--nics igb)" >&2; exit 2; }
network() {
	qemu_args+=(-netdev "socket,id=nic_a,udp=127.0.0.1:$port_b,localaddr=127.0.0.1:$port_a")
	hub nic_b 0
	hub nic_c 0
	hub nic_d 0
	qemu_args+=(-netdev "socket,id=sink0,udp=127.0.0.1:9,localaddr=127.0.0.1:$port0"
		-netdev "hubport,id=hub0_sink,hubid=0,netdev=sink0")
}
devices() {
	dump nic_a tx "$out/host-a.pcap"
	# The sender waits (in the background, while QEMU runs) for the guest's "rss receiving" on the console.
	python3 "$here/check_rss.py" send "$out/console.log" "$port_b" "$port_a" "$mac_a" "$out/rss-expected.json" \
		"$time_limit" >"$out/sender.log" 2>&1 &
	rss_sender=$!
}
checks() {
	guest_checks
	# QEMU has ended: a sender still waiting for "rss receiving" would wait for nothing until its time limit.
	marker "rss receiving" || kill "$rss_sender" 2>/dev/null
	wait "$rss_sender"
	local sender_rc=$?
	expect "the host's sender sent its frames ($(cat "$out/sender.log"))" test $sender_rc = 0
	python3 "$here/check_rss.py" check "$out/rss-expected.json" "$out/guest/rss.log" "$out/host-a.pcap" \
		>"$out/check.txt" 2>&1
	expect_checker "$out/check.txt" "the host's check" $?
}
