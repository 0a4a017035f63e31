# Scenario quiet (sourced by guest-init.sh, mode bare): a device is left quiet after an app ends, and traffic sent
# to it afterwards changes nothing.
#
# 1. ixy-pcap on D (exits after 2000 packets), ixy-fwd B <-> C (stopped with SIGTERM), ixy-pktgen on A (stopped
#    with SIGINT). After each app ends, its NICs must be quiet (vm_probe regs): device status 0 (reset, VirtIO 1.0
#    2.1), no virtqueue set up (legacy: the page frame numbers of all three are 0, 4.1.4.8; modern: queue_enable and
#    the descriptor address of all three are 0, 4.1.4.3), Bus Master Enable off in the PCI command register (the
#    function may not start DMA at all). And every huge page is free again, no file is left in hugetlbfs.
# 2. Then a guard (vm_probe guard-fill) takes every free huge page, among them all the pages the apps had, and fills
#    them with a pattern. NICs E (hub 0) and F (hub 1), driven by the guest kernel, each send a burst of frames
#    towards the stopped NICs. Afterwards the stopped NICs must still be quiet, and the pattern must be intact: no
#    device wrote into memory ixy gave back.
# 3. SIGKILL (no ixy_stop). Through sysfs this is a control: the same checks do fail, the device keeps DMAing into
#    memory its killed owner had. Through VFIO (run-vm.sh --vfio) the kernel's VFIO release stops the device: it
#    must be quiet and the guard intact, as after the other exits.
# The apps run under ixy's sandbox (ixy_sandbox_enter: seccomp filter, no_new_privs), as root through sysfs, as user
# ixy through VFIO; the status of each of its threads (/proc/<pid>/task/*/status) is checked while it runs. ixy-fwd runs with the test hook
# IXY_TEST_SANDBOX_PROBE=1: once its devices run it tries to open /etc/passwd and to execve a program; both must be
# refused (EPERM, its "sandbox probe=1" line), and it must still stop B and C on SIGTERM. And ixy-pcap where no filter
# can be installed (vm_probe no-seccomp): it must exit 1 with D quiet, and run with --no-sandbox.
# A-D get a driver_override that matches no driver, so that loading the kernel's drivers for E and F leaves them
# alone (with --vfio they are bound to vfio-pci already). E and F come from run-vm.sh (ixy_nic_e, ixy_nic_f).
BURST=20000

# probe_is NIC VERDICT: the NIC's state (vm_probe regs) amounts to VERDICT (quiet, live); prints the state.
probe_is() {
	_state=$(vm_probe regs "$1")
	echo "    $1: $_state"
	[ "${_state##*=> }" = "$2" ]
}

if [ "$vfio" = yes ]; then
	ixy_drivers="vfio-pci vfio-pci vfio-pci vfio-pci"
else
	for nic in $NIC_A $NIC_B $NIC_C $NIC_D; do
		echo ixy-test-no-driver >"/sys/bus/pci/devices/$nic/driver_override"
	done
	load_kernel_drivers
	ixy_drivers="none none none none"
fi
check_eq "only E and F are bound to the kernel's NIC driver" \
	"$(for nic in $NIC_A $NIC_B $NIC_C $NIC_D $NIC_E $NIC_F; do kernel_driver $nic; done | tr '\n' ' ')" \
	"$ixy_drivers virtio-pci virtio-pci "
for nic in $NIC_A $NIC_B $NIC_C $NIC_D; do
	marker "before: $nic $(vm_probe regs "$nic")"
done
free_before=$(free_hugepages)
marker "before: $free_before free huge pages"

