#!/usr/bin/env bash
# The VM tests: boots the test guest under QEMU (TCG, never KVM) with four NICs A, B, C, D and checks what ixy did
# there. One scenario per boot. A scenario NAME is two files: scenario-NAME.sh, which guest-init.sh runs in the guest,
# and host-NAME.sh, which this script sources after reading the options; both in test/vm, or in bench/vm for the
# benchmarks. Each host file says what its scenario does, sets mode (its default, e.g. mode=${mode:-bare}), may set
# time_limit, out, guest_options, host_ends_ok=yes, qemu_prefix (a command QEMU runs under, e.g. ip netns exec) and
# host_needs (what the host must do beyond QEMU: netns, tap, bridge; test/host_features.sh: without one the test
# skips, exit 77, with a line "skipped: ..." naming it), host_tools (Debian packages of programs it runs on the host,
# installed here as QEMU is) or refuse options (exit 2), and defines the functions
#   network   the netdevs nic_a ... nic_d (pair_network, hub_network or its own)
#   devices   (optional) QEMU devices and records after NICs A-D; extra: more words for the kernel command line
#   checks    the host's checks once QEMU has ended: expect, marker, guest_checks, and total (totals.sh) to read
#             the apps' totals lines
# This script only boots and collects: options, guest, NICs, QEMU, the guest's files, the sum of the checks.
#
#   run-vm.sh --build-dir DIR [--scenario NAME] [--mode bare|kmod] [--nics KINDS] [--iommu] [--vfio]
#             [--env VAR=VALUE]... [--packets N] [--soak-seconds N] [--out DIR] [--cache DIR]
#             [--host-ends B,SOURCE,C,SINK[,HUB_IN,HUB_OUT]] [--queues N]
#
# Scenarios (default e2e): e2e, bad-inputs, in-use, quiet, soak, vfio-bad-inputs, interrupts, confine, trace, rss,
# fwd-rss, fwd-rss-tap (test/vm/host-*.sh); bench-fwd, bench-interrupts, bench-peers, bench-mq
# (bench/vm/host-bench-*.sh).
#
# --nics: the kind of NIC A, B, C and D, one kind for all four or four kinds separated by commas (default legacy):
#   legacy        a VirtIO NIC with only the legacy interface (disable-modern=on); QEMU offers VIRTIO_F_ANY_LAYOUT,
#                 so ixy puts each packet in one descriptor
#   legacy-chain  the same without VIRTIO_F_ANY_LAYOUT (any_layout=off), as VirtualBox has: ixy falls back to a chain
#                 of two descriptors per packet (header, frame)
#   transitional  a VirtIO NIC with both interfaces (ixy picks modern; IXY_VIRTIO_LEGACY=1 picks legacy)
#   modern        a VirtIO NIC with only the modern interface (disable-legacy=on) behind a PCIe root port, as every
#                 q35 VM of libvirt has
#   modern-no-msix  the same without MSI-X (vectors=0: QEMU gives it no MSI-X capability); through VFIO ixy polls
#                 it, also for an app that waits, and says so
#   modern-mq     the same with several queue pairs and receive side scaling (mq=on,rss=on,vectors=10); the rss
#                 scenario puts it behind a tap of 4 queues
#   modern-packed, modern-mq-packed  modern and modern-mq with packed=on: QEMU offers VIRTIO_F_RING_PACKED (bit 34;
#                 VirtIO 1.1, 2.8), and ixy must take packed virtqueues there (IXY_VIRTIO_SPLIT=1: split ones). For
#                 every NIC of these kinds, whatever the scenario, the host checks bit 34 of the features of each of
#                 ixy's init lines for it, which the guest reports (packed_checks below)
#   igb           an Intel 82576 (QEMU's igb, 8086:10c9) behind a PCIe root port, driven by ixy's igb driver; the
#                 e2e also checks its statistics registers (the apps' totals) against the host's records
#   e1000         an Intel 82540EM (QEMU's e1000, 8086:100e, the pc machine's and VirtualBox's default NIC), a PCI
#                 NIC in a slot of bus 0, driven by ixy's e1000 driver; the e2e checks its statistics as igb's
#   e1000e        an Intel 82574L (QEMU's e1000e, 8086:10d3, q35's default NIC) behind a PCIe root port, driven by
#                 ixy's e1000 driver; the same checks
# With only legacy and e1000 NICs the machine is QEMU's i440FX PC and the NICs sit in slots 8-11 of bus 0
# (0000:00:08.0 ...); otherwise it is a q35 machine: legacy, transitional and e1000 NICs in the same slots of its root
# complex, modern, igb and e1000e ones each behind a pcie-root-port, on buses 1, 2, ... in the order A-D. --env passes a variable to every app.
# --iommu adds QEMU's emulated Intel IOMMU (q35 only; the guest kernel gets intel_iommu=on), and modern VirtIO NICs
# send their DMA through it (iommu_platform=on, VIRTIO_F_ACCESS_PLATFORM). --vfio (implies --iommu and kmod): before
# the scenario, scripts/setup-vfio.sh hands the four NICs to user "ixy" (uid 1000), and the scenario runs the apps as
# that user: ixy reaches the NICs through VFIO. Afterwards setup-vfio.sh --undo gives them back.
#
# --queues N: the queues per NIC a scenario's apps use (fwd-rss: ixy-fwd --queues N); a host file that takes it says
# so, the others refuse it. A host file may set vcpus (default 1): the guest's CPUs (-smp, 1 to 9; bench-mq boots 2).
#
# Network (nothing reaches the host's network), as the scenario chooses: pair_network joins A and B, and C and D, by
# pairs of UDP sockets on 127.0.0.1: frames keep their order (a QEMU hub reorders them when a NIC's RX ring is full).
# hub_network puts A and B on QEMU hub 0, C and D on hub 1; each hub also has a UDP socket port sending to
# 127.0.0.1:9 (discard), which always accepts frames, so that a hub never stalls its sender while a guest receiver is
# busy. QEMU's filter-dump records, on the host, what crosses a NIC's netdev: an observer
# the guest cannot fake. (A netdev filter's "rx" queue holds what the NIC sends, its "tx" queue what the network
# passes to the NIC.)
#
# The guest's own checks arrive as "IXY-VM: PASS|FAIL ..." lines. Exit: 0 passed, 1 failed, 77 skipped (not root,
# QEMU cannot be installed, or the host lacks what host_needs names), with one line "run-vm: skipped: ..." saying why.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
# shellcheck source=test/vm/totals.sh
. "$here/totals.sh"
build_dir=
scenario=e2e
mode=
nics=legacy
iommu=no
vfio=no
envs=()
host_ends=
packets=30000
soak_s=120
out=
cache=/var/cache/ixy-vm
queues=
all_args=("$@") # for a second boot after an emulator fault (below)
usage="usage: $0 --build-dir DIR [--scenario NAME] [--mode bare|kmod] [--nics KINDS] [--iommu] [--vfio] [--env VAR=VALUE]... [--packets N] [--soak-seconds N] [--out DIR] [--cache DIR] [--host-ends B,SOURCE,C,SINK[,HUB_IN,HUB_OUT]] [--queues N]"
while [ $# -gt 0 ]; do
	case "$1" in
		--build-dir) build_dir=$2; shift 2 ;;
		--scenario) scenario=$2; shift 2 ;;
		--mode) mode=$2; shift 2 ;;
		--nics) nics=$2; shift 2 ;;
		--iommu) iommu=yes; shift ;;
		--vfio) vfio=yes; iommu=yes; shift ;;
		--env) envs+=("$2"); shift 2 ;;
		--packets) packets=$2; shift 2 ;;
		--soak-seconds) soak_s=$2; shift 2 ;;
		--out) out=$2; shift 2 ;;
		--cache) cache=$2; shift 2 ;;
		--host-ends) host_ends=$2; shift 2 ;;
		--queues) queues=$2; shift 2 ;;
		*) echo "$usage" >&2; exit 2 ;;
	esac
