# Scenario xdp (sourced by guest-init.sh, mode kmod): ixy-fwd over AF_XDP on NICs the guest kernel drives
# (virtio_net or igb), between ixy's own drivers on A and D. The packets go
#   A (ixy-pktgen, ixy's driver) -> socket pair -> B -> ixy-fwd -> C -> socket pair -> D (ixy-pcap, ixy's driver)
# where each of B and C is either an AF_XDP device (xdp:<its interface>, the kernel's driver stays bound) or a NIC
# ixy-fwd drives itself: ixy_xdp= on the kernel command line (host-xdp.sh) names which, e.g. ixy_xdp=B,C (both over
# AF_XDP) or ixy_xdp=C (B by ixy's driver, C over AF_XDP: a mixed ixy-fwd). run-vm.sh checks the capture against the
# host's records as for the e2e scenario.
xdp_nics=
# shellcheck disable=SC2013
for word in $(cat /proc/cmdline); do
	case "$word" in ixy_xdp=*) xdp_nics=${word#*=} ;; esac
done

# The name ixy-fwd gets for NIC B or C, in $fwd_name: xdp:<interface> (brought up) if ixy_xdp names it, else its PCI
# address.
fwd_name_of() { # fwd_name_of LETTER PCI
	fwd_name=$2
	case ",$xdp_nics," in
		*",$1,"*)
			_if=$(interface_of "$2")
			# Promiscuous: the NIC (QEMU's VirtIO and igb models filter by MAC address too) passes ixy-pktgen's
			# packets, which are not addressed to it, on to the driver and its XDP program.
			ip link set dev "$_if" up promisc on
			marker "NIC $1 ($2, kernel driver $(kernel_driver "$2")) is $_if, up, promiscuous, over AF_XDP"
			fwd_name=xdp:$_if
			;;
	esac
}
fwd_name_of B "$NIC_B"
fwd_b=$fwd_name
fwd_name_of C "$NIC_C"
fwd_c=$fwd_name
marker "ixy-fwd $fwd_b $fwd_c"
sleep 1 # the interfaces' carrier comes up

pipeline "$fwd_b" "$fwd_c"
# The AF_XDP program went away with ixy-fwd: no interface has one left.
check "no XDP program left attached after ixy-fwd" sh -c '! ip link | grep -q "xdp"'

for name in pcap.log fwd.log pktgen.log; do
	[ -f /tmp/$name ] && send_file $name
done
[ -f /tmp/capture.pcap ] && send_file capture.pcap
