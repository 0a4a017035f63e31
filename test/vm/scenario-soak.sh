# Scenario soak (sourced by guest-init.sh, mode bare): ixy-pktgen on A, ixy-fwd B <-> C and ixy-pcap on D (no
# count, writing to /dev/null) for ixy_soak seconds of traffic: A -> hub 0 -> B -> ixy-fwd -> C -> hub 1 -> D.
# Then they stop in pipeline order with SIGINT: the generator first, ixy-fwd once a whole second passed without a
# packet reaching B, ixy-pcap once the same holds for D. run-vm.sh hands the apps' logs to check_soak.py, which
# accounts for every packet and checks the mempool reports the drivers print at close.

# Waits (at most 15 s) until an app prints a rate line with no packets received on a NIC after the line it was at:
# a whole second without traffic, so everything sent before has arrived.
wait_idle() { # wait_idle LOG PCI LINES_BEFORE
	for _ in $(seq 150); do
		tail -n +$(($3 + 1)) "$1" | grep -qF "[$2] RX: 0 Mbit/s 0.00 Mpps" && return 0
		sleep 0.1
	done
	return 1
}

ixy-pcap $NIC_D /dev/null >/tmp/pcap.log 2>&1 &
pcap_pid=$!
ixy-fwd --wait 1000 $NIC_B $NIC_C >/tmp/fwd.log 2>&1 &
fwd_pid=$!
receivers_running() { wait_running /tmp/pcap.log $pcap_pid && wait_running /tmp/fwd.log $fwd_pid; }
check "ixy-pcap and ixy-fwd run" receivers_running
ixy-pktgen $NIC_A >/tmp/pktgen.log 2>&1 &
pktgen_pid=$!
check "ixy-pktgen runs" wait_running /tmp/pktgen.log $pktgen_pid
marker "traffic for $soak_s s"
for _ in $(seq "$soak_s"); do
	sleep 1
	if ! kill -0 $pktgen_pid 2>/dev/null || ! kill -0 $fwd_pid 2>/dev/null || ! kill -0 $pcap_pid 2>/dev/null; then
		break
	fi
done
check "all three apps ran for $soak_s s" sh -c "kill -0 $pktgen_pid && kill -0 $fwd_pid && kill -0 $pcap_pid"

stop_app pktgen $pktgen_pid
check_eq "ixy-pktgen exits 0 on SIGINT" "$app_rc" 0
check "B idle for a second after the generator stopped" wait_idle /tmp/fwd.log $NIC_B "$(wc -l </tmp/fwd.log)"
stop_app fwd $fwd_pid
check_eq "ixy-fwd exits 0 on SIGINT" "$app_rc" 0
check "D idle for a second after ixy-fwd stopped" wait_idle /tmp/pcap.log $NIC_D "$(wc -l </tmp/pcap.log)"
stop_app pcap $pcap_pid
check_eq "ixy-pcap exits 0 on SIGINT" "$app_rc" 0
check_eq "all huge pages free again" "$(free_hugepages)" "$(cat $HUGEPAGE_SYSFS/nr_hugepages)"

for name in pktgen.log fwd.log pcap.log; do
	send_file $name
done
marker "checks failed: $checks_failed"
