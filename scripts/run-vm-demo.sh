#!/usr/bin/env bash
# Runs ixy for real without any NIC: builds ixy (in build/), boots a QEMU guest (software emulation) with four
# VirtIO NICs and runs the apps there: ixy-pktgen sends, ixy-fwd forwards, ixy-pcap captures. Shows the guest's
# console, the rates and totals the apps printed, and a check of every captured packet against what QEMU saw on
# its virtual wire. The work is done by test/vm/run-vm.sh (the end-to-end test); this script only builds first.
#
#   sudo scripts/run-vm-demo.sh [--transport legacy|modern] [--mode kmod] [--packets N]
#
# --transport modern gives the guest modern-only VirtIO NICs behind PCIe root ports on a q35 machine (as libvirt lays
# out VMs); legacy (the default) legacy-only NICs on a PC machine (as VirtualBox has). --mode kmod loads the guest
# kernel's VirtIO drivers first, as on a normal VM, so ixy has to unbind them.
# Needs root and a Debian-like system: installs build-essential, cmake, QEMU, busybox-static and cpio when missing, and
# fetches a Debian kernel package once (cached in /var/cache/ixy-vm). Takes about half a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
	echo "run-vm-demo: needs root (installs packages, boots QEMU); try: sudo $0" >&2
	exit 1
fi
# The packages and the build are the Vagrant box's provisioning steps (scripts/provision.sh), with the programs
# test/vm/build-guest.sh puts into the guest as targets.
scripts/provision.sh --packages --build build \
	--target ixy-pktgen --target ixy-fwd --target ixy-pcap \
	--target vm_selftest --target vm_probe --target vm_burst --target vm_confine --target vm_rss --target vm_rss_tap --target vm_constants --target afpacket_fwd
args=()
while [ $# -gt 0 ]; do
	case "$1" in
		--transport)
			case "${2:-}" in legacy | modern) args+=(--nics "$2") ;; *) echo "run-vm-demo: --transport legacy|modern" >&2; exit 2 ;; esac
			shift 2
			;;
		*) args+=("$1"); shift ;;
	esac
done
rc=0
test/vm/run-vm.sh --build-dir build --out build/vm-demo "${args[@]}" || rc=$?
if [ $rc = 77 ]; then
	echo "run-vm-demo: QEMU could not be installed" >&2
	exit 1
fi
echo "run-vm-demo: the guest's files (capture.pcap, the apps' logs) are in build/vm-demo/guest/,"
echo "run-vm-demo: QEMU's own records of the wire in build/vm-demo/host-a.pcap and host-d.pcap (tcpdump -r FILE)"
exit $rc