done
[ -n "$build_dir" ] || { echo "run-vm.sh: --build-dir is required" >&2; exit 2; }
host_file=
for dir in "$here" "$src/bench/vm"; do
	case "$scenario" in */* | '') ;; *) [ -f "$dir/host-$scenario.sh" ] && host_file=$dir/host-$scenario.sh ;; esac
done
[ -n "$host_file" ] || { echo "run-vm.sh: no scenario '$scenario' (test/vm/host-*.sh, bench/vm/host-*.sh)" >&2; exit 2; }
[ $vfio = yes ] && mode=kmod # setup-vfio.sh takes the NICs from their kernel driver
case "$soak_s" in '' | *[!0-9]*) echo "run-vm.sh: --soak-seconds must be a number" >&2; exit 2 ;; esac
# Seconds for the whole QEMU run: boot takes about 5 s under TCG, every scenario but the soak well under a minute.
time_limit=300
guest_options=()
qemu_prefix=() # a host file may run QEMU through a command, e.g. (ip netns exec NS)
host_needs=()  # a host file's needs of the host (test/host_features.sh)
host_tools=()  # programs a host file runs on the host, each from the Debian package of its name (e.g. tcpdump)
host_ends_ok=no
queues_ok=no # a host file that reads --queues sets queues_ok=yes
vcpus=1
devices() { :; }
# shellcheck source=/dev/null
. "$host_file"
case "$mode" in bare | kmod) ;; *) echo "run-vm.sh: --mode must be bare or kmod" >&2; exit 2 ;; esac
[ -z "$host_ends" ] || [ $host_ends_ok = yes ] ||
	{ echo "run-vm.sh: --host-ends is for bench-peers and bench-interrupts" >&2; exit 2; }
[ -z "$queues" ] || [ $queues_ok = yes ] ||
	{ echo "run-vm.sh: --queues is for the fwd-rss scenario" >&2; exit 2; }
case "$vcpus" in [1-9]) ;; *) echo "run-vm.sh: vcpus must be 1 to 9" >&2; exit 2 ;; esac
IFS=, read -r -a kinds <<<"$nics"
[ ${#kinds[@]} = 1 ] && kinds=("${kinds[0]}" "${kinds[0]}" "${kinds[0]}" "${kinds[0]}")
[ ${#kinds[@]} = 4 ] || { echo "run-vm.sh: --nics takes one kind or four, separated by commas" >&2; exit 2; }
machine=pc
for kind in "${kinds[@]}"; do
	case "$kind" in
		legacy | legacy-chain | e1000) ;;
		transitional | modern | modern-no-msix | modern-mq | modern-packed | modern-mq-packed | igb | e1000e) machine=q35 ;;
		*) echo "run-vm.sh: unknown NIC kind '$kind' (legacy, legacy-chain, transitional, modern, modern-no-msix, modern-mq, modern-packed, modern-mq-packed, igb, e1000, e1000e)" >&2; exit 2 ;;
	esac
done
if [ $iommu = yes ] && [ $machine = pc ]; then
	echo "run-vm.sh: --iommu needs a q35 machine: at least one NIC that is not legacy" >&2
	exit 2
fi
for env in "${envs[@]}"; do
	case "$env" in [A-Z_]*=*) ;; *) echo "run-vm.sh: --env takes VAR=VALUE" >&2; exit 2 ;; esac
	case "$env" in *[[:space:],]*) echo "run-vm.sh: --env values cannot hold spaces or commas" >&2; exit 2 ;; esac
done
out=${out:-$build_dir/vm-$scenario}

say() { echo "run-vm: $*"; }

if [ "$(id -u)" != 0 ]; then
	say "skipped: needs root (installs packages, boots QEMU)"
	exit 77
fi
if [ ${#host_needs[@]} -gt 0 ]; then
	# shellcheck source=test/host_features.sh
	. "$src/test/host_features.sh"
	missing=$(host_feature_missing "${host_needs[@]}")
	[ -z "$missing" ] || { say "skipped: this host has no $missing (scenario $scenario)"; exit 77; }
fi
if ! "$src/scripts/install-qemu.sh"; then   # QEMU 10 from bookworm-backports: igb, modern-only VirtIO, IOMMU
	say "skipped: cannot install a QEMU with igb (scripts/install-qemu.sh)"
	exit 77
fi
need=()
{ command -v busybox >/dev/null && ! readelf -l "$(command -v busybox)" | grep -q INTERP; } || need+=(busybox-static)
command -v cpio >/dev/null || need+=(cpio)
for tool in "${host_tools[@]}"; do command -v "$tool" >/dev/null || need+=("$tool"); done
if [ ${#need[@]} -gt 0 ]; then
	say "installing ${need[*]}"
	if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"; } >/dev/null 2>&1; then
		say "skipped: cannot install ${need[*]}"
		exit 77
	fi
fi
for tool in "${host_tools[@]}"; do
	command -v "$tool" >/dev/null || { say "skipped: this host has no $tool (scenario $scenario)"; exit 77; }
done

rm -rf "$out"
mkdir -p "$out/guest"
# The consoles of earlier boots that the emulator failed (below): console-boot-<n>.log.
[ -z "${IXY_VM_EARLIER_CONSOLES:-}" ] || { mv "$IXY_VM_EARLIER_CONSOLES"/* "$out/" && rmdir "$IXY_VM_EARLIER_CONSOLES"; }
"$here/build-guest.sh" --build-dir "$build_dir" --out "$out" --cache "$cache" "${guest_options[@]}" ||
	{ say "FAIL: building the guest"; exit 1; }

# Free UDP ports on the loopback: two for the hubs' sink ports (they only send, to the discard port 9), four for the
# socket pairs that join A with B and C with D.
read -r port0 port1 port_a port_b port_c port_d < <(python3 -c '
import socket
socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(6)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')

mac_a=52:54:00:12:34:0a
mac_b=52:54:00:12:34:0b
# The PCI devices of the machine that are not NICs (for the bad-inputs scenario): host bridge, ISA bridge, and the
# IDE (i440FX) or SATA (q35) controller.
if [ $machine = pc ]; then
	not_nics=0000:00:00.0,0000:00:01.0,0000:00:01.1
else
	not_nics=0000:00:00.0,0000:00:1f.0,0000:00:1f.2
fi
qemu_args=(-machine $machine -nodefaults -accel tcg -m 512 -smp "$vcpus" -display none -monitor none -no-reboot
	-serial stdio -serial "file:$out/serial1.txt" -kernel "$out/vmlinuz" -initrd "$out/initrd.gz")
kernel_iommu=
if [ $iommu = yes ]; then
	qemu_args+=(-device intel-iommu) # before the devices it translates for
	kernel_iommu=intel_iommu=on
fi
next_slot=8     # the next free slot of bus 0 for a NIC in the root complex
next_port=1     # the next PCIe root port (slot 0x10 + n, secondary bus n)
nic_addrs=()
nic() {   # nic NETDEV KIND MAC: a NIC of that kind on that netdev; appends its PCI address to nic_addrs
	local device addr base
	case "$2" in
		legacy) device="virtio-net-pci,disable-modern=on,romfile=" ;;
		legacy-chain) device="virtio-net-pci,disable-modern=on,any_layout=off,romfile=" ;;
		transitional) device="virtio-net-pci,romfile=" ;;
		modern) device="virtio-net-pci,disable-legacy=on,disable-modern=off,romfile=" ;;
		modern-no-msix) device="virtio-net-pci,disable-legacy=on,disable-modern=off,vectors=0,romfile=" ;;
		modern-mq) device="virtio-net-pci,disable-legacy=on,disable-modern=off,mq=on,rss=on,vectors=10,romfile=" ;;
		modern-packed) device="virtio-net-pci,disable-legacy=on,disable-modern=off,packed=on,romfile=" ;;
		modern-mq-packed) device="virtio-net-pci,disable-legacy=on,disable-modern=off,mq=on,rss=on,vectors=10,packed=on,romfile=" ;;
		igb) device="igb,romfile=" ;;
		e1000) device="e1000,romfile=" ;;
		e1000e) device="e1000e,romfile=" ;;
	esac
	base=${2%-packed}
	base=${base%-no-msix}
	base=${base%-mq}
	[ "$base" = modern ] && [ $iommu = yes ] && device="$device,iommu_platform=on"
	if [ "$base" = modern ] || [ "$2" = igb ] || [ "$2" = e1000e ]; then
		qemu_args+=(-device "pcie-root-port,id=port$next_port,chassis=$next_port,addr=$(printf 0x%x $((0x10 + next_port)))")
		qemu_args+=(-device "$device,netdev=$1,mac=$3,bus=port$next_port")
		addr=$(printf '0000:%02x:00.0' $next_port)
		next_port=$((next_port + 1))
	else
		qemu_args+=(-device "$device,netdev=$1,mac=$3,addr=$(printf 0x%x $next_slot)")
		addr=$(printf '0000:00:%02x.0' $next_slot)
		next_slot=$((next_slot + 1))
	fi
	nic_addrs+=("$addr")
}
hub() {   # hub NETDEV HUB: a port of a QEMU hub
	qemu_args+=(-netdev "hubport,id=$1,hubid=$2")
}
socket_pair() {   # socket_pair NETDEV1 PORT1 NETDEV2 PORT2: two netdevs that send each other UDP datagrams
	qemu_args+=(-netdev "socket,id=$1,udp=127.0.0.1:$4,localaddr=127.0.0.1:$2"
		-netdev "socket,id=$3,udp=127.0.0.1:$2,localaddr=127.0.0.1:$4")
}
unix_pair() {   # unix_pair NETDEV1 NETDEV2 DIR: two netdevs that send each other datagrams on Unix sockets in DIR
	qemu_args+=(-netdev "dgram,id=$1,local.type=unix,local.path=$3/$1.sock,remote.type=unix,remote.path=$3/$2.sock"
		-netdev "dgram,id=$2,local.type=unix,local.path=$3/$2.sock,remote.type=unix,remote.path=$3/$1.sock")
}
dump() {   # dump NETDEV QUEUE FILE: QEMU records the frames of one direction of a netdev into a pcap file
	qemu_args+=(-object "filter-dump,id=dump_$1_$2,netdev=$1,queue=$2,file=$3")
}
pair_network() {   # A and B, and C and D, joined by pairs of UDP sockets
	socket_pair nic_a "$port_a" nic_b "$port_b"
	socket_pair nic_c "$port_c" nic_d "$port_d"
}
hub_network() {   # A and B on hub 0, C and D on hub 1, each hub with its port to the discard port
	hub nic_a 0
	hub nic_b 0
	hub nic_c 1
	hub nic_d 1
	qemu_args+=(
		-netdev "socket,id=sink0,udp=127.0.0.1:9,localaddr=127.0.0.1:$port0" -netdev "hubport,id=hub0_sink,hubid=0,netdev=sink0"
		-netdev "socket,id=sink1,udp=127.0.0.1:9,localaddr=127.0.0.1:$port1" -netdev "hubport,id=hub1_sink,hubid=1,netdev=sink1")
}
network
nic nic_a "${kinds[0]}" $mac_a
nic nic_b "${kinds[1]}" $mac_b
nic nic_c "${kinds[2]}" 52:54:00:12:34:0c
nic nic_d "${kinds[3]}" 52:54:00:12:34:0d
nic_a=${nic_addrs[0]} nic_b=${nic_addrs[1]} nic_c=${nic_addrs[2]} nic_d=${nic_addrs[3]}
extra=
devices
env_words=
for env in "${envs[@]}"; do env_words="$env_words ixy_env=$env"; done
# no_timer_check: the kernel skips its boot check that the timer ticked 4 times while it busy-waited 10 ticks
# (arch/x86/kernel/apic/io_apic.c). Under TCG on a loaded host the busy wait can end before the emulated timer ticks,
# and the kernel panics ("IO-APIC + timer doesn't work!"; with the IOMMU "timer doesn't work through
# Interrupt-remapped IO-APIC"): seen in vm_igb_fwd_rss2 at a load average of 14 and twice in a row in
# vm_vfio_confine at 18. QEMU's timer works; the check only measured the host's load.
qemu_args+=(-append "console=ttyS0 quiet panic=-1 no_timer_check $kernel_iommu ixy_scenario=$scenario ixy_mode=$mode ixy_packets=$packets \
ixy_soak=$soak_s ixy_mac_a=$mac_a ixy_mac_b=$mac_b ixy_nics=$nic_a,$nic_b,$nic_c,$nic_d ixy_kinds=$nics ixy_vfio=$vfio \
ixy_not_nics=$not_nics $extra$env_words")
say "booting the guest (scenario $scenario, mode $mode, NICs ${kinds[*]} on $machine with $vcpus vCPU(s), IOMMU $iommu, VFIO $vfio, TCG," \
	"at most $time_limit s); console:"
start=$(date +%s)
# QEMU's multi-threaded TCG with more vCPUs than host CPUs (fwd-rss: 4 on 2) sometimes loses a vCPU: the guest kernel
# reports an RCU stall on a CPU that sits idle and takes no timer interrupt ("kthread timer wakeup didn't happen",
# "Possible timer handling issue"), and a task that sleeps there never wakes (CI: the guest hung from its first second
# until the time limit). Only that signature counts: a stall of another kind (e.g. kernel memory that a wrong DMA
# address overwrote) fails the test. Once the console shows it, QEMU is stopped; the end of this script boots again,
# once.
stall_pattern="rcu: rcu_[a-z]* kthread timer wakeup didn't happen"
qemu_args+=(-pidfile "$out/qemu.pid")
(
	while [ ! -e "$out/qemu.done" ]; do
		sleep 2
		if grep -q "$stall_pattern" "$out/console.log" 2>/dev/null && [ -s "$out/qemu.pid" ]; then
			say "a vCPU of the guest takes no timer interrupts (RCU stall): stopping QEMU"
			kill "$(cat "$out/qemu.pid")" 2>/dev/null
			break
		fi
	done
) &
stall_watcher=$!
timeout --kill-after=10 $time_limit "${qemu_prefix[@]}" qemu-system-x86_64 "${qemu_args[@]}" </dev/null 2>&1 |
	tee "$out/console.log"
qemu_rc=${PIPESTATUS[0]}
touch "$out/qemu.done"
wait $stall_watcher
elapsed=$(($(date +%s) - start))
say "QEMU exited with $qemu_rc after $elapsed s"

# Files the guest sent over ttyS1: base64 between "BEGIN name" and "END name".
tr -d '\r' <"$out/serial1.txt" | awk -v dir="$out/guest" '
	/^BEGIN / { name = $2; file = dir "/" name ".b64"; printf "" > file; next }
	/^END / { close(file); name = ""; next }
	name != "" { print > file }'
for encoded in "$out"/guest/*.b64; do
	[ -e "$encoded" ] && base64 -d "$encoded" >"${encoded%.b64}" && rm "$encoded"
done

passed=0
failed=0
expect() {   # expect DESCRIPTION COMMAND...
	if "${@:2}"; then
		passed=$((passed + 1))
		echo "PASS  $1"
	else
		failed=$((failed + 1))
		echo "FAIL  $1"
	fi
}
expect_checker() {   # expect_checker FILE DESCRIPTION RC: a host checker's "PASS ..."/"FAIL ..." lines in FILE count
	local line
	while IFS= read -r line; do
		case "$line" in
			"PASS "*) passed=$((passed + 1)); echo "PASS  ${line#PASS }" ;;
			"FAIL "*) failed=$((failed + 1)); echo "FAIL  ${line#FAIL }" ;;
			*) echo "      $line" ;;
		esac
	done <"$1"
	expect "$2 ran to its end and found nothing wrong (exit code $3)" test "$3" = 0
}
marker() { tr -d '\r' <"$out/console.log" | grep -q "^IXY-VM: $1"; }

# The apps' output: the rate lines of seconds with traffic (the last few), then everything else they printed.
show_app_logs() {
	local app log
	for app in pktgen fwd pcap; do
		log=$out/guest/$app.log
		[ -f "$log" ] || continue
		echo "  ixy-$app:"
		grep -E ' (RX|TX): ' "$log" | grep -v ' 0 Mbit/s' | tail -n 6 | sed 's/^/    /'
		grep -vE ' (RX|TX): ' "$log" | sed 's/^/    /'
	done
}

# The guest's own checks ("IXY-VM: PASS|FAIL what") count as results of this test.
guest_checks() {
	local line
	while IFS= read -r line; do
		case "$line" in
			"IXY-VM: PASS "*) passed=$((passed + 1)); echo "PASS  ${line#IXY-VM: PASS }" ;;
			"IXY-VM: FAIL "*) failed=$((failed + 1)); echo "FAIL  ${line#IXY-VM: FAIL }" ;;
		esac
	done < <(tr -d '\r' <"$out/console.log")
	expect "the guest ran its checks" test $((passed + failed)) -gt 1
}

# The fwd-rss scenarios: ixy-fwd pins the thread of queue q to the q-th CPU it may use (all of the guest's 4), one
# thread per queue: CPUs 0 .. QUEUES-1, one each (scenario-fwd-rss.sh lists each thread's Cpus_allowed_list).
expect_fwd_pinned() {   # expect_fwd_pinned QUEUES
	local cpus
	cpus=$(tr -d '\r' <"$out/console.log" | sed -n 's/^IXY-VM: fwd threads on CPUs: //p')
	expect "each of ixy-fwd's $1 threads is pinned to a CPU of its own (${cpus:-no line})" \
		test "$cpus" = "$(seq -s ' ' 0 $(($1 - 1))) "
}

# The fwd-rss scenarios' host checker (check_fwd_rss.py) on the four records, the capture and the apps' logs, with the
# apps' constants from vm_constants; the scenario's own options (--drain, --packets, ...) come as arguments.
check_fwd_rss() {   # check_fwd_rss OPTION...
	local modified_byte port_base port_step port_mod
	"$build_dir/test/vm/vm_constants" >"$out/constants.txt"
	modified_byte=$(total "$out/constants.txt" constants fwd_modified_byte)
	port_base=$(total "$out/constants.txt" constants flow_port_base)
	port_step=$(total "$out/constants.txt" constants flow_port_step)
	port_mod=$(total "$out/constants.txt" constants flow_port_mod)
	python3 "$here/check_fwd_rss.py" "$@" --host-a "$out/host-a.pcap" --host-b "$out/host-b.pcap" \
		--host-c "$out/host-c.pcap" --host-d "$out/host-d.pcap" --guest "$out/guest/capture.pcap" \
		--fwd-log "$out/guest/fwd.log" --pktgen-log "$out/guest/pktgen.log" --pcap-log "$out/guest/pcap.log" \
		--queues "$queues" --flows 64 --modified-byte "${modified_byte:-45}" \
		--flow-port-base "${port_base:-x}" --flow-port-step "${port_step:-x}" --flow-port-mod "${port_mod:-x}" \
		--nic-a "$nic_a" --nic-b "$nic_b" --nic-c "$nic_c" --nic-d "$nic_d" >"$out/check.txt" 2>&1
	expect_checker "$out/check.txt" "check_fwd_rss.py" $?
	# Least privilege in each of ixy-fwd's threads, read from every /proc/<pid>/task/*/status while they forwarded
	# (scenario-fwd-rss.sh): one task per queue, each under the seccomp filter, as user ixy, with no capability.
	sed 's/^/  /' "$out/guest/status.txt" 2>/dev/null
	expect "ixy-fwd's status was read from its $queues threads" \
		test "$(total "$out/guest/status.txt" "status app=ixy-fwd" tasks)" = "$queues"
	local key
	for key in seccomp=2 no_new_privs=1 uid=1000 euid=1000 cap_eff=0 cap_prm=0; do
		expect "every thread of ixy-fwd ran with $key" \
			test "$(total "$out/guest/status.txt" "status app=ixy-fwd" "${key%=*}")" = "${key#*=}"
	done
}

