# Scenario bad-inputs (sourced by guest-init.sh, mode kmod): every app refuses bad input with one clear message and
# the right exit code (2: usage error, 1: any other failure), and changes nothing on the system.
#
# The four NICs are bound to their kernel drivers with their interfaces down: the state a bad input must leave
# alone. run-vm.sh adds a Realtek RTL8139 NIC (10ec:8139) that no ixy driver supports (ixy_unsupported_nic); the
# guest has no module for it. It also names three PCI devices of the machine that are not network controllers (ixy_not_nics): the host
# bridge, the ISA bridge and the IDE (i440FX) or SATA (q35) controller.
#
# For each case: the exit code, one line on stderr that says what is wrong (usage errors may add the usage line, or
# print only that), nothing on stdout, and the snapshot below (kernel drivers, config spaces, VirtIO registers, huge pages,
# hugetlbfs files, interfaces) unchanged: ixy checks hugetlbfs and the free huge pages before it unbinds the kernel
# driver too. The cases and messages go to the host as bad-inputs.tsv.
read -r HOST_BRIDGE ISA_BRIDGE DISK_CONTROLLER <<EOF
$NOT_NICS
EOF
NO_DEVICE=0000:00:1e.0
# The class code as ixy prints it: 0x060000
class_of() { sed 's/^0x//' "/sys/bus/pci/devices/$1/class"; }

# What no bad input may change.
snapshot() {
	for dev in $NIC_A $NIC_B $NIC_C $NIC_D $UNSUPPORTED_NIC $HOST_BRIDGE $ISA_BRIDGE $DISK_CONTROLLER; do
		echo "$dev driver $(kernel_driver $dev) config $(md5sum <"/sys/bus/pci/devices/$dev/config" | cut -d' ' -f1)"
	done
	for nic in $NIC_A $NIC_B $NIC_C $NIC_D; do
		echo "$nic $(vm_probe regs $nic)"
	done
	echo "huge pages: $(free_hugepages) free of $(cat $HUGEPAGE_SYSFS/nr_hugepages)"
	echo "hugetlbfs files: $(ls -A /mnt/huge)"
	ip -o link
	ip -o addr
}

# Puts a NIC the kernel driver lost back, so that the next case starts from the same state.
rebind() {
	for nic in $NIC_A $NIC_B $NIC_C $NIC_D; do
		if [ "$(kernel_driver $nic)" = none ]; then
			marker "rebinding $nic to $(nic_kernel_driver $nic) for the next case"
			echo $nic >"/sys/bus/pci/drivers/$(nic_kernel_driver $nic)/bind"
		fi
	done
}


marker "state before the cases:"
snapshot | sed 's/^/    /'
for nic in $NIC_A $NIC_B $NIC_C $NIC_D; do
	check_eq "$nic is bound to the kernel driver before the cases" "$(kernel_driver $nic)" "$(nic_kernel_driver $nic)"
	check "$nic's interface $(interface_of $nic) is down" sh -c "! ip -o link show $(interface_of $nic) | grep -q '[<,]UP[,>]'"
done

# Command lines that are wrong in themselves: usage errors, exit code 2.
bad "ixy-pktgen without arguments" 2 "usage: ixy-pktgen" ixy-pktgen
bad "ixy-pktgen, two arguments" 2 "unexpected argument '$NIC_B' after <pci>" ixy-pktgen $NIC_A $NIC_B
bad "malformed PCI address (no function)" 2 "'0000:00:08' is not a PCI address" ixy-pktgen 0000:00:08
bad "malformed PCI address (no domain)" 2 "'00:08.0' is not a PCI address" ixy-pktgen 00:08.0
bad "malformed PCI address (function 8)" 2 "'0000:00:08.8' is not a PCI address" ixy-pcap 0000:00:08.8 /dev/null
bad "malformed PCI address (not hex)" 2 "'0000:0g:08.0' is not a PCI address" ixy-fwd $NIC_A 0000:0g:08.0
bad "malformed PCI address (an interface name)" 2 "'eth0' is not a PCI address" ixy-fwd eth0 $NIC_B
bad "ixy-fwd: the same NIC twice" 2 "$NIC_A given twice" ixy-fwd $NIC_A $NIC_A
bad "ixy-pcap count 'abc'" 2 "packet count 'abc' is not a decimal number" ixy-pcap $NIC_A /tmp/x.pcap abc
bad "ixy-pcap count '-1'" 2 "packet count '-1' is not a decimal number" ixy-pcap $NIC_A /tmp/x.pcap -1
bad "ixy-pcap count '99999999999999999999999'" 2 "packet count '99999999999999999999999' is out of range" \
	ixy-pcap $NIC_A /tmp/x.pcap 99999999999999999999999
bad "ixy-pcap count '0'" 2 "packet count '0' is out of range" ixy-pcap $NIC_A /tmp/x.pcap 0
bad "ixy-pcap count ''" 2 "packet count '' is empty" ixy-pcap $NIC_A /tmp/x.pcap ""
bad "ixy-pcap count '12abc'" 2 "packet count '12abc' is not a decimal number" ixy-pcap $NIC_A /tmp/x.pcap 12abc
bad "ixy-pcap count ' 5'" 2 "packet count ' 5' is not a decimal number" ixy-pcap $NIC_A /tmp/x.pcap " 5"
check "no capture file was created by the usage errors" test ! -e /tmp/x.pcap

