#!/bin/sh
# /init of the ixy test guest: test/vm/build-guest.sh packs it into the initramfs, run-vm.sh boots it.
#
# Sets up the guest (proc, sysfs, devtmpfs, hugetlbfs, huge pages), reads the test parameters from the kernel
# command line, defines the helpers below and runs one scenario, /scenarios/<ixy_scenario>.sh (test/vm/scenario-*.sh,
# bench/vm/scenario-*.sh):
#   e2e          the apps as a pipeline, packets checked against QEMU's records of the wire (the default)
#   bad-inputs   every app refuses bad input with one message and changes nothing
#   in-use       NICs whose kernel interface is in use are refused, unless forced
#   quiet        a device is reset, its queues forgotten and its bus mastering off after an app ends
#   soak         minutes of traffic through all three apps; every packet accounted for
#
# The guest has four NICs A, B, C and D of the kinds run-vm.sh --nics chose; their PCI addresses and kinds come on
# the kernel command line. Some scenarios add more. With ixy_mode=kmod the kernel's NIC drivers are loaded first,
# so ixy has to unbind them.
#
# Output: "IXY-VM: ..." marker lines on the console (ttyS0), which run-vm.sh parses ("IXY-VM: PASS ..." and
# "IXY-VM: FAIL ..." are the guest's own checks), and result files base64-encoded between "BEGIN name" and
# "END name" lines on the second serial port (ttyS1).
export PATH=/bin
HUGE_PAGES=96 # 2 MiB each; the three apps need about 30, each VirtIO device 7
HUGEPAGE_SYSFS=/sys/kernel/mm/hugepages/hugepages-2048kB

marker() { echo "IXY-VM: $*"; }
# total LOG LINE KEY: a number from an app's totals or waiter line (test/vm/totals.sh)
# shellcheck source=test/vm/totals.sh
. /bin/totals.sh

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /tmp /mnt/huge
mount -t hugetlbfs nodev /mnt/huge
echo $HUGE_PAGES >$HUGEPAGE_SYSFS/nr_hugepages
marker "booted, $(cat $HUGEPAGE_SYSFS/nr_hugepages) huge pages"

# Parameters from the kernel command line (run-vm.sh sets them).
scenario=e2e
mode=bare
packets=30000
wait_s=120
soak_s=120
mac_a=
mac_b=
nics=0000:00:08.0,0000:00:09.0,0000:00:0a.0,0000:00:0b.0
kinds=legacy
NOT_NICS=
NIC_E=
NIC_F=
NIC_G=
NIC_H=
UNSUPPORTED_NIC=
vfio=no
# shellcheck disable=SC2013,SC2034  # words, not lines; the scenarios use the variables
for word in $(cat /proc/cmdline); do
	case "$word" in
		ixy_nics=*) nics=${word#*=} ;;
		ixy_kinds=*) kinds=${word#*=} ;;
		ixy_not_nics=*) NOT_NICS=$(echo "${word#*=}" | tr , ' ') ;;
		ixy_nic_e=*) NIC_E=${word#*=} ;;
		ixy_nic_f=*) NIC_F=${word#*=} ;;
		ixy_nic_g=*) NIC_G=${word#*=} ;;
		ixy_nic_h=*) NIC_H=${word#*=} ;;
		ixy_unsupported_nic=*) UNSUPPORTED_NIC=${word#*=} ;;
		ixy_env=*) export "${word#ixy_env=}" ;;
		ixy_vfio=*) vfio=${word#*=} ;;
		ixy_scenario=*) scenario=${word#*=} ;;
		ixy_mode=*) mode=${word#*=} ;;
		ixy_packets=*) packets=${word#*=} ;;
		ixy_wait=*) wait_s=${word#*=} ;;
		ixy_soak=*) soak_s=${word#*=} ;;
		ixy_mac_a=*) mac_a=${word#*=} ;;
		ixy_mac_b=*) mac_b=${word#*=} ;;
	esac
done
# shellcheck disable=SC2034  # the scenarios use them
IFS=, read -r NIC_A NIC_B NIC_C NIC_D <<EOF
$nics
EOF
marker "scenario $scenario, mode $mode, NICs $kinds, environment: $(env | grep '^IXY_' | tr '\n' ' ')"

for nic in $NIC_A $NIC_B $NIC_C $NIC_D; do
	marker "nic $nic $(cat "/sys/bus/pci/devices/$nic/vendor"):$(cat "/sys/bus/pci/devices/$nic/device")"
done

# The name of the kernel driver bound to a PCI device, "none" if there is none.
kernel_driver() {
	driver=$(readlink "/sys/bus/pci/devices/$1/driver" 2>/dev/null)
	echo "${driver##*/}" | sed 's/^$/none/'
}

# The kernel driver that takes a NIC of ours when the modules are loaded: igb for an Intel 82576, e1000 for an
# 82540EM, e1000e for an 82574L, else virtio-pci.
nic_kernel_driver() {
	case "$(cat "/sys/bus/pci/devices/$1/vendor"):$(cat "/sys/bus/pci/devices/$1/device")" in
		0x8086:0x100e) echo e1000 ;;
		0x8086:0x10d3) echo e1000e ;;
		0x8086:*) echo igb ;;
		*) echo virtio-pci ;;
	esac
}

