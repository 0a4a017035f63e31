# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# The network of bench-peers and bench-interrupts (sourced by their host files): with --host-ends B,SOURCE,C,SINK,
# NIC B receives on UDP port B from a source on the host at port SOURCE, and NIC C sends from port C to a sink on the
# host at port SINK (bench/peers.sh --host-ends); A and D are joined to each other and unused. With
# B,SOURCE,C,SINK,HUB_IN,HUB_OUT also a baseline path with no NIC and no guest: QEMU's hub 7 joins a netdev that receives
# from SOURCE on port HUB_IN to one that sends from port HUB_OUT to SINK (bench/latency.sh). Without, as e2e:
# pair_network.
host_ends_ok=yes
network() {
	[ -n "$host_ends" ] || { pair_network; return; }
	local he_b he_source he_c he_sink he_hub_in he_hub_out
	IFS=, read -r he_b he_source he_c he_sink he_hub_in he_hub_out <<<"$host_ends"
	qemu_args+=(-netdev "socket,id=nic_b,udp=127.0.0.1:$he_source,localaddr=127.0.0.1:$he_b"
		-netdev "socket,id=nic_c,udp=127.0.0.1:$he_sink,localaddr=127.0.0.1:$he_c")
	[ -z "$he_hub_out" ] || qemu_args+=(
		-netdev "socket,id=hub_in,udp=127.0.0.1:$he_source,localaddr=127.0.0.1:$he_hub_in"
		-netdev "hubport,id=hub_in_port,hubid=7,netdev=hub_in"
		-netdev "socket,id=hub_out,udp=127.0.0.1:$he_sink,localaddr=127.0.0.1:$he_hub_out"
		-netdev "hubport,id=hub_out_port,hubid=7,netdev=hub_out")
	socket_pair nic_a "$port_a" nic_d "$port_d"
	envs+=(IXY_BENCH_HOST_ENDS=1)
}
