# Scenario trace (sourced by guest-init.sh; a build configured with -DIXY_TRACE=ON; NIC A an igb, B a modern and C a
# legacy VirtIO NIC, D an 82574L driven by the e1000 driver): the register trace for students on QEMU's devices. ixy-pktgen runs on each of them in turn for
# a few seconds with IXY_TRACE=1; every trace line must name its register from the driver's (or transport's) table,
# and the trace must show the init in the order of the datasheet or the spec. The first lines of each trace go to the
# console for the book.

# trace_pktgen NIC: runs ixy-pktgen on NIC with IXY_TRACE=1, keeps its trace lines in /tmp/trace.txt.
trace_pktgen() {
	run_app env IXY_TRACE=1 ixy-pktgen "$1" >/tmp/trace-pktgen.log 2>&1 &
	_pid=$!
	wait_running /tmp/trace-pktgen.log $_pid || marker "FAIL ixy-pktgen on $1 did not start"
	sleep 2
	stop_app pktgen $_pid
	check "ixy-pktgen on $1 stopped cleanly" test "$app_rc" = 0
	grep " trace " /tmp/trace-pktgen.log >/tmp/trace.txt
	marker "trace of $1: $(wc -l </tmp/trace.txt) register accesses; the first 30:"
	head -30 /tmp/trace.txt | sed 's/^/    /'
}
# first_line PATTERN: the line number of the first trace line matching PATTERN (0 if none).
first_line() { grep -n -m1 -E "$1" /tmp/trace.txt | cut -d: -f1 | grep . || echo 0; }
# check_names NIC DRIVERS: every trace line is "ixy: trace NIC <one of DRIVERS> NAME[0xOFFSET] <-|-> 0xVALUE".
check_names() {
	check "every trace line of $1 names the NIC, its driver ($2) and a register of its table or an offset" \
		test "$(grep -c -v -E "^ixy: trace $1 ($2) ([A-Z0-9_()]+|\\?)\\[0x[0-9a-f]{5}\\] (<-|->) 0x[0-9a-f]{8}$" \
			/tmp/trace.txt)" = 0
}
nonzero="<- 0x[0-9a-f]*[1-9a-f][0-9a-f]*$"

# igb (82576 datasheet 4.5): reset, then receive and transmit setup, buffers and packets only after the rings.
trace_pktgen $NIC_A
check_names $NIC_A igb
reset=$(first_line " igb CTRL\[0x00000\] <- ")
rdbal=$(first_line " igb RDBAL\(0\)\[0x0c000\] <- ")
rctl=$(first_line " igb RCTL\[0x00100\] <- ")
rdt=$(first_line " igb RDT\(0\)\[0x0c018\] $nonzero")
tdbal=$(first_line " igb TDBAL\(0\)\[0x0e000\] <- ")
tctl=$(first_line " igb TCTL\[0x00400\] <- ")
tdt=$(first_line " igb TDT\(0\)\[0x0e018\] $nonzero")
check "igb: the trace shows the reset (CTRL written, line $reset)" test "$reset" -gt 0
check "igb: receive setup after the reset (RCTL written, line $rctl; RDBAL(0), line $rdbal)" \
	test "$rctl" -gt "$reset" -a "$rdbal" -gt "$reset"
check "igb: RX ring 0 given buffers after its base address (RDT(0) <- nonzero, line $rdt)" test "$rdt" -gt "$rdbal"
check "igb: transmit setup after the reset (TCTL written, line $tctl; TDBAL(0), line $tdbal)" \
	test "$tctl" -gt "$reset" -a "$tdbal" -gt "$reset"
check "igb: packets sent only once transmit is set up (TDT(0) <- nonzero, line $tdt)" \
	test "$tdt" -gt "$tctl" -a "$tdt" -gt "$tdbal"
# One RX queue: RSS stays off, as after reset; intel_rss.c touches none of its registers (issue 20).
check "igb: one RX queue, no RSS register accessed ($(grep -c -E " igb (RXCSUM|MRQC|RETA|RSSRK)" /tmp/trace.txt) lines)" \
	test "$(grep -c -E " igb (RXCSUM|MRQC|RETA|RSSRK)" /tmp/trace.txt)" = 0

