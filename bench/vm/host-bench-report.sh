# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario bench-report, the host's side (the guest's is scenario-bench-report.sh; book chapter 15, issue 30): the
# latency of ixy-fwd B -> C against the rate ixy-pktgen --rate offers, measured by ixy-pcap --report on D. A and B,
# and C and D, joined as in e2e. Afterwards docs/book/latency_plot.py writes $out/plot/latency.{csv,svg}.
mode=${mode:-bare}
network() { pair_network; }
checks() {
	guest_checks
	local runs=() log rate
	for log in "$out"/guest/report-*.log; do
		[ -f "$log" ] || continue
		rate=${log##*/report-}
		runs+=("${rate%.log}=$log")
	done
	expect "the guest sent the report of each step" test ${#runs[@]} -gt 0
	[ ${#runs[@]} -gt 0 ] && python3 "$src/docs/book/latency_plot.py" "$out/plot" "${runs[@]}" &&
		sed 's/^/  /' "$out/plot/latency.csv"
}
