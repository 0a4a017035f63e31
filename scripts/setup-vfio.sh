#!/bin/sh
# Hands a NIC over to a user for ixy through VFIO, or gives it back to its kernel driver. As root.
#
#   scripts/setup-vfio.sh <pci> [user]     bind the device to vfio-pci and give its IOMMU group to user (default:
#                                          the user who ran sudo, else root)
#   scripts/setup-vfio.sh --undo <pci>     unbind it from vfio-pci and let its kernel driver take it again
#
# Checks first, and changes nothing if any fails: the device exists and is a network controller, the IOMMU is on (the
# device has an IOMMU group, and not one of vfio's no-IOMMU mode), every other device of the group is bound to
# vfio-pci or to no driver, and the device's network interface is neither up nor has an IP address (someone uses it;
# IXY_FORCE=1 takes it anyway), as ixy_init itself refuses. Then it loads vfio-pci, binds the device, waits for
# /dev/vfio/<group>, gives it to the user, and says what locked-memory limit the user needs: the IOMMU mappings of
# ixy's DMA memory count as locked memory (RLIMIT_MEMLOCK, `ulimit -l`). Huge pages must be reserved as usual
# (scripts/setup-hugetlbfs.sh; no mount is needed for VFIO).
#
# POSIX sh: it also runs in ixy's busybox test guest.
set -eu

# Locked memory ixy needs per NIC with the default ring size, in KiB: each driver maps at most 8 huge pages of 2 MiB
# (rings and the receive pool), and an app maps a few more for its own packets (ixy-pktgen: 3).
KIB_PER_NIC=$((10 * 2048))

die() {
	echo "setup-vfio: $*" >&2
	exit 1
}
usage() {
	echo "usage: $0 <pci> [user] | --undo <pci>" >&2
	exit 2
}

undo=0
if [ "${1:-}" = --undo ]; then
	undo=1
	shift
fi
[ $# -ge 1 ] && [ $# -le $((2 - undo)) ] || usage
pci=$1
case "$pci" in
	[0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F]:[0-9a-fA-F][0-9a-fA-F]:[0-9a-fA-F][0-9a-fA-F].[0-7]) ;;
	*) die "'$pci' is not a PCI address like 0000:03:00.0" ;;
esac
[ "$(id -u)" = 0 ] || die "must run as root"
dev=/sys/bus/pci/devices/$pci
[ -e "$dev/config" ] || die "no PCI device $pci (lspci -D lists the devices)"

driver_of() { # the driver bound to a PCI device, empty if none
	[ -e "/sys/bus/pci/devices/$1/driver" ] && basename "$(readlink "/sys/bus/pci/devices/$1/driver")" || true
}

if [ $undo = 1 ]; then
	[ "$(driver_of "$pci")" = vfio-pci ] || die "$pci is not bound to vfio-pci (driver: $(driver_of "$pci"))"
	echo >"$dev/driver_override"
	echo "$pci" >"/sys/bus/pci/drivers/vfio-pci/unbind"
	echo "$pci" >/sys/bus/pci/drivers_probe
	echo "setup-vfio: $pci is back with its kernel driver: $(driver_of "$pci")"
	exit 0
fi

user=${2:-${SUDO_USER:-root}}
id "$user" >/dev/null 2>&1 || die "no user '$user'"
case "$(cat "$dev/class")" in
	0x02*) ;;
	*) die "$pci is not a network controller (class $(cat "$dev/class")): refusing to touch it" ;;
esac

# The IOMMU: without it a device bound to vfio-pci could still reach all of memory.
[ -e "$dev/iommu_group" ] || die "$pci has no IOMMU group: the IOMMU is off (kernel command line intel_iommu=on or amd_iommu=on, and VT-d or AMD-Vi in the firmware)"
group=$(basename "$(readlink "$dev/iommu_group")")
[ -e "/dev/vfio/noiommu-$group" ] && die "$pci is in a VFIO no-IOMMU group: nothing would confine its DMA"

# Every other device of the group must be bound to vfio-pci or to nothing: VFIO gives out whole groups.
for member in "/sys/kernel/iommu_groups/$group/devices/"*; do
	other=$(basename "$member")
	[ "$other" = "$pci" ] && continue
	case "$(driver_of "$other")" in
		"" | vfio-pci) ;;
		*) die "IOMMU group $group of $pci also holds $other, bound to $(driver_of "$other"): bind every device of the group to vfio-pci (or unbind it) first" ;;
	esac
done

# The same refusal as ixy_init (src/failsafe.c): an interface that is up or has an address is in use.
for netdir in "$dev"/net/* "$dev"/virtio*/net/*; do
	[ -e "$netdir" ] || continue
	ifname=$(basename "$netdir")
	up=$(($(cat "$netdir/flags") & 1))
	if [ $up = 1 ] || [ -n "$(ip -o addr show dev "$ifname" 2>/dev/null)" ]; then
		if [ "${IXY_FORCE:-}" = 1 ]; then
			echo "setup-vfio: warning: $pci is interface $ifname, which is in use: taking it anyway (forced)" >&2
		else
			die "$pci is network interface $ifname, which is up or has an IP address: refusing to take it. Run 'ip link set $ifname down; ip addr flush dev $ifname' or set IXY_FORCE=1"
		fi
	fi
done

if [ ! -d /sys/bus/pci/drivers/vfio-pci ]; then
	modprobe vfio-pci 2>/dev/null || die "cannot load the vfio-pci module (modprobe vfio-pci)"
fi
if [ "$(driver_of "$pci")" != vfio-pci ]; then
	echo vfio-pci >"$dev/driver_override"
	if [ -n "$(driver_of "$pci")" ]; then
		echo "$pci" >"$dev/driver/unbind"
	fi
	echo "$pci" >/sys/bus/pci/drivers_probe
fi
[ "$(driver_of "$pci")" = vfio-pci ] || die "binding $pci to vfio-pci failed (driver: $(driver_of "$pci"))"
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ -e "/dev/vfio/$group" ] && break
	sleep 0.1
done
[ -e "/dev/vfio/$group" ] || die "/dev/vfio/$group did not appear"
chown "$user" "/dev/vfio/$group"
chmod 600 "/dev/vfio/$group"
echo "setup-vfio: $pci is bound to vfio-pci; IOMMU group $group (/dev/vfio/$group) belongs to $user"
echo "setup-vfio: $user needs a locked-memory limit of about $KIB_PER_NIC KiB per NIC an app opens: ulimit -l $KIB_PER_NIC" \
	"(two NICs: $((2 * KIB_PER_NIC))), or 'memlock' in /etc/security/limits.conf; ixy says the exact figure when it is too low"
echo "setup-vfio: undo with: $0 --undo $pci"