# The fwd-rss scenarios through VFIO (--vfio): setup-vfio.sh's hand-over and return, every NIC reached through VFIO by
# DRIVER, and --wait 1000 (ixy-fwd's explicitly, ixy-pcap's default) with each RX queue on its own MSI-X vector (queue i, vector i): each of
# ixy-fwd's threads sleeps on queue i of B and C until frames come, and B's vector i wakes it; ixy-pcap sleeps on D's
# 4 queues. A waiter line counts a device queue's interrupts as interrupts/<pci>/<queue>=<n>.
vfio_queue_checks() {   # vfio_queue_checks DRIVER QUEUES
	local pci i count
	guest_checks
	for pci in "$nic_a" "$nic_b" "$nic_c" "$nic_d"; do
		expect "ixy reached $pci through VFIO" grep -q "^ixy: $pci: $1 driver, device reached through VFIO$" \
			"$out"/guest/pktgen.log "$out"/guest/fwd.log "$out"/guest/pcap.log
	done
	for i in $(seq 0 $(($2 - 1))); do
		count=$(grep -o "^waiter app=ixy-fwd .* interrupts/$nic_b/$i=[0-9]*" "$out/guest/fwd.log" | sed 's/.*=//')
		expect "B's RX queue $i raised its own interrupt (vector $i): ${count:-no} interrupts" test "${count:-0}" -gt 0
	done
	for i in 0 1 2 3; do
		count=$(grep -o "^waiter app=ixy-pcap .* interrupts/$nic_d/$i=[0-9]*" "$out/guest/pcap.log" | sed 's/.*=//')
		expect "D's RX queue $i raised its own interrupt (vector $i): ${count:-no} interrupts" test "${count:-0}" -gt 0
	done
}

