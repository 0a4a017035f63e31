# Scenario confine (sourced by guest-init.sh): what a NIC can reach when its driver hands it memory outside ixy's DMA
# memory (vm_confine). A and B are joined by a UDP socket pair; the host records what A sends (host-a.pcap).
#   With --vfio: the NICs are reached through VFIO; the secret memory is not mapped in the IOMMU. A transmit from it
#   must put none of its bytes on the wire (check_confine.py on the host), a receive into it must leave it unchanged,
#   and the guest kernel must log the IOMMU's fault (DMAR).
#   Without --vfio (mode bare, root, sysfs): the control. The same secret is ordinary memory the NIC reaches by its
#   physical address: the secret must show on the wire and the received packet must land in it, which shows that
#   the checks above would see a DMA that got through.
if [ "$vfio" = yes ]; then
	access=vfio
else
	access=sysfs
fi

(run_app vm_confine tx $NIC_A $access >/tmp/confine-tx.log 2>&1)
marker "vm_confine tx exit $?"
sed 's/^/    /' /tmp/confine-tx.log

run_app vm_confine rx $NIC_B $access >/tmp/confine-rx.log 2>&1 &
rx_pid=$!
sleep 2
run_app ixy-pktgen $NIC_A >/tmp/confine-pktgen.log 2>&1 &
pktgen_pid=$!
wait $rx_pid
marker "vm_confine rx exit $?"
stop_app pktgen $pktgen_pid
sed 's/^/    /' /tmp/confine-rx.log

dmesg | grep -i "DMAR.*fault" | head -4 | sed 's/^/    kernel: /'
faults=$(dmesg | grep -ci "DMAR.*fault")
if [ "$vfio" = yes ]; then
	check "the receive into unmapped memory left it unchanged" grep -q "the memory is unchanged" /tmp/confine-rx.log
	check "the guest kernel logged the IOMMU's faults ($faults lines)" test "$faults" -gt 0
else
	check "control: the receive into ordinary memory changed it" grep -q "the memory is CHANGED" /tmp/confine-rx.log
fi
