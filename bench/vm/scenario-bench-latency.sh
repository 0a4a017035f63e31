# Scenario bench-latency (sourced by guest-init.sh; run-vm.sh --vfio --nics igb --host-ends, bench/latency.sh runs
# it): a benchmark, not a test. The source and the sink are on the host (bench/peers/host_ends): the source stamps
# every frame with its due time, the sink takes each frame's latency; the guest's one vCPU runs only the forwarder
# B -> C. The guest sets the load through its console: "latency load max|overload|<percent>" (host_ends: the source
# at its overload rate, or at that share of the largest rate it measured in a run under "load max"), and
# "latency path nic|direct|hub" (where the source sends), and brackets each measured run of BENCH_S seconds with
# "bench <name> run <i>: begin" / "...: end" (host_ends prints the run's percentiles at the end). In this one boot:
#   1. the forwarder's maximum: ixy-fwd --poll (512 descriptors) under overload, 4 s of warm-up, then 3 runs (the
#      largest counts: the first seconds after the boot forward less);
#   2. baselines with the guest idle: the measuring path alone (path direct: host_ends's source to its own sink) and
#      QEMU's netdev path without NIC or guest (path hub: QEMU's hub between two netdevs), at 1, 10, 50, 90 % load;
#   3. ixy-fwd --poll --ring R, R = the ring sizes but 512, each at 1, 10, 50, 90 % of the maximum and overload
#      (at 1 % frames come milliseconds apart, longer than the 500 us the waiter polls before it sleeps: --wait
#      sleeps between frames there, at 10 % it hardly does);
#   4. ROUNDS rounds of ixy-fwd --poll and --wait 1000 (512 descriptors), DPDK's testpmd io forwarding (if the
#      guest has it; 512 descriptors, vfio-pci) and the Linux bridge (the kernel's igb driver takes B and C back),
#      each at the same loads, the order rotated by one each round (run <i> = round i).
# For ixy-fwd the CPU time it used in each run (/proc/<pid>/stat utime + stime, ticks of USER_HZ, 100 on x86) and how
# often it slept (/proc/<pid>/status voluntary_ctxt_switches of the forwarding thread: each sleep of the waiter is
# one; with --poll the count shows how often it blocks otherwise) are marked "cpu <name> run <i>: ticks <n> switches <n>": with --wait, the forwarder's own time per packet
# and its sleeps.
# Run names: <forwarder>,r<ring>,l<load>, e.g. ixy-poll,r512,l50 (bridge, direct, hub: r0).
BENCH_S=${IXY_BENCH_SECONDS:-4}
RINGS=$(echo "${IXY_BENCH_RINGS:-64:256:512:1024:4096}" | tr : ' ')
ROUNDS=${IXY_BENCH_ROUNDS:-3}
LOADS="1 10 50 90 overload"
# After a change of load, before the measured run, the queues reach their new level: 1 s, and under overload 4 s
# (QEMU's igb stops taking frames from its netdev while the RX ring is full, so the host's socket buffer drops the
# excess; the ring fills at the rate QEMU delivers minus the forwarder's, which can be slow: 4096 descriptors at a
# few kpps more than the forwarder takes need more than a second).
SETTLE_S=1
SETTLE_OVERLOAD_S=4

if [ "${IXY_BENCH_HOST_ENDS:-0}" != 1 ]; then
	marker "FAIL bench-latency needs the source and sink on the host (run-vm.sh --host-ends)"
	checks_failed=$((checks_failed + 1))
	RINGS="" LOADS="" ROUNDS=0
fi

cpu_pid=
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$cpu_pid/stat" 2>/dev/null || echo 0; }
cpu_switches() { awk '$1 == "voluntary_ctxt_switches:" { print $2 }' "/proc/$cpu_pid/status" 2>/dev/null || echo 0; }

# measure NAME LOAD [RUN]: sets the load, lets the queues settle, marks a measured run (and ixy-fwd's CPU time).
measure() {
	marker "latency load $2"
	[ "$2" = overload ] || [ "$2" = max ] && sleep $SETTLE_OVERLOAD_S || sleep $SETTLE_S
	_ticks=$(cpu_ticks) _switches=$(cpu_switches)
	marker "bench $1,l$2 run ${3:-1}: begin"
	sleep "$BENCH_S"
	marker "bench $1,l$2 run ${3:-1}: end"
	[ -z "$cpu_pid" ] ||
		marker "cpu $1,l$2 run ${3:-1}: ticks $(($(cpu_ticks) - _ticks)) switches $(($(cpu_switches) - _switches))"
}

# fwd_start OPTIONS...: ixy-fwd with OPTIONS forwarding B -> C, the traffic already at LOAD (the first to measure).
fwd_start() {
	run_app ixy-fwd "$@" $NIC_B $NIC_C >/tmp/bench-fwd.log 2>&1 &
	fwd_pid=$!
	wait_running /tmp/bench-fwd.log $fwd_pid || { marker "FAIL ixy-fwd $* did not start"; sed 's/^/    /' /tmp/bench-fwd.log; }
	cpu_pid=$(pidof ixy-fwd 2>/dev/null | cut -d' ' -f1)
	[ -n "$cpu_pid" ] || cpu_pid=$fwd_pid
	sleep 1 # warm-up
}
fwd_stop() { # fwd_stop NAME
	check "$1: ixy-fwd still running at the end" kill -0 "$fwd_pid"
	stop_app fwd $fwd_pid
	cpu_pid=
	grep -E "^(totals|waiter) " /tmp/bench-fwd.log | sed 's/^/    /'
}

