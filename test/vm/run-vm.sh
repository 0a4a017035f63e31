#!/usr/bin/env bash
# The VM tests: boots the test guest under QEMU (TCG, never KVM) with four NICs A, B, C, D and checks what ixy did
# there. One scenario per boot (guest-init.sh runs test/vm/scenario-<name>.sh in the guest):
#
#   run-vm.sh --build-dir DIR [--scenario NAME] [--mode bare|kmod] [--nics KINDS] [--iommu] [--vfio]
#             [--env VAR=VALUE]... [--packets N] [--soak-seconds N] [--out DIR] [--cache DIR]
#
#   e2e (default)  vm_selftest on A and B, then ixy-pcap on D, ixy-fwd on B and C, ixy-pktgen on A;
#                  check_capture.py compares the guest's capture with the host's records. --mode kmod loads the
#                  kernel's drivers first, so ixy must unbind them.
#   bad-inputs     each app with bad inputs: one message, exit code 2 or 1, nothing changed (always kmod; adds an
#                  e1000 NIC that no ixy driver supports). Writes OUT/bad-inputs.md, the cases and messages.
#   in-use         NICs whose kernel interface is up or has an address are refused, unless IXY_FORCE=1 (kmod).
#   quiet          after each app ends, its devices are reset, their queues unset and bus mastering is off, and
#                  traffic sent to them afterwards (from two kernel-driven NICs, E and F) changes nothing.
#   soak           --soak-seconds (default 120) of traffic through all apps; check_soak.py accounts for every
#                  packet with the apps' counters and QEMU's records of the wire, and checks the mempool reports.
#   vfio-bad-inputs  what VFIO cannot give is refused with one message and changes nothing (kmod; with --iommu four
#                  more NICs: E legacy-only, F modern without iommu_platform, G and H in one IOMMU group; without
#                  --iommu: no IOMMU). Writes OUT/bad-inputs.md.
#   interrupts     (--vfio) idle ixy-pcap and ixy-fwd use under 2% of a CPU (--wait), bursts of 1 to 1000 packets from
#                  vm_burst reach ixy-pcap's capture complete and in order within a second.
#   confine        a NIC given memory outside ixy's DMA memory (vm_confine): with --vfio the IOMMU stops it (the
#                  secret never reaches the wire, a receive does not land, the kernel logs the fault); without, the
#                  control shows that the same checks see a DMA that got through (check_confine.py).
#   bench-interrupts  (--vfio --host-ends) a benchmark: ixy-fwd --poll against --wait, alone on the vCPU, under the load
#                  of a source on the host, alternating runs (bench/interrupts.sh).
#   trace          (a build with -DIXY_TRACE=ON; --nics igb,modern,legacy,igb) ixy-pktgen's register trace on QEMU's
#                  igb, modern and legacy VirtIO NICs: names from the tables, the init in the datasheet's or spec's order.
#   bench-fwd      a benchmark: ixy-fwd B -> C under ixy-pktgen's load (bench/vm-fwd.sh alternates builds between
#                  boots).
#   bench-peers    (kmod) a benchmark: ixy-fwd, the Linux bridge, afpacket_fwd and DPDK's testpmd (if the host has
#                  it) forwarding B -> C in turn, with ixy-pktgen on A as the source and ixy-pcap on D as the sink
#                  (bench/peers.sh).
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
#   igb           an Intel 82576 (QEMU's igb, 8086:10c9) behind a PCIe root port, driven by ixy's igb driver; the
#                 e2e also checks its statistics registers (the apps' totals) against the host's records
# With only legacy NICs the machine is QEMU's i440FX PC and the NICs sit in slots 8-11 of bus 0 (0000:00:08.0 ...);
# otherwise it is a q35 machine: legacy and transitional NICs in the same slots of its root complex, modern and igb
# ones each behind a pcie-root-port, on buses 1, 2, ... in the order A-D. --env passes a variable to every app.
# --iommu adds QEMU's emulated Intel IOMMU (q35 only; the guest kernel gets intel_iommu=on), and modern VirtIO NICs
# send their DMA through it (iommu_platform=on, VIRTIO_F_ACCESS_PLATFORM). --vfio (implies --iommu and kmod): before
# the scenario, scripts/setup-vfio.sh hands the four NICs to user "ixy" (uid 1000), and the scenario runs the apps as
# that user: ixy reaches the NICs through VFIO. Afterwards setup-vfio.sh --undo gives them back.
#
# Network (nothing reaches the host's network). e2e, confine and the benchmarks: A and B, and C and D, are joined by
# pairs of UDP sockets on 127.0.0.1: frames keep their order (a QEMU hub reorders them when a NIC's RX ring is full).
# interrupts: by pairs of Unix datagram sockets, which also lose nothing (the sender waits while the receiver's ring
# is full). --host-ends B,SOURCE,C,SINK (bench-peers and bench-interrupts only): NIC B receives on UDP port B from a source on the host
# at port SOURCE, NIC C sends from port C to a sink on the host at port SINK (bench/peers.sh --host-ends); A and D
# are joined to each other and unused. Other scenarios: A and B on QEMU hub 0, C and D on hub 1; each hub also has a
# UDP socket port sending to 127.0.0.1:9 (discard), which always accepts frames, so that a hub never stalls its sender
# while a guest receiver is busy. QEMU's filter-dump records, on the host, what crosses a NIC's netdev: an observer
# the guest cannot fake. (A netdev filter's "rx" queue holds what the NIC sends, its "tx" queue what the network
# passes to the NIC.)
#
# The guest's own checks arrive as "IXY-VM: PASS|FAIL ..." lines. Exit: 0 passed, 1 failed, 77 skipped (not root,
# or QEMU cannot be installed).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
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
usage="usage: $0 --build-dir DIR [--scenario e2e|bad-inputs|in-use|quiet|soak|vfio-bad-inputs|interrupts|bench-interrupts|bench-fwd|bench-peers|confine|trace] [--mode bare|kmod] [--nics KINDS] [--iommu] [--vfio] [--env VAR=VALUE]... [--packets N] [--soak-seconds N] [--out DIR] [--cache DIR] [--host-ends B,SOURCE,C,SINK]"
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
		*) echo "$usage" >&2; exit 2 ;;
	esac