# The kernel network interface of a PCI device (empty if it has none). A VirtIO NIC's interface belongs to the
# VirtIO device, a child of the PCI device: /sys/bus/pci/devices/<pci>/virtio<n>/net/<interface>.
interface_of() {
	for _path in /sys/bus/pci/devices/"$1"/net/* /sys/bus/pci/devices/"$1"/virtio*/net/*; do
		[ -e "$_path" ] && echo "${_path##*/}" && return
	done
}

# Loads virtio_pci, virtio_net, igb, e1000 and e1000e; busybox insmod does not resolve dependencies: build-guest.sh wrote the order.
load_kernel_drivers() {
	# No IPv6: an interface that comes up would send neighbour discovery frames into the test's traffic.
	# shellcheck disable=SC2013
	for module in $(cat /modules/order); do
		insmod "/modules/$module.ko" || marker "insmod $module failed"
	done
	sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 2>/dev/null
}
if [ "$mode" = kmod ]; then
	load_kernel_drivers
	for nic in $NIC_A $NIC_B $NIC_C $NIC_D; do
		marker "kernel driver of $nic: $(kernel_driver $nic)"
	done
fi

# Runs an app in place of this (sub)shell, so that it keeps its PID (call it as `run_app APP ARGS... &`): as the user
# APP_USER if a scenario set it (the VFIO scenario: no root), else as root.
APP_USER=
run_app() {
	if [ -n "$APP_USER" ]; then
		exec su "$APP_USER" -s /bin/sh -c "exec $*"
	fi
	exec "$@"
}

# The marks of least privilege (ixy_sandbox_enter) in the status of every thread of the app (/proc/PID/task/*/status:
# capabilities belong to each thread) as one machine-readable line, e.g. "status app=ixy-fwd tasks=1 uid=1000
# euid=1000 suid=1000 fsuid=1000 gid=1000 egid=1000 sgid=1000 fsgid=1000 groups=1 group_min=1000 group_max=1000
# cap_eff=0 cap_prm=0 seccomp=2 no_new_privs=1": how many threads were read, the four user ids and group ids of the
# Uid: and Gid: lines (real, effective, saved, filesystem), how many supplementary groups and the least and greatest
# (-1 for none), whether any thread has any capability effective or permitted (0 or 1), the seccomp mode (2: a
# filter) and NoNewPrivs. A value that differs between threads reads "mixed"; neither it nor -1 is a number, so that
# a check of it fails. Read it while the app runs its loop (wait_running): it enters the sandbox before that.
app_status() { # app_status APP PID
	awk -v app="$1" '
		function each(key, value) { if (!(key in v)) v[key] = value; else if (v[key] != value) v[key] = "mixed" }
		FNR == 1 { tasks++ }
		$1 == "Uid:" { each("uid", $2); each("euid", $3); each("suid", $4); each("fsuid", $5) }
		$1 == "Gid:" { each("gid", $2); each("egid", $3); each("sgid", $4); each("fsgid", $5) }
		$1 == "Groups:" { min = max = -1
			for (i = 2; i <= NF; i++) { if (min < 0 || $i < min) min = $i; if ($i > max) max = $i }
			each("groups", NF - 1); each("group_min", min); each("group_max", max) }
		$1 == "CapEff:" && $2 !~ /^0+$/ { eff = 1 } $1 == "CapPrm:" && $2 !~ /^0+$/ { prm = 1 }
		$1 == "Seccomp:" { each("seccomp", $2) } $1 == "NoNewPrivs:" { each("no_new_privs", $2) }
		END {
			printf "status app=%s tasks=%d uid=%s euid=%s suid=%s fsuid=%s ", app, tasks, v["uid"], v["euid"], v["suid"], v["fsuid"]
			printf "gid=%s egid=%s sgid=%s fsgid=%s ", v["gid"], v["egid"], v["sgid"], v["fsgid"]
			printf "groups=%s group_min=%s group_max=%s ", v["groups"], v["group_min"], v["group_max"]
			printf "cap_eff=%d cap_prm=%d seccomp=%s no_new_privs=%s\n", eff, prm, v["seccomp"], v["no_new_privs"]
		}' /proc/"$2"/task/*/status
}

