# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario interrupts, the host's side (the guest's is scenario-interrupts.sh, which holds the checks): with --vfio,
# idle ixy-pcap and ixy-fwd use under 2% of a CPU (--wait), bursts of 1 to 1000 packets from vm_burst reach
# ixy-pcap's capture complete and in order within a second.
mode=${mode:-kmod}
[ $vfio = yes ] || { echo "run-vm.sh: the interrupts scenario needs --vfio (ixy has interrupts only there)" >&2; exit 2; }

network() {
	# Unix datagram sockets lose nothing: a full receiving socket makes the sender's QEMU wait (EAGAIN) instead of
	# dropping, as UDP does. With UDP, what the host's socket buffer could not hold while a woken-up app drained its
	# ring was lost: the host's timing, not ixy's (a burst of 1000 lost 70-680 frames on a busy machine). (A stream
	# pair within one QEMU froze the guest once the socket filled.)
	# (A short directory: a socket's path has at most 107 bytes, $out can be longer.)
	sock_dir=$(mktemp -d /tmp/ixy-vm.XXXXXX) || exit 1
	trap 'rm -rf "$sock_dir"' EXIT
	unix_pair nic_a nic_b "$sock_dir"
	unix_pair nic_c nic_d "$sock_dir"
}
checks() { guest_checks; }
