# Scenario trace (sourced by guest-init.sh; a build configured with -DIXY_TRACE=ON, NIC A an igb): the register trace
# for students on QEMU's igb model. ixy-pktgen runs on A for a few seconds with IXY_TRACE=1; its trace must name the
# registers from the igb driver's table and show the init in the datasheet's order (82576 datasheet 4.5: reset with
# interrupts masked, then receive setup, transmit setup, and the rings' tail writes that start them), and its first
# lines go to the console for the book.
run_app env IXY_TRACE=1 ixy-pktgen $NIC_A >/tmp/trace-pktgen.log 2>&1 &
pktgen_pid=$!
wait_running /tmp/trace-pktgen.log $pktgen_pid || marker "FAIL ixy-pktgen did not start"
sleep 2
stop_app pktgen $pktgen_pid
grep " trace " /tmp/trace-pktgen.log >/tmp/trace.txt
marker "trace: $(wc -l </tmp/trace.txt) register accesses; the first 40:"
head -40 /tmp/trace.txt | sed 's/^/    /'
# first_line PATTERN: the line number of the first trace line matching PATTERN (0 if none).
first_line() { grep -n -m1 -E "$1" /tmp/trace.txt | cut -d: -f1 | grep . || echo 0; }
nonzero="<- 0x[0-9a-f]*[1-9a-f][0-9a-f]*$"
reset=$(first_line " igb CTRL\[0x00000\] <- ")
rdbal=$(first_line " igb RDBAL\(0\)\[0x0c000\] <- ")
rctl=$(first_line " igb RCTL\[0x00100\] <- ")
rdt=$(first_line " igb RDT\(0\)\[0x0c018\] $nonzero")
tdbal=$(first_line " igb TDBAL\(0\)\[0x0e000\] <- ")
tctl=$(first_line " igb TCTL\[0x00400\] <- ")
tdt=$(first_line " igb TDT\(0\)\[0x0e018\] $nonzero")
check "ixy-pktgen stopped cleanly" test "$app_rc" = 0
check "every trace line names its NIC, the igb driver and a register of its table or an offset" \
	test "$(grep -c -v -E "^ixy: trace $NIC_A igb ([A-Z0-9_()]+|\\?)\\[0x[0-9a-f]{5}\\] (<-|->) 0x[0-9a-f]{8}$" /tmp/trace.txt)" = 0
check "the trace shows the reset (CTRL written, line $reset)" test "$reset" -gt 0
check "receive setup after the reset (RCTL written, line $rctl; RDBAL(0), line $rdbal)" \
	test "$rctl" -gt "$reset" -a "$rdbal" -gt "$reset"
check "RX ring 0 given buffers after its base address (RDT(0) <- nonzero, line $rdt)" test "$rdt" -gt "$rdbal"
check "transmit setup after the reset (TCTL written, line $tctl; TDBAL(0), line $tdbal)" \
	test "$tctl" -gt "$reset" -a "$tdbal" -gt "$reset"
check "packets sent only once transmit is set up (TDT(0) <- nonzero, line $tdt)" \
	test "$tdt" -gt "$tctl" -a "$tdt" -gt "$tdbal"
