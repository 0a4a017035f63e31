#!/usr/bin/env bash
# Prepares a Debian machine for ixy, in steps. The Vagrant box (vagrant/Vagrantfile) runs all of them; the QEMU demo
# (scripts/run-vm-demo.sh) runs --packages and --build; CI (scripts/test.sh) runs --packages, --build and --hugepages
# in a debootstrap chroot, so the box's provisioning is exercised without VirtualBox or libvirt.
#
#   scripts/provision.sh [--packages] [--build DIR [--target NAME]...] [--hugepages N [--apply]] [--show-nics]
#
#   --packages      installs the Debian packages ixy needs to build and run (build-essential cmake pciutils
#                   tcpdump), only those that are missing
#   --build DIR     configures and builds ixy in DIR (Release, static apps, no sanitizers: the apps run anywhere);
#                   --target NAME builds only NAME (repeatable), otherwise everything
#   --hugepages N   reserves N 2 MiB huge pages at boot and mounts hugetlbfs at /mnt/huge (where ixy expects it) at
#                   boot: writes /etc/sysctl.d/80-ixy-hugepages.conf and an /etc/fstab line. Config files only:
#                   the running kernel is not touched unless --apply is given too
#   --apply         also reserves the pages and mounts hugetlbfs now (scripts/setup-hugetlbfs.sh). Refused in a
#                   chroot, or where that cannot be told (process 1's root not readable, as in many containers):
#                   there the running kernel is the host's
#   --show-nics     finds the VirtIO NICs ixy may take (PCI IDs 1af4:1000 legacy, 1af4:1041 modern) that are not
#                   the management NIC (no IPv4 address, not the default route) and prints the commands to run
#
# Steps run in the order above, whatever the order of the options. --packages and --hugepages need root.
# IXY_SYSFS_PCI (default /sys/bus/pci/devices) is where --show-nics looks; the tests point it at a fake tree.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/.." && pwd)

say() { echo "provision: $*"; }
die_usage() {
	echo "provision: $*" >&2
	echo "usage: $0 [--packages] [--build DIR [--target NAME]...] [--hugepages N [--apply]] [--show-nics]" >&2
	exit 2
}

do_packages=0
build_dir=
targets=()
hugepages=
apply=0
show_nics=0
[ $# -gt 0 ] || die_usage "no step given"
while [ $# -gt 0 ]; do
	case "$1" in
		--packages) do_packages=1; shift ;;
		--build)
			[ -n "${2:-}" ] || die_usage "--build needs a directory"
			build_dir=$2; shift 2 ;;
		--target)
			[ -n "${2:-}" ] || die_usage "--target needs a target name"
			targets+=("$2"); shift 2 ;;
		--hugepages)
			case "${2:-}" in '' | *[!0-9]*) die_usage "--hugepages needs a number of pages" ;; esac
			[ "$2" -gt 0 ] || die_usage "--hugepages needs at least one page"
			hugepages=$2; shift 2 ;;
		--apply) apply=1; shift ;;
		--show-nics) show_nics=1; shift ;;
		*) die_usage "unknown option $1" ;;
	esac
done
[ ${#targets[@]} = 0 ] || [ -n "$build_dir" ] || die_usage "--target without --build"
[ $apply = 0 ] || [ -n "$hugepages" ] || die_usage "--apply without --hugepages"

need_root() {
	[ "$(id -u)" = 0 ] || { echo "provision: $1 needs root" >&2; exit 1; }
}

# True when / is not the root of process 1, i.e. we run in a chroot (whose kernel is someone else's). Also true when
# that cannot be seen (no /proc, or process 1 is not ours to look at, as in many containers): assume the worst.
in_chroot() {
	[ -r /proc/1/root ] || return 0
	[ "$(stat -c %d:%i /)" != "$(stat -Lc %d:%i /proc/1/root)" ]
}

if [ $do_packages = 1 ]; then
	need_root --packages
	missing=()
	for package in build-essential cmake pciutils tcpdump; do
		dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		say "installing ${missing[*]}"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o Dpkg::Use-Pty=0 "${missing[@]}" >/dev/null
	fi
fi

if [ -n "$build_dir" ]; then
	say "building ixy in $build_dir"
	cmake -S "$source_dir" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DIXY_STATIC_APPS=ON -DIXY_SANITIZE=OFF >/dev/null
	target_args=()
	for target in "${targets[@]}"; do
		target_args+=(--target "$target")
	done
	cmake --build "$build_dir" -j2 "${target_args[@]}" >/dev/null
fi

if [ -n "$hugepages" ]; then
	need_root --hugepages
	if [ $apply = 1 ] && in_chroot; then
		echo "provision: --apply refused in a chroot (or where / cannot be compared with process 1's root):" \
			"the running kernel is the host's" >&2
		exit 1
	fi
	mkdir -p /etc/sysctl.d /mnt/huge
	printf '# Written by ixy scripts/provision.sh: huge pages for ixy DMA memory.\nvm.nr_hugepages = %s\n' "$hugepages" \
		>/etc/sysctl.d/80-ixy-hugepages.conf
	if ! grep -qs '^[^#]*[[:space:]]/mnt/huge[[:space:]]' /etc/fstab; then
		echo 'hugetlbfs /mnt/huge hugetlbfs defaults 0 0' >>/etc/fstab
	fi
	say "$hugepages huge pages and hugetlbfs at /mnt/huge from the next boot on"
	if [ $apply = 1 ]; then
		"$here/setup-hugetlbfs.sh" "$hugepages"
	fi
fi

if [ $show_nics = 1 ]; then
	sysfs=${IXY_SYSFS_PCI:-/sys/bus/pci/devices}
	default_if=$(ip -4 route show default 2>/dev/null | awk '{for (i = 1; i < NF; i++) if ($i == "dev") print $(i + 1)}')
	nics=()
	for dev in "$sysfs"/*; do
		[ -r "$dev/vendor" ] || continue
		[ "$(cat "$dev/vendor")" = 0x1af4 ] || continue
		case "$(cat "$dev/device")" in 0x1000 | 0x1041) ;; *) continue ;; esac
		# 0x1000 is also a transitional VirtIO NIC of any kind; the subsystem ID says network (1) for the legacy ID.
		if [ "$(cat "$dev/device")" = 0x1000 ] && [ -r "$dev/subsystem_device" ] &&
			[ "$(cat "$dev/subsystem_device")" != 0x0001 ]; then
			continue
		fi
		management=0
		for netdir in "$dev"/net/* "$dev"/virtio*/net/*; do
			[ -e "$netdir" ] || continue
			ifname=${netdir##*/}
			if [ "$ifname" = "$default_if" ] || ip -4 -o addr show dev "$ifname" 2>/dev/null | grep -q inet; then
				management=1
			fi
		done
		[ $management = 1 ] || nics+=("${dev##*/}")
	done
	if [ ${#nics[@]} -lt 2 ]; then
		say "found ${#nics[@]} VirtIO NIC(s) for ixy (${nics[*]:-none}), need two (lspci -nn shows what there is)" >&2
		exit 1
	fi
	apps=${build_dir:-$source_dir/build}/apps
	say "the VirtIO NICs for ixy: ${nics[*]}, joined by a private network. Run in two shells (vagrant ssh):"
	echo "  sudo $apps/ixy-pktgen ${nics[0]}"
	echo "  sudo $apps/ixy-pcap ${nics[1]} capture.pcap 10000"
fi