# 1. The apps, and the state each leaves behind.
run_app ixy-pcap $NIC_D /tmp/quiet.pcap 2000 >/tmp/pcap.log 2>&1 &
pcap_pid=$!
(
	export IXY_TEST_SANDBOX_PROBE=1
	run_app ixy-fwd --wait 1000 $NIC_B $NIC_C
) >/tmp/fwd.log 2>&1 &
fwd_pid=$!
receivers_running() { wait_running /tmp/pcap.log $pcap_pid && wait_running /tmp/fwd.log $fwd_pid; }
check "ixy-pcap and ixy-fwd run" receivers_running
# sandboxed APP PID: every thread of the app runs under the filter with no_new_privs and without any capability (also
# as root: nothing after the setup needs one), as the user it was started as (all four uids).
sandboxed() {
	app_status "$1" "$2" >/tmp/status.txt
	sed 's/^/    /' /tmp/status.txt
	test "$(total /tmp/status.txt "status app=$1" tasks)" -ge 1 &&
		test "$(total /tmp/status.txt "status app=$1" seccomp)" = 2 &&
		test "$(total /tmp/status.txt "status app=$1" no_new_privs)" = 1 &&
		test "$(total /tmp/status.txt "status app=$1" cap_eff)" = 0 &&
		test "$(total /tmp/status.txt "status app=$1" cap_prm)" = 0 || return 1
	for key in uid euid suid fsuid; do
		test "$(total /tmp/status.txt "status app=$1" $key)" = "$(id -u "${APP_USER:-root}")" || return 1
	done
}
check "ixy-pcap runs under the seccomp filter with no_new_privs, no capability in any thread" sandboxed ixy-pcap $pcap_pid
check "ixy-fwd runs under the seccomp filter with no_new_privs, no capability in any thread" sandboxed ixy-fwd $fwd_pid
grep "^sandbox " /tmp/fwd.log | sed 's/^/    /'
check_eq "ixy-fwd's open of /etc/passwd under the filter: errno" "$(total /tmp/fwd.log "sandbox probe=1" open_errno)" 1
check_eq "ixy-fwd's execve under the filter: errno" "$(total /tmp/fwd.log "sandbox probe=1" execve_errno)" 1
if [ "$vfio" = yes ]; then # vfio-pci keeps the BARs to itself while ixy has the device: config space only
	check_eq "while ixy-pcap runs, D has bus mastering on" "$(vm_probe bus-master $NIC_D)" 1
else
	check "while ixy-pcap runs, D reads as live (driver OK, queues set, bus master on)" probe_is $NIC_D live
fi
run_app ixy-pktgen $NIC_A >/tmp/pktgen.log 2>&1 &
pktgen_pid=$!
wait_running /tmp/pktgen.log $pktgen_pid
check "ixy-pktgen runs under the seccomp filter with no_new_privs, no capability in any thread" sandboxed ixy-pktgen $pktgen_pid
for _ in $(seq 600); do
	kill -0 $pcap_pid 2>/dev/null || break
	sleep 0.1
done
if kill -0 $pcap_pid 2>/dev/null; then
	marker "FAIL ixy-pcap did not capture 2000 packets within 60 s"
	checks_failed=$((checks_failed + 1))
	stop_app pcap $pcap_pid
else
	wait $pcap_pid
	check_eq "ixy-pcap exits 0 after 2000 packets" "$?" 0
fi
check "after ixy-pcap ended: D is reset, without queues, bus master off" probe_is $NIC_D quiet
stop_app fwd $fwd_pid TERM
check_eq "ixy-fwd exits 0 on SIGTERM" "$app_rc" 0
check "after ixy-fwd ended: B is reset, without queues, bus master off" probe_is $NIC_B quiet
check "after ixy-fwd ended: C is reset, without queues, bus master off" probe_is $NIC_C quiet
stop_app pktgen $pktgen_pid INT
check_eq "ixy-pktgen exits 0 on SIGINT" "$app_rc" 0
check "after ixy-pktgen ended: A is reset, without queues, bus master off" probe_is $NIC_A quiet
# Where no seccomp filter can be installed (vm_probe no-seccomp: as on a kernel without them): each app says so in one
# error line, stops its NICs and exits 1 (were it to run on, SIGINT after 20 s ends it with exit 0); with
# --no-sandbox ixy-pcap runs, and stops cleanly on SIGINT.
no_filter() { # no_filter NAME APP ARGS...: the app where no filter can be installed
	name=$1
	shift
	(run_app timeout -s INT 20 vm_probe no-seccomp "$@" >/tmp/nofilter.log 2>&1)
	check_eq "no seccomp: $name exits 1" "$?" 1
	sed 's/^/    /' /tmp/nofilter.log
	check_eq "no seccomp: $name prints one error line" "$(grep -c '^ixy: error: ' /tmp/nofilter.log)" 1
}
no_filter ixy-pcap ixy-pcap $NIC_D /tmp/nofilter.pcap
check "no seccomp: then D is reset, without queues, bus master off" probe_is $NIC_D quiet
no_filter ixy-fwd ixy-fwd --wait 1000 $NIC_B $NIC_C
check "no seccomp: after ixy-fwd, B is reset, without queues, bus master off" probe_is $NIC_B quiet
check "no seccomp: after ixy-fwd, C is reset, without queues, bus master off" probe_is $NIC_C quiet
no_filter ixy-pktgen ixy-pktgen $NIC_A
check "no seccomp: after ixy-pktgen, A is reset, without queues, bus master off" probe_is $NIC_A quiet
run_app vm_probe no-seccomp ixy-pcap --no-sandbox $NIC_D /tmp/nofilter.pcap >/tmp/nofilter.log 2>&1 &
nofilter_pid=$!
check "no seccomp, --no-sandbox: ixy-pcap runs" wait_running /tmp/nofilter.log $nofilter_pid
# --no-sandbox leaves out the filter, not the capabilities' drop (ixy/sandbox.h): no thread holds one, as root.
no_capabilities() {
	app_status "$1" "$2" >/tmp/status.txt
	sed 's/^/    /' /tmp/status.txt
	test "$(total /tmp/status.txt "status app=$1" cap_eff)" = 0 &&
		test "$(total /tmp/status.txt "status app=$1" cap_prm)" = 0
}
check "no seccomp, --no-sandbox: no capability in any thread of ixy-pcap" no_capabilities ixy-pcap $nofilter_pid
stop_app pcap-no-sandbox $nofilter_pid INT
check_eq "no seccomp, --no-sandbox: ixy-pcap exits 0 on SIGINT" "$app_rc" 0
check "no seccomp, --no-sandbox: then D is quiet" probe_is $NIC_D quiet
check_eq "all huge pages free again" "$(free_hugepages)" "$free_before"
check_eq "no file left in hugetlbfs" "$(ls -A /mnt/huge)" ""
check_eq "each NIC's RX mempool was full at close (4 reports)" \
	"$(cat /tmp/pcap.log /tmp/fwd.log /tmp/pktgen.log | grep -c 'RX mempool: \([0-9]*\) of \1 buffers free')" 4
