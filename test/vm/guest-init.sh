#!/bin/sh
# /init of the ixy test guest: test/vm/build-guest.sh packs it into the initramfs, run-vm.sh boots it.
#
# The guest has four legacy VirtIO NICs (run-vm.sh): A and B on QEMU hub 0, C and D on hub 1. It runs
#   1. vm_selftest from B to A (the driver through the ixy API; A only receives, so that the host's record of
#      what A sends holds only ixy-pktgen's packets),
#   2. the pipeline: ixy-pcap on D and ixy-fwd between B and C, then ixy-pktgen on A. The generator's packets go
#      A -> hub 0 -> B -> ixy-fwd -> C -> hub 1 -> D -> capture. Receivers start first: a hub passes frames on
#      only while another port can take them.
# With ixy_mode=kmod the kernel's virtio_pci and virtio_net drivers are loaded first, so ixy has to unbind them.
#
# Output: "IXY-VM: ..." marker lines on the console (ttyS0), which run-vm.sh parses, and result files (the capture,
# the apps' logs) base64-encoded between "BEGIN name" and "END name" lines on the second serial port (ttyS1).
export PATH=/bin
NIC_A=0000:00:08.0
NIC_B=0000:00:09.0
NIC_C=0000:00:0a.0
NIC_D=0000:00:0b.0
HUGE_PAGES=96   # 2 MiB each; the three apps need about 30, each VirtIO device 7

marker() { echo "IXY-VM: $*"; }

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /tmp /mnt/huge
mount -t hugetlbfs nodev /mnt/huge
echo $HUGE_PAGES >/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
marker "booted, $(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages) huge pages"

# Parameters from the kernel command line (run-vm.sh sets them).
mode=bare
packets=30000
wait_s=120
mac_a=
mac_b=
# shellcheck disable=SC2013  # words, not lines
for word in $(cat /proc/cmdline); do
	case "$word" in
		ixy_mode=*) mode=${word#*=} ;;
		ixy_packets=*) packets=${word#*=} ;;
		ixy_wait=*) wait_s=${word#*=} ;;
		ixy_mac_a=*) mac_a=${word#*=} ;;
		ixy_mac_b=*) mac_b=${word#*=} ;;
	esac
done
marker "mode $mode, capturing $packets packets"

for nic in $NIC_A $NIC_B $NIC_C $NIC_D; do
	marker "nic $nic $(cat "/sys/bus/pci/devices/$nic/vendor"):$(cat "/sys/bus/pci/devices/$nic/device")"
done

if [ "$mode" = kmod ]; then
	# Busybox insmod does not resolve dependencies: build-guest.sh wrote the order into /modules/order.
	# shellcheck disable=SC2013
	for module in $(cat /modules/order); do
		insmod "/modules/$module.ko" || marker "insmod $module failed"
	done
	for nic in $NIC_A $NIC_B $NIC_C $NIC_D; do
		driver=$(basename "$(readlink "/sys/bus/pci/devices/$nic/driver")" 2>/dev/null)
		marker "kernel driver of $nic: ${driver:-none}"
	done
fi

# Sends a file to the host over ttyS1.
send_file() {
	{
		echo "BEGIN $1"
		base64 "/tmp/$1"
		echo "END $1"
	} >/dev/ttyS1
}

# 1. Driver self test
vm_selftest $NIC_B $NIC_A "$mac_b" "$mac_a" >/tmp/selftest.log 2>&1
marker "selftest exit $?"
send_file selftest.log

# 2. Pipeline. Waits until an app's log shows a rate line: it opened its devices and runs its loop.
wait_running() {   # wait_running LOG PID
	for _ in $(seq 300); do
		grep -q " RX: " "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
# Stops an app with SIGINT (it prints its totals and closes the device), SIGKILL if it does not end in 20 s.
stop_app() {   # stop_app NAME PID
	kill -INT "$2" 2>/dev/null
	for _ in $(seq 200); do
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$2" 2>/dev/null && { marker "$1 did not stop on SIGINT, killing it"; kill -KILL "$2"; }
	wait "$2"
	marker "$1 exit $?"
}

ixy-pcap $NIC_D /tmp/capture.pcap "$packets" >/tmp/pcap.log 2>&1 &
pcap_pid=$!
ixy-fwd $NIC_B $NIC_C >/tmp/fwd.log 2>&1 &
fwd_pid=$!
if wait_running /tmp/pcap.log $pcap_pid && wait_running /tmp/fwd.log $fwd_pid; then
	marker "receivers running"
	ixy-pktgen $NIC_A >/tmp/pktgen.log 2>&1 &
	pktgen_pid=$!
	for _ in $(seq $((wait_s * 10))); do
		kill -0 $pcap_pid 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 $pcap_pid 2>/dev/null; then
		marker "pcap did not capture $packets packets within $wait_s s"
		stop_app pcap $pcap_pid
	else
		wait $pcap_pid
		marker "pcap exit $?"
	fi
	stop_app pktgen $pktgen_pid
else
	marker "receivers did not start"
	stop_app pcap $pcap_pid
fi
stop_app fwd $fwd_pid

for name in pcap.log fwd.log pktgen.log; do
	[ -f /tmp/$name ] && send_file $name
done
[ -f /tmp/capture.pcap ] && send_file capture.pcap
marker "done"
sync
poweroff -f
