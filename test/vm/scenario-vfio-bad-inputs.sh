# Scenario vfio-bad-inputs (sourced by guest-init.sh, mode kmod): what VFIO cannot give is refused with one message
# that says why and what to do, and nothing changes (bad() in guest-init.sh: exit code, one line, snapshot).
#
# With an IOMMU (run-vm.sh --iommu): NICs A-D modern with iommu_platform=on; E legacy-only; F modern without
# iommu_platform (its DMA would bypass the IOMMU); G and H legacy behind one PCIe-to-PCI bridge (one IOMMU group).
# Without an IOMMU: A-D only; setup-vfio.sh finds no IOMMU group (and vfio-pci takes no device).
# The cases and messages go to the host as bad-inputs.tsv (run-vm.sh writes bad-inputs.md).
ALL_NICS="$NIC_A $NIC_B $NIC_C $NIC_D $NIC_E $NIC_F $NIC_G $NIC_H"

# What no bad input may change: drivers, the owners of /dev/vfio, huge pages, interfaces.
snapshot() {
	for dev in $ALL_NICS; do
		echo "$dev driver $(kernel_driver "$dev")"
	done
	ls -ln /dev/vfio | sed 1d | awk '{ print $1, $3, $4, $NF }'
	echo "huge pages: $(free_hugepages) free of $(cat $HUGEPAGE_SYSFS/nr_hugepages)"
	ip -o link
	ip -o addr
}
rebind() { marker "the next cases start from the changed state"; }

# A-D come with the kernel's virtio-pci bound and their interfaces down.
for nic in $ALL_NICS; do
	marker "$nic: $(cat "/sys/bus/pci/devices/$nic/vendor"):$(cat "/sys/bus/pci/devices/$nic/device"), driver $(kernel_driver "$nic"), IOMMU group $(basename "$(readlink "/sys/bus/pci/devices/$nic/iommu_group" 2>/dev/null)")"
done

if [ ! -e "/sys/bus/pci/devices/$NIC_A/iommu_group" ]; then
	# ---- Without an IOMMU
	bad "setup-vfio.sh without an IOMMU" 1 "has no IOMMU group: the IOMMU is off" setup-vfio.sh $NIC_A ixy
	# vfio-pci itself refuses devices without an IOMMU group (its no-IOMMU mode is not in Debian's kernel:
	# CONFIG_VFIO_NOIOMMU is not set), so no device without an IOMMU ever reaches ixy through VFIO.
	echo vfio-pci >/sys/bus/pci/devices/$NIC_B/driver_override
	echo $NIC_B >/sys/bus/pci/devices/$NIC_B/driver/unbind
	echo $NIC_B >/sys/bus/pci/drivers_probe 2>/dev/null
	check_eq "vfio-pci does not take $NIC_B without an IOMMU" "$(kernel_driver $NIC_B)" none
	echo >/sys/bus/pci/devices/$NIC_B/driver_override
	echo $NIC_B >/sys/bus/pci/drivers_probe
	check_eq "$NIC_B is back with virtio-pci" "$(kernel_driver $NIC_B)" virtio-pci
