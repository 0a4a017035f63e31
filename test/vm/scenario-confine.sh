# Scenario confine (sourced by guest-init.sh): what a NIC can reach when its driver hands it memory outside ixy's DMA
# memory (vm_confine). A and B are joined by a UDP socket pair; the host records what A sends (host-a.pcap).
#   With --vfio: the NICs are reached through VFIO; the secret memory is not mapped in the IOMMU. A transmit from it
#   must put none of its bytes on the wire, only a frame of zeros between the two marker frames (check_confine.py on
#   the host); a receive into it (the buffer posted in a descriptor and reported back by the NIC) must leave it
#   unchanged; and the guest kernel must log the IOMMU's fault (DMAR) for the read and for the write, at its page.
#   Without --vfio (mode bare, root, sysfs): the control. The same secret is ordinary memory the NIC reaches by its
#   physical address: the secret must show on the wire between the markers and the received packet must land in
#   it, which shows that the checks above would see a DMA that got through.
if [ "$vfio" = yes ]; then
	access=vfio
else
	access=sysfs
fi

(run_app vm_confine tx $NIC_A $access >/tmp/confine-tx.log 2>&1)
tx_rc=$?
marker "vm_confine tx exit $tx_rc"
sed 's/^/    /' /tmp/confine-tx.log

# The sender starts once vm_confine rx has armed B's RX ring (its line "confine: rx: ready"; up to 60 s under load);
# vm_confine rx then receives until the NIC has reported a packet in the secret buffer.
run_app vm_confine rx $NIC_B $access >/tmp/confine-rx.log 2>&1 &
rx_pid=$!
for _ in $(seq 600); do
	grep -q "^confine: rx: ready$" /tmp/confine-rx.log && break
	kill -0 $rx_pid 2>/dev/null || break
	sleep 0.1
done
run_app ixy-pktgen $NIC_A >/tmp/confine-pktgen.log 2>&1 &
pktgen_pid=$!
wait $rx_pid
rx_rc=$?
marker "vm_confine rx exit $rx_rc"
stop_app pktgen $pktgen_pid
sed 's/^/    /' /tmp/confine-rx.log

# vm_confine's lines for machines: "confine-tx page=P" and "confine-rx page=P posted=0|1 received=N in_buffer=N
# changed=N" (test/vm/vm_confine.c). rx_field NAME: one field of the latter.
tx_page=$(sed -n 's/^confine-tx page=\(0x[0-9a-f]*\)$/\1/p' /tmp/confine-tx.log)
rx_field() { sed -n "s/^confine-rx.* $1=\([0-9a-fx]*\).*/\1/p" /tmp/confine-rx.log; }
check_eq "vm_confine tx ran to its end (exit code)" "$tx_rc" 0
check "vm_confine tx printed the page of the frame it gave the NIC" test -n "$tx_page"
check_eq "vm_confine rx ran to its end (exit code)" "$rx_rc" 0
check_eq "the driver put the buffer outside the DMA memory into an RX descriptor" "$(rx_field posted)" 1
check "the NIC reported packets in that buffer (it was consumed)" test "$(rx_field in_buffer)" -gt 0
dmesg | grep -i "DMAR.*fault" | head -4 | sed 's/^/    kernel: /'
if [ "$vfio" = yes ]; then
	check_eq "the receive into unmapped memory left it unchanged (bytes changed)" "$(rx_field changed)" 0
	# The IOMMU's faults as the kernel logs them (drivers/iommu/intel/dmar.c), at the page of the secret memory:
	# "DMAR: [DMA Read NO_PASID] Request device [01:00.0] fault addr 0x7ff484600000 [fault reason ...]".
	dmar_fault() { dmesg | grep -q "DMAR: \[DMA $1[] ].* fault addr $2 "; } # dmar_fault Read|Write PAGE
	check "the guest kernel logged the IOMMU's fault for the NIC's read of the TX frame ($tx_page)" \
		dmar_fault Read "$tx_page"
	check "the guest kernel logged the IOMMU's fault for the NIC's write to the RX buffer ($(rx_field page))" \
		dmar_fault Write "$(rx_field page)"
else
	check "control: the receive into ordinary memory changed it (bytes changed)" test "$(rx_field changed)" -gt 0
fi
