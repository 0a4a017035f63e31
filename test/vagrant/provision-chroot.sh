#!/usr/bin/env bash
# Runs the Vagrant box's provisioning (the scripts/provision.sh line of vagrant/Vagrantfile, without the steps that
# need the box's own kernel: --apply and --show-nics) in a Debian bookworm chroot made with debootstrap, with the
# project copied to /vagrant as Vagrant's rsync does. Checks that it installed the packages, built the apps (ixy-fwd
# run without arguments prints its usage and exits 2), wrote the boot-time huge page configuration once (a second
# run adds no second fstab line), that --apply is refused in the chroot, and that the host's huge pages and mounts
# are the same afterwards and nothing stays mounted.
#
#   test/vagrant/provision-chroot.sh WORKDIR      (as root; WORKDIR e.g. build-test/vagrant-chroot)
#
# The bare debootstrap root is kept in WORKDIR/base.tar (made once, under a minute here) and the downloaded packages
# in WORKDIR/apt-archives, so a rerun unpacks a fresh root and installs from the cache; the root is removed after a
# run that passed. The mirror is the machine's own (scripts/debian-uris.sh). Mounts only inside the chroot (/proc,
# the package cache) and always unmounts them. About a minute in all.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
work=${1:?usage: $0 WORKDIR}
say() { echo "provision-chroot: $*"; }
[ "$(id -u)" = 0 ] || { say "needs root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || { say "needs debootstrap (apt-get install debootstrap)" >&2; exit 1; }
mkdir -p "$work/apt-archives/partial"
work=$(cd "$work" && pwd)
root=$work/root

hugepages_file=/proc/sys/vm/nr_hugepages
host_hugepages=$(cat $hugepages_file)

cleanup() {
	local mnt
	for mnt in "$root/var/cache/apt/archives" "$root/proc"; do
		if mountpoint -q "$mnt" 2>/dev/null; then umount "$mnt" || umount -l "$mnt"; fi
	done
}
trap cleanup EXIT

# 1. The bare root, made once.
if [ ! -f "$work/base.tar" ]; then
	mirror=$("$project/scripts/debian-uris.sh" bookworm | awk '{print $1}')
	say "debootstrap bookworm (minbase) from $mirror, once"
	rm -rf "$work/base"
	debootstrap --variant=minbase bookworm "$work/base" "$mirror" >"$work/debootstrap.log" 2>&1 ||
		{ tail -20 "$work/debootstrap.log" >&2; exit 1; }
	tar -C "$work/base" -cf "$work/base.tar.new" .
	mv "$work/base.tar.new" "$work/base.tar"
	rm -rf "$work/base"
fi

# 2. A fresh root with the project as Vagrant copies it (no .git, no build directories).
cleanup
rm -rf --one-file-system "$root"
mkdir -p "$root"
tar -C "$root" -xf "$work/base.tar"
mkdir -p "$root/vagrant"
tar -C "$project" --exclude=./.git --exclude='./build' --exclude='./build-*' -cf - . | tar -C "$root/vagrant" -xf -
# No service may start in the chroot.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
mount -t proc proc "$root/proc"
mount --bind "$work/apt-archives" "$root/var/cache/apt/archives"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

# 3. The Vagrantfile's provisioning line, without --apply and --show-nics.
line=$(sed -n 's/^ *inline: "\(\/vagrant\/scripts\/provision\.sh [^"]*\)"$/\1/p' "$project/vagrant/Vagrantfile")
[ -n "$line" ] || { say "no scripts/provision.sh line in vagrant/Vagrantfile" >&2; exit 1; }
read -ra command <<<"$line"
chroot_command=()
for word in "${command[@]}"; do
	case "$word" in --apply | --show-nics) ;; *) chroot_command+=("$word") ;; esac
done
say "in the chroot: ${chroot_command[*]}"
start=$SECONDS
in_root "${chroot_command[@]}"
say "provisioning took $((SECONDS - start)) s"

# 4. What it must have done.
failed=0
fail() { say "FAILED: $*" >&2; failed=1; }
for package in build-essential cmake pciutils tcpdump; do
	# shellcheck disable=SC2016 # dpkg-query's own format
	in_root dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || fail "package $package not installed"
done
build_dir=$(printf '%s\n' "${chroot_command[@]}" | sed -n '/^--build$/{n;p}')
for app in ixy-fwd ixy-pktgen ixy-pcap; do
	[ -x "$root$build_dir/apps/$app" ] || fail "$build_dir/apps/$app not built"
done
rc=0
usage=$(in_root "$build_dir/apps/ixy-fwd" 2>&1) || rc=$?
[ $rc = 2 ] || fail "ixy-fwd without arguments exited $rc, not 2 (its usage code)"
grep -q '^usage: ixy-fwd' <<<"$usage" || fail "ixy-fwd without arguments printed: $usage"
pages=$(printf '%s\n' "${chroot_command[@]}" | sed -n '/^--hugepages$/{n;p}')
grep -qx "vm.nr_hugepages = $pages" "$root/etc/sysctl.d/80-ixy-hugepages.conf" || fail "no vm.nr_hugepages = $pages in sysctl.d"
# Again: the fstab line is written once only.
in_root /vagrant/scripts/provision.sh --hugepages "$pages" >/dev/null
[ "$(grep -c '^hugetlbfs /mnt/huge hugetlbfs ' "$root/etc/fstab")" = 1 ] || fail "fstab has not exactly one hugetlbfs line"
[ -d "$root/mnt/huge" ] || fail "no /mnt/huge"
rc=0
refused=$(in_root /vagrant/scripts/provision.sh --hugepages "$pages" --apply 2>&1) || rc=$?
if [ $rc != 1 ] || ! grep -q 'refused in a chroot' <<<"$refused"; then
	fail "--apply in the chroot was not refused (exit $rc): $refused"
fi

# 5. The host is as it was.
cleanup
[ "$(cat $hugepages_file)" = "$host_hugepages" ] || fail "the host's nr_hugepages changed: $host_hugepages -> $(cat $hugepages_file)"
if awk -v root="$root" 'index($5, root "/") == 1' /proc/self/mountinfo | grep -q .; then
	fail "mounts left in the chroot: $(awk -v root="$root" 'index($5, root "/") == 1 {print $5}' /proc/self/mountinfo)"
fi
# The root is made again on every run; what is kept is base.tar and the package cache. Never across a mount.
if [ $failed = 0 ]; then rm -rf --one-file-system "$root"; fi
[ $failed = 0 ] && say "ok: packages installed, apps built, huge pages configured for boot, host untouched"
exit $failed
