# Scenario bench-peers (sourced by guest-init.sh; kmod, legacy VirtIO NICs; bench/peers.sh runs it): a benchmark, not
# a test. ixy-pktgen on A sends as fast as it can and ixy-pcap on D counts what arrives (into /dev/null): the same
# source and sink for every forwarder between B and C, one after the other, ROUNDS rounds of BENCH_S seconds each:
#   ixy       ixy-fwd B C (the NICs taken from the kernel's driver, given back afterwards)
#   bridge    the Linux bridge with B and C as its ports (kernel driver virtio_net)
#   afpacket  afpacket_fwd on B's and C's interfaces (packet sockets with TPACKET_V3 rings, bench/peers)
#   xdp       ixy-fwd xdp:<B's interface> xdp:<C's interface>: ixy-fwd over AF_XDP on the kernel's virtio_net
#             (src/driver/xdp.c; the interfaces promiscuous, as the bridge and afpacket_fwd make them)
#   testpmd   DPDK's testpmd in io forwarding mode, B and C bound to uio_pci_generic (if the guest has it:
#             build-guest.sh --with-testpmd, when the host has dpdk-testpmd)
# Prints "bench <peer> run <i>: begin" and "...: end" around each measured run (QEMU's trace counts the kicks between
# them: bench/vm/kicks.sh), and "bench <peer> run <i>: <packets> packets at the sink in <seconds> s" after it. With
# IXY_BENCH_HOST_ENDS=1 (run-vm.sh --host-ends) the source and the sink are on the host, the guest's vCPU runs only
# the forwarder, and the host counts what arrived between the marks (no "packets at the sink" line).
# IXY_BENCH_PEERS: the peers to run and their order, separated by "+" (default ixy+bridge+afpacket+xdp+testpmd;
# bench/peers.sh --layouts: ixy+testpmd or testpmd+ixy); testpmd only if the guest has it.
# IXY_BENCH_ROUND: the number of the first round (default 1; bench/peers.sh --layouts boots once per round).
BENCH_S=${IXY_BENCH_SECONDS:-10}
ROUNDS=${IXY_BENCH_ROUNDS:-3}
FIRST_ROUND=${IXY_BENCH_ROUND:-1}

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
# uio_takes NIC / uio_leaves NIC: the NIC to uio_pci_generic for DPDK and back to no driver. driver_override, not
# new_id: new_id would also hand uio every other driverless VirtIO NIC, such as those ixy-pktgen and the sink use.
uio_takes() {
	[ -e "/sys/bus/pci/devices/$1/driver" ] && echo "$1" >"/sys/bus/pci/devices/$1/driver/unbind"
	echo uio_pci_generic >"/sys/bus/pci/devices/$1/driver_override"
	echo "$1" >/sys/bus/pci/drivers/uio_pci_generic/bind
}
uio_leaves() {
	echo >"/sys/bus/pci/devices/$1/driver_override"
	echo "$1" >/sys/bus/pci/drivers/uio_pci_generic/unbind
}
peers=
for peer in $(echo "${IXY_BENCH_PEERS:-ixy+bridge+afpacket+xdp+testpmd}" | tr + ' '); do
	case $peer in
		ixy | bridge | afpacket | xdp) peers="$peers $peer" ;;
		testpmd)
			if command -v dpdk-testpmd >/dev/null; then
				peers="$peers testpmd"
				mkfifo /tmp/testpmd.in
				mkdir -p /var/run # EAL's runtime directory (/var/run/dpdk) goes there
			else
				marker "bench: no dpdk-testpmd in the guest, testpmd skipped"
			fi
			;;
		*) marker "FAIL bench: unknown peer '$peer' in IXY_BENCH_PEERS" ;;
	esac
done

host_ends=${IXY_BENCH_HOST_ENDS:-0}
if [ "$host_ends" != 1 ]; then
	run_app ixy-pktgen $NIC_A >/tmp/bench-pktgen.log 2>&1 &
	pktgen_pid=$!
	if ! wait_running /tmp/bench-pktgen.log $pktgen_pid; then
		marker "FAIL ixy-pktgen did not start"
		checks_failed=$((checks_failed + 1))
	fi
