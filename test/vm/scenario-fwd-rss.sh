# shellcheck shell=sh disable=SC2154 # sourced by guest-init.sh, which sets the variables
# Scenario fwd-rss (sourced by guest-init.sh; run-vm.sh boots 4 vCPUs, host-fwd-rss.sh says what the host checks):
# the apps with several queues as a pipeline on NICs joined by UDP socket pairs (frames keep their order):
#   A: ixy-pktgen --flows 64 -> B: ixy-fwd --queues Q (B to C) -> D: ixy-pcap --queues 4, $packets packets
# Q comes as ixy_fwd_queues=Q on the kernel command line. ixy-fwd's rings hold 4096 / Q descriptors (the huge pages of
# the guest hold no more): QEMU's igb drops a frame for a full RX queue without counting it (while another queue has
# room), and with 512 a thread that the busy host did not run for a while let queue 1 of 2 overflow (2305 frames
# gone, no counter). Once ixy-pcap has its packets, ixy-pktgen stops; ixy-fwd gets
# 2 s to pass on what is still on its way (so that its counters cover every frame that reached B), then stops; then
# ixy-pcap on D once more takes what still waits for D on the host (below). The apps' logs and the first capture go
# to the host, which checks them against QEMU's records of the wire.
#
# ixy_fwd_rate=R (issue 30; the igb variant, host-fwd-rss.sh): ixy-pktgen --rate R, so that the pipeline keeps up
# under TCG and most frames reach D (unpaced, about 80 % of them were lost between the NICs).
#
# ixy_fwd_send=S (the VirtIO variant, host-fwd-rss-tap.sh) instead: ixy-pktgen sends for S seconds only and ixy-pcap
# captures everything: once the capture file has not grown for 3 s (ixy-pcap flushes it every second), everything
# sent has passed, and ixy-pcap and ixy-fwd are stopped. ixy_fwd_ring=R: ixy-fwd --ring R (default: 4096 / Q).
fwd_queues=
fwd_rate=
fwd_send=
fwd_ring=
# shellcheck disable=SC2013  # words, not lines
for word in $(cat /proc/cmdline); do
	case "$word" in
		ixy_fwd_queues=*) fwd_queues=${word#*=} ;;
		ixy_fwd_rate=*) fwd_rate=${word#*=} ;;
		ixy_fwd_send=*) fwd_send=${word#*=} ;;
		ixy_fwd_ring=*) fwd_ring=${word#*=} ;;
	esac
done
[ -n "$fwd_send" ] && packets=100000000 # all of them
# The apps with several queues take more huge pages than guest-init.sh reserves for them (VirtIO NICs with 4 queue
# pairs: ixy-pktgen found 9 of the 11 it needs free), and ixy-pcap's rings of 2048 (below): 128 of the guest's 512 MiB.
echo 128 >$HUGEPAGE_SYSFS/nr_hugepages
HUGE_PAGES=$(cat $HUGEPAGE_SYSFS/nr_hugepages)
# ixy-pcap on an igb: rings of 2048, more than a queue of D gets in a run (about 1100 of the 5000 to 6000 frames
# that reach D): a full RX ring would make QEMU's igb drop frames uncounted (it sets RXO and goes on; no RQDPC, no
# MPC), and a flow's capture would have a gap. With the default 512 (ixy-pcap ignored --ring until it was fixed)
# that happened in 1 of 15 runs: 103 frames of queue 3 missing mid-run, in neither the capture nor a counter.
pcap_ring=
[ "$fwd_ring" = default ] || pcap_ring="--ring 2048"
ring_option="--ring $((4096 / fwd_queues))"
[ "$fwd_ring" = default ] && ring_option=
[ -n "$fwd_ring" ] && [ "$fwd_ring" != default ] && ring_option="--ring $fwd_ring"
# Through VFIO (run-vm.sh --vfio) the apps run as user ixy, and their DMA memory counts as locked memory: setup-vfio.sh's
# limit is for the default ring and one queue; ixy-fwd's 4 queues of 1024 take 40 huge pages per NIC. The limit here
# covers every huge page of the guest.
[ "$vfio" = yes ] && ulimit -l $((HUGE_PAGES * 2048))
marker "fwd-rss: ixy-fwd --queues $fwd_queues, ixy-pktgen --flows 64, ixy-pcap --queues 4, $(nproc) CPUs"
# shellcheck disable=SC2086  # pcap_ring: none or two words
run_app ixy-pcap --user ixy $pcap_ring --queues 4 "$NIC_D" /tmp/capture.pcap "$packets" >/tmp/pcap.log 2>&1 &
pcap_pid=$!
# shellcheck disable=SC2086  # ring_option: none or two words
run_app ixy-fwd --user ixy --wait 1000 $ring_option --queues "$fwd_queues" "$NIC_B" "$NIC_C" >/tmp/fwd.log 2>&1 &
fwd_pid=$!
if wait_running /tmp/pcap.log $pcap_pid && wait_running /tmp/fwd.log $fwd_pid; then
	marker "receivers running"
	# The CPUs each thread of ixy-fwd may run on (Cpus_allowed_list), sorted: it pins its threads before they loop.
	marker "fwd threads on CPUs: $(cat /proc/$fwd_pid/task/*/status | awk '/^Cpus_allowed_list:/ { print $2 }' |
		sort | tr '\n' ' ')"
	# Least privilege in every thread of ixy-fwd, its queue threads too (app_status in guest-init.sh).
	app_status ixy-fwd $fwd_pid >/tmp/status.txt
	# shellcheck disable=SC2046  # none or two words
	run_app ixy-pktgen --user ixy --flows 64 $([ -n "$fwd_rate" ] && echo --rate "$fwd_rate") "$NIC_A" \
		>/tmp/pktgen.log 2>&1 &
	pktgen_pid=$!
	if [ -n "$fwd_send" ]; then
		sleep "$fwd_send"
		stop_app pktgen $pktgen_pid
		size=-1 still=0
		for _ in $(seq "$wait_s"); do
			sleep 1
			new_size=$(stat -c %s /tmp/capture.pcap)
			if [ "$new_size" = "$size" ]; then still=$((still + 1)); else still=0; fi
			size=$new_size
			[ $still -ge 3 ] && break
		done
		marker "capture still for $still s at $size bytes"
		stop_app pcap $pcap_pid
		pktgen_pid=
	fi
	[ -n "$fwd_send" ] || wait_pcap $pcap_pid # (with fwd_send, ixy-pcap was stopped above)
	[ -n "$pktgen_pid" ] && stop_app pktgen $pktgen_pid
	sleep 2
else
	marker "receivers did not start"
	stop_app pcap $pcap_pid
fi
stop_app fwd $fwd_pid
# Socket pairs (not ixy_fwd_send): what C sent after ixy-pcap had its packets waits in D's socket on the host (QEMU's
# igb stops reading it while D cannot receive), and when QEMU ends, the host's kernel discards it without counting it
# anywhere (255 frames in a run: a full receive buffer). ixy-pcap on D once more lets QEMU read them, into its record
# of D, so that every frame C sent is in that record or in the host's count of drops (RcvbufErrors, host-fwd-rss.sh).
if [ -z "$fwd_send" ]; then
	run_app ixy-pcap --user ixy --queues 4 "$NIC_D" /tmp/drain.pcap 100000000 >/tmp/drain.log 2>&1 &
	drain_pid=$!
	wait_running /tmp/drain.log $drain_pid && sleep 1
	stop_app pcap-drain $drain_pid
fi
for name in pcap.log fwd.log pktgen.log capture.pcap drain.log status.txt; do
	[ -f /tmp/$name ] && send_file $name
done
