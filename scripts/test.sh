#!/usr/bin/env bash
# Runs all of ixy's tests: style and static checks, unit and model tests, the line budget, the same tests under
# AddressSanitizer + UndefinedBehaviorSanitizer (gcc, and clang) and under valgrind, the threaded forwarder under
# ThreadSanitizer, bounded fuzzing, and the end-to-end test in a QEMU guest. Installs what it needs (Debian packages)
# when run as root. Exits non-zero when anything fails. A test that cannot run on this host (a host feature missing:
# root, int 0x80, a network namespace, veth, AF_XDP, huge pages, QEMU's igb, ...) is skipped by ctest and says which
# feature in a line "skipped: <feature>"; after each ctest run those lines are printed, with the test's name.
#
# Usage: scripts/test.sh [--quick]     --quick: build, unit and model tests only
set -uo pipefail
cd "$(dirname "$0")/.."
quick=0
[ "${1:-}" = "--quick" ] && quick=1

packages="cmake gcc clang clang-format cppcheck valgrind cloc python3 tcpdump busybox-static cpio pkgconf gnuplot-nox
	gcc-aarch64-linux-gnu"
vagrant_packages="vagrant vagrant-libvirt debootstrap"
if [ "$(id -u)" = 0 ]; then
	missing=""
	for p in $packages; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		echo "== installing:$missing"
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing) >/dev/null ||
			{ echo "apt-get install failed"; exit 1; }
	fi
	# The Vagrant box's checks, without what the packages only recommend (vagrant-libvirt: an NFS server and
	# libguestfs, a second kernel).
	missing=""
	for p in $vagrant_packages; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
	done
	if [ -n "$missing" ] && [ $quick = 0 ]; then
		echo "== installing:$missing"
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing) \
			>/dev/null || { echo "apt-get install failed"; exit 1; }
	fi
	# QEMU 10 from bookworm-backports: the VM tests need its igb NIC and IOMMU (Debian's own 7.2 has neither).
	# Without them the tests that need them skip, each with one line (run-vm.sh: no QEMU with igb; test_dma_root:
	# no huge pages).
	scripts/install-qemu.sh || echo "skipped: the VM tests: cannot install a QEMU with igb (scripts/install-qemu.sh)"
	scripts/setup-hugetlbfs.sh 256 || echo "skipped: test_dma_root: no huge pages (scripts/setup-hugetlbfs.sh)"
fi

failed=()
stage() {   # stage NAME COMMAND...: runs a command, records a failure
	local name=$1
	shift
	echo "== $name"
	local began=$SECONDS
	if "$@"; then
		echo "== $name: ok ($(((SECONDS - began) / 60)) min $(((SECONDS - began) % 60)) s)"
	else
		echo "== $name: FAILED ($(((SECONDS - began) / 60)) min $(((SECONDS - began) % 60)) s)"
		failed+=("$name")
	fi
}

sources() { git ls-files '*.c' '*.h'; }
check_format() {
	local bad
	bad=$(sources | xargs clang-format --dry-run 2>&1 | grep -c 'warning:')
	[ "$bad" = 0 ] || { sources | xargs clang-format --dry-run 2>&1 | head -20; return 1; }
}
run_cppcheck() {
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability --inline-suppr \
		--suppress=missingIncludeSystem -D__linux__ -I include -I src -I test/seam $(sources | grep '\.c$')
}
# ctest_in DIR CTEST-ARGS...: ctest in DIR; then every "skipped: <feature>" line the tests printed, with the test's
# name (a test skipped whole, or a part of one: either way the log says what this host lacks).
ctest_in() {
	local dir=$1
	shift
	(cd "$dir" && ctest --output-on-failure "$@")
	local rc=$?
	awk '/^[0-9]+\/[0-9]+ Testing: / { name = $3 } /(^|: )skipped: / { print "  " name ": " $0 }' \
		"$dir/Testing/Temporary/LastTest.log" 2>/dev/null
	return $rc
}
build() {   # build DIR CMAKE-ARGS...
	local dir=$1
	shift
	cmake -S . -B "$dir" "$@" >/dev/null && make -C "$dir" -j2 --no-print-directory >/dev/null
}

