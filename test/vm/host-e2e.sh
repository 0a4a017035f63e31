# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario e2e, the host's side (sourced by run-vm.sh; the guest's is scenario-e2e.sh): vm_selftest on A and B, then
# ixy-pcap on D, ixy-fwd on B and C, ixy-pktgen on A; check_capture.py compares the guest's capture with the host's
# records and the apps' totals lines. Then ixy-pktgen --replay on D: replay_file.py compares QEMU's record of what D
# sent with the file. --mode kmod loads the kernel's drivers first, so ixy must unbind them.
mode=${mode:-bare}
out=${out:-$build_dir/vm-$mode}

network() { pair_network; }
devices() {
	dump nic_a rx "$out/host-a.pcap"
	dump nic_c rx "$out/host-c.pcap"
	dump nic_d tx "$out/host-d.pcap"
	dump nic_d rx "$out/host-d-sent.pcap" # what D sends: the replay
}

# The VirtIO interface ixy must pick for a NIC kind (its init line says which): modern where the NIC has it, unless
# IXY_VIRTIO_LEGACY=1.
expected_interface() {
	case "$1" in
		legacy | legacy-chain) echo legacy ;;
		transitional) [[ " ${envs[*]} " = *" IXY_VIRTIO_LEGACY=1 "* ]] && echo legacy || echo modern ;;
		modern | modern-no-msix | modern-packed) echo modern ;;
		igb) echo igb ;;
		e1000 | e1000e) echo e1000 ;;
	esac
}
# Descriptors per packet ixy must use (src/driver/virtio.c): two only where the device offers neither VERSION_1
# (modern) nor ANY_LAYOUT (QEMU's legacy interface offers it unless any_layout=off).
expected_descriptors() { [ "$1" = legacy-chain ] && echo 2 || echo 1; }
kernel_driver_of() { case "$1" in igb | e1000 | e1000e) echo "$1" ;; *) echo virtio-pci ;; esac; }
# NICs with statistics registers, whose counts (the apps' totals) check_capture.py compares with the host's records.
has_stats() { case "$1" in igb | e1000 | e1000e) true ;; *) false ;; esac; }