else
	# ---- With an IOMMU
	ulimit -l 262144 # enough for every case but the one about the limit
	for nic in $NIC_A $NIC_B; do
		check "setup-vfio.sh hands $nic to ixy" sh -c "setup-vfio.sh $nic ixy >/dev/null"
	done
	group_a=$(basename "$(readlink "/sys/bus/pci/devices/$NIC_A/iommu_group")")

	bad "VFIO: /dev/vfio/$group_a not accessible to this user" 1 "Permission denied (it belongs to uid 1000" \
		su nobody -s /bin/sh -c "exec ixy-pktgen $NIC_A"
	su ixy -s /bin/sh -c "exec ixy-pcap $NIC_A /dev/null" >/tmp/holder.log 2>&1 &
	holder=$!
	check "VFIO: ixy-pcap holds $NIC_A" wait_running /tmp/holder.log $holder
	bad "VFIO: the group is in use by another process" 1 "is in use by another process" su ixy -s /bin/sh -c "exec ixy-pktgen $NIC_A"
	stop_app holder $holder
	bad "VFIO: RLIMIT_MEMLOCK too low" 1 "(RLIMIT_MEMLOCK). Raise the limit" \
		sh -c "ulimit -l 1024; exec su ixy -s /bin/sh -c 'exec ixy-pktgen $NIC_A'"
	# A is modern-only (1af4:1041): refused by its IDs, before the IOMMU matters.
	bad "VFIO: IXY_VIRTIO_LEGACY=1 on a modern-only NIC" 1 "no legacy interface for IXY_VIRTIO_LEGACY=1" \
		su ixy -s /bin/sh -c "exec env IXY_VIRTIO_LEGACY=1 ixy-pktgen $NIC_A"

	check "setup-vfio.sh hands the legacy-only $NIC_E to ixy" sh -c "setup-vfio.sh $NIC_E ixy >/dev/null"
	bad "VFIO: a legacy-only VirtIO NIC" 1 "the device has only the legacy interface: the legacy VirtIO interface cannot" \
		su ixy -s /bin/sh -c "exec ixy-pktgen $NIC_E"
	check "setup-vfio.sh hands $NIC_F (no iommu_platform) to ixy" sh -c "setup-vfio.sh $NIC_F ixy >/dev/null"
	bad "VFIO: a VirtIO NIC whose DMA bypasses the IOMMU" 1 "bit 33 ACCESS_PLATFORM: DMA through the IOMMU" \
		su ixy -s /bin/sh -c "exec ixy-pktgen $NIC_F"

	# G and H share an IOMMU group; H stays with virtio-pci.
	bad "setup-vfio.sh: a group with a device of another driver" 1 "also holds $NIC_H, bound to virtio-pci" \
		setup-vfio.sh $NIC_G ixy
	echo vfio-pci >/sys/bus/pci/devices/$NIC_G/driver_override
	echo $NIC_G >/sys/bus/pci/devices/$NIC_G/driver/unbind
	echo $NIC_G >/sys/bus/pci/drivers_probe
	group_g=$(basename "$(readlink "/sys/bus/pci/devices/$NIC_G/iommu_group")")
	chown ixy /dev/vfio/$group_g
	check_eq "$NIC_G is bound to vfio-pci by hand, $NIC_H to virtio-pci" "$(kernel_driver $NIC_G) $(kernel_driver $NIC_H)" \
		"vfio-pci virtio-pci"
	bad "VFIO: the IOMMU group is not viable" 1 "its IOMMU group $group_g is not viable" su ixy -s /bin/sh -c "exec ixy-pktgen $NIC_G"
	bad "VFIO: not viable, the message names the other device and its driver" 1 "$NIC_H (virtio-pci)" \
		su ixy -s /bin/sh -c "exec ixy-pktgen $NIC_G"

	# One process, two ways: refused before either device is taken.
	bad "ixy-fwd between a VFIO and a sysfs device" 1 "but this process reaches its other devices through VFIO" \
		ixy-fwd $NIC_A $NIC_C
	bad "ixy-fwd between a sysfs and a VFIO device" 1 "but this process reaches its other devices through sysfs" \
		ixy-fwd $NIC_C $NIC_A

	# setup-vfio.sh's own refusals.
	if_d=$(interface_of $NIC_D)
	ip link set "$if_d" up
	bad "setup-vfio.sh: the interface is up" 1 "$NIC_D is network interface $if_d, which is up" setup-vfio.sh $NIC_D ixy
	ip link set "$if_d" down
	bad "setup-vfio.sh: not a NIC" 1 "is not a network controller" setup-vfio.sh 0000:00:00.0 ixy
	bad "setup-vfio.sh: no such user" 1 "no user 'nosuchuser'" setup-vfio.sh $NIC_D nosuchuser
	bad "setup-vfio.sh: not root" 1 "must run as root" su nobody -s /bin/sh -c "exec setup-vfio.sh $NIC_D"
	bad "setup-vfio.sh --undo of a device not bound to vfio-pci" 1 "is not bound to vfio-pci" setup-vfio.sh --undo $NIC_D
fi
send_file bad-inputs.tsv
marker "checks failed: $checks_failed"
