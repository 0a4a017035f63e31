# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario fwd-rss, the host's side (the guest's is scenario-fwd-rss.sh; issue 20): the apps with several queues on a
# q35 machine with 4 vCPUs. ixy-pktgen --flows 64 on A, ixy-fwd --queues N (--queues, default 4) between B and C,
# ixy-pcap --queues 4 on D; A and B, C and D joined by UDP socket pairs on 127.0.0.1 (frames keep their order).
# QEMU's filter-dump records what A sends, what reaches B, what C sends and what reaches D; check_fwd_rss.py predicts
# from the frames that reached B, with a Toeplitz hash of its own and ixy's table (entry i = i % N), how many land on
# each RX queue of B, and compares with ixy-fwd's queue lines of B exactly; it follows every frame of every flow from A
# through C to ixy-pcap's capture: once each, in order per flow, every one accounted for by the records and the apps'
# counters. With --vfio (mode kmod) the apps run as user ixy through VFIO and wait for interrupts (--wait, their
# default): each RX queue of B and D must have raised its own MSI-X vector (vfio_queue_checks in run-vm.sh).
mode=${mode:-bare}
queues_ok=yes
queues=${queues:-4}
vcpus=4
case "$queues" in 2 | 4) ;; *) echo "run-vm.sh: fwd-rss takes --queues 2 or 4" >&2; exit 2 ;; esac
[ "$nics" = igb ] || { echo "run-vm.sh: fwd-rss runs on --nics igb" >&2; exit 2; }
network() { pair_network; }
devices() {
	dump nic_a rx "$out/host-a.pcap"
	dump nic_b tx "$out/host-b.pcap"
	dump nic_c rx "$out/host-c.pcap"
	dump nic_d tx "$out/host-d.pcap"
	extra="ixy_fwd_queues=$queues "
}
checks() {
	[ $vfio = no ] || vfio_queue_checks igb "$queues"
	expect "the guest has 4 CPUs" marker "fwd-rss: .*, 4 CPUs$"
	expect "receivers started before the generator" marker "receivers running"
	expect_fwd_pinned "$queues"
	expect "ixy-pcap captured $packets packets and exited 0" marker "pcap exit 0$"
	expect "ixy-pktgen stopped cleanly on SIGINT" marker "pktgen exit 0$"
	expect "ixy-fwd stopped cleanly on SIGINT" marker "fwd exit 0$"
	show_app_logs
	local modified_byte port_base port_step port_mod
	"$build_dir/test/vm/vm_constants" >"$out/constants.txt"
	modified_byte=$(total "$out/constants.txt" constants fwd_modified_byte)
	port_base=$(total "$out/constants.txt" constants flow_port_base)
	port_step=$(total "$out/constants.txt" constants flow_port_step)
	port_mod=$(total "$out/constants.txt" constants flow_port_mod)
	python3 "$here/check_fwd_rss.py" --host-a "$out/host-a.pcap" --host-b "$out/host-b.pcap" \
		--host-c "$out/host-c.pcap" --host-d "$out/host-d.pcap" --guest "$out/guest/capture.pcap" \
		--fwd-log "$out/guest/fwd.log" --pktgen-log "$out/guest/pktgen.log" --pcap-log "$out/guest/pcap.log" \
		--queues "$queues" --flows 64 --packets "$packets" --modified-byte "${modified_byte:-45}" \
		--flow-port-base "${port_base:-x}" --flow-port-step "${port_step:-x}" --flow-port-mod "${port_mod:-x}" \
		--nic-a "$nic_a" --nic-b "$nic_b" --nic-c "$nic_c" --nic-d "$nic_d" >"$out/check.txt" 2>&1
	expect_checker "$out/check.txt" "check_fwd_rss.py" $?
}
