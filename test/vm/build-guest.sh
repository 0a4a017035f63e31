#!/usr/bin/env bash
# Builds the test guest: a Debian kernel and an initramfs with busybox, ixy's static apps, vm_selftest, vm_probe,
# vm_burst, vm_confine, vm_rss, vm_rss_tap, scripts/setup-vfio.sh, the kernel's VirtIO, igb and VFIO modules,
# test/vm/guest-init.sh as /init and the scenarios test/vm/scenario-*.sh and bench/vm/scenario-*.sh it runs.
#
#   build-guest.sh --build-dir DIR --out DIR [--cache DIR] [--with-testpmd]
#
# --with-testpmd: also DPDK's testpmd from the host's Debian package dpdk-dev, with the shared libraries it needs
# and the PMDs for VirtIO NICs, at the host's paths (a peer for bench/peers.sh; about 20 MB more).
#
# The kernel comes from Debian's package (the one `apt-cache depends linux-image-amd64` names), fetched with
# `apt-get download` and unpacked with dpkg -x into the cache (default /var/cache/ixy-vm), so reruns do not fetch
# it again. The initramfs is rebuilt every time (a second): it holds the binaries of the build directory.
# Writes OUT/vmlinuz and OUT/initrd.gz. Needs root only to install missing packages.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build_dir=
out=
cache=/var/cache/ixy-vm
with_testpmd=no
usage="usage: $0 --build-dir DIR --out DIR [--cache DIR] [--with-testpmd]"
while [ $# -gt 0 ]; do
	case "$1" in
		--build-dir) build_dir=$2; shift 2 ;;
		--out) out=$2; shift 2 ;;
		--cache) cache=$2; shift 2 ;;
		--with-testpmd) with_testpmd=yes; shift ;;
		*) echo "$usage" >&2; exit 2 ;;
	esac
done
if [ -z "$build_dir" ] || [ -z "$out" ]; then
	echo "$usage" >&2
	exit 2
fi
build_dir=$(cd "$build_dir" && pwd)
mkdir -p "$out" "$cache"
out=$(cd "$out" && pwd)

say() { echo "build-guest: $*"; }

# The guest's programs must not need shared libraries: there are none in the initramfs.
binaries=("$build_dir/apps/ixy-pktgen" "$build_dir/apps/ixy-fwd" "$build_dir/apps/ixy-pcap"
	"$build_dir/test/vm/vm_selftest" "$build_dir/test/vm/vm_probe" "$build_dir/test/vm/vm_burst" "$build_dir/test/vm/vm_confine"
	"$build_dir/test/vm/vm_rss" "$build_dir/test/vm/vm_rss_tap"
	"$build_dir/bench/peers/afpacket_fwd")
for bin in "${binaries[@]}"; do
	[ -x "$bin" ] || { say "missing $bin: build first (make -C $build_dir)"; exit 1; }
	if readelf -l "$bin" | grep -q INTERP; then
		say "$bin is dynamically linked; configure with -DIXY_STATIC_APPS=ON"
		exit 1
	fi
done
busybox=$(command -v busybox || true)
if [ -z "$busybox" ] || readelf -l "$busybox" | grep -q INTERP; then
	say "needs a static busybox (apt-get install busybox-static)"
	exit 1
fi

# 1. Kernel, cached per package version.
package=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
if [ -z "$package" ]; then
	say "apt-cache does not know linux-image-amd64; running apt-get update"
	apt-get update -qq >/dev/null
	package=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
fi
[ -n "$package" ] || { say "cannot find the Debian kernel package"; exit 1; }
kernel_dir=$cache/$package

# The VirtIO network modules for the kmod variant, and the order to load them in: busybox insmod does not follow
# dependencies, so each module's depends= line is resolved here, dependencies first. Writes modules/order.
declare -A taken=()
order=()
take_module() {   # take_module UNPACKED_ROOT DEST NAME
	local file dep
	[ -n "${taken[$3]:-}" ] && return
	taken[$3]=1
	file=$(find "$1/lib/modules" -name "$3.ko*" | head -1)
	[ -n "$file" ] || { say "kernel module $3 not found in $package"; exit 1; }
	case "$file" in
		*.xz) xz -dc "$file" >"$2/$3.ko" ;;
		*.zst) zstd -qdc "$file" >"$2/$3.ko" ;;
		*) cp "$file" "$2/$3.ko" ;;
	esac
	for dep in $(strings "$2/$3.ko" | sed -n 's/^depends=//p' | tr ',' ' '); do
		take_module "$1" "$2" "$dep"
	done
	order+=("$3")
}

