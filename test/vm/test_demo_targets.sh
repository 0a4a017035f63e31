#!/bin/sh
# scripts/run-vm-demo.sh builds only the programs the VM test scripts run (its --target list), not the whole tree.
# CI does not run the demo, so this checks that the list has every program the scripts name as
# $build_dir/<dir>/<program>: a program added to the guest or the host checks but not to the demo fails here.
# Usage: test_demo_targets.sh <ixy source directory>
cd "$1" || exit 2
failed=0
for program in $(grep -hoE '\$build_dir/(apps|test/vm|bench/peers)/[A-Za-z_-]+' test/vm/*.sh bench/vm/*.sh |
	sed 's|.*/||' | sort -u); do
	if ! grep -q -- "--target $program\b" scripts/run-vm-demo.sh; then
		echo "FAILED: the VM scripts run $program, which scripts/run-vm-demo.sh does not build (--target)" >&2
		failed=1
	fi
done
[ $failed = 0 ] && echo "demo targets: every program the VM scripts run is built"
exit $failed
