#!/bin/sh
# Forwarding throughput of ixy-fwd against its peers in one QEMU guest (TCG, two legacy VirtIO NICs B and C): the
# Linux bridge, afpacket_fwd (packet sockets with TPACKET_V3 rings, bench/peers/afpacket_fwd.c) and, if the host has
# it (Debian package dpdk-dev: apt-get install dpdk-dev), DPDK's testpmd in io forwarding mode, with the same
# source (ixy-pktgen on A) and sink (ixy-pcap on D, counting into /dev/null) for all, in alternating runs. A benchmark,
# not a test: it prints every run, each peer's median rate with the spread (min..max), and the ratio of each median
# to ixy-fwd's. Needs root (boots QEMU like the VM tests); takes about 2 + runs * 4 * (seconds + 8) / 60 minutes.
#
# Usage: bench/peers.sh [seconds per run (10)] [runs of each (3)]
# Environment: BUILD_DIR (default build-bench-vm)
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$repo/build-bench-vm}
seconds=${1:-10}
rounds=${2:-3}
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DIXY_SANITIZE=OFF >/dev/null
make -C "$build" -j2 >/dev/null
out=$build/bench-peers
rc=0
"$repo/test/vm/run-vm.sh" --build-dir "$build" --scenario bench-peers --nics legacy --out "$out" \
	--env "IXY_BENCH_SECONDS=$seconds" --env "IXY_BENCH_ROUNDS=$rounds" >"$out.log" 2>&1 || rc=$?
echo "ixy $(git -C "$repo" describe --always --dirty 2>/dev/null || echo '?'), QEMU $(qemu-system-x86_64 --version |
	head -1 | sed 's/.*version //'), host: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
tr -d "\r" <"$out/console.log" | awk '
	# IXY-VM: bench <peer> run <i>: <packets> packets at the sink in <seconds> s
	/IXY-VM: bench / {
		peer = $3; run = $5; n = $6; s = $12
		sub(":", "", run)
		rate = s > 0 ? n / s : 0
		printf "%-9s run %s %9d packets in %6.2f s, %7.1f kpps\n", peer, run, n, s, rate / 1000
		rates[peer, ++count[peer]] = rate
	}
	function sorted(peer,   i, j, t, k) {
		k = count[peer]
		for (i = 1; i <= k; i++) a[i] = rates[peer, i]
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return k
	}
	END {
		if (!count["ixy"]) { print "no results: see the guest console log"; exit 1 }
		k = sorted("ixy"); if (a[1] == 0) { print "ixy-fwd forwarded nothing: see the guest console log"; exit 1 }
		base = k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
		print ""
		print "| forwarder | median kpps | spread (min..max) | ratio to ixy-fwd |"
		print "|---|---|---|---|"
		n = split("ixy bridge afpacket testpmd", peers, " ")
		names["ixy"] = "ixy-fwd"; names["bridge"] = "Linux bridge"; names["afpacket"] = "afpacket_fwd (TPACKET_V3)"
		names["testpmd"] = "DPDK testpmd io-fwd"
		for (p = 1; p <= n; p++) {
			if (!count[peers[p]]) continue
			k = sorted(peers[p]); m = k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
			printf "| %s | %.1f | %.1f..%.1f | %.2f |\n", names[peers[p]], m / 1000, a[1] / 1000, a[k] / 1000, m / base
		}
	}'
[ $rc = 0 ] || echo "run-vm.sh failed (exit $rc): $out.log"
exit $rc
