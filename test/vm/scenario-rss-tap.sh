# Scenario rss (sourced by guest-init.sh, mode bare): NIC A is QEMU's virtio-net with mq=on,rss=on behind a tap of 4
# queues (host-rss-tap.sh). vm_rss_tap opens it with 4 queue pairs through ixy (VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET and
# _RSS_CONFIG with ixy's default RSS) and counts on which queue each of the host's test frames arrives; once it says
# "rss ready" the marker tells the host to send. Its key=value lines go to the host as rss.log, which checks them.
RSS_QUEUES=4
RSS_FRAMES=${RSS_FRAMES:-512}
vm_rss_tap $NIC_A $RSS_QUEUES "$RSS_FRAMES" 120 >/tmp/rss.log 2>&1 &
rss_pid=$!
ready=no
for _ in $(seq 600); do
	grep -q "^rss ready" /tmp/rss.log 2>/dev/null && { ready=yes; break; }
	kill -0 $rss_pid 2>/dev/null || break
	sleep 0.1
done
if [ $ready = yes ]; then
	marker "rss ready"
else
	marker "rss did not start"
fi
wait $rss_pid
check_eq "vm_rss_tap exit code" "$?" 0
grep -v "^rss_frame " /tmp/rss.log | sed 's/^/    /'
send_file rss.log