done
[ -n "$build_dir" ] || { echo "run-vm.sh: --build-dir is required" >&2; exit 2; }
case "$scenario" in
	e2e) mode=${mode:-bare} ;;
	bad-inputs | in-use | vfio-bad-inputs) mode=${mode:-kmod} ;; # kernel drivers bound: the state to leave alone
	quiet | soak) mode=${mode:-bare} ;;
	interrupts | bench-interrupts)
		mode=${mode:-kmod}
		[ $vfio = yes ] || { echo "run-vm.sh: the interrupts scenario needs --vfio (ixy has interrupts only there)" >&2; exit 2; }
		;;
	confine | bench-fwd | trace) mode=${mode:-bare} ;;
	bench-peers) mode=kmod ;; # the bridge and afpacket_fwd need the kernel's driver
	*) echo "$usage" >&2; exit 2 ;;
esac
case "$mode" in bare | kmod) ;; *) echo "run-vm.sh: --mode must be bare or kmod" >&2; exit 2 ;; esac
case "$scenario" in bench-peers | bench-interrupts) ;; *)
	[ -z "$host_ends" ] || { echo "run-vm.sh: --host-ends is for bench-peers and bench-interrupts" >&2; exit 2; } ;;
esac
[ $vfio = yes ] && mode=kmod # setup-vfio.sh takes the NICs from their kernel driver
case "$soak_s" in '' | *[!0-9]*) echo "run-vm.sh: --soak-seconds must be a number" >&2; exit 2 ;; esac
IFS=, read -r -a kinds <<<"$nics"
[ ${#kinds[@]} = 1 ] && kinds=("${kinds[0]}" "${kinds[0]}" "${kinds[0]}" "${kinds[0]}")
[ ${#kinds[@]} = 4 ] || { echo "run-vm.sh: --nics takes one kind or four, separated by commas" >&2; exit 2; }
machine=pc
for kind in "${kinds[@]}"; do
	case "$kind" in
		legacy | legacy-chain) ;;
		transitional | modern | modern-no-msix | igb) machine=q35 ;;
		*) echo "run-vm.sh: unknown NIC kind '$kind' (legacy, legacy-chain, transitional, modern, modern-no-msix, igb)" >&2; exit 2 ;;
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
# Seconds for the whole QEMU run: boot takes about 5 s under TCG, every scenario but the soak well under a minute.
time_limit=300
[ "$scenario" = soak ] && time_limit=$((soak_s + 150))
case "$scenario" in bench-peers | bench-interrupts) time_limit=1200 ;; esac # the scripts choose their runs' length
if [ "$scenario" = e2e ]; then
	out=${out:-$build_dir/vm-$mode}
