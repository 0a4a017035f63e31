# Scenario in-use (sourced by guest-init.sh, mode kmod): ixy refuses a NIC whose kernel interface is in use (up, or
# with an IP address), naming the interface and leaving it as it was; IXY_FORCE=1 takes it anyway; a NIC whose
# interface is down without an address is taken without force.
#
#   A: up, with address 10.9.9.1/24      B: up, no address      C: down, with address 10.9.8.1/24
#   D: down, no address
if_a=$(interface_of $NIC_A)
if_b=$(interface_of $NIC_B)
if_c=$(interface_of $NIC_C)
if_d=$(interface_of $NIC_D)
marker "interfaces: A $if_a, B $if_b, C $if_c, D $if_d"
ip link set "$if_a" up && ip addr add 10.9.9.1/24 dev "$if_a"
ip link set "$if_b" up
ip addr add 10.9.8.1/24 dev "$if_c"
# Let the link of A and B settle before the first "before" snapshot: the carrier (NO-CARRIER in the flags) comes a
# moment after "up" (VirtIO), or after auto-negotiation (igb); a change in between is not ixy's doing.
for _ in $(seq 100); do
	[ "$(cat /sys/class/net/"$if_a"/carrier 2>/dev/null)$(cat /sys/class/net/"$if_b"/carrier 2>/dev/null)" = 11 ] && break
	sleep 0.1
done
ip -o addr | sed 's/^/    /'

# The kernel's view of an interface: flags and addresses. Without the link's own state (NO-CARRIER, LOWER_UP, the
# operational state): the carrier comes and goes with the link partner and the emulator's timing, not with what ixy
# does (seen here: a carrier that came up more than 10 s after "up", between two snapshots of a refused case).
interface_state() {
	echo "$(kernel_driver "$1") $(ip -o link show "$2" | sed -e 's/ link\/.*//' -e 's/NO-CARRIER,//' -e 's/,LOWER_UP//' \
		-e 's/ state [A-Z]*//') $(ip -o addr show "$2")"
}

# refused WHAT PCI IFNAME COMMAND...: the app must exit 1 with a message naming the interface, and leave the NIC
# and its interface as they were.
refused() {
	what=$1 pci=$2 ifname=$3
	shift 3
	before=$(interface_state "$pci" "$ifname")
	timeout -s INT 30 "$@" >/tmp/out 2>/tmp/err </dev/null
	rc=$?
	sed 's/^/    stderr: /' /tmp/err
	check_eq "$what: exit code" "$rc" 1
	check "$what: the message names interface $ifname" grep -q "interface ${ifname}[ ,]" /tmp/err
	check "$what: one line on stderr" test "$(wc -l </tmp/err)" = 1
	check "$what: interface $ifname still exists" test -e "/sys/class/net/$ifname"
	check_eq "$what: driver, interface flags and addresses unchanged" "$(interface_state "$pci" "$ifname")" "$before"
}

refused "ixy-pktgen on A (up, address)" $NIC_A "$if_a" ixy-pktgen $NIC_A
refused "ixy-pcap on A (up, address)" $NIC_A "$if_a" ixy-pcap $NIC_A /dev/null 10
refused "ixy-fwd on A and D (A up, address)" $NIC_A "$if_a" ixy-fwd $NIC_A $NIC_D
check_eq "ixy-fwd did not take D either" "$(kernel_driver $NIC_D)" "$(nic_kernel_driver $NIC_D)"
refused "ixy-pktgen on B (up, no address)" $NIC_B "$if_b" ixy-pktgen $NIC_B
refused "ixy-pktgen on C (down, address)" $NIC_C "$if_c" ixy-pktgen $NIC_C
refused "IXY_FORCE=0 does not force" $NIC_A "$if_a" env IXY_FORCE=0 ixy-pktgen $NIC_A

# taken WHAT PCI IFNAME [VAR=VALUE] APP ARGS...: the app takes the NIC (its rate lines appear) and stops cleanly on
# SIGINT; the kernel driver and the interface are gone. Leaves stderr in /tmp/err.
taken() {
	what=$1 pci=$2 ifname=$3
	shift 3
	env "$@" >/tmp/out 2>/tmp/err </dev/null &
	pid=$!
	check "$what: the app runs" wait_running /tmp/out $pid
	stop_app "$what" $pid
	sed 's/^/    stderr: /' /tmp/err
	check_eq "$what: exit code after SIGINT" "$app_rc" 0
	check "$what: ixy unbound the kernel driver" grep -q "unbound the kernel driver of $pci" /tmp/err
	check_eq "$what: no kernel driver afterwards" "$(kernel_driver "$pci")" none
	check "$what: interface $ifname is gone" test ! -e "/sys/class/net/$ifname"
}

taken "IXY_FORCE=1 ixy-pktgen on A (up, address)" $NIC_A "$if_a" IXY_FORCE=1 ixy-pktgen $NIC_A
check "forced: a warning names the interface" grep -q "interface $if_a, which is in use: taking it anyway" /tmp/err
taken "ixy-pcap on D (down, no address)" $NIC_D "$if_d" ixy-pcap $NIC_D /dev/null
check "not in use: no warning" sh -c "! grep -q 'warning\|refusing' /tmp/err"
check_eq "B and C were not touched" "$(kernel_driver $NIC_B) $(kernel_driver $NIC_C)" \
	"$(nic_kernel_driver $NIC_B) $(nic_kernel_driver $NIC_C)"
marker "checks failed: $checks_failed"
