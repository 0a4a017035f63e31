# Scenario bench-interrupts (sourced by guest-init.sh; run-vm.sh --vfio --host-ends, bench/interrupts.sh runs it): a
# benchmark, not a test. The source and the sink are on the host (bench/peers/host_ends), so the guest's one vCPU runs
# nothing but ixy-fwd B -> C, alternately with --poll and with --wait 1000, ROUNDS rounds of BENCH_S seconds, all in
# this one boot. Per run: "bench <poll|wait> run <i>: begin" and "...: end" around the measured seconds (host_ends
# counts what reached the sink between them), then "bench <poll|wait> run <i>: cpu <percent> slept <n> in <s> s": the
# forwarder's CPU time over the measured seconds (from /proc/<pid>/stat) and the waiter's sleeps over the app's whole
# life (ixy-fwd's last line, "waiter: slept <n> times ..."), which lasted <s> seconds.
BENCH_S=${IXY_BENCH_SECONDS:-10}
ROUNDS=${IXY_BENCH_ROUNDS:-3}
ticks_per_s=$(getconf CLK_TCK 2>/dev/null || echo 100)
uptime_s() { cut -d' ' -f1 /proc/uptime; }

if [ "${IXY_BENCH_HOST_ENDS:-0}" != 1 ]; then
	marker "FAIL bench-interrupts needs the source and sink on the host (run-vm.sh --host-ends)"
	checks_failed=$((checks_failed + 1))
	ROUNDS=0
fi
for i in $(seq "$ROUNDS"); do
	for option in --poll "--wait 1000"; do
		name=${option#--}
		name=${name%% *}
		t0=$(uptime_s)
		# shellcheck disable=SC2086  # the option is one or two words
		run_app ixy-fwd $option $NIC_B $NIC_C >/tmp/bench-fwd.log 2>&1 &
		fwd_pid=$!
		wait_running /tmp/bench-fwd.log $fwd_pid || marker "FAIL ixy-fwd $option did not start"
		sleep 2 # the same warm-up as bench-peers
		ticks0=$(awk '{ print $14 + $15 }' /proc/$fwd_pid/stat)
		marker "bench $name run $i: begin"
		sleep "$BENCH_S"
		marker "bench $name run $i: end"
		ticks1=$(awk '{ print $14 + $15 }' /proc/$fwd_pid/stat)
		check "$name run $i: ixy-fwd still running at the end" kill -0 "$fwd_pid"
		stop_app fwd $fwd_pid
		t1=$(uptime_s)
		slept=$(total /tmp/bench-fwd.log "waiter app=ixy-fwd" slept)
		marker "bench $name run $i: cpu $(awk -v a="$ticks0" -v b="$ticks1" -v t="$ticks_per_s" -v s="$BENCH_S" \
			'BEGIN { printf "%.1f", (b - a) * 100 / t / s }') slept ${slept:-?} in $(awk -v a="$t0" -v b="$t1" \
			'BEGIN { printf "%.1f", b - a }') s"
		grep -E "^(totals|waiter) " /tmp/bench-fwd.log | sed 's/^/    /'
		check "$name run $i: ixy-fwd ended cleanly and printed its waiter line" test "$app_rc" = 0 -a -n "$slept"
	done
done
