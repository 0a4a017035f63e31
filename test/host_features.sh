# shellcheck shell=bash
# What a test needs of the host, asked before the test starts, so that a host without it skips the test with one line
# naming the feature instead of failing half-way. Sourced by test/vm/run-vm.sh, test/xdp/veth_lib.sh and
# bench/peers/test_afpacket_fwd.sh. No kernel module is loaded (a host may have no modprobe, no /lib/modules): a
# feature is there if the kernel does it now.
#
#   missing=$(host_feature_missing FEATURE...)   # empty: all there; else the first missing one, in words
#
# Features:
#   root     uid 0
#   netns    a network namespace can be made (ip netns add)
#   veth     a veth pair can be made in one
#   bridge   a Linux bridge can be made in one
#   tap      a multiqueue tap can be made in one (/dev/net/tun, IFF_MULTI_QUEUE)
#   af_xdp   AF_XDP sockets (address family 44) can be opened
# Every probe runs in a namespace of its own, removed before the function returns: the host's own namespace is not
# touched.

host_feature_missing() {
	local feature ns="ixy-probe-$$-$RANDOM" made=no missing=""
	for feature; do
		case "$feature" in
			root | netns | veth | bridge | tap | af_xdp) ;;
			*) echo "host_feature_missing: unknown feature $feature" >&2; return 2 ;;
		esac
	done
	for feature; do
		case "$feature" in
			root) [ "$(id -u)" = 0 ] || missing="root" ;;
			af_xdp)
				python3 -c 'import socket; socket.socket(44, socket.SOCK_RAW).close()' 2>/dev/null ||
					missing="AF_XDP sockets (CONFIG_XDP_SOCKETS)"
				;;
			*)
				if [ $made = no ]; then
					ip netns add "$ns" 2>/dev/null || { echo "network namespaces (ip netns add)"; return 0; }
					made=yes
				fi
				case "$feature" in
					veth)
						ip -n "$ns" link add probe0 type veth peer name probe1 2>/dev/null ||
							missing="veth pairs (CONFIG_VETH, module veth)"
						;;
					bridge)
						ip -n "$ns" link add probe2 type bridge 2>/dev/null ||
							missing="Linux bridges (CONFIG_BRIDGE, module bridge)"
						;;
					tap)
						ip netns exec "$ns" ip tuntap add dev probe3 mode tap multi_queue 2>/dev/null ||
							missing="multiqueue taps (/dev/net/tun, CONFIG_TUN, module tun)"
						;;
				esac
				;;
		esac
		[ -z "$missing" ] || break
	done
	[ $made = no ] || ip netns del "$ns" 2>/dev/null
	echo "$missing"
}
