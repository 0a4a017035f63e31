#!/bin/sh
# Installs ixy into a temporary prefix (cmake --install), builds test/install/example outside the tree against it
# twice, with pkg-config and with CMake's find_package(ixy), and runs both: with no address they print their usage,
# with the address of a device no machine has (ffff:ff:1f.7) ixy_init refuses it. Nothing touches a device.
# Usage: test_install.sh <ixy source directory>
set -eu
src=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*" >&2; exit 1; }

cmake -S "$src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$tmp/prefix" >/dev/null
make -C "$tmp/build" -j2 ixy ixy-fwd ixy-pktgen ixy-pcap >/dev/null
cmake --install "$tmp/build" >/dev/null
for f in lib/libixy.a include/ixy/ixy.h include/ixy/memory.h include/ixy/interrupts.h lib/pkgconfig/ixy.pc \
	lib/cmake/ixy/ixyConfig.cmake lib/cmake/ixy/ixyTargets.cmake bin/ixy-fwd bin/ixy-pktgen bin/ixy-pcap; do
	[ -e "$tmp/prefix/$f" ] || fail "cmake --install did not install $f"
done
echo "installed: $(cd "$tmp/prefix" && find . -type f | sort | tr '\n' ' ')"

# 1. pkg-config
PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --exists ixy || fail "pkg-config does not find ixy"
# shellcheck disable=SC2046  # the flags are several words
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/example-pkgconfig" "$src/test/install/example/example.c" \
	$(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs ixy) || fail "pkg-config build"
# 2. find_package
cmake -S "$src/test/install/example" -B "$tmp/example" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null ||
	fail "find_package(ixy)"
make -C "$tmp/example" >/dev/null || fail "find_package build"

for bin in "$tmp/example-pkgconfig" "$tmp/example/ixy-example"; do
	set +e
	"$bin" >"$tmp/out" 2>&1
	rc=$?
	[ $rc = 2 ] && grep -q "usage: ixy-example" "$tmp/out" || fail "$bin without arguments: exit $rc: $(cat "$tmp/out")"
	"$bin" ffff:ff:1f.7 >"$tmp/out" 2>&1
	rc=$?
	set -e
	[ $rc = 1 ] && grep -q "no PCI device ffff:ff:1f.7" "$tmp/out" ||
		fail "$bin ffff:ff:1f.7: exit $rc: $(cat "$tmp/out")"
done
echo "install test passed: the example built with pkg-config and with find_package(ixy), both ran"
