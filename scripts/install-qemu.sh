#!/usr/bin/env bash
# Installs a QEMU that has the devices ixy's VM tests need: the igb NIC (Intel 82576, QEMU 8.0 and later), modern-only
# VirtIO NICs behind PCIe root ports and the emulated Intel IOMMU. Debian bookworm ships QEMU 7.2, without igb; its
# bookworm-backports suite has QEMU 10.0.
#
#   scripts/install-qemu.sh          as root; does nothing when a QEMU with igb is installed already
#
# The backports suite is added with the URIs of the machine's own Debian source (whatever mirror it uses; no host
# name is written here), and only the QEMU packages (and the firmware they need in the same version) are pinned to
# it: nothing else on the machine moves to backports. Exits 0 when qemu-system-x86_64 has igb afterwards.
set -euo pipefail

say() { echo "install-qemu: $*"; }
has_igb() { command -v qemu-system-x86_64 >/dev/null && qemu-system-x86_64 -device help 2>/dev/null | grep -q '"igb"'; }

if has_igb; then
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	say "needs root to install QEMU (apt-get)" >&2
	exit 1
fi
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
if [ "$codename" != bookworm ]; then
	# Later Debian releases ship a QEMU with igb in their main suite.
	say "Debian $codename: installing qemu-system-x86 from the release itself"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-system-x86 >/dev/null
	has_igb || { say "the installed QEMU has no igb device" >&2; exit 1; }
	exit 0
fi

# The URIs of the Debian source that carries "bookworm" itself.
uris=$("$(dirname "$0")/debian-uris.sh" bookworm) || {
	say "cannot find the machine's Debian source for bookworm in /etc/apt/sources.list(.d)" >&2
	exit 1
}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
cat >/etc/apt/sources.list.d/ixy-bookworm-backports.sources <<SOURCES
# Added by ixy's scripts/install-qemu.sh: QEMU 10 (igb, IOMMU) for the VM tests. Same URIs as the bookworm source.
Types: deb
URIs: $uris
Suites: bookworm-backports
Components: main
$( [ -f $keyring ] && echo "Signed-By: $keyring" )
SOURCES
cat >/etc/apt/preferences.d/ixy-qemu-backports <<'PIN'
# Added by ixy's scripts/install-qemu.sh: only QEMU and the firmware of the same version come from backports.
Package: qemu-* seabios ipxe-qemu
Pin: release n=bookworm-backports
Pin-Priority: 990
PIN
say "added bookworm-backports ($uris) for the QEMU packages only; installing qemu-system-x86"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-system-x86 >/dev/null
if ! has_igb; then
	say "qemu-system-x86_64 $(qemu-system-x86_64 --version | head -1) has no igb device" >&2
	exit 1
fi
say "$(qemu-system-x86_64 --version | head -1)"
