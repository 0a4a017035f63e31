# Scenario e2e (sourced by guest-init.sh): the driver self test, then the apps as a pipeline.
#   1. vm_selftest from B to A (the driver through the ixy API; A only receives, so that the host's record of
#      what A sends holds only ixy-pktgen's packets),
#   2. ixy-pcap on D and ixy-fwd between B and C, then ixy-pktgen on A. The generator's packets go
#      A -> socket pair -> B -> ixy-fwd -> C -> socket pair -> D -> capture (run-vm.sh joins the NICs with pairs of
#      UDP sockets, which keep the frames' order). Receivers start first, so that the generator's first packets
#      find them ready.
#   3. ixy-pktgen --replay of the host's file on D (run-vm.sh records what D sends).
#   4. ixy-pktgen with addresses, a VLAN tag, IPv6 and end markers (issue 37) from B to ixy-pcap --report on A
#      (both free since step 2; run-vm.sh records what B sends).
# run-vm.sh checks the results: check_capture.py compares the capture with the host's records of the wire.
# The apps run with --user ixy: through sysfs they drop root once their devices run; through VFIO they are that user
# already. While they run, their /proc/<pid>/status goes to status.txt (app_status): the host checks the uid, the
# seccomp filter and no_new_privs.

# 1. Driver self test
(run_app vm_selftest $NIC_B $NIC_A "$mac_b" "$mac_a" >/tmp/selftest.log 2>&1)
marker "selftest exit $?"
send_file selftest.log

# 2. Pipeline. ixy-pktgen --rate (issue 30): about what ixy-fwd forwards under TCG (7 to 14 kpps measured, by load),
# so that the pipeline takes no longer than at full speed (the capture's 30000 frames come as fast as the forwarder
# passes them) while losing some frames instead of most: ixy-pcap's report (checked against the host's records) then
# also sees loss. At 5 kpps the pipeline took 6.1 s instead of 2 to 4.
pktgen_options="--rate 10kpps"
pipeline $NIC_B $NIC_C

# 3. Replay (issue 30): ixy-pktgen --replay sends the host's file (/replay.pcap, test/vm/replay_file.py: 300 frames)
# from D, which ixy-pcap no longer uses, once: ixy-pktgen waits for the NIC to send what its TX queue took before it
# stops, so every frame must leave. The host compares QEMU's record of what D sent with the file, byte for byte.
(run_app ixy-pktgen --user ixy --replay /replay.pcap $NIC_D >/tmp/replay.log 2>&1)
marker "replay exit $?"

# 4. Issue 37: the options of host-e2e.sh's forms_options (the host checks every field of QEMU's record of what B
# sent against them), from B to A, where ixy-pcap --report must count every frame as ixy-pktgen's, and all loss.
forms_options="--src-mac 02:37:00:00:00:01 --dst-mac 02:37:00:00:00:02 --src-ip fd00::1:1-fd00::1:4 --dst-ip fd00::2:1
	--dst-port 4000-4001 --vlan 37:5 --flows 4 --count 2000 --rate 2kpps --mark-end"
run_app ixy-pcap --user ixy --report $NIC_A - >/tmp/forms-pcap.log 2>&1 &
forms_pcap=$!
if wait_running /tmp/forms-pcap.log $forms_pcap; then
	# shellcheck disable=SC2086 # $forms_options: words
	(run_app ixy-pktgen --user ixy $forms_options $NIC_B >/tmp/forms-pktgen.log 2>&1)
	marker "forms pktgen exit $?"
	sleep 1 # the last frames and the markers reach ixy-pcap
fi
stop_app forms-pcap $forms_pcap

for name in pcap.log fwd.log pktgen.log status.txt replay.log forms-pcap.log forms-pktgen.log; do
	[ -f /tmp/$name ] && send_file $name
done
[ -f /tmp/capture.pcap ] && send_file capture.pcap
if [ -n "$APP_USER" ]; then
	check_eq "ixy-pcap and ixy-fwd ran as user $APP_USER" "$(sort -u /tmp/apps-uid.txt)" "uid $(id -u "$APP_USER")"
fi
# kmod without VFIO: ixy took each NIC from its kernel driver and gave it to none (run-vm.sh checks the state).
if [ "$mode" = kmod ] && [ "$vfio" != yes ]; then
	for nic in $NIC_A $NIC_B $NIC_C $NIC_D; do
		marker "after the apps, kernel driver of $nic: $(kernel_driver "$nic")"
	done
fi
