# Scenario bench-report (sourced by guest-init.sh; book chapter 15, issue 30): a measurement, not a test. ixy-fwd
# forwards B -> C all along; for each offered rate of RATES (packets per second; IXY_BENCH_RATES, separated by
# colons) ixy-pcap --report runs on D without a file while ixy-pktgen --rate <r>pps --seconds SECONDS_PER_STEP sends
# on A, and stops a second after it to drain. Each step's report (and ixy-pktgen's totals line) goes to the host as
# report-<r>.log; docs/book/latency_plot.py turns them into the plot (bench/vm/host-bench-report.sh).
SECONDS_PER_STEP=${IXY_BENCH_SECONDS:-5}
RATES=$(echo "${IXY_BENCH_RATES:-250:500:1000:2000:4000:8000}" | tr : ' ') # run-vm.sh --env: no spaces

run_app ixy-fwd "$NIC_B" "$NIC_C" >/tmp/bench-fwd.log 2>&1 &
fwd_pid=$!
failures=0
if ! wait_running /tmp/bench-fwd.log $fwd_pid; then
	marker "FAIL ixy-fwd did not start"
	checks_failed=$((checks_failed + 1))
fi
for rate in $RATES; do
	run_app ixy-pcap --report "$NIC_D" - >/tmp/report-$rate.log 2>&1 &
	pcap_pid=$!
	if wait_running /tmp/report-$rate.log $pcap_pid; then
		(run_app ixy-pktgen --rate "${rate}pps" --seconds "$SECONDS_PER_STEP" "$NIC_A" >/tmp/bench-pktgen.log 2>&1)
		pktgen_rc=$?
		marker "bench report rate ${rate}pps: pktgen exit $pktgen_rc"
		[ $pktgen_rc = 0 ] || failures=$((failures + 1))
		sleep 1
	fi
	stop_app pcap $pcap_pid
	[ "$app_rc" = 0 ] || failures=$((failures + 1))
	grep "^totals app=ixy-pktgen" /tmp/bench-pktgen.log >>/tmp/report-$rate.log # what was sent, and how fast
	grep "end=1" /tmp/report-$rate.log | grep -v "^flow" | sed 's/^/    /'
	send_file report-$rate.log
done
stop_app fwd $fwd_pid
[ "$app_rc" = 0 ] || failures=$((failures + 1))
check "ixy-fwd, every ixy-pcap and ixy-pktgen ended cleanly" test "$failures" = 0