# Packed virtqueues (issue 29), for every scenario: each NIC of a packed kind (modern-packed, modern-mq-packed) was
# opened by ixy at least once, and each time bit 34 (VIRTIO_F_RING_PACKED, VirtIO 1.1, 6) of the features it
# negotiated was set; with --env IXY_VIRTIO_SPLIT=1 clear (split rings asked for). The datum is the features value of
# ixy's init line ("<pci>: VirtIO ... interface, ..., features 0x<hex>, ..."), which guest-init.sh reports as
# "IXY-VM: virtio pci=<pci> features=0x<hex>" for every such line in the apps' logs.
packed_checks() {
	local i pci want=1 layout=packed state=set values=() value bits
	[[ " ${envs[*]} " = *" IXY_VIRTIO_SPLIT=1 "* ]] && want=0 layout=split state=clear
	for i in 0 1 2 3; do
		case "${kinds[$i]}" in *-packed) ;; *) continue ;; esac
		pci=${nic_addrs[$i]}
		mapfile -t values < <(tr -d '\r' <"$out/console.log" |
			sed -n "s/^IXY-VM: virtio pci=$pci features=0x\([0-9a-f]\{1,16\}\)$/\1/p")
		bits=
		for value in "${values[@]}"; do bits="$bits$(((16#$value >> 34) & 1))"; done
		expect "ixy opened $pci (${kinds[$i]}) and named the features it negotiated: ${#values[@]} init line(s)" \
			test ${#values[@]} -gt 0
		expect "ixy negotiated $layout virtqueues on $pci (${kinds[$i]}): bit 34 $state in features ${values[*]/#/0x}" \
			test -n "$bits" -a -z "${bits//$want/}"
	done
}

