# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario vfio-bad-inputs, the host's side (the guest's is scenario-vfio-bad-inputs.sh): what VFIO cannot give is
# refused with one message and changes nothing (kmod; with --iommu four more NICs: E legacy-only, F modern without
# iommu_platform, G and H in one IOMMU group; without --iommu: no IOMMU). Writes OUT/bad-inputs.md.
mode=${mode:-kmod}
# shellcheck source=test/vm/host-bad-inputs.sh
. "$here/host-bad-inputs.sh" # bad_inputs_report and checks; devices is this scenario's own, below

devices() {
	[ $iommu = yes ] || return 0
	# E legacy-only in the root complex; F modern without iommu_platform behind a root port of its own; G and H behind
	# one PCIe-to-PCI bridge, which puts them into one IOMMU group. Alone on hub 2.
	hub nic_e 2
	hub nic_f 2
	hub nic_g 2
	hub nic_h 2
	nic nic_e legacy 52:54:00:12:34:0e
	qemu_args+=(-device "pcie-root-port,id=port$next_port,chassis=$next_port,addr=$(printf 0x%x $((0x10 + next_port)))"
		-device "virtio-net-pci,netdev=nic_f,mac=52:54:00:12:34:0f,bus=port$next_port,disable-legacy=on,romfile=")
	local nic_f bridge_bus
	nic_f=$(printf '0000:%02x:00.0' $next_port)
	qemu_args+=(-device "pcie-pci-bridge,id=bridge,addr=0x1c"
		-device "virtio-net-pci,netdev=nic_g,mac=52:54:00:12:34:10,bus=bridge,addr=0x1,disable-modern=on,romfile="
		-device "virtio-net-pci,netdev=nic_h,mac=52:54:00:12:34:11,bus=bridge,addr=0x2,disable-modern=on,romfile=")
	bridge_bus=$((next_port + 1))
	extra="ixy_nic_e=${nic_addrs[4]} ixy_nic_f=$nic_f ixy_nic_g=$(printf '0000:%02x:01.0' $bridge_bus) ixy_nic_h=$(printf '0000:%02x:02.0' $bridge_bus)"
}
