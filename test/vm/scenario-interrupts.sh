# Scenario interrupts (sourced by guest-init.sh; run-vm.sh --vfio, modern NICs): the apps sleep while no packet comes
# and wake up for every packet. A and B, C and D are joined by Unix datagram sockets (run-vm.sh): order kept, nothing
# lost on the way, since QEMU stops reading while the receiving NIC's ring is full and the sender then waits. (With
# UDP sockets the host's socket buffer, a few hundred frames, overflowed while the woken-up receiver drained its
# ring.) The sender A is a VirtIO NIC.
#   1. Idle: ixy-pcap on D and ixy-fwd between B and C run 20 s without traffic (--wait 1000, the default); their CPU time from
#      /proc/<pid>/stat must be under 2% of a CPU each. For comparison the same apps with --poll for 5 s.
#   2. Bursts: vm_burst sends 1, 7, 31, 32, 33 and 1000 packets from A to ixy-pcap on B, each followed by silence;
#      one second after each burst the capture must hold every packet so far, in order. (Not through ixy-fwd: a
#      burst of 1000 overruns its TX ring, and a forwarder drops what its TX queue does not take. That ixy-fwd wakes
#      up for traffic shows in the VFIO e2e test, where it sleeps until ixy-pktgen starts and forwards every packet.)
IDLE_S=20
POLL_S=5
ticks_per_s=$(getconf CLK_TCK 2>/dev/null || echo 100)

# cpu_ticks PID: user + system time of a process in clock ticks (fields 14 and 15 of /proc/<pid>/stat).
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# measure_idle SECONDS OPTION: runs ixy-pcap on D and ixy-fwd B <-> C with OPTION for SECONDS without traffic and
# writes "<pcap percent> <fwd percent>" of one CPU to /tmp/idle-result.
measure_idle() {
	# shellcheck disable=SC2086  # OPTION is one or two words
	run_app ixy-pcap $2 $NIC_D /tmp/idle.pcap >/tmp/idle-pcap.log 2>&1 &
	_pcap=$!
	# shellcheck disable=SC2086
	run_app ixy-fwd $2 $NIC_B $NIC_C >/tmp/idle-fwd.log 2>&1 &
	_fwd=$!
	if ! wait_running /tmp/idle-pcap.log $_pcap || ! wait_running /tmp/idle-fwd.log $_fwd; then
		marker "FAIL the apps did not start ($2)"
		checks_failed=$((checks_failed + 1))
	fi
	_p0=$(cpu_ticks $_pcap) _f0=$(cpu_ticks $_fwd)
	sleep "$1"
	_p1=$(cpu_ticks $_pcap) _f1=$(cpu_ticks $_fwd)
	stop_app pcap $_pcap
	stop_app fwd $_fwd
	cat /tmp/idle-pcap.log /tmp/idle-fwd.log | grep -E "^waiter |error" | sed 's/^/    /'
	cp /tmp/idle-fwd.log "/tmp/idle-fwd$1.log"
	awk -v p=$((_p1 - _p0)) -v f=$((_f1 - _f0)) -v s="$1" -v hz="$ticks_per_s" \
		'BEGIN { printf "%.1f %.1f\n", 100 * p / (s * hz), 100 * f / (s * hz) }' >/tmp/idle-result
}

measure_idle $IDLE_S "--wait 1000"
# shellcheck disable=SC2046
set -- $(cat /tmp/idle-result)
marker "idle $IDLE_S s with --wait 1000: ixy-pcap $1% of a CPU, ixy-fwd $2%"
check "ixy-fwd slept while idle" test "$(total /tmp/idle-fwd$IDLE_S.log "waiter app=ixy-fwd" slept)" -ge 1
check "ixy-pcap idle under 2% of a CPU ($1%)" awk -v x="$1" 'BEGIN { exit !(x < 2) }'
check "ixy-fwd idle under 2% of a CPU ($2%)" awk -v x="$2" 'BEGIN { exit !(x < 2) }'
measure_idle $POLL_S --poll
# shellcheck disable=SC2046
set -- $(cat /tmp/idle-result)
marker "idle $POLL_S s with --poll (comparison): ixy-pcap $1% of a CPU, ixy-fwd $2%"

# 2. Bursts
# A ring that holds the largest burst: a NIC drops what finds no descriptor while the app is still waking up (the igb
# does, into its missed-packets counter; a VirtIO device waits).
run_app ixy-pcap --ring 2048 $NIC_B /tmp/bursts.pcap >/tmp/bursts-pcap.log 2>&1 &
pcap_pid=$!
if wait_running /tmp/bursts-pcap.log $pcap_pid; then
	sleep 2 # idle: asleep before the first burst
	(run_app vm_burst $NIC_A /tmp/bursts.pcap 1 7 31 32 33 1000 >/tmp/bursts.log 2>&1)
	burst_rc=$?
	sed 's/^/    /' /tmp/bursts.log
	check "every burst complete and in order in the capture 1 s after it was sent (vm_burst exit $burst_rc)" \
		test "$burst_rc" = 0
else
	marker "FAIL ixy-pcap did not start"
	checks_failed=$((checks_failed + 1))
fi
stop_app pcap $pcap_pid
grep -E "^(totals|waiter) " /tmp/bursts-pcap.log | sed 's/^/    /'
check "ixy-pcap slept between the bursts" test "$(total /tmp/bursts-pcap.log "waiter app=ixy-pcap" slept)" -ge 1
# Woken by B's RX interrupt, not only by the waiter's timeout: its waiter line counts them (interrupts/<pci>/0=<n>).
woken=$(sed -n "s|^waiter app=ixy-pcap .* interrupts/$NIC_B/0=\([0-9]*\).*|\1|p" /tmp/bursts-pcap.log)
check "B's RX queue raised interrupts that woke ixy-pcap (${woken:-none})" test "${woken:-0}" -ge 1
marker "interrupts checks failed: $checks_failed"
