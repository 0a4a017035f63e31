# Scenario bench-peers (sourced by guest-init.sh; kmod, legacy VirtIO NICs; bench/peers.sh runs it): a benchmark, not
# a test. ixy-pktgen on A sends as fast as it can and ixy-pcap on D counts what arrives (into /dev/null): the same
# source and sink for every forwarder between B and C, one after the other, ROUNDS rounds of BENCH_S seconds each:
#   ixy       ixy-fwd B C (the NICs taken from the kernel's driver, given back afterwards)
#   bridge    the Linux bridge with B and C as its ports (kernel driver virtio_net)
#   afpacket  afpacket_fwd on B's and C's interfaces (packet sockets with TPACKET_V3 rings, bench/peers)
# Prints "bench <peer> run <i>: <packets> packets at the sink in <seconds> s" per run.
BENCH_S=${IXY_BENCH_SECONDS:-10}
ROUNDS=${IXY_BENCH_ROUNDS:-3}

# kernel_takes NIC: the NIC bound to the kernel's VirtIO driver again (after ixy-fwd), its interface up; prints its name.
kernel_takes() {
	[ -e "/sys/bus/pci/devices/$1/driver" ] || echo "$1" >/sys/bus/pci/drivers/virtio-pci/bind
	for _ in $(seq 50); do
		_if=$(interface_of "$1")
		[ -n "$_if" ] && break
		sleep 0.1
	done
	ip link set "$_if" up
	echo "$_if"
}
# kernel_leaves NIC: its interface down, so that ixy may take it.
kernel_leaves() {
	_if=$(interface_of "$1")
	[ -z "$_if" ] || ip link set "$_if" down
}
uptime_s() { cut -d' ' -f1 /proc/uptime; }

run_app ixy-pktgen $NIC_A >/tmp/bench-pktgen.log 2>&1 &
pktgen_pid=$!
if ! wait_running /tmp/bench-pktgen.log $pktgen_pid; then
	marker "FAIL ixy-pktgen did not start"
	checks_failed=$((checks_failed + 1))
fi
for i in $(seq "$ROUNDS"); do
	for peer in ixy bridge afpacket; do
		: >/tmp/bench-fwd.log
		case $peer in
			ixy)
				kernel_leaves $NIC_B
				kernel_leaves $NIC_C
				run_app ixy-fwd $NIC_B $NIC_C >/tmp/bench-fwd.log 2>&1 &
				fwd_pid=$!
				wait_running /tmp/bench-fwd.log $fwd_pid || marker "FAIL ixy-fwd did not start"
				;;
			bridge)
				if_b=$(kernel_takes $NIC_B) if_c=$(kernel_takes $NIC_C)
				ip link add br0 type bridge && ip link set "$if_b" master br0 && ip link set "$if_c" master br0 &&
					ip link set br0 up || marker "FAIL the bridge did not come up"
				fwd_pid=
				;;
			afpacket)
				if_b=$(kernel_takes $NIC_B) if_c=$(kernel_takes $NIC_C)
				run_app afpacket_fwd "$if_b" "$if_c" >/tmp/bench-fwd.log 2>&1 &
				fwd_pid=$!
				for _ in $(seq 50); do grep -q forwarding /tmp/bench-fwd.log && break; sleep 0.1; done
				;;
		esac
		t0=$(uptime_s)
		run_app ixy-pcap $NIC_D /dev/null >/tmp/bench-sink.log 2>&1 &
		sink_pid=$!
		wait_running /tmp/bench-sink.log $sink_pid || marker "FAIL the sink did not start"
		sleep "$BENCH_S"
		stop_app sink $sink_pid
		t1=$(uptime_s)
		sink=$(sed -n 's/.*captured \([0-9]*\) packets.*/\1/p' /tmp/bench-sink.log)
		[ -z "$fwd_pid" ] || stop_app $peer $fwd_pid
		[ "$peer" = bridge ] && ip link delete br0
		grep -E "forwarded" /tmp/bench-fwd.log | sed 's/^/    /'
		marker "bench $peer run $i: ${sink:-0} packets at the sink in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"
	done
done
stop_app pktgen $pktgen_pid
check "ixy-pktgen ran to the end and stopped cleanly" test "$app_rc" = 0