# Sends a file from /tmp to the host over ttyS1.
send_file() {
	{
		echo "BEGIN $1"
		base64 "/tmp/$1"
		echo "END $1"
	} >/dev/ttyS1
}

# Waits until an app's log shows a rate line: it opened its devices and runs its loop. Up to 60 s: with four vCPUs
# under TCG on two host CPUs (the fwd-rss scenarios), busy-polling threads can starve the guest for seconds (the
# kernel then reports RCU stalls), and once 30 s were not enough for ixy-pcap's and ixy-fwd's first rate lines.
wait_running() { # wait_running LOG PID
	for _ in $(seq 600); do
		grep -q " RX: " "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# Waits up to wait_s seconds for ixy-pcap to exit by itself (it has its $packets packets), then prints "pcap exit
# <code>"; if it has not, says so and stops it (stop_app).
wait_pcap() { # wait_pcap PID
	for _ in $(seq $((wait_s * 10))); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		marker "pcap did not capture $packets packets within $wait_s s"
		stop_app pcap "$1"
	else
		wait "$1"
		marker "pcap exit $?"
	fi
}

# Stops an app with a signal (default SIGINT: it prints its totals and closes the device), SIGKILL if it does not
# end in 20 s. Prints "<name> exit <code>" as a marker and leaves the code in $app_rc.
stop_app() { # stop_app NAME PID [SIGNAL]
	kill -"${3:-INT}" "$2" 2>/dev/null
	for _ in $(seq 200); do
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$2" 2>/dev/null && {
		marker "$1 did not stop on SIG${3:-INT}, killing it"
		kill -KILL "$2"
	}
	wait "$2"
	app_rc=$?
	marker "$1 exit $app_rc"
}

# The guest's own checks: "IXY-VM: PASS|FAIL <what>". check runs a command, check_eq compares two strings.
checks_failed=0
check() { # check WHAT COMMAND...
	_check_what=$1
	shift
	if "$@"; then
		marker "PASS $_check_what"
	else
		marker "FAIL $_check_what"
		checks_failed=$((checks_failed + 1))
	fi
}
check_eq() { # check_eq WHAT GOT EXPECTED
	if [ "$2" = "$3" ]; then
		marker "PASS $1"
	else
		marker "FAIL $1 (got '$2', expected '$3')"
		checks_failed=$((checks_failed + 1))
	fi
}

free_hugepages() { cat $HUGEPAGE_SYSFS/free_hugepages; }

# The apps as a pipeline (scenarios e2e and xdp): ixy-pcap --report on D captures $packets packets into
# /tmp/capture.pcap (and prints its report, issue 30),
# ixy-fwd runs between its two arguments, and ixy-pktgen on A sends once both receivers run; logs in /tmp/pcap.log,
# fwd.log, pktgen.log, the apps' uids in /tmp/apps-uid.txt, markers "receivers running" and "<app> exit <code>".
# $pktgen_options (a scenario may set them): ixy-pktgen's options, e.g. a --rate.
pipeline() { # pipeline FWD_DEVICE_1 FWD_DEVICE_2
	run_app ixy-pcap --user ixy --report $NIC_D /tmp/capture.pcap "$packets" >/tmp/pcap.log 2>&1 &
	pcap_pid=$!
	run_app ixy-fwd --user ixy --wait 1000 "$1" "$2" >/tmp/fwd.log 2>&1 &
	fwd_pid=$!
	if wait_running /tmp/pcap.log $pcap_pid && wait_running /tmp/fwd.log $fwd_pid; then
		marker "receivers running"
		for pid in $pcap_pid $fwd_pid; do
			sed -n 's/^Uid:[[:space:]]*\([0-9]*\).*/uid \1/p' "/proc/$pid/status"
		done >/tmp/apps-uid.txt
		marker "ixy-pcap and ixy-fwd run as $(tr '\n' ' ' </tmp/apps-uid.txt)"
		{ app_status ixy-pcap $pcap_pid; app_status ixy-fwd $fwd_pid; } >/tmp/status.txt
		# shellcheck disable=SC2086 # $pktgen_options: words
		run_app ixy-pktgen --user ixy $pktgen_options $NIC_A >/tmp/pktgen.log 2>&1 &
		pktgen_pid=$!
		wait_running /tmp/pktgen.log $pktgen_pid && app_status ixy-pktgen $pktgen_pid >>/tmp/status.txt
		wait_pcap $pcap_pid
		stop_app pktgen $pktgen_pid
	else
		marker "receivers did not start"
		stop_app pcap $pcap_pid
	fi
	stop_app fwd $fwd_pid
}

