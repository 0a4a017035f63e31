# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario confine, the host's side (the guest's is scenario-confine.sh): a NIC given memory outside ixy's DMA memory
# (vm_confine): with --vfio the IOMMU stops it (the secret never reaches the wire, a receive does not land, the
# kernel logs the fault); without, the control shows that the same checks see a DMA that got through
# (check_confine.py reads QEMU's record of what NIC A sent).
mode=${mode:-bare}
network() { pair_network; }
devices() { dump nic_a rx "$out/host-a.pcap"; }

checks() {
	guest_checks
	local verdict
	verdict=$(python3 "$here/check_confine.py" "$out/host-a.pcap" 2>&1)
	echo "$verdict" | sed 's/^/  /'
	expect "vm_confine tx exited 0" marker "vm_confine tx exit 0$"
	expect "vm_confine rx exited 0" marker "vm_confine rx exit 0$"
	expect "the host saw each marker frame once" grep -qx "marker frames: before 1, after 1" <<<"$verdict"
	# Between the markers: exactly one frame, the NIC's 60-byte read of the secret memory.
	local between
	between=$(grep "^between the markers:" <<<"$verdict")
	if [ $vfio = yes ]; then
		expect "no byte of the unmapped secret memory reached the wire" grep -q "^secret bytes on the wire: 0$" <<<"$verdict"
		expect "the IOMMU gave the NIC zeros for the unmapped frame: one frame of zeros between the markers" \
			test "$between" = "between the markers: a frame of 60 bytes, all zeros"
	else
		expect "control: the secret reached the wire through sysfs" grep -q "^secret bytes on the wire: [1-9]" <<<"$verdict"
		expect "control: the secret frame, alone between the markers" \
			test "$between" = "between the markers: a frame of 60 bytes, secret"
	fi
}