# Modern VirtIO (VirtIO 1.0, 3.1.1): reset, ACKNOWLEDGE, DRIVER, features, FEATURES_OK, the queues, DRIVER_OK.
trace_pktgen $NIC_B
check_names $NIC_B "virtio-modern|virtio-notify|virtio-net-config"
status="virtio-modern DEVICE_STATUS\[0x00014\] <- "
reset=$(first_line "${status}0x00000000$")
ack=$(first_line "${status}0x00000001$")
driver=$(first_line "${status}0x00000003$")
features=$(first_line "virtio-modern DRIVER_FEATURE\[0x0000c\] <- ")
features_ok=$(first_line "${status}0x0000000b$")
enable=$(first_line "virtio-modern QUEUE_ENABLE\[0x0001c\] <- 0x00000001$")
driver_ok=$(first_line "${status}0x0000000f$")
notify=$(first_line "virtio-notify QUEUE_NOTIFY")
check "modern VirtIO: reset, ACKNOWLEDGE, DRIVER in order (lines $reset, $ack, $driver)" \
	test "$reset" -gt 0 -a "$ack" -gt "$reset" -a "$driver" -gt "$ack"
check "modern VirtIO: features, then FEATURES_OK (lines $features, $features_ok)" \
	test "$features" -gt "$driver" -a "$features_ok" -gt "$features"
check "modern VirtIO: a queue enabled, then DRIVER_OK (lines $enable, $driver_ok)" \
	test "$enable" -gt "$features_ok" -a "$driver_ok" -gt "$enable"
check "modern VirtIO: the device notified only after DRIVER_OK (line $notify)" test "$notify" -gt "$driver_ok"

# Legacy VirtIO (4.1.4.8, 3.1.2): reset, ACKNOWLEDGE, DRIVER, features, the queues' addresses, DRIVER_OK (no
# FEATURES_OK in the legacy interface).
trace_pktgen $NIC_C
check_names $NIC_C virtio-legacy
status="virtio-legacy STATUS\[0x00012\] <- "
reset=$(first_line "${status}0x00000000$")
ack=$(first_line "${status}0x00000001$")
driver=$(first_line "${status}0x00000003$")
features=$(first_line "virtio-legacy GUEST_FEATURES\[0x00004\] <- ")
pfn=$(first_line "virtio-legacy QUEUE_PFN\[0x00008\] $nonzero")
driver_ok=$(first_line "${status}0x00000007$")
notify=$(first_line "virtio-legacy QUEUE_NOTIFY\[0x00010\] <- ")
check "legacy VirtIO: reset, ACKNOWLEDGE, DRIVER in order (lines $reset, $ack, $driver)" \
	test "$reset" -gt 0 -a "$ack" -gt "$reset" -a "$driver" -gt "$ack"
check "legacy VirtIO: features, a queue's address, then DRIVER_OK (lines $features, $pfn, $driver_ok)" \
	test "$features" -gt "$driver" -a "$pfn" -gt "$features" -a "$driver_ok" -gt "$pfn"
check "legacy VirtIO: the device notified only after DRIVER_OK (line $notify)" test "$notify" -gt "$driver_ok"

# e1000 on an 82574L (8254x manual 14, 82574 datasheet 4.6): reset, then transmit and receive setup, the receive
# ring's buffers only after its base address and the receiver on, packets only after the transmitter is on.
trace_pktgen $NIC_D
check_names $NIC_D e1000
reset=$(first_line " e1000 CTRL\[0x00000\] <- ")
tdbal=$(first_line " e1000 TDBAL\[0x03800\] <- ")
tctl=$(first_line " e1000 TCTL\[0x00400\] <- ")
rdbal=$(first_line " e1000 RDBAL\[0x02800\] <- ")
rctl=$(first_line " e1000 RCTL\[0x00100\] <- ")
rdt=$(first_line " e1000 RDT\[0x02818\] $nonzero")
tdt=$(first_line " e1000 TDT\[0x03818\] $nonzero")
check "e1000: the trace shows the reset (CTRL written, line $reset)" test "$reset" -gt 0
check "e1000: transmit setup after the reset (TDBAL, line $tdbal; TCTL, line $tctl)" \
	test "$tdbal" -gt "$reset" -a "$tctl" -gt "$tdbal"
check "e1000: RX ring given buffers after its base address and RCTL (lines $rdbal, $rctl, RDT <- nonzero $rdt)" \
	test "$rdbal" -gt "$reset" -a "$rctl" -gt "$rdbal" -a "$rdt" -gt "$rctl"
check "e1000: packets sent only once transmit is set up (TDT <- nonzero, line $tdt)" test "$tdt" -gt "$tctl"