# ---- Bad inputs: the cases of the bad-inputs scenarios. A scenario that uses bad() defines snapshot (prints what no
# bad input may change) and rebind (puts back what a failed case changed). The cases go to /tmp/bad-inputs.tsv.

# bad CASE EXPECTED_EXIT EXPECTED_TEXT COMMAND...: runs COMMAND (for at most 30 s: an app that wrongly takes a
# device would run until stopped) and checks the outcome: every refusal comes before ixy touches a device, so nothing
# may change (a NIC given back to its kernel driver would get a new interface index).
bad() {
	name=$1 expected_rc=$2 text=$3
	shift 3
	snapshot >/tmp/before
	timeout -s INT 30 "$@" >/tmp/out 2>/tmp/err </dev/null
	rc=$?
	snapshot >/tmp/after
	check_eq "$name: exit code" "$rc" "$expected_rc"
	# One message that says what is wrong; a usage error may add the usage line, or be just the usage line. Lines
	# that start with a space continue the message before (the list of supported NICs).
	reasons=$(grep -vc '^usage: \|^ ' /tmp/err)
	usages=$(grep -c '^usage: ' /tmp/err)
	if [ $((reasons + usages)) -ge 1 ] && [ "$reasons" -le 1 ] && [ "$usages" -le $((expected_rc == 2)) ]; then
		marker "PASS $name: one message on stderr"
	else
		marker "FAIL $name: $reasons lines on stderr besides the usage line, expected one:"
		sed 's/^/    /' /tmp/err
		checks_failed=$((checks_failed + 1))
	fi
	check "$name: the message says '$text'" grep -qF -- "$text" /tmp/err
	check "$name: nothing on stdout" test ! -s /tmp/out
	if cmp -s /tmp/before /tmp/after; then
		marker "PASS $name: nothing changed"
	else
		marker "FAIL $name: the system changed:"
		diff /tmp/before /tmp/after | grep '^[-+][^-+]' | sed 's/^/    /'
		checks_failed=$((checks_failed + 1))
		rebind
	fi
	command_line=
	for arg in "$@"; do
		case "$arg" in
			"" | *" "*) command_line="$command_line '$arg'" ;;
			*) command_line="$command_line $arg" ;;
		esac
	done
	printf '%s\t%s\t%s\t%s\n' "$name" "${command_line# }" "$rc" "$(sed ':a;N;$!ba;s/\n/ | /g' /tmp/err)" \
		>>/tmp/bad-inputs.tsv
}

# ixy_vfio=yes (run-vm.sh --vfio): scripts/setup-vfio.sh hands NICs A-D to user ixy (uid 1000), which runs the apps
# (run_app) with the locked-memory limit the script names; afterwards setup-vfio.sh --undo gives them back.
hand_over_to_vfio() {
	marker "IOMMU groups: $(ls /sys/kernel/iommu_groups | tr '\n' ' ')"
	for nic in $NIC_A $NIC_B $NIC_C $NIC_D; do
		check "setup-vfio.sh hands $nic ($(kernel_driver "$nic")) to user ixy" \
			sh -c "setup-vfio.sh $nic ixy >/tmp/setup.log 2>&1"
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
}

give_back_from_vfio() {
	APP_USER=
	for nic in $NIC_A $NIC_B $NIC_C $NIC_D; do
		check "setup-vfio.sh --undo gives $nic back" sh -c "setup-vfio.sh --undo $nic >/dev/null"
		check_eq "$nic is back with $(nic_kernel_driver "$nic")" "$(kernel_driver "$nic")" "$(nic_kernel_driver "$nic")"
	done
}

# The features ixy negotiated with each VirtIO NIC it opened, from the init line of every open in the apps' logs
# (/tmp/*.log): "IXY-VM: virtio pci=<pci> features=0x<hex>", one line per open. run-vm.sh checks bit 34
# (VIRTIO_F_RING_PACKED) for the NICs of packed kinds (packed_checks), whatever the scenario.
report_virtio_features() {
	cat /tmp/*.log 2>/dev/null | tr -d '\r' |
		sed -n 's/^ixy: \([0-9a-f:.]*\): VirtIO [a-z]* interface, .*features 0x\([0-9a-f]*\), .*/\1 \2/p' |
		while read -r _pci _features; do
			marker "virtio pci=$_pci features=0x$_features"
		done
}

[ "$vfio" = yes ] && hand_over_to_vfio
if [ -f "/scenarios/$scenario.sh" ]; then
	# shellcheck disable=SC1090
	. "/scenarios/$scenario.sh"
else
	marker "FAIL unknown scenario $scenario"
fi
report_virtio_features
[ "$vfio" = yes ] && give_back_from_vfio
marker "done"
sync
poweroff -f
