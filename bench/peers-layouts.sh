# shellcheck shell=sh disable=SC2154 # sourced by bench/peers.sh --layouts, which sets repo, build, out, seconds,
# rounds, kpps, host_mode, doc and rc
# bench/peers.sh --layouts: ixy-fwd against DPDK testpmd per NIC layout, one boot per layout and round (the header of
# bench/peers.sh says what it measures). Each boot's runs become lines of OUT-layouts-runs.txt:
#   <layout> <peer> <round> <packets> <seconds> <sent> <reached> <left> <kicks> <dropped>
# (packets: counted by the sink; sent: by the source; reached: NIC B; left: NIC C, what the sink counted and what its
# socket dropped; dropped: what QEMU's socket for NIC B dropped, before NIC B; the four "-" without --host-ends;
# kicks: NIC B's and C's between the marks).
layouts=${IXY_BENCH_LAYOUTS:-legacy modern modern-packed}
runs_file=$out-layouts-runs.txt
: >"$runs_file"
if [ "$host_mode" = 1 ]; then
	setup="$(date -u +%Y-%m-%d), \`bench/peers.sh --layouts --host-ends $seconds $rounds\`, source $kpps kpps"
	if [ -n "${host_ends_cpu:-}" ]; then
		setup="$setup, QEMU on CPU 0, source and sink on CPU $host_ends_cpu"
	else
		setup="$setup, not pinned (one CPU)"
	fi
	setup="$setup; $(bench_setup "$repo")"
else
	setup="$(date -u +%Y-%m-%d), \`bench/peers.sh --layouts $seconds $rounds\`, source, forwarder and sink sharing"
	setup="$setup the guest's one vCPU; $(bench_setup "$repo")"
fi

# peers_layouts_boot LAYOUT ROUND PEERS: one boot; appends its runs to runs_file. Fails if the boot did.
peers_layouts_boot() {
	_out=$out-$1-$2
	_rc=0
	_vm_options=
	if [ "$host_mode" = 1 ]; then
		host_ends_start "$build" "$_out" "$kpps"
		_vm_options="--host-ends $host_ends_vm"
	fi
	echo "round $2, $1 NICs: $(echo "$3" | tr + ' ') ($(date -u +%H:%M:%S), load average $(cut -d' ' -f1 /proc/loadavg))"
	# shellcheck disable=SC2086 # _vm_options: empty or two words
	"$repo/test/vm/run-vm.sh" --build-dir "$build" --scenario bench-peers --nics "$1" --out "$_out" $_vm_options \
		--env "IXY_BENCH_SECONDS=$seconds" --env IXY_BENCH_ROUNDS=1 --env "IXY_BENCH_ROUND=$2" \
		--env "IXY_BENCH_PEERS=$3" --env IXY_BENCH_KICKS=1 >"$_out.log" 2>&1 || _rc=$?
	if [ "$host_mode" = 1 ]; then
		host_ends_stop >/dev/null || _rc=1
		# <peer> <run> <packets> <seconds>, then the nic_b lines: <peer> <run> <sent> <reached> <sink_dropped> <dropped>
		{
			host_ends_runs "$host_ends_marks"
			awk '$1 == "nic_b" { run = $4; sub(":", "", run); print "nic_b", $2, run, $6, $6 - $8 - $10, $12, $10 }' \
				"$host_ends_marks"
		}
	else
		tr -d "\r" <"$_out/console.log" |
			awk '$1 == "IXY-VM:" && $2 == "bench" && $7 == "packets" { run = $5; sub(":", "", run); print $3, run, $6, $12 }'
	fi >"$_out-runs.txt"
	cat "$_out/kicks.txt" "$_out-runs.txt" 2>/dev/null | awk -v layout="$1" '
		$1 == "kicks" { run = $4; sub(":", "", run); kicks[$2 " " run] = $8 + $10; next }
		$1 == "nic_b" { k = $2 " " $3; sent[k] = $4; reached[k] = $5; sink_dropped[k] = $6; dropped[k] = $7; next }
		{ key = $1 " " $2; order[++n] = key; packets[key] = $3; s[key] = $4 }
		END {
			for (i = 1; i <= n; i++) {
				k = order[i]
				print layout, k, packets[k], s[k], (k in sent) ? sent[k] : "-", (k in reached) ? reached[k] : "-",
					(k in sent) ? packets[k] + sink_dropped[k] : "-", (k in kicks) ? kicks[k] : "-",
					(k in sent) ? dropped[k] : "-"
			}
		}' >>"$runs_file"
	[ $_rc = 0 ] || echo "  failed (exit $_rc): $_out.log"
	return $_rc
}

echo "$setup"
for round in $(seq "$rounds"); do
	# The layouts rotated by round - 1; ixy-fwd first in odd rounds, testpmd in even ones.
	# shellcheck disable=SC2086 # layouts: words
	order=$(echo $layouts | awk -v r="$round" '{ for (i = 0; i < NF; i++) printf "%s ", $((i + r - 1) % NF + 1) }')
	[ $((round % 2)) = 1 ] && pair=ixy+testpmd || pair=testpmd+ixy
	for layout in $order; do
		peers_layouts_boot "$layout" "$round" "$pair" || rc=1
	done
done
peers_layouts_table "$layouts" <"$runs_file" >"$out-layouts-table.txt" || rc=1
cat "$out-layouts-table.txt"
grep -q "^| .* | ixy-fwd |" "$out-layouts-table.txt" || { echo "no runs of ixy-fwd: see $out-*.log"; rc=1; }
if [ "$rc" = 0 ]; then # (only a complete benchmark)
	bench_write_table "$doc" peers-layouts "$setup" "$out-layouts-table.txt" || rc=1
fi
[ "$rc" = 0 ] || echo "failed (exit $rc)"