# Devices that cannot be taken: exit code 1, after reading at most the IDs and class from config space.
bad "no such PCI device" 1 "no PCI device $NO_DEVICE" ixy-pktgen $NO_DEVICE
bad "no such PCI device (other domain)" 1 "no PCI device 0001:00:08.0" ixy-pcap 0001:00:08.0 /dev/null
bad "not a NIC: host bridge" 1 "is not a network controller (class 0x$(class_of $HOST_BRIDGE))" ixy-pktgen $HOST_BRIDGE
bad "not a NIC: ISA bridge" 1 "is not a network controller (class 0x$(class_of $ISA_BRIDGE))" \
	ixy-pcap $ISA_BRIDGE /tmp/refused.pcap
check "a refused ixy-pcap leaves no capture file behind" test ! -e /tmp/refused.pcap
bad "not a NIC: disk controller" 1 "is not a network controller (class 0x$(class_of $DISK_CONTROLLER))" \
	ixy-fwd $DISK_CONTROLLER $NIC_B
bad "NIC without ixy driver: RTL8139" 1 "(10ec:8139) that no ixy driver supports" ixy-pktgen $UNSUPPORTED_NIC
echo "an older capture" >/tmp/older.pcap
bad "NIC without ixy driver: the list of supported NICs" 1 "1af4:1000 1af4:1041 (virtio)" \
	ixy-pcap $UNSUPPORTED_NIC /tmp/older.pcap
check "the list of supported NICs names igb's" grep -qF "8086:10c9 8086:10e8 8086:1526 8086:150a (igb)" /tmp/err
check "the list of supported NICs names e1000's" grep -qF "8086:100e 8086:10d3 (e1000)" /tmp/err
check_eq "a refused ixy-pcap leaves an existing file as it was" "$(cat /tmp/older.pcap)" "an older capture"
bad "ixy-fwd: second NIC does not exist" 1 "no PCI device $NO_DEVICE" ixy-fwd $NIC_A $NO_DEVICE
bad "ixy-fwd: second device is not a NIC" 1 "is not a network controller" ixy-fwd $NIC_A $HOST_BRIDGE

# Not root: the apps run as nobody (uid 65534).
bad "not root: ixy-pktgen" 1 "needs root" su nobody -s /bin/sh -c "ixy-pktgen $NIC_A"
bad "not root: ixy-fwd" 1 "needs root" su nobody -s /bin/sh -c "ixy-fwd $NIC_A $NIC_B"
bad "not root: ixy-pcap" 1 "needs root" su nobody -s /bin/sh -c "ixy-pcap $NIC_A /dev/null 10"

# Capture files that cannot be written: refused before the device is taken.
bad "capture file in a missing directory" 1 "cannot create /nonexistent/x.pcap: No such file or directory" \
	ixy-pcap $NIC_A /nonexistent/x.pcap
mkdir -p /readonly && mount -t tmpfs -o ro tmpfs /readonly
bad "capture file on a read-only file system" 1 "cannot create /readonly/x.pcap: Read-only file system" \
	ixy-pcap $NIC_A /readonly/x.pcap 10
umount /readonly
bad "capture file is a directory" 1 "cannot create /tmp: Is a directory" ixy-pcap $NIC_A /tmp 10

# No DMA memory: ixy checks what the driver will allocate before it takes the NIC from its kernel driver.
# leave_free N: takes all but N of the free huge pages into a file (vm_probe hold), so that exactly N are free. The
# pool keeps its size: growing it back after a shrink needs free 2 MiB blocks, which the page cache and fragments may
# have taken since boot (seen failing under load). release_pages gives the pages back.
leave_free() {
	rm -f /mnt/huge/held
	_take=$(($(free_hugepages) - $1))
	[ "$_take" -le 0 ] || vm_probe hold /mnt/huge/held "$_take" >/dev/null
	check_eq "$1 huge pages free" "$(free_hugepages)" "$1"
}
release_pages() { rm -f /mnt/huge/held; }
umount /mnt/huge
bad "hugetlbfs not mounted" 1 "hugetlbfs is not mounted at /mnt/huge" ixy-pktgen $NIC_C
mount -t hugetlbfs nodev /mnt/huge
leave_free 3 # fewer than one device needs
bad "too few free huge pages" 1 "free huge page(s) of 2 MiB for DMA memory, 3 are available" \
	ixy-pcap $NIC_D /tmp/refused.pcap 10
check "a refused ixy-pcap leaves no capture file behind (too few huge pages)" test ! -e /tmp/refused.pcap
release_pages

