# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario soak, the host's side (the guest's is scenario-soak.sh): --soak-seconds (default 120) of traffic through
# all apps; check_soak.py accounts for every packet with the apps' totals lines and QEMU's records of the wire, and
# checks the mempool reports.
mode=${mode:-bare}
time_limit=$((soak_s + 150))
network() { hub_network; }
counters=()
devices() {
	# Millions of frames: QEMU writes each record into a pipe whose reader only counts the bytes. Every frame is 60
	# bytes, so a record is 16 + 60 bytes after the 24 byte file header. a: what NIC A sends, b: what hub 0 passes to
	# NIC B, c: what NIC C sends, d: what hub 1 passes to NIC D.
	local point name netdev queue
	for point in a:nic_a:rx b:nic_b:tx c:nic_c:rx d:nic_d:tx; do
		IFS=: read -r name netdev queue <<<"$point"
		mkfifo "$out/host-$name.fifo"
		wc -c <"$out/host-$name.fifo" >"$out/host-$name.bytes" &
		counters+=($!)
		dump "$netdev" "$queue" "$out/host-$name.fifo"
	done
}

checks() {
	local args=() point pid
	for point in a b c d; do   # a counter still waiting for QEMU to open its pipe: QEMU never started
		[ -p "$out/host-$point.fifo" ] && timeout 1 sh -c ": >'$out/host-$point.fifo'" 2>/dev/null
	done
	for pid in "${counters[@]}"; do
		wait "$pid"
	done
	rm -f "$out"/host-?.fifo
	guest_checks
	show_app_logs
	for point in a b c d; do
		args+=("--host-$point-bytes" "$(cat "$out/host-$point.bytes" 2>/dev/null || echo 0)")
	done
	echo
	python3 "$here/check_soak.py" "${args[@]}" --pktgen-log "$out/guest/pktgen.log" --fwd-log "$out/guest/fwd.log" \
		--pcap-log "$out/guest/pcap.log" --soak-seconds "$soak_s" --summary "$out/soak-summary.txt" \
		--nics "$nic_a,$nic_b,$nic_c,$nic_d" | sed 's/^/  soak: /'
	expect "every packet accounted for, every mempool full again (check_soak.py)" test "${PIPESTATUS[0]}" = 0
}