# The modules the guest needs (with what they depend on): the VirtIO NIC driver, the 82576 driver igb (for the igb
# NICs' in-use and bad-inputs scenarios), the 82540EM's e1000 and the 82574L's e1000e (for the VFIO scenarios, which
# give them back), the Linux bridge and uio_pci_generic (for ixy-fwd's peers in the
# bench-peers scenario), and VFIO for the IOMMU scenarios:
# vfio-pci and the type 1 IOMMU backend, which the kernel would load on demand. A cache made for others is made again.
modules_wanted="virtio_pci virtio_net igb e1000 e1000e vfio_iommu_type1 vfio-pci bridge uio_pci_generic"
if [ -f "$kernel_dir/modules/order" ] && [ "$(cat "$kernel_dir/modules/wanted" 2>/dev/null)" != "$modules_wanted" ]; then
	rm -rf "$kernel_dir"
fi
if [ ! -f "$kernel_dir/modules/order" ]; then
	say "fetching $package"
	tmp=$(mktemp -d "$cache/fetch.XXXXXX")
	if ! (cd "$tmp" && apt-get download "$package" >/dev/null 2>&1); then
		apt-get update -qq >/dev/null 2>&1   # the package lists may name a version the mirror no longer has
		(cd "$tmp" && apt-get download "$package" >/dev/null 2>&1) || { say "apt-get download $package failed"; exit 1; }
	fi
	dpkg -x "$tmp"/*.deb "$tmp/root"
	rm -rf "$kernel_dir" "$kernel_dir.new"
	mkdir -p "$kernel_dir.new/modules"
	cp "$tmp"/root/boot/vmlinuz-* "$kernel_dir.new/vmlinuz"
	for module in $modules_wanted; do
		take_module "$tmp/root" "$kernel_dir.new/modules" "$module"
	done
	printf '%s\n' "${order[@]}" >"$kernel_dir.new/modules/order"
	echo "$modules_wanted" >"$kernel_dir.new/modules/wanted"
	rm -rf "$tmp"
	mv "$kernel_dir.new" "$kernel_dir"
fi
cp "$kernel_dir/vmlinuz" "$out/vmlinuz"

# 2. Initramfs.
root=$out/initramfs
rm -rf "$root"
mkdir -p "$root"/{bin,dev,etc,proc,sys,tmp,mnt/huge,modules,scenarios}
cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
cp "${binaries[@]}" "$root/bin/"
cp "$here/../../scripts/setup-vfio.sh" "$root/bin/"
cp "$here/totals.sh" "$root/bin/" # the reader of the apps' totals lines, for the scenarios' checks
cp "$here/guest-init.sh" "$root/init"
python3 "$here/replay_file.py" make "$root/replay.pcap" # the e2e scenarios' ixy-pktgen --replay file
chmod 755 "$root/init"
for scenario in "$here"/scenario-*.sh "$here"/../../bench/vm/scenario-*.sh; do # the tests' and the benchmarks'
	name=${scenario##*/scenario-}
	cp "$scenario" "$root/scenarios/$name"
done
chmod 1777 "$root/tmp"
# A user other than root, for the tests that run the apps without root (busybox su).
echo 'root:x:0:0:root:/:/bin/sh' >"$root/etc/passwd"
echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>"$root/etc/passwd"
echo 'ixy:x:1000:1000:ixy user:/tmp:/bin/sh' >>"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\nixy:x:1000:\n' >"$root/etc/group"

cp "$kernel_dir"/modules/* "$root/modules/"

# DPDK's testpmd: the program, the PMDs that EAL loads from its plugin directory (only PCI, the mempool, VirtIO and
# e1000/igb for bench-latency's 82576 NICs: EAL loads every PMD it finds there), and every shared library these need,
# each at the host's path.
if [ $with_testpmd = yes ]; then
	testpmd=$(command -v dpdk-testpmd) || { say "--with-testpmd: no dpdk-testpmd (apt-get install dpdk-dev)"; exit 1; }
	pmd_dir=$(find /usr/lib -maxdepth 3 -type d -name 'pmds-*' -path '*dpdk*' | head -1)
	[ -n "$pmd_dir" ] || { say "--with-testpmd: no DPDK PMD directory"; exit 1; }
	pmds=("$pmd_dir"/librte_bus_pci.so* "$pmd_dir"/librte_mempool_ring.so* "$pmd_dir"/librte_net_virtio.so*
		"$pmd_dir"/librte_net_e1000.so*)
	mkdir -p "$root$pmd_dir"
	cp -a "${pmds[@]}" "$root$pmd_dir/" # the .so names are links to one file: EAL loads it once
	cp "$testpmd" "$root/bin/"
	for lib in $(ldd "$testpmd" "${pmds[@]}" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $1 !~ /:$/ { print $1 }' | sort -u); do
		[ -e "$root$lib" ] || cp -L --parents "$lib" "$root"
	done
fi

(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1 >"$out/initrd.gz")
say "kernel $package, initramfs $(du -k "$out/initrd.gz" | cut -f1) KiB, modules: $(tr '\n' ' ' <"$kernel_dir/modules/order")"