# Huge pages for one NIC, but not for all the app needs: ixy-fwd's second NIC, ixy-pktgen's own packet pool. The apps
# check the DMA memory of the whole app before they take the first NIC; a check per NIC would take NIC A, fail on
# the rest, and leave NIC A without its kernel interface. What a NIC and ixy-pktgen need is measured, not assumed:
# the huge pages in use while the app runs.
pages_in_use() { # pages_in_use LOG APP ARGS...: huge pages in use while the app runs (empty if it did not start)
	_log=$1
	shift
	"$@" >"$_log" 2>&1 </dev/null &
	_pid=$!
	if wait_running "$_log" $_pid; then
		echo $(($(cat $HUGEPAGE_SYSFS/nr_hugepages) - $(free_hugepages)))
	else # to the console (stderr): stdout is the result
		marker "$1 did not start for the measurement ($(free_hugepages) of $(cat $HUGEPAGE_SYSFS/nr_hugepages) huge pages free):" >&2
		sed 's/^/    /' "$_log" >&2
	fi
	stop_app "measure $1" $_pid >/dev/null
	rebind >/dev/null
}
# The kernel's index of each NIC's interface ("none" without one): a NIC given back gets a new one.
ifindexes() {
	for nic in "$@"; do
		cat "/sys/class/net/$(interface_of "$nic")/ifindex" 2>/dev/null || echo none
	done | tr '\n' ' '
}
one_nic=$(pages_in_use /tmp/measure-pcap.log ixy-pcap $NIC_D /tmp/measure.pcap)
pktgen_need=$(pages_in_use /tmp/measure-pktgen.log ixy-pktgen $NIC_C)
rm -f /tmp/measure.pcap
marker "huge pages in use: ixy-pcap on one NIC ${one_nic:-?}, ixy-pktgen ${pktgen_need:-?}"
check "one NIC needs huge pages (measured)" test "${one_nic:-0}" -gt 0
check "ixy-pktgen needs more than its NIC (measured)" test "${pktgen_need:-0}" -gt "${one_nic:-0}"
if [ "${one_nic:-0}" -gt 0 ] && [ "${pktgen_need:-0}" -gt "${one_nic:-0}" ]; then
	before=$(ifindexes $NIC_A $NIC_B)
	leave_free $((2 * one_nic - 1)) # huge pages for one NIC but not two
	bad "ixy-fwd: huge pages for one NIC but not two" 1 ", $((2 * one_nic - 1)) are available" ixy-fwd $NIC_A $NIC_B
	check_eq "ixy-fwd refused for huge pages: the interfaces keep their index" "$(ifindexes $NIC_A $NIC_B)" "$before"
	before=$(ifindexes $NIC_A)
	leave_free $((pktgen_need - 1)) # huge pages for the NIC but not ixy-pktgen's pool
	bad "ixy-pktgen: huge pages for the NIC but not its pool" 1 ", $((pktgen_need - 1)) are available" \
		ixy-pktgen $NIC_A
	check_eq "ixy-pktgen refused for huge pages: the interface keeps its index" "$(ifindexes $NIC_A)" "$before"
	release_pages
fi

# A modern-only NIC (1af4:1041) has no legacy interface: IXY_VIRTIO_LEGACY=1 cannot be honoured, and its IDs say so
# before ixy touches the NIC.
case "$kinds" in
	modern*)
		before=$(ifindexes $NIC_A)
		bad "IXY_VIRTIO_LEGACY=1 on a modern-only NIC" 1 "IXY_VIRTIO_LEGACY=1" env IXY_VIRTIO_LEGACY=1 ixy-pktgen $NIC_A
		check_eq "IXY_VIRTIO_LEGACY=1 refused: the interface keeps its index" "$(ifindexes $NIC_A)" "$before"
		;;
esac
# An app that gives up after it took a NIC gives it back (issue 28): ixy-fwd's second NIC B fails to start at each
# step of the test hook IXY_TEST_FAIL_INIT (src/driver/injected_failure.h: a reset that times out, a DMA allocation
# that fails, a queue that does not enable). ixy_init gives B back, ixy-fwd gives back A (ixy_give_back): both have
# their kernel driver and an interface again (a new one: not the snapshot of the cases above).
has_interface() { # has_interface PCI: waits up to 5 s for the interface of a NIC given back
	for _ in $(seq 50); do
		[ -n "$(interface_of "$1")" ] && return 0
		sleep 0.1
	done
	return 1
}
for step in reset memory queue; do
	what="ixy-fwd, $NIC_B failing at '$step'"
	timeout -s INT 30 env IXY_TEST_FAIL_INIT="$NIC_B:$step" ixy-fwd $NIC_A $NIC_B >/tmp/out 2>/tmp/err </dev/null
	check_eq "$what: exit code" "$?" 1
	check "$what: the hook failed its init" grep -qF "$NIC_B: init fails at the step '$step'" /tmp/err
	sed 's/^/    /' /tmp/err
	for nic in $NIC_A $NIC_B; do
		check_eq "$what: $nic is bound to its kernel driver again" "$(kernel_driver $nic)" "$(nic_kernel_driver $nic)"
		check "$what: $nic has an interface again" has_interface $nic
	done
	rebind # a case that failed leaves the next one the same start
done

marker "SKIP queue counts and ring sizes out of range: no app takes them on its command line"

send_file bad-inputs.tsv
marker "checks failed: $checks_failed"
