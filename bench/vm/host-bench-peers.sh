# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario bench-peers, the host's side (the guest's is scenario-bench-peers.sh): a benchmark, ixy-fwd (with ixy's
# VirtIO driver and over AF_XDP on virtio_net), the Linux bridge, afpacket_fwd and DPDK's testpmd (if the host has
# it) forwarding B -> C in turn, with ixy-pktgen on A as the source and ixy-pcap on D as the sink, or a source and a
# sink on the host (--host-ends; bench/peers.sh).
# With --host-ends on a host of 2 CPUs or more, QEMU runs on CPU 0 only (taskset; bench/peers.sh puts the host's
# source and sink on CPU 1). With --env IXY_BENCH_KICKS=1, QEMU writes a trace of the NICs' notifications and the
# serial port's characters, and bench/vm/kicks.sh counts each run's kicks per NIC into OUT/kicks.txt (the trace is
# removed afterwards: it grows by a line per kick).
mode=kmod      # the bridge, afpacket_fwd and AF_XDP need the kernel's driver
time_limit=1200 # the benchmark's command chooses its runs' length
command -v dpdk-testpmd >/dev/null && guest_options+=(--with-testpmd)
# shellcheck source=bench/vm/host-ends.sh
. "$src/bench/vm/host-ends.sh"
[ -n "$host_ends" ] && [ "$(nproc)" -ge 2 ] && qemu_prefix=(taskset -c 0)
kicks=no
case " ${envs[*]} " in *" IXY_BENCH_KICKS=1 "*) kicks=yes ;; esac
# DPDK's testpmd needs SSE4.2, which QEMU's default CPU model lacks: TCG's "max" model has it. For all peers alike.
devices() {
	qemu_args+=(-cpu max)
	[ $kicks = no ] || qemu_args+=(-trace enable=virtio_set_status -trace enable=virtio_queue_notify
		-trace enable=serial_write -trace "file=$out/trace.log")
}
checks() {
	guest_checks
	[ $kicks = yes ] || return 0
	local counted=yes
	"$src/bench/vm/kicks.sh" "$out/trace.log" >"$out/kicks.txt" || counted=no
	expect "the kicks counted from QEMU's trace (bench/vm/kicks.sh)" test $counted = yes
	[ $counted = no ] || rm -f "$out/trace.log"
}