else
	out=${out:-$build_dir/vm-$scenario}
fi

say() { echo "run-vm: $*"; }

if [ "$(id -u)" != 0 ]; then
	say "SKIP: needs root (installs packages, boots QEMU)"
	exit 77
fi
if ! "$src/scripts/install-qemu.sh"; then   # QEMU 10 from bookworm-backports: igb, modern-only VirtIO, IOMMU
	say "SKIP: cannot install a QEMU with igb (scripts/install-qemu.sh)"
	exit 77
fi
need=()
{ command -v busybox >/dev/null && ! readelf -l "$(command -v busybox)" | grep -q INTERP; } || need+=(busybox-static)
command -v cpio >/dev/null || need+=(cpio)
if [ ${#need[@]} -gt 0 ]; then
	say "installing ${need[*]}"
	if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"; } >/dev/null 2>&1; then
		say "SKIP: cannot install ${need[*]}"
		exit 77
	fi
fi

rm -rf "$out"
mkdir -p "$out/guest"
guest_options=()
[ "$scenario" = bench-peers ] && command -v dpdk-testpmd >/dev/null && guest_options+=(--with-testpmd)
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
qemu_args=(-machine $machine -nodefaults -accel tcg -m 512 -smp 1 -display none -monitor none -no-reboot
	-serial stdio -serial "file:$out/serial1.txt" -kernel "$out/vmlinuz" -initrd "$out/initrd.gz")
# DPDK's testpmd (bench-peers) needs SSE4.2, which QEMU's default CPU model lacks: TCG's "max" model has it. For all
# peers of that benchmark alike.
[ "$scenario" = bench-peers ] && qemu_args+=(-cpu max)
kernel_iommu=
if [ $iommu = yes ]; then
	qemu_args+=(-device intel-iommu) # before the devices it translates for
	kernel_iommu=intel_iommu=on
fi
next_slot=8     # the next free slot of bus 0 for a NIC in the root complex
next_port=1     # the next PCIe root port (slot 0x10 + n, secondary bus n)
nic_addrs=()
nic() {   # nic NETDEV KIND MAC: a NIC of that kind on that netdev; appends its PCI address to nic_addrs
	local device addr
	case "$2" in
		legacy) device="virtio-net-pci,disable-modern=on,romfile=" ;;
		legacy-chain) device="virtio-net-pci,disable-modern=on,any_layout=off,romfile=" ;;
		transitional) device="virtio-net-pci,romfile=" ;;
		modern) device="virtio-net-pci,disable-legacy=on,disable-modern=off,romfile=" ;;
		modern-no-msix) device="virtio-net-pci,disable-legacy=on,disable-modern=off,vectors=0,romfile=" ;;
		igb) device="igb,romfile=" ;;
	esac
	[ "${2%-no-msix}" = modern ] && [ $iommu = yes ] && device="$device,iommu_platform=on"
	if [ "${2%-no-msix}" = modern ] || [ "$2" = igb ]; then
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
if [ "$scenario" = interrupts ]; then
	# Unix datagram sockets lose nothing: a full receiving socket makes the sender's QEMU wait (EAGAIN) instead of
	# dropping, as UDP does. With UDP, what the host's socket buffer could not hold while a woken-up app drained its
	# ring was lost: the host's timing, not ixy's (a burst of 1000 lost 70-680 frames on a busy machine). (A stream
	# pair within one QEMU froze the guest once the socket filled.)
	# (A short directory: a socket's path has at most 107 bytes, $out can be longer.)
	sock_dir=$(mktemp -d /tmp/ixy-vm.XXXXXX) || exit 1
	trap 'rm -rf "$sock_dir"' EXIT
	unix_pair nic_a nic_b "$sock_dir"
	unix_pair nic_c nic_d "$sock_dir"
