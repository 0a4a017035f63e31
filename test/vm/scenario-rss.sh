# Scenario rss (sourced by guest-init.sh; NIC A an igb whose netdev is a UDP socket the host sends into): vm_rss opens
# A with 4 RX queues and the default RSS and prints every frame's queue; the host's sender (check_rss.py) starts once
# this scenario says "rss receiving" and the host checks vm_rss's lines against its own prediction (host-rss.sh).
# vm_rss's lines for the host's check on stdout, ixy's messages (and a register trace, IXY_TRACE=1) on stderr.
run_app vm_rss "$NIC_A" 4 3000 >/tmp/rss.log 2>/tmp/rss.err &
rss_pid=$!
for _ in $(seq 300); do
	grep -q "^rss ready" /tmp/rss.log && break
	kill -0 $rss_pid 2>/dev/null || break
	sleep 0.1
done
if grep -q "^rss ready" /tmp/rss.log; then
	marker "rss receiving"
else
	marker "vm_rss did not start"
fi
wait $rss_pid
rss_rc=$?
marker "vm_rss exit $rss_rc"
grep -v "^rss frame " /tmp/rss.log | sed 's/^/    /'
grep -v " trace " /tmp/rss.err | sed 's/^/    /'
check_eq "vm_rss ran to its end (exit code)" "$rss_rc" 0
check "vm_rss received frames on more than one queue" \
	test "$(grep "^rss frame " /tmp/rss.log | cut -d' ' -f3 | sort -u | wc -l)" -gt 1
send_file rss.log
send_file rss.err