check "no warnings (e.g. a mempool freed with buffers missing)" \
	sh -c "! grep -h 'warning' /tmp/pcap.log /tmp/fwd.log /tmp/pktgen.log"

# 2. Traffic towards the stopped NICs while a guard holds all the memory they had.
vm_probe guard-fill /mnt/huge/guard
check_eq "the guard holds every free huge page" "$(free_hugepages)" 0
if_e=$(interface_of $NIC_E)
if_f=$(interface_of $NIC_F)
ip link set "$if_e" up && ip link set "$if_f" up
vm_probe send "$if_e" $BURST
vm_probe send "$if_f" $BURST
sleep 1 # QEMU delivers at once; this is only a margin
check "E and F sent $BURST frames each" test "$(cat /sys/class/net/"$if_e"/statistics/tx_packets)" -ge $BURST -a \
	"$(cat /sys/class/net/"$if_f"/statistics/tx_packets)" -ge $BURST
for nic in $NIC_A $NIC_B $NIC_C $NIC_D; do
	check "after the burst: $nic still reset, without queues, bus master off" probe_is "$nic" quiet
done
check "the guard's pattern is intact: no DMA into the memory ixy gave back" vm_probe guard-check /mnt/huge/guard
check_eq "all huge pages free again after the guard" "$(free_hugepages)" "$free_before"

# 3. SIGKILL. Through sysfs, a control: the same checks catch a device that was not stopped. ixy-pcap killed with
#    SIGKILL cannot reset D: the kernel frees its huge pages, but D still has its rings and may DMA, into pages the
#    guard now holds. Through VFIO the kernel closes ixy's files of the killed process, and vfio-pci's release
#    disables and resets D; its IOMMU mappings are gone with the container.
run_app ixy-pcap $NIC_D /dev/null >/tmp/killed.log 2>&1 &
killed_pid=$!
check "SIGKILL: ixy-pcap runs on D" wait_running /tmp/killed.log $killed_pid
kill -KILL $killed_pid
wait $killed_pid
if [ "$vfio" = yes ]; then
	check "SIGKILL through VFIO: D is reset, without queues, bus master off" probe_is $NIC_D quiet
else
	check "control: after SIGKILL, D still reads as live" probe_is $NIC_D live
fi
vm_probe guard-fill /mnt/huge/guard
vm_probe send "$if_f" $BURST
sleep 1
if [ "$vfio" = yes ]; then
	check "SIGKILL through VFIO: the guard's pattern is intact" vm_probe guard-check /mnt/huge/guard
	check "SIGKILL through VFIO: D still quiet after the burst" probe_is $NIC_D quiet
else
	check "control: the guard sees D's DMA into memory its killed owner had" sh -c "! vm_probe guard-check /mnt/huge/guard"
fi

for name in pcap.log fwd.log pktgen.log; do
	send_file $name
done
marker "checks failed: $checks_failed"
