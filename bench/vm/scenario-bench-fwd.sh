# Scenario bench-fwd (sourced by guest-init.sh; bench/vm-fwd.sh runs it): a benchmark, not a test. ixy-pktgen on A
# sends as fast as it can; ixy-fwd forwards B -> C (polling) for BENCH_S seconds, ROUNDS runs, all in this one boot.
# Prints one line per run, "bench fwd run <i>: forwarded <packets> in <s> s", which bench/vm-fwd.sh turns into rates.
BENCH_S=${IXY_BENCH_SECONDS:-10}
ROUNDS=${IXY_BENCH_ROUNDS:-2}

run_app ixy-pktgen "$NIC_A" >/tmp/bench-pktgen.log 2>&1 &
pktgen_pid=$!
if ! wait_running /tmp/bench-pktgen.log $pktgen_pid; then
	marker "FAIL ixy-pktgen did not start"
	checks_failed=$((checks_failed + 1))
fi
for i in $(seq "$ROUNDS"); do
	run_app ixy-fwd "$NIC_B" "$NIC_C" >/tmp/bench-fwd.log 2>&1 &
	fwd_pid=$!
	if wait_running /tmp/bench-fwd.log $fwd_pid; then
		sleep "$BENCH_S"
	fi
	stop_app fwd $fwd_pid
	# (bench/vm-fwd.sh also boots builds of older commits, whose ixy-fwd printed "<B> -> <C>: forwarded <n> packets"
	# instead of its totals lines.)
	forwarded=$(total /tmp/bench-fwd.log "totals app=ixy-fwd pci=$NIC_B" forwarded 2>/dev/null ||
		sed -n "s/^$NIC_B -> $NIC_C: forwarded \([0-9]*\) packets.*/\1/p" /tmp/bench-fwd.log)
	marker "bench fwd run $i: forwarded ${forwarded:-0} in $BENCH_S s"
	grep "VirtIO" /tmp/bench-fwd.log | sed 's/^/    /'
done
stop_app pktgen $pktgen_pid
check "ixy-pktgen and every ixy-fwd run ended cleanly" test "$app_rc" = 0