elif [ -n "$host_ends" ]; then
	# B receives from a source on the host and C sends to a sink there (bench/peers/host_ends); A and D, unused, are
	# joined to each other.
	IFS=, read -r he_b he_source he_c he_sink <<<"$host_ends"
	qemu_args+=(-netdev "socket,id=nic_b,udp=127.0.0.1:$he_source,localaddr=127.0.0.1:$he_b"
		-netdev "socket,id=nic_c,udp=127.0.0.1:$he_sink,localaddr=127.0.0.1:$he_c")
	socket_pair nic_a "$port_a" nic_d "$port_d"
	envs+=(IXY_BENCH_HOST_ENDS=1)
elif [ "$scenario" = e2e ] || [ "$scenario" = bench-interrupts ] || [ "$scenario" = bench-peers ] ||
	[ "$scenario" = confine ] || [ "$scenario" = bench-fwd ]; then
	socket_pair nic_a "$port_a" nic_b "$port_b"
	socket_pair nic_c "$port_c" nic_d "$port_d"
else
	hub nic_a 0
	hub nic_b 0
	hub nic_c 1
	hub nic_d 1
	qemu_args+=(
		-netdev "socket,id=sink0,udp=127.0.0.1:9,localaddr=127.0.0.1:$port0" -netdev "hubport,id=hub0_sink,hubid=0,netdev=sink0"
		-netdev "socket,id=sink1,udp=127.0.0.1:9,localaddr=127.0.0.1:$port1" -netdev "hubport,id=hub1_sink,hubid=1,netdev=sink1")