# fwd_loads NAME RUN OPTIONS...: ixy-fwd with OPTIONS, measured at each load.
fwd_loads() {
	_name=$1 _run=$2
	shift 2
	marker "latency load ${LOADS%% *}" # traffic while it starts (the first load again below)
	fwd_start "$@"
	for load in $LOADS; do
		measure "$_name" "$load" "$_run"
	done
	fwd_stop "$_name"
}

# testpmd RUN: B and C are bound to vfio-pci already (for user ixy; testpmd runs as root).
testpmd_loads() {
	command -v dpdk-testpmd >/dev/null || return 0
	mkdir -p /var/run # EAL's runtime directory (/var/run/dpdk) goes there
	rm -f /tmp/testpmd.in
	mkfifo /tmp/testpmd.in
	marker "latency load 10"
	# Both lcores on the one CPU (the main one only waits); it forwards until SIGINT (--stats-period: statistics every
	# second, whose first shows that it forwards). Its stdin is a fifo held open.
	dpdk-testpmd --lcores 0@0,1@0 -a $NIC_B -a $NIC_C -m 64 --file-prefix ixybench -- \
		--forward-mode=io --auto-start --nb-cores=1 --total-num-mbufs=8192 --rxd=512 --txd=512 \
		--disable-link-check --stats-period=1 </tmp/testpmd.in >/tmp/bench-testpmd.log 2>&1 &
	fwd_pid=$!
	exec 3>/tmp/testpmd.in
	for _ in $(seq 600); do grep -q "Rx-pps" /tmp/bench-testpmd.log && break; sleep 0.1; done
	if grep -q "Rx-pps" /tmp/bench-testpmd.log; then
		sleep 1
		for load in $LOADS; do
			measure testpmd,r512 "$load" "$1"
		done
	else
		marker "testpmd did not start:"
		tail -20 /tmp/bench-testpmd.log
	fi
	stop_app testpmd $fwd_pid
	exec 3>&-
	grep -E "RX-packets|TX-packets" /tmp/bench-testpmd.log | tail -2 | sed 's/^ */    testpmd total: /'
}

# bridge_loads RUN: B and C back to the kernel's igb driver, bridged, then to vfio-pci again.
bridge_loads() {
	for nic in $NIC_B $NIC_C; do
		setup-vfio.sh --undo $nic >/dev/null 2>&1 || marker "FAIL setup-vfio.sh --undo $nic"
	done
	for _ in $(seq 50); do
		if_b=$(interface_of $NIC_B) if_c=$(interface_of $NIC_C)
		[ -n "$if_b" ] && [ -n "$if_c" ] && break
		sleep 0.1
	done
	marker "latency load 10"
	if ip link add br0 type bridge && ip link set "$if_b" master br0 && ip link set "$if_c" master br0 &&
		ip link set "$if_b" up && ip link set "$if_c" up && ip link set br0 up; then
		sleep 3 # the links come up, the bridge learns where the source is
		for load in $LOADS; do
			measure bridge,r0 "$load" "$1"
		done
		check "bridge: still up at the end" ip link show br0
	else
		marker "FAIL the bridge did not come up"
	fi
	ip link delete br0
	for nic in $NIC_B $NIC_C; do
		ip link set "$(interface_of $nic)" down
		setup-vfio.sh $nic ixy >/dev/null 2>&1 || marker "FAIL setup-vfio.sh $nic ixy"
	done
}

# setup-vfio.sh's locked-memory limit is for the default 512 descriptors; with 4096 each NIC's receive pool alone is
# 2 * 4096 + 1024 buffers of 2 KiB (18 MiB). The apps inherit this shell's limit.
ulimit -l 131072
if [ -n "$LOADS" ]; then
	# 1. the maximum
	marker "latency load max"
	fwd_start --poll --ring 512
	marker "latency load max"
	sleep $SETTLE_OVERLOAD_S
	for run in 1 2 3; do
		marker "bench ixy-poll,r512,lmax run $run: begin"
		sleep "$BENCH_S"
		marker "bench ixy-poll,r512,lmax run $run: end"
	done
	fwd_stop ixy-poll,r512,lmax
	# 2. the baselines, the guest idle
	for path in direct hub; do
		marker "latency path $path"
		for load in 1 10 50 90; do
			measure "$path,r0" "$load"
		done
	done
	marker "latency path nic"
fi
# 3. the ring sizes
for ring in $RINGS; do
	[ "$ring" = 512 ] || fwd_loads "ixy-poll,r$ring" 1 --poll --ring "$ring"
done
# 4. the peers, the order rotated each round
order="poll wait testpmd bridge"
for round in $(seq "$ROUNDS"); do
	for peer in $order; do
		case $peer in
			poll) fwd_loads ixy-poll,r512 "$round" --poll --ring 512 ;;
			wait) fwd_loads ixy-wait,r512 "$round" --wait 1000 --ring 512 ;;
			testpmd) testpmd_loads "$round" ;;
			bridge) bridge_loads "$round" ;;
		esac
	done
	order="${order#* } ${order%% *}"
done
marker "latency load 10" # (a quiet end)