checks() {
	[ $vfio = yes ] && guest_checks
	expect "driver self test passed" marker "selftest exit 0$"
	grep -E "passed, .* failed|CHECK|selftest:" "$out/guest/selftest.log" 2>/dev/null | sed 's/^/  selftest: /'
	local i pci interface descriptors access=sysfs logs=("$out"/guest/pcap.log "$out"/guest/fwd.log "$out"/guest/pktgen.log)
	[ $vfio = yes ] && access=VFIO
	if [ "$mode" = kmod ] && [ $vfio = no ]; then
		for i in 0 1 2 3; do
			pci=${nic_addrs[$i]}
			expect "kernel driver $(kernel_driver_of "${kinds[$i]}") was bound to $pci before ixy took it" \
				marker "kernel driver of $pci: $(kernel_driver_of "${kinds[$i]}")$"
			expect "ixy unbound the kernel driver of $pci: none bound after the apps" \
				marker "after the apps, kernel driver of $pci: none$"
		done
	fi
	# What ixy's library says when it opens a device (src/): the driver, the interface, the way in.
	for i in 0 1 2 3; do
		pci=${nic_addrs[$i]}
		interface=$(expected_interface "${kinds[$i]}")
		if [ "$interface" = igb ] || [ "$interface" = e1000 ]; then
			expect "ixy drove $pci (${kinds[$i]}) with its $interface driver" \
				grep -q "^ixy: $pci: $interface driver, device reached through" "${logs[@]}"
		else
			expect "ixy drove $pci (${kinds[$i]}) through the $interface interface" \
				grep -q "^ixy: $pci: VirtIO $interface interface" "${logs[@]}"
			descriptors=$(expected_descriptors "${kinds[$i]}")
			expect "ixy put each packet of $pci (${kinds[$i]}) in $descriptors descriptor(s)" \
				grep -q "^ixy: $pci: VirtIO .*, $descriptors descriptor(s) per packet$" "${logs[@]}"
		fi
		expect "ixy reached $pci through $access" \
			grep -q "^ixy: $pci: .* driver, device reached through $access$" "${logs[@]}"
		if { [ "${kinds[$i]}" = modern-no-msix ] || [ "${kinds[$i]}" = e1000 ]; } && [ $vfio = yes ]; then
			expect "ixy polls $pci, which has no MSI-X, and says so" \
				grep -q "^ixy: $pci: no MSI-X vector for each of its 1 RX queue(s): it is polled$" "${logs[@]:0:2}"
		fi
	done
	# An app that waits on a NIC without MSI-X (VirtIO with vectors=0, the 82540EM) never sleeps (its waiter line), and forwards or captures every packet
	# all the same (check_capture.py below).
	if [ $vfio = yes ] && [ "${kinds[1]}" = modern-no-msix ]; then
		expect "ixy-fwd, asked to wait, polled B: its waiter slept 0 times" \
			test "$(total "$out/guest/fwd.log" "waiter app=ixy-fwd" slept)" = 0
	fi
	if [ $vfio = yes ] && { [ "${kinds[3]}" = modern-no-msix ] || [ "${kinds[3]}" = e1000 ]; }; then
		expect "ixy-pcap, asked to wait, polled D: its waiter slept 0 times" \
			test "$(total "$out/guest/pcap.log" "waiter app=ixy-pcap" slept)" = 0
	fi
	expect "receivers started before the generator" marker "receivers running"
	# Least privilege (include/ixy/sandbox.h), from the status of every thread of each app while it ran
	# (/proc/<pid>/task/*/status): in each a seccomp filter (mode 2), no_new_privs, user and group ixy (1000) in all
	# four places each (real, effective, saved, filesystem), ixy's group as the only supplementary one, and no
	# capability: --user dropped root through sysfs; through VFIO they ran as ixy. A value that differs between threads
	# reads "mixed" (app_status in guest-init.sh) and fails its check.
	local app key want
	sed 's/^/  /' "$out/guest/status.txt" 2>/dev/null
	for app in ixy-pcap ixy-fwd ixy-pktgen; do
		expect "$app's status was read from each of its threads" \
			test "$(total "$out/guest/status.txt" "status app=$app" tasks)" -ge 1
		for key in seccomp=2 no_new_privs=1 uid=1000 euid=1000 suid=1000 fsuid=1000 gid=1000 egid=1000 sgid=1000 \
			fsgid=1000 groups=1 group_min=1000 group_max=1000 cap_eff=0 cap_prm=0; do
			want=${key#*=}
			expect "$app ran with $key" test "$(total "$out/guest/status.txt" "status app=$app" "${key%=*}")" = "$want"
		done
	done
	expect "ixy-pcap captured $packets packets and exited 0" marker "pcap exit 0$"
	expect "ixy-fwd stopped cleanly on SIGINT" marker "fwd exit 0$"
	expect "ixy-pktgen stopped cleanly on SIGINT" marker "pktgen exit 0$"
	show_app_logs

	# What check_capture.py compares with the host's records: the byte ixy-fwd changes (vm_constants prints
	# FWD_MODIFIED_BYTE of apps/fwd.h), and the apps' totals lines: what ixy-pktgen sent on A, what ixy-fwd forwarded
	# from B, and for NICs with statistics registers (igb, e1000, e1000e) A's and C's TX and B's and D's RX.
	local claims=() modified_byte checker_rc
	"$build_dir/test/vm/vm_constants" >"$out/constants.txt"
	modified_byte=$(total "$out/constants.txt" constants fwd_modified_byte)
	expect "vm_constants printed FWD_MODIFIED_BYTE" test -n "$modified_byte"
	claim() {   # claim OPTION APP NIC KEY...: check_capture.py OPTION with KEYs of ixy-APP's totals line of NIC
		local option=$1 app=$2 nic=${nic_addrs[$3]} key value values=() ok=yes
		shift 3
		for key; do
			value=$(total "$out/guest/$app.log" "totals app=ixy-$app pci=$nic" "$key") || ok=no
			values+=("$value")
		done
		expect "ixy-$app's totals line of $nic has $*" test $ok = yes
		[ $ok = yes ] && claims+=("$option" "${values[@]}")
	}
	claim --pktgen-sent pktgen 0 sent
	claim --fwd-forwarded fwd 1 forwarded
	has_stats "${kinds[0]}" && claim --nic-a-tx pktgen 0 tx_packets tx_bytes
	has_stats "${kinds[1]}" && claim --nic-b-rx fwd 1 rx_packets
	has_stats "${kinds[2]}" && claim --nic-c-tx fwd 2 tx_packets tx_bytes
	has_stats "${kinds[3]}" && claim --nic-d-rx pcap 3 rx_packets
	echo
	if [ -n "$modified_byte" ] && [ -f "$out/guest/capture.pcap" ]; then
		python3 "$here/check_capture.py" --host-a "$out/host-a.pcap" --host-c "$out/host-c.pcap" --host-d "$out/host-d.pcap" \
			--guest "$out/guest/capture.pcap" --packets "$packets" --modified-byte "$modified_byte" --src-mac $mac_a \
			"${claims[@]}" | sed 's/^/  packets: /'
		checker_rc=${PIPESTATUS[0]}
		expect "captured packets check out against the host's records" test "$checker_rc" = 0
		# ixy-pcap --report (issue 30): its final lines against the expected report computed from the records.
		python3 "$here/check_report.py" --host-a "$out/host-a.pcap" --guest "$out/guest/capture.pcap" \
			--log "$out/guest/pcap.log" | sed 's/^/  report: /'
		checker_rc=${PIPESTATUS[0]}
		expect "ixy-pcap's report equals the host's records" test "$checker_rc" = 0
	else
		expect "the guest sent its capture" false
	fi
	# ixy-pktgen --replay (issue 30): QEMU's record of what D sent equals the file the host made, byte for byte.
	expect "ixy-pktgen --replay exited 0" marker "replay exit 0$"
	sed 's/^/  replay: /' "$out/guest/replay.log" 2>/dev/null | grep -v " RX: \| TX: "
	local replay_totals="totals app=ixy-pktgen pci=${nic_addrs[3]}"
	expect "ixy-pktgen --replay's totals line: 300 sent of a file of 300 frames" test \
		"$(total "$out/guest/replay.log" "$replay_totals" sent)/$(total "$out/guest/replay.log" "$replay_totals" \
			replay_frames)" = 300/300
	python3 "$here/replay_file.py" check "$out/initramfs/replay.pcap" "$out/host-d-sent.pcap" | sed 's/^/  replay: /'
	checker_rc=${PIPESTATUS[0]}
	expect "what D sent equals the replayed file byte for byte" test "$checker_rc" = 0
}