# Every unit and model test under valgrind: a failing test, any memory error or a definite leak fails the stage.
# Tests labelled novalgrind (long-running) are left out. Two at a time: valgrind runs a program on one CPU.
memcheck() {
	(cd build-test && ctest --output-on-failure -LE 'vm|novalgrind' -j2 -T memcheck --overwrite \
		MemoryCheckCommandOptions='--error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite' \
		>memcheck.log 2>&1)
	local rc=$?
	sed -n '/Memory checking results/,$p' build-test/memcheck.log
	[ $rc = 0 ] && ! grep -qE ' - [0-9]+$' build-test/memcheck.log
}

stage "clang-format" check_format
stage "cppcheck" run_cppcheck
# The build step of the Vagrant box's provisioning (Release, static apps), as scripts/run-vm-demo.sh uses it too.
stage "build (release, scripts/provision.sh --build)" scripts/provision.sh --build build-test
stage "unit and model tests" ctest_in build-test -LE vm
# The code lines of the teaching path (what runs when ixy-fwd forwards between two 82599s): no more than today.
stage "line budget" scripts/count-lines.sh
# The paper's forwarder alone: libixy and ixy-fwd from the ledger's paper line only (no feature file compiled), and
# its model test forwarding through that ixy-fwd against two modelled 82599s (test/model/test_paper_fwd.c).
paper_only() {
	cmake -S . -B build-paper -DIXY_PAPER_ONLY=ON -DCMAKE_BUILD_TYPE=Release >/dev/null &&
		cmake --build build-paper -j"$(nproc)" >/dev/null && [ -x build-paper/apps/ixy-fwd ] &&
		ctest_in build-paper
}
stage "the paper's forwarder alone (cmake -DIXY_PAPER_ONLY=ON)" paper_only
# What runs, measured (scripts/coverage-paper.sh): ixy-fwd's default run against the 82599 model, and the paper-only
# build's model test (test_paper_fwd), in gcov builds (both must run); per line of the ledger the lines executed.
coverage_paper() {
	local out
	out=$(scripts/coverage-paper.sh build-coverage) || { echo "$out"; return 1; }
	echo "$out"
	echo "$out" | coverage_check "$(scripts/count-lines.sh --default-run | tr '\n' ' ')"
}
# coverage_check LISTED < the script's output: the default run executes lines of the paper, and of exactly the
# ledger's lines LISTED beside it (count-lines.sh --default-run: what the default run executes and why); in the
# paper-only build the paper executes lines and no other line of the ledger executes any (a file the build compiles
# that the ledger puts on a feature's line, or on none: "unlisted", fails).
coverage_check() {
	awk -v listed="$1" 'BEGIN { n = split(listed, l, " "); for (i = 1; i <= n; i++) named[l[i]] = 1 }
	$1 == "coverage" {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		if (f["line"] == "paper") paper[f["scenario"]] = f["executed"]
		else if (f["scenario"] == "default") {
			ran[f["line"]] = f["executed"] > 0
			if (ran[f["line"]] && !(f["line"] in named)) {
				print "coverage: the default run executed " f["executed"] " lines of " f["line"] \
				    ", which the ledger does not name (count-lines.sh, default_run)"
				bad = 1
			}
		} else if (f["scenario"] == "paper-only" && f["executed"] > 0) {
			print "coverage: the paper-only build executed " f["executed"] " lines of the line " f["line"]
			bad = 1
		}
	}
	END {
		if (!(paper["default"] > 0)) { print "coverage: the default run executed no line of the paper"; bad = 1 }
		for (name in named) {
			if (!ran[name]) {
				print "coverage: the ledger says the default run executes " name ", which executed nothing"
				bad = 1
			}
		}
		if (!(paper["paper-only"] > 0)) {
			print "coverage: the paper-only build executed no line of the paper"; bad = 1
		}
		exit bad
	}'
}
if [ $quick = 0 ]; then
	stage "coverage of the paper's scenario (scripts/coverage-paper.sh)" coverage_paper
	stage "build (ASan+UBSan)" build build-sanitize -DCMAKE_BUILD_TYPE=Debug -DIXY_SANITIZE=ON
	stage "unit and model tests (ASan+UBSan)" ctest_in build-sanitize -LE vm
	# clang beside gcc: its UBSan finds what gcc's does not (NULL + 0 in pointer arithmetic, ...) and its -Werror
	# warnings differ. Unit, model and fuzz-replay tests only (not the bench, install, xdp and vagrant labels, which
	# test scripts rather than C), two at a time: about 4 minutes with the build.
	stage "build (clang, ASan+UBSan)" build build-clang -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
		-DIXY_SANITIZE=ON
	stage "unit and model tests (clang, ASan+UBSan)" ctest_in build-clang -j2 -LE 'vm|bench|install|xdp|vagrant'
	stage "unit and model tests (valgrind memcheck)" memcheck
	# The threaded forwarder (ixy-fwd --queues) against the 82599 model, and VirtIO's queues in two threads while a
	# third reads the statistics (test_virtio_rss), under ThreadSanitizer: only what runs threads, not under the
	# seccomp filter (_sandbox), which refuses the sanitizer's own calls. history_size=7: the far side of a race stays
	# known (it is the model's DMA, suppressed: test/model/tsan.supp). And ixy-fwd --queues 2 between AF_XDP veths
	# (xdp_veth_queues, --no-sandbox; skipped without root), about 10 s.
	stage "build (ThreadSanitizer, -DIXY_TSAN=ON)" bash -c "cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug \
		-DIXY_TSAN=ON >/dev/null && make -C build-tsan -j2 --no-print-directory test_ixgbe_fwd_app \
		test_virtio_rss ixy-fwd >/dev/null"
	tsan_tests() {
		TSAN_OPTIONS="halt_on_error=1 history_size=7 suppressions=$PWD/test/model/tsan.supp" \
			ctest_in build-tsan -R 'test_ixgbe_fwd_app|test_virtio_rss$|xdp_veth_queues' -E sandbox
	}
	stage "threaded model tests (ThreadSanitizer)" tsan_tests
	# Only what the trace scenario's guest and host run (test/vm/build-guest.sh's binaries, vm_constants), not every
	# test of a third build: the unit and model tests have the trace already (test/seam).
	stage "build (register trace, -DIXY_TRACE=ON)" bash -c "cmake -S . -B build-trace -DCMAKE_BUILD_TYPE=Release \
		-DIXY_TRACE=ON >/dev/null && make -C build-trace -j2 --no-print-directory ixy-pktgen ixy-fwd ixy-pcap \
		vm_selftest vm_probe vm_burst vm_confine vm_rss vm_rss_tap vm_constants afpacket_fwd >/dev/null"
	stage "register trace on QEMU's igb and VirtIO NICs" ctest_in build-trace -R vm_trace
	[ -x test/fuzz/run.sh ] && stage "fuzzing" test/fuzz/run.sh
	stage "VM end-to-end tests" ctest_in build-test -L vm
	# The Vagrant box (VirtualBox and libvirt cannot run here): its Vagrantfile validated for both providers, and its
	# provisioning run in a Debian bookworm chroot (root: debootstrap; a few minutes the first time, cached after).
	stage "Vagrant box: vagrant validate (libvirt, VirtualBox)" test/vagrant/validate.sh build-test/vagrant-validate
	if [ "$(id -u)" = 0 ]; then
		stage "Vagrant box: provisioning in a debootstrap chroot" test/vagrant/provision-chroot.sh build-test/vagrant-chroot
	else
		echo "== Vagrant box: provisioning in a debootstrap chroot: skipped: needs root (debootstrap, chroot)"
	fi
fi

echo
if [ ${#failed[@]} -gt 0 ]; then
	echo "FAILED stages: ${failed[*]}"
	exit 1
fi
echo "all stages passed ($((SECONDS / 60)) min)"
