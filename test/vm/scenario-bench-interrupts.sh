# Scenario bench-interrupts (sourced by guest-init.sh; run-vm.sh --vfio, modern NICs; bench/interrupts.sh runs it):
# a benchmark, not a test. ixy-pktgen on A sends as fast as it can; ixy-fwd forwards B -> C, alternately with --poll
# and with --wait 1000, for BENCH_S seconds per run, ROUNDS runs each, all in this one boot. Prints one line per run,
# "bench <option> run <i>: forwarded <packets> in <s> s", which bench/interrupts.sh turns into rates and ratios.
BENCH_S=${IXY_BENCH_SECONDS:-10}
ROUNDS=${IXY_BENCH_ROUNDS:-3}

run_app ixy-pktgen $NIC_A >/tmp/bench-pktgen.log 2>&1 &
pktgen_pid=$!
if ! wait_running /tmp/bench-pktgen.log $pktgen_pid; then
	marker "FAIL ixy-pktgen did not start"
	checks_failed=$((checks_failed + 1))
fi
for i in $(seq "$ROUNDS"); do
	for option in --poll "--wait 1000"; do
		# shellcheck disable=SC2086  # the option is one or two words
		run_app ixy-fwd $option $NIC_B $NIC_C >/tmp/bench-fwd.log 2>&1 &
		fwd_pid=$!
		if wait_running /tmp/bench-fwd.log $fwd_pid; then
			sleep "$BENCH_S"
		fi
		stop_app fwd $fwd_pid
		forwarded=$(sed -n "s/^$NIC_B -> $NIC_C: forwarded \([0-9]*\) packets.*/\1/p" /tmp/bench-fwd.log)
		marker "bench ${option%% *} run $i: forwarded ${forwarded:-0} in $BENCH_S s"
		grep "waiter" /tmp/bench-fwd.log | sed 's/^/    /'
	done
done
stop_app pktgen $pktgen_pid
check "ixy-pktgen and every ixy-fwd run ended cleanly" test "$app_rc" = 0
