# Scenario bench-latency (sourced by guest-init.sh; run-vm.sh --vfio --nics igb --host-ends, bench/latency.sh runs
# it): a benchmark, not a test. The source and the sink are on the host (bench/peers/host_ends): the source stamps
# every frame with its send time, the sink takes each frame's latency; the guest's one vCPU runs only the forwarder
# B -> C. The guest sets the load through its console: "latency load max|overload|<percent>" (host_ends: the source
# at its overload rate, or at that share of the maximum it measured in the run after "load max"), and brackets each
# measured run of BENCH_S seconds with "bench <name> run 1: begin" / "...: end" (host_ends prints the run's
# percentiles at the end). In this one boot, in order:
#   1. ixy-fwd --poll (512 descriptors) under overload: the forwarder's maximum;
#   2. ixy-fwd --poll --ring R, R = 64 256 512 1024 4096, each at 10, 50, 90 % of that maximum and overload;
#   3. ixy-fwd --wait 1000 (interrupts through VFIO), 512 descriptors, at the same loads;
#   4. DPDK's testpmd io forwarding (if the guest has it), 512 descriptors, through vfio-pci, at the same loads;
#   5. the Linux bridge (the kernel's igb driver takes B and C back from vfio-pci), at the same loads.
# Run names: <forwarder>,r<ring>,l<load>, e.g. ixy-poll,r512,l50 (bridge: r0, the kernel driver's ring).
BENCH_S=${IXY_BENCH_SECONDS:-4}
RINGS=$(echo "${IXY_BENCH_RINGS:-64:256:512:1024:4096}" | tr : ' ')
LOADS="10 50 90 overload"
# After a change of load, before the measured run, the queues reach their new level: 1 s, and under overload 4 s
# (QEMU's igb stops taking frames from its netdev while the RX ring is full, so the host's socket buffer drops the
# excess; the ring fills at the rate QEMU delivers minus the forwarder's, which can be slow: 4096 descriptors at a
# few kpps more than the forwarder takes need more than a second).
SETTLE_S=1
SETTLE_OVERLOAD_S=4

if [ "${IXY_BENCH_HOST_ENDS:-0}" != 1 ]; then
	marker "FAIL bench-latency needs the source and sink on the host (run-vm.sh --host-ends)"
	checks_failed=$((checks_failed + 1))
fi

# measure NAME LOAD: sets the load, lets the queues settle, marks a measured run.
measure() {
	marker "latency load $2"
	[ "$2" = overload ] || [ "$2" = max ] && sleep $SETTLE_OVERLOAD_S || sleep $SETTLE_S
	marker "bench $1,l$2 run 1: begin"
	sleep "$BENCH_S"
	marker "bench $1,l$2 run 1: end"
}

# fwd_loads NAME LOADS OPTIONS...: ixy-fwd with OPTIONS forwarding B -> C, measured at each of LOADS.
fwd_loads() {
	_name=$1 _loads=$2
	shift 2
	marker "latency load ${_loads%% *}" # traffic while it starts (the first load again below)
	run_app ixy-fwd "$@" $NIC_B $NIC_C >/tmp/bench-fwd.log 2>&1 &
	fwd_pid=$!
	wait_running /tmp/bench-fwd.log $fwd_pid || { marker "FAIL ixy-fwd $* did not start"; sed 's/^/    /' /tmp/bench-fwd.log; }
	sleep 1 # warm-up
	for load in $_loads; do
		measure "$_name" "$load"
	done
	check "$_name: ixy-fwd still running at the end" kill -0 "$fwd_pid"
	stop_app fwd $fwd_pid
	grep -E "^(totals|waiter) " /tmp/bench-fwd.log | sed 's/^/    /'
}

[ "${IXY_BENCH_HOST_ENDS:-0}" = 1 ] || { RINGS=""; LOADS=""; }
# setup-vfio.sh's locked-memory limit is for the default 512 descriptors; with 4096 each NIC's receive pool alone is
# 2 * 4096 + 1024 buffers of 2 KiB (18 MiB). The apps inherit this shell's limit.
ulimit -l 131072
[ -z "$RINGS" ] || fwd_loads ixy-poll,r512 max --poll
for ring in $RINGS; do
	fwd_loads "ixy-poll,r$ring" "$LOADS" --poll --ring "$ring"
done
[ -z "$LOADS" ] || fwd_loads ixy-wait,r512 "$LOADS" --wait 1000 --ring 512

# testpmd: B and C are bound to vfio-pci already (for user ixy; testpmd runs as root).
if [ -n "$LOADS" ] && command -v dpdk-testpmd >/dev/null; then
	mkdir -p /var/run # EAL's runtime directory (/var/run/dpdk) goes there
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
			measure testpmd,r512 "$load"
		done
	else
		marker "testpmd did not start:"
		tail -20 /tmp/bench-testpmd.log
	fi
	stop_app testpmd $fwd_pid
	exec 3>&-
	grep -E "RX-packets|TX-packets" /tmp/bench-testpmd.log | tail -2 | sed 's/^ */    testpmd total: /'
fi

# The bridge: B and C back to the kernel's igb driver, then to vfio-pci again (guest-init gives them back at the end).
if [ -n "$LOADS" ]; then
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
			measure bridge,r0 "$load"
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
fi
marker "latency load 10" # (a quiet end)