fi
for i in $(seq "$FIRST_ROUND" $((FIRST_ROUND + ROUNDS - 1))); do
	for peer in $peers; do
		: >/tmp/bench-fwd.log
		case $peer in
			ixy)
				kernel_leaves $NIC_B
				kernel_leaves $NIC_C
				run_app ixy-fwd $NIC_B $NIC_C >/tmp/bench-fwd.log 2>&1 &
				fwd_pid=$!
				wait_running /tmp/bench-fwd.log $fwd_pid || marker "FAIL ixy-fwd did not start"
				grep -i -m2 "virtio" /tmp/bench-fwd.log | sed 's/^/    /' # the transport (and layout) it chose
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
			xdp)
				if_b=$(kernel_takes $NIC_B) if_c=$(kernel_takes $NIC_C)
				ip link set "$if_b" promisc on && ip link set "$if_c" promisc on
				run_app ixy-fwd "xdp:$if_b" "xdp:$if_c" >/tmp/bench-fwd.log 2>&1 &
				fwd_pid=$!
				wait_running /tmp/bench-fwd.log $fwd_pid || marker "FAIL ixy-fwd over AF_XDP did not start"
				grep "AF_XDP on" /tmp/bench-fwd.log | sed 's/^/    /'
				;;
			testpmd)
				kernel_leaves $NIC_B
				kernel_leaves $NIC_C
				uio_takes $NIC_B
				uio_takes $NIC_C
				# Both lcores on the one CPU (the main one only waits); testpmd forwards until its stdin
				# ends or it gets SIGINT: stdin is a fifo held open below.
				[ "$host_ends" = 1 ] && stats_period=--stats-period=1 || stats_period=
				# shellcheck disable=SC2086 # stats_period: empty or one word
				dpdk-testpmd --lcores 0@0,1@0 -a $NIC_B -a $NIC_C -m 64 --file-prefix ixybench -- \
					--forward-mode=io --auto-start --nb-cores=1 --total-num-mbufs=8192 --disable-link-check \
					$stats_period </tmp/testpmd.in >/tmp/bench-testpmd.log 2>&1 &
				fwd_pid=$!
				exec 3>/tmp/testpmd.in
				;;
		esac
		if [ "$host_ends" = 1 ]; then
			# The source and sink are on the host (bench/peers/host_ends), which counts between these two marks.
			# testpmd's output goes to a file, so stdio buffers it: its statistics every second (--stats-period)
			# fill the buffer within seconds, and the first of them says that it forwards.
			if [ "$peer" = testpmd ]; then
				for _ in $(seq 600); do grep -q "Rx-pps" /tmp/bench-testpmd.log && break; sleep 0.1; done
			fi
			sleep 2 # the same warm-up for every peer (the bridge learns where the source is)
			marker "bench $peer run $i: begin"
			sleep "$BENCH_S"
			marker "bench $peer run $i: end"
			if [ -n "$fwd_pid" ]; then
				check "$peer run $i: still running at the end" kill -0 "$fwd_pid"
			else
				check "$peer run $i: the bridge still up at the end" ip link show br0
			fi
		else
			# The same sign of life for every peer: a first sink sees the forwarded traffic (a rate line above 0
			# Mbit/s). Only then the measured run, with a new sink.
			run_app ixy-pcap $NIC_D /dev/null >/tmp/bench-probe.log 2>&1 &
			probe_pid=$!
			for _ in $(seq 600); do grep -q " RX: [1-9]" /tmp/bench-probe.log && break; sleep 0.1; done
			grep -q " RX: [1-9]" /tmp/bench-probe.log || marker "FAIL nothing arrived through $peer within 60 s"
			stop_app probe $probe_pid
			marker "bench $peer run $i: begin"
			t0=$(uptime_s)
			run_app ixy-pcap $NIC_D /dev/null >/tmp/bench-sink.log 2>&1 &
			sink_pid=$!
			wait_running /tmp/bench-sink.log $sink_pid || marker "FAIL the sink did not start"
			sleep "$BENCH_S"
			stop_app sink $sink_pid
			t1=$(uptime_s)
			marker "bench $peer run $i: end"
			sink=$(total /tmp/bench-sink.log "totals app=ixy-pcap pci=$NIC_D" captured)
		fi
		if [ "$peer" = testpmd ]; then
			exec 3>&- # the end of its stdin: testpmd stops forwarding, prints its totals and exits
			# (not with --stats-period: then it prints statistics until SIGINT, from stop_app below)
			for _ in $(seq 100); do [ -z "$stats_period" ] && kill -0 $fwd_pid 2>/dev/null || break; sleep 0.1; done
		fi
		[ -z "$fwd_pid" ] || stop_app $peer $fwd_pid
		[ "$peer" = bridge ] && ip link delete br0
		if [ "$peer" = testpmd ]; then
			grep -E "RX-packets|TX-packets" /tmp/bench-testpmd.log | tail -2 | sed 's/^ */    testpmd total: /'
			grep -i -m2 "packed" /tmp/bench-testpmd.log | sed 's/^/    testpmd: /' # (on a packed=on NIC)
			uio_leaves $NIC_B
			uio_leaves $NIC_C
		fi
		grep -E "forwarded" /tmp/bench-fwd.log | sed 's/^/    /'
		[ "$host_ends" = 1 ] ||
			marker "bench $peer run $i: ${sink:-0} packets at the sink in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"
	done
done
if [ "$host_ends" != 1 ]; then
	stop_app pktgen $pktgen_pid
	check "ixy-pktgen ran to the end and stopped cleanly" test "$app_rc" = 0
fi
