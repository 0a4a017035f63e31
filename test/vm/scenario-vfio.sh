# Scenario vfio (sourced by guest-init.sh; run-vm.sh --iommu, mode kmod): the apps run without root, through VFIO.
#   1. scripts/setup-vfio.sh (as root) hands each NIC to user ixy (uid 1000): it unbinds the kernel driver, binds
#      vfio-pci and gives /dev/vfio/<group> to ixy.
#   2. With the locked-memory limit the script names, the e2e pipeline (scenario-e2e.sh) runs as user ixy; run-vm.sh
#      checks the packets as for e2e, and that ixy reached every NIC through VFIO.
#   3. setup-vfio.sh --undo gives each NIC back to its kernel driver.
marker "IOMMU groups: $(ls /sys/kernel/iommu_groups | tr '\n' ' ')"
for nic in $NIC_A $NIC_B $NIC_C $NIC_D; do
	driver_before=$(kernel_driver "$nic")
	check "setup-vfio.sh hands $nic ($driver_before) to user ixy" sh -c "setup-vfio.sh $nic ixy >/tmp/setup.log 2>&1"
	sed 's/^/    /' /tmp/setup.log
	group=$(basename "$(readlink "/sys/bus/pci/devices/$nic/iommu_group")")
	check_eq "$nic is bound to vfio-pci" "$(kernel_driver "$nic")" vfio-pci
	check_eq "/dev/vfio/$group belongs to ixy" "$(stat -c '%U %a' "/dev/vfio/$group")" "ixy 600"
done
limit=$(sed -n 's/.*ulimit -l \([0-9]*\) (two NICs.*/\1/p' /tmp/setup.log)
check "setup-vfio.sh names a locked-memory limit" test -n "$limit"
ulimit -l $((2 * ${limit:-0})) # the apps inherit it; ixy-fwd and vm_selftest open two NICs
marker "locked-memory limit for user ixy: $(ulimit -l) KiB"

APP_USER=ixy
# shellcheck disable=SC1091
. /scenarios/e2e.sh
APP_USER=
check_eq "ixy-pcap and ixy-fwd ran as user ixy" "$(sort -u /tmp/apps-uid.txt)" "uid 1000"

for nic in $NIC_A $NIC_B $NIC_C $NIC_D; do
	check "setup-vfio.sh --undo gives $nic back" sh -c "setup-vfio.sh --undo $nic >/dev/null"
	check_eq "$nic is back with virtio-pci" "$(kernel_driver "$nic")" virtio-pci
done
marker "checks failed: $checks_failed"