fi
nic nic_a "${kinds[0]}" $mac_a
nic nic_b "${kinds[1]}" $mac_b
nic nic_c "${kinds[2]}" 52:54:00:12:34:0c
nic nic_d "${kinds[3]}" 52:54:00:12:34:0d
nic_a=${nic_addrs[0]} nic_b=${nic_addrs[1]} nic_c=${nic_addrs[2]} nic_d=${nic_addrs[3]}
# The VirtIO interface ixy must pick for each NIC (its init line says which): modern where the NIC has it, unless
# IXY_VIRTIO_LEGACY=1.
force_legacy=no
for env in "${envs[@]}"; do [ "$env" = IXY_VIRTIO_LEGACY=1 ] && force_legacy=yes; done
expected_interface() {
	case "$1" in
		legacy | legacy-chain) echo legacy ;;
		transitional) [ $force_legacy = yes ] && echo legacy || echo modern ;;
		modern | modern-no-msix) echo modern ;;
		igb) echo igb ;;
	esac
}
# Descriptors per packet ixy must use (src/driver/virtio.c): two only where the device offers neither VERSION_1
# (modern) nor ANY_LAYOUT (QEMU's legacy interface offers it unless any_layout=off).
expected_descriptors() { [ "$1" = legacy-chain ] && echo 2 || echo 1; }
kernel_driver_of() { [ "$1" = igb ] && echo igb || echo virtio-pci; }
counters=()
extra=
case "$scenario" in
	e2e)
		dump nic_a rx "$out/host-a.pcap"
		dump nic_c rx "$out/host-c.pcap"
		dump nic_d tx "$out/host-d.pcap"
		;;
	bad-inputs)
		# An Intel 82540EM (8086:100e), a NIC no ixy driver supports; alone on hub 2. The guest has no e1000 module.
		hub nic_e1000 2
		qemu_args+=(-device "e1000,netdev=nic_e1000,addr=$(printf 0x%x $next_slot),mac=52:54:00:12:34:0e,romfile=")
		extra="ixy_e1000=$(printf '0000:00:%02x.0' $next_slot)"
		;;
	vfio-bad-inputs)
		if [ $iommu = yes ]; then
			# E legacy-only in the root complex; F modern without iommu_platform behind a root port of its own;
			# G and H behind one PCIe-to-PCI bridge, which puts them into one IOMMU group. Alone on hub 2.
			hub nic_e 2
			hub nic_f 2
			hub nic_g 2
			hub nic_h 2
			nic nic_e legacy 52:54:00:12:34:0e
			qemu_args+=(-device "pcie-root-port,id=port$next_port,chassis=$next_port,addr=$(printf 0x%x $((0x10 + next_port)))"
				-device "virtio-net-pci,netdev=nic_f,mac=52:54:00:12:34:0f,bus=port$next_port,disable-legacy=on,romfile=")
			nic_f=$(printf '0000:%02x:00.0' $next_port)
			qemu_args+=(-device "pcie-pci-bridge,id=bridge,addr=0x1c"
				-device "virtio-net-pci,netdev=nic_g,mac=52:54:00:12:34:10,bus=bridge,addr=0x1,disable-modern=on,romfile="
				-device "virtio-net-pci,netdev=nic_h,mac=52:54:00:12:34:11,bus=bridge,addr=0x2,disable-modern=on,romfile=")
			bridge_bus=$((next_port + 1))
			extra="ixy_nic_e=${nic_addrs[4]} ixy_nic_f=$nic_f ixy_nic_g=$(printf '0000:%02x:01.0' $bridge_bus) ixy_nic_h=$(printf '0000:%02x:02.0' $bridge_bus)"
		fi
		;;
	confine) dump nic_a rx "$out/host-a.pcap" ;;
	quiet)
		# E and F, driven by the guest kernel, send traffic towards the stopped NICs on hub 0 and hub 1.
		hub nic_e 0
		hub nic_f 1
		nic nic_e "$([ $machine = pc ] && echo legacy || echo transitional)" 52:54:00:12:34:0e
		nic nic_f "$([ $machine = pc ] && echo legacy || echo transitional)" 52:54:00:12:34:0f
		extra="ixy_nic_e=${nic_addrs[4]} ixy_nic_f=${nic_addrs[5]}"
		dump nic_b tx "$out/host-b.pcap"
		dump nic_d tx "$out/host-d.pcap"
		;;
	soak)
		# Millions of frames: QEMU writes each record into a pipe whose reader only counts the bytes. Every frame is
		# 60 bytes, so a record is 16 + 60 bytes after the 24 byte file header. a: what NIC A sends, b: what hub 0
		# passes to NIC B, c: what NIC C sends, d: what hub 1 passes to NIC D.
		for point in a:nic_a:rx b:nic_b:tx c:nic_c:rx d:nic_d:tx; do
			IFS=: read -r name netdev queue <<<"$point"
			mkfifo "$out/host-$name.fifo"
			wc -c <"$out/host-$name.fifo" >"$out/host-$name.bytes" &
			counters+=($!)
			dump "$netdev" "$queue" "$out/host-$name.fifo"
		done
		;;
esac
env_words=
for env in "${envs[@]}"; do env_words="$env_words ixy_env=$env"; done
qemu_args+=(-append "console=ttyS0 quiet panic=-1 $kernel_iommu ixy_scenario=$scenario ixy_mode=$mode ixy_packets=$packets \
ixy_soak=$soak_s ixy_mac_a=$mac_a ixy_mac_b=$mac_b ixy_nics=$nic_a,$nic_b,$nic_c,$nic_d ixy_kinds=$nics ixy_vfio=$vfio \
ixy_not_nics=$not_nics $extra$env_words")
say "booting the guest (scenario $scenario, mode $mode, NICs ${kinds[*]} on $machine, IOMMU $iommu, VFIO $vfio, TCG," \
	"at most $time_limit s); console:"
