#!/bin/sh
# Installs ixy (configured with the default prefix) into a temporary prefix given only at install time
# (cmake --install --prefix), moves the installed tree elsewhere, and builds test/install/example outside the tree
# against it twice, with pkg-config and with CMake's find_package(ixy): the package must point at where it is, not
# at where it was configured or installed, and both builds must link the installed libixy.a, not a library of the
# build tree. Both binaries run: with no address they print their usage, with the address of a device no machine has
# (ffff:ff:1f.7) ixy_init refuses it. Then the example's source, compiled against the installed headers, runs against
# the 82599 model (model_world.c, the library's test build): it must print the model NIC's MAC and link and receive
# every frame the model put on its wire. That run cannot link the installed libixy.a: its drivers reach registers
# with plain loads and stores into a mapped BAR, which the model cannot see (it serves the test build's register
# seam, test/seam); the installed library would take the hardware path. Nothing touches a device.
# Usage: test_install.sh <ixy source directory>
set -eu
src=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*" >&2; exit 1; }
# The directories (symbolic links resolved) of the libixy.a archives named in a file: a linker's --trace output, or
# CMake's link command.
libixy_dirs() {
	grep -o '[^ ()]*libixy\.a' "$1" | sort -u | while read -r archive; do
		(cd "$(dirname "$archive")" && pwd -P)
	done | sort -u
}

cmake -S "$src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
make -C "$tmp/build" -j2 ixy ixy-fwd ixy-pktgen ixy-pcap ixy_seam ixy_example_model >/dev/null
cmake --install "$tmp/build" --prefix "$tmp/installed" >/dev/null
for f in lib/libixy.a include/ixy/ixy.h include/ixy/memory.h include/ixy/interrupts.h lib/pkgconfig/ixy.pc \
	lib/cmake/ixy/ixyConfig.cmake lib/cmake/ixy/ixyTargets.cmake bin/ixy-fwd bin/ixy-pktgen bin/ixy-pcap; do
	[ -e "$tmp/installed/$f" ] || fail "cmake --install --prefix did not install $f"
done
echo "installed: $(cd "$tmp/installed" && find . -type f | sort | tr '\n' ' ')"
mv "$tmp/installed" "$tmp/prefix"
prefix=$tmp/prefix

# 1. pkg-config: its directories are those of the moved tree.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
pkg-config --exists ixy || fail "pkg-config does not find ixy"
for dir in includedir:include libdir:lib; do
	got=$(pkg-config --variable="${dir%%:*}" ixy)
	[ "$(cd "$got" 2>/dev/null && pwd -P)" = "$(cd "$prefix/${dir#*:}" && pwd -P)" ] ||
		fail "pkg-config's ${dir%%:*} is $got, not $prefix/${dir#*:}"
done
# shellcheck disable=SC2046  # the flags are several words
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/example-pkgconfig" "$src/test/install/example/example.c" \
	$(pkg-config --cflags --libs ixy) -Wl,--trace >"$tmp/pkgconfig-trace" || fail "pkg-config build"
installed_lib=$(cd "$prefix/lib" && pwd -P)
[ "$(libixy_dirs "$tmp/pkgconfig-trace")" = "$installed_lib" ] ||
	fail "the pkg-config build linked libixy.a from $(libixy_dirs "$tmp/pkgconfig-trace"), not $installed_lib"
# 2. find_package
cmake -S "$src/test/install/example" -B "$tmp/example" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null ||
	fail "find_package(ixy)"
make -C "$tmp/example" >/dev/null || fail "find_package build"
grep -q "$prefix/include" "$tmp/example/CMakeFiles/ixy-example.dir/flags.make" ||
	fail "find_package(ixy) does not give the moved tree's include directory"
link_command=$tmp/example/CMakeFiles/ixy-example.dir/link.txt
[ "$(libixy_dirs "$link_command")" = "$installed_lib" ] ||
	fail "the find_package build linked libixy.a from $(libixy_dirs "$link_command"), not $installed_lib"

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

# 3. The example against the model: its source with the installed headers only, linked with the model's world
# (test/install/model_world.c: an 82599 at 0000:08:00.0 and 1000 frames on its wire) and the library's test build
# (not the installed libixy.a, see above).
cc -std=c11 -Wall -Wextra -Werror -I"$prefix/include" -o "$tmp/example-model" "$src/test/install/example/example.c" \
	-Wl,--wrap=monotonic_time_ns,--wrap=memory_free_dma,--wrap=memory_allocate_dma -Wl,--start-group \
	"$tmp/build/test/install/libixy_example_model.a" "$tmp/build/libixy_seam.a" -Wl,--end-group ||
	fail "the example against the model does not build"
set +e
"$tmp/example-model" 0000:08:00.0 >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
sed 's/^/  example on the model: /' "$tmp/out"
[ $rc = 0 ] || fail "the example on the model: exit $rc: $(cat "$tmp/err")"
grep -qx "0000:08:00.0 (ixgbe): MAC 02:00:00:08:00:00, link 10000 Mbit/s" "$tmp/out" ||
	fail "the example did not print the model NIC's MAC address and link speed"
grep -qx "received 1000 packets in a second" "$tmp/out" || fail "the example did not receive the model's 1000 frames"
grep -qx "model: 1000 frames arrived, 0 violations" "$tmp/out" || fail "the model's wire or checks: $(cat "$tmp/out")"
echo "install test passed: installed with --prefix and moved, the example built with pkg-config and with"
echo "find_package(ixy), both ran; the example's source on the installed headers ran against the 82599 model"