echo
say "results"
expect "QEMU ran within $time_limit s and the guest finished" marker "done"
checks
packed_checks
echo "vm ($scenario, $mode, ${elapsed}s): $passed passed, $failed failed"
# A failed run boots again, at most three boots in all, if the emulator failed rather than ixy, by one of four
# signatures (a CI run here saw the RCU stall twice in a row on vm_igb_fwd_rss4, 4 vCPUs on 2 host CPUs; of 8 runs
# alone, 2 needed a second boot): a vCPU that lost its timer interrupts (above), QEMU's TCG aborting in its memory map
# lookup (seen under load with 4 vCPUs while the guest enumerated PCI: "iotlb_to_section: Assertion `section_index <
# d->map.sections_nb' failed"), or the guest kernel giving up at boot, long before /init and ixy, because the emulated
# timer did not tick in time for its check (seen with the IOMMU, 4 vCPUs and a host load of 13: "Kernel panic - not
# syncing: timer doesn't work through Interrupt-remapped IO-APIC"). A fourth: the guest kernel hung a task of its own
# while the NICs went to vfio-pci (guest-init.sh's hand_over_to_vfio, sysfs writes only), before any ixy program ran:
# the handover never printed its last marker (seen once, vm_vfio_igb_fwd_rss2 with 4 vCPUs: "INFO: task
# setup-vfio.sh:175 blocked for more than 120 seconds", nothing after it). Any other QEMU assertion (a device model's,
# which a driver's register writes might reach), stall, hang or panic fails the test. Each failed boot's console is kept
# as console-boot-<n>.log.
fault=
grep -q "$stall_pattern" "$out/console.log" && fault="a vCPU took no timer interrupts (RCU stall)"
grep -q "Kernel panic - not syncing: timer doesn't work through Interrupt-remapped IO-APIC" "$out/console.log" &&
	! marker "booted" && fault="the guest kernel found no timer at boot"
[ "$qemu_rc" = 134 ] && grep -q "^qemu-system-x86_64: .*iotlb_to_section: Assertion .* failed" "$out/console.log" &&
	fault="QEMU's TCG aborted in iotlb_to_section"
grep -q "INFO: task setup-vfio.sh:[0-9]* blocked for more than" "$out/console.log" &&
	! marker "locked-memory limit for user ixy" && fault="the guest kernel hung handing the NICs to vfio-pci, before ixy ran"
boot=${IXY_VM_BOOT:-1}
if [ $failed != 0 ] && [ -n "$fault" ] && [ "$boot" -lt 3 ]; then
	say "the emulator failed, not ixy ($fault): booting again (boot $((boot + 1)) of at most 3)"
	earlier=$(mktemp -d /tmp/ixy-vm-consoles.XXXXXX)
	cp "$out"/console-boot-*.log "$earlier/" 2>/dev/null || true
	cp "$out/console.log" "$earlier/console-boot-$boot.log"
	IXY_VM_BOOT=$((boot + 1)) IXY_VM_EARLIER_CONSOLES=$earlier exec "$0" "${all_args[@]}"
fi
[ $failed = 0 ]
