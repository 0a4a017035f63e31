# shellcheck shell=sh disable=SC2154 # sourced by guest-init.sh, which sets the variables
# Scenario bench-mq (sourced by guest-init.sh; bench/vm-mq.sh runs it): a benchmark, not a test. ixy-pktgen --flows
# 1024 on A sends as fast as it can (1024 UDP flows, which B's RSS spreads over its 2 RX queues 513/511; 64 flows
# would split 40/24, apps/common/packet.h); ixy-fwd --queues 1, then
# --queues 2, then 1 again, ... forwards B -> C (polling) for BENCH_S seconds each, ROUNDS pairs of runs in this one
# boot. Prints one line per run, "bench mq<queues> run <i>: forwarded <packets> in <s> s", and the run's totals and
# queue lines of B (what it received and dropped, what each of its RX queues received); at the end ixy-pktgen's totals.
BENCH_S=${IXY_BENCH_SECONDS:-10}
ROUNDS=${IXY_BENCH_ROUNDS:-3}

marker "bench-mq: $(nproc) CPUs, ixy-pktgen --flows 1024, ixy-fwd --queues 1 and 2 alternating, $BENCH_S s each"
run_app ixy-pktgen --flows 1024 "$NIC_A" >/tmp/bench-pktgen.log 2>&1 &
pktgen_pid=$!
if ! wait_running /tmp/bench-pktgen.log $pktgen_pid; then
	marker "FAIL ixy-pktgen did not start"
	checks_failed=$((checks_failed + 1))
fi
for i in $(seq "$ROUNDS"); do
	for queues in 1 2; do
		run_app ixy-fwd --poll --queues "$queues" "$NIC_B" "$NIC_C" >/tmp/bench-fwd.log 2>&1 &
		fwd_pid=$!
		if wait_running /tmp/bench-fwd.log $fwd_pid; then
			sleep "$BENCH_S"
		fi
		stop_app fwd $fwd_pid
		forwarded=$(total /tmp/bench-fwd.log "totals app=ixy-fwd pci=$NIC_B" forwarded 2>/dev/null)
		marker "bench mq$queues run $i: forwarded ${forwarded:-0} in $BENCH_S s"
		grep -e "^totals app=ixy-fwd pci=$NIC_B " -e "^queue app=ixy-fwd pci=$NIC_B " /tmp/bench-fwd.log | sed 's/^/    /'
	done
done
stop_app pktgen $pktgen_pid
grep "^totals app=ixy-pktgen" /tmp/bench-pktgen.log | sed 's/^/    /'
check "ixy-pktgen and every ixy-fwd run ended cleanly" test "$app_rc" = 0