start=$(date +%s)
timeout --kill-after=10 $time_limit qemu-system-x86_64 "${qemu_args[@]}" </dev/null 2>&1 | tee "$out/console.log"
qemu_rc=${PIPESTATUS[0]}
elapsed=$(($(date +%s) - start))
say "QEMU exited with $qemu_rc after $elapsed s"
for point in a b c d; do   # a counter still waiting for QEMU to open its pipe: QEMU never started
	[ -p "$out/host-$point.fifo" ] && timeout 1 sh -c ": >'$out/host-$point.fifo'" 2>/dev/null
done
for pid in "${counters[@]}"; do
	wait "$pid"
done
rm -f "$out"/host-?.fifo

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

confine_checks() {
	local verdict
	verdict=$(python3 "$here/check_confine.py" "$out/host-a.pcap" 2>&1)
	echo "$verdict" | sed 's/^/  /'
	expect "vm_confine tx exited 0" marker "vm_confine tx exit 0$"
	expect "vm_confine rx exited 0" marker "vm_confine rx exit 0$"
	expect "the host saw each marker frame once" grep -qx "marker frames: before 1, after 1" <<<"$verdict"
	# Between the markers: exactly one frame, the NIC's 60-byte read of the secret memory.
	local between
	between=$(grep "^between the markers:" <<<"$verdict")
	if [ $vfio = yes ]; then
		expect "no byte of the unmapped secret memory reached the wire" grep -q "^secret bytes on the wire: 0$" <<<"$verdict"
		expect "the IOMMU gave the NIC zeros for the unmapped frame: one frame of zeros between the markers" \
			test "$between" = "between the markers: a frame of 60 bytes, all zeros"
	else
		expect "control: the secret reached the wire through sysfs" grep -q "^secret bytes on the wire: [1-9]" <<<"$verdict"
		expect "control: the secret frame, alone between the markers" \
			test "$between" = "between the markers: a frame of 60 bytes, secret"
	fi
}

