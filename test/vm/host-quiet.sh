# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario quiet, the host's side (the guest's is scenario-quiet.sh): after each app ends, its devices are reset,
# their queues unset and bus mastering is off, and traffic sent to them afterwards (from two kernel-driven NICs, E
# and F) changes nothing.
mode=${mode:-bare}
network() { hub_network; }
devices() {
	# E and F, driven by the guest kernel, send traffic towards the stopped NICs on hub 0 and hub 1.
	hub nic_e 0
	hub nic_f 1
	nic nic_e "$([ $machine = pc ] && echo legacy || echo transitional)" 52:54:00:12:34:0e
	nic nic_f "$([ $machine = pc ] && echo legacy || echo transitional)" 52:54:00:12:34:0f
	extra="ixy_nic_e=${nic_addrs[4]} ixy_nic_f=${nic_addrs[5]}"
	dump nic_b tx "$out/host-b.pcap"
	dump nic_d tx "$out/host-d.pcap"
}

# quiet: the host's record shows the frames the kernel-driven NICs E and F sent towards the stopped NICs.
checks() {
	guest_checks
	local point count
	for point in b d; do
		count=$(python3 - "$out/host-$point.pcap" <<-'PY'
			import struct, sys
			data = open(sys.argv[1], "rb").read()
			pos, burst = 24, 0
			while pos + 16 <= len(data):
			    caplen = struct.unpack("<I", data[pos + 8:pos + 12])[0]
			    burst += data[pos + 16 + 6:pos + 16 + 12] == bytes.fromhex("020000000042")
			    pos += 16 + caplen
			print(burst)
		PY
		)
		expect "the host saw the burst (${count:-0} frames from the kernel's NIC) reach stopped NIC ${point^^}" \
			test "${count:-0}" -ge 10000
	done
}

