# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario xdp, the host's side (the guest's is scenario-xdp.sh; always kmod: the guest kernel's virtio_net or igb
# drives the NICs used over AF_XDP): ixy-pktgen on A and ixy-pcap on D with ixy's own drivers, ixy-fwd between B and C
# over AF_XDP (xdp:<interface>). xdp_nics (B,C here; C for scenario xdp-mixed, B for xdp-mixed-reverse: ixy-fwd
# drives the other one with ixy's own driver) says which of B and C are AF_XDP devices. check_capture.py compares the guest's capture with the host's
# records of the wire (filter-dump), as for the e2e scenario, and the AF_XDP devices' init and close lines say which
# XDP mode and copy mode they had and how many packets were copied into the UMEM.
mode=kmod
xdp_nics=${xdp_nics:-B,C}
out=${out:-$build_dir/vm-$scenario}

network() { pair_network; }
devices() {
	dump nic_a rx "$out/host-a.pcap"
	dump nic_c rx "$out/host-c.pcap"
	dump nic_d tx "$out/host-d.pcap"
	extra="ixy_xdp=$xdp_nics "
}

checks() {
	guest_checks
	local fwd_log=$out/guest/fwd.log fwd_b fwd_c name copied forwarded claims=() modified_byte checker_rc
	read -r fwd_b fwd_c < <(tr -d '\r' <"$out/console.log" | sed -n 's/^IXY-VM: ixy-fwd //p')
	expect "the guest named ixy-fwd's devices" test -n "$fwd_c"
	expect "receivers started before the generator" marker "receivers running"
	expect "ixy-pcap captured $packets packets and exited 0" marker "pcap exit 0$"
	expect "ixy-fwd stopped cleanly on SIGINT" marker "fwd exit 0$"
	expect "ixy-pktgen stopped cleanly on SIGINT" marker "pktgen exit 0$"
	show_app_logs
	for name in $fwd_b $fwd_c; do
		case "$name" in
			xdp:*)
				expect "ixy-fwd opened $name over AF_XDP and said which modes" \
					grep -q "^ixy: $name: AF_XDP on ${name#xdp:}, 1 queue(s) of [0-9]* descriptors, .* XDP, " "$fwd_log"
				say "$name: $(grep "^ixy: $name: AF_XDP on" "$fwd_log" | sed 's/.*descriptors, //')"
				;;
			*)
				expect "ixy-fwd drove $name with ixy's own driver, reached through sysfs" \
					grep -q "^ixy: $name: .* driver, device reached through sysfs$" "$fwd_log"
				;;
		esac
	done
	# What the AF_XDP device on C copied into UMEM frames to send (its close line, src/driver/xdp.c): nothing between
	# two AF_XDP devices (one UMEM), every packet when B is a NIC of ixy's own (its pool is not the UMEM). When C is
	# ixy's, it sends B's UMEM frames as they are, by their physical addresses: the UMEM is DMA memory.
	forwarded=$(total "$fwd_log" "totals app=ixy-fwd pci=$fwd_b" forwarded)
	case "$fwd_b,$fwd_c" in
		xdp:*,xdp:*)
			copied=$(total "$fwd_log" "ixy: $fwd_c: closed:" tx_copied)
			expect "no packet copied between two AF_XDP devices (shared UMEM)" test "$copied" = 0
			;;
		*,xdp:*)
			copied=$(total "$fwd_log" "ixy: $fwd_c: closed:" tx_copied)
			expect "every packet from ixy's own driver copied into a UMEM frame, and counted" \
				test -n "$copied" -a "$copied" = "$forwarded"
			;;
		*)
			copied=none
			expect "the UMEM of $fwd_b is DMA memory, which ixy's driver on $fwd_c sends from" \
				grep -q "^ixy: $fwd_b: the UMEM is DMA memory (sysfs)" "$fwd_log"
			;;
	esac
	say "ixy-fwd forwarded $forwarded packets from $fwd_b to $fwd_c; copied into UMEM frames: $copied"
	expect "ixy-fwd forwarded packets" test "${forwarded:-0}" -gt 0
	"$build_dir/test/vm/vm_constants" >"$out/constants.txt"
	modified_byte=$(total "$out/constants.txt" constants fwd_modified_byte)
	claims=(--pktgen-sent "$(total "$out/guest/pktgen.log" "totals app=ixy-pktgen pci=$nic_a" sent)"
		--fwd-forwarded "$forwarded")
	echo
	if [ -n "$modified_byte" ] && [ -f "$out/guest/capture.pcap" ]; then
		python3 "$here/check_capture.py" --host-a "$out/host-a.pcap" --host-c "$out/host-c.pcap" --host-d "$out/host-d.pcap" \
			--guest "$out/guest/capture.pcap" --packets "$packets" --modified-byte "$modified_byte" --src-mac $mac_a \
			--ring-slack 512 "${claims[@]}" | sed 's/^/  packets: /'
		checker_rc=${PIPESTATUS[0]}
		expect "captured packets check out against the host's records" test "$checker_rc" = 0
	else
		expect "the guest sent its capture" false
	fi
}