e2e_checks() {
	expect "driver self test passed" marker "selftest exit 0$"
	grep -E "passed, .* failed|CHECK|selftest:" "$out/guest/selftest.log" 2>/dev/null | sed 's/^/  selftest: /'
	local i pci interface access=sysfs
	[ $vfio = yes ] && access=VFIO
	if [ "$mode" = kmod ] && [ $vfio = no ]; then
		for i in 0 1 2 3; do
			pci=${nic_addrs[$i]}
			expect "kernel driver $(kernel_driver_of "${kinds[$i]}") was bound to $pci before ixy took it" \
				marker "kernel driver of $pci: $(kernel_driver_of "${kinds[$i]}")"
		done
		expect "ixy unbound the kernel driver of all four NICs" \
			test "$(cat "$out"/guest/*.log 2>/dev/null | grep -c 'unbound the kernel driver')" = 4
	fi
	for i in 0 1 2 3; do
		pci=${nic_addrs[$i]}
		interface=$(expected_interface "${kinds[$i]}")
		if [ "$interface" = igb ]; then
			expect "ixy drove $pci (igb) with its igb driver" \
				grep -q "^ixy: $pci: igb driver, device reached through" "$out"/guest/pcap.log "$out"/guest/fwd.log "$out"/guest/pktgen.log
		else
			expect "ixy drove $pci (${kinds[$i]}) through the $interface interface" \
				grep -q "^ixy: $pci: VirtIO $interface interface" "$out"/guest/pcap.log "$out"/guest/fwd.log "$out"/guest/pktgen.log
			descriptors=$(expected_descriptors "${kinds[$i]}")
			expect "ixy put each packet of $pci (${kinds[$i]}) in $descriptors descriptor(s)" \
				grep -q "^ixy: $pci: VirtIO .*, $descriptors descriptor(s) per packet$" "$out"/guest/pcap.log "$out"/guest/fwd.log "$out"/guest/pktgen.log
		fi
		expect "ixy reached $pci through $access" \
			grep -q "^ixy: $pci: .* driver, device reached through $access$" "$out"/guest/pcap.log "$out"/guest/fwd.log "$out"/guest/pktgen.log
		if [ "${kinds[$i]}" = modern-no-msix ] && [ $vfio = yes ]; then
			expect "ixy polls $pci, which has no MSI-X, and says so" \
				grep -q "^ixy: $pci: no MSI-X vector for each of its 1 RX queue(s): it is polled$" "$out"/guest/pcap.log "$out"/guest/fwd.log
		fi
	done
	# An app that waits on a NIC without MSI-X never sleeps (its waiter's summary line), and forwards or captures
	# every packet all the same (check_capture.py below).
	if [ $vfio = yes ] && [ "${kinds[1]}" = modern-no-msix ]; then
		expect "ixy-fwd, asked to wait, polled B: its waiter slept 0 times" grep -q "^waiter: slept 0 times" "$out/guest/fwd.log"
	fi
	if [ $vfio = yes ] && [ "${kinds[3]}" = modern-no-msix ]; then
		expect "ixy-pcap, asked to wait, polled D: its waiter slept 0 times" grep -q "^waiter: slept 0 times" "$out/guest/pcap.log"
	fi
	expect "receivers started before the generator" marker "receivers running"
	expect "ixy-pcap captured $packets packets and exited 0" marker "pcap exit 0$"
	expect "ixy-fwd stopped cleanly on SIGINT" marker "fwd exit 0$"
	expect "ixy-pktgen stopped cleanly on SIGINT" marker "pktgen exit 0$"
	show_app_logs

	# The byte ixy-fwd changes (FWD_MODIFIED_BYTE in apps/), and what the apps say they sent (their last lines, see
	# apps/*.c).
	local modified_byte sent forwarded claims=() checker_rc
	modified_byte=$(cat "$src"/apps/*.[ch] | sed -n 's/^#define FWD_MODIFIED_BYTE \([0-9][0-9]*\).*/\1/p' | head -1)
	sent=$(sed -n 's/^\[.*\] sent \([0-9][0-9]*\) packets.*/\1/p' "$out/guest/pktgen.log" 2>/dev/null)
	expect "ixy-pktgen printed how many packets it sent" test -n "$sent"
	[ -n "$sent" ] && claims+=(--pktgen-sent "$sent")
	forwarded=$(sed -n "s/^$nic_b -> $nic_c: forwarded \\([0-9][0-9]*\\) .*/\\1/p" "$out/guest/fwd.log" 2>/dev/null)
	expect "ixy-fwd printed how many packets it forwarded from $nic_b to $nic_c" test -n "$forwarded"
	[ -n "$forwarded" ] && claims+=(--fwd-forwarded "$forwarded")
	# The totals of NICs with statistics registers (igb; src/stats.c print_stats_total): A's and C's TX, B's and D's
	# RX. "total: RX <pkts> packets <bytes> bytes, TX <pkts> packets <bytes> bytes, ..."
	total_of() {   # total_of LOG PCI FIELDS: FIELDS of sed's groups 1-4 (RX pkts, RX bytes, TX pkts, TX bytes)
		sed -n "s/^\[$2\] total: RX \([0-9]*\) packets \([0-9]*\) bytes, TX \([0-9]*\) packets \([0-9]*\) bytes.*/$3/p" \
			"$out/guest/$1.log" 2>/dev/null | head -1
	}
	# For igb NICs the comparison is mandatory: a total line that does not parse fails.
	counter_claim() {   # counter_claim NIC OPTION LOG FIELDS
		local i=$1 counters
		[ "${kinds[$i]}" = igb ] || return 0
		counters=$(total_of "$3" "${nic_addrs[$i]}" "$4")
		expect "ixy-$3 printed the total of ${nic_addrs[$i]}'s statistics registers" test -n "$counters"
		[ -n "$counters" ] && claims+=("$2" $counters)
	}
	counter_claim 0 --nic-a-tx pktgen '\3 \4'
	counter_claim 1 --nic-b-rx fwd '\1'
	counter_claim 2 --nic-c-tx fwd '\3 \4'
	counter_claim 3 --nic-d-rx pcap '\1'
	echo
	if [ -n "$modified_byte" ] && [ -f "$out/guest/capture.pcap" ]; then
		python3 "$here/check_capture.py" --host-a "$out/host-a.pcap" --host-c "$out/host-c.pcap" --host-d "$out/host-d.pcap" \
			--guest "$out/guest/capture.pcap" --packets "$packets" --modified-byte "$modified_byte" --src-mac $mac_a \
			"${claims[@]}" | sed 's/^/  packets: /'
		checker_rc=${PIPESTATUS[0]}
		expect "captured packets check out against the host's records" test "$checker_rc" = 0
	else
		expect "the guest sent its capture and apps/ defines FWD_MODIFIED_BYTE" false
	fi
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

# bad-inputs: the guest's table of cases (tab-separated: case, command, exit code, stderr with " | " between lines)
# as markdown, for the record.
bad_inputs_report() {
	local table=$out/guest/bad-inputs.tsv
	expect "the guest sent its table of bad inputs" test -s "$table"
	[ -s "$table" ] || return
	{
		echo "| case | command | exit | stderr |"
		echo "|---|---|---|---|"
		awk -F'\t' '{ gsub(/\|/, "\\|"); printf "| %s | `%s` | %s | %s |\n", $1, $2, $3, $4 }' "$table"
	} >"$out/bad-inputs.md"
	say "bad inputs and their messages: $out/bad-inputs.md"
}

# quiet: the host's record shows the frames the kernel-driven NICs E and F sent towards the stopped NICs.
quiet_checks() {
	local point count
	for point in b d; do
		count=$(python3 - "$out/host-$point.pcap" <<-'PY'
			import struct, sys
			data = open(sys.argv[1], "rb").read()
			pos, burst = 24, 0
			while pos + 16 <= len(data):
			    caplen = struct.unpack("<I", data[pos + 8:pos + 12])[0]
			    burst += data[pos + 16 + 6:pos + 16 + 12] == bytes.fromhex("020000000042")
			    pos += 16 + caplen
			print(burst)
		PY
		)
		expect "the host saw the burst (${count:-0} frames from the kernel's NIC) reach stopped NIC ${point^^}" \
			test "${count:-0}" -ge 10000
	done
}

soak_checks() {
	show_app_logs
	local args=() point
	for point in a b c d; do
		args+=("--host-$point-bytes" "$(cat "$out/host-$point.bytes" 2>/dev/null || echo 0)")
	done
	echo
	python3 "$here/check_soak.py" "${args[@]}" --pktgen-log "$out/guest/pktgen.log" --fwd-log "$out/guest/fwd.log" \
		--pcap-log "$out/guest/pcap.log" --soak-seconds "$soak_s" --summary "$out/soak-summary.txt" \
		--nics "$nic_a,$nic_b,$nic_c,$nic_d" | sed 's/^/  soak: /'
	expect "every packet accounted for, every mempool full again (check_soak.py)" test "${PIPESTATUS[0]}" = 0
}

echo
say "results"
expect "QEMU ran within $time_limit s and the guest finished" marker "done"
case "$scenario" in
	e2e) [ $vfio = yes ] && guest_checks; e2e_checks ;;
	bad-inputs | vfio-bad-inputs) guest_checks; bad_inputs_report ;;
	in-use | interrupts | bench-interrupts | bench-fwd | bench-peers | trace) guest_checks ;;
	confine) guest_checks; confine_checks ;;
	quiet) guest_checks; quiet_checks ;;
	soak) guest_checks; soak_checks ;;
esac

echo "vm ($scenario, $mode, ${elapsed}s): $passed passed, $failed failed"
[ $failed = 0 ]
