# shellcheck shell=sh disable=SC2034  # (variables for the scripts that source it)
# Shared by the benchmark scripts of bench/ (sourced; POSIX sh): the source and sink on the host and the runs they
# measured (peers.sh, interrupts.sh, latency.sh), the median and spread of runs (those and xdp_veth.sh, vm-fwd.sh,
# evaluate.sh), and the table each script writes into docs/benchmark.md.

# bench_awk: awk functions for the median and the spread of a few numbers; put it in front of an awk program
# (awk "$bench_awk"'...'):
#   bench_sort(a, k)      sorts a[1..k] by value (as numbers, also where they are strings)
#   bench_median(a, k)    the median of a[1..k] sorted: the middle one, or the mean of the middle two
#   bench_stats(list, f)  "median (min..max)" of the numbers of a space-separated list, each in printf format f
bench_awk='
function bench_sort(a, k,   i, j, t) {
	for (i = 1; i <= k; i++)
		for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
}
function bench_median(a, k) {
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
function bench_stats(list, f,   k, a) {
	k = split(list, a, " ")
	bench_sort(a, k)
	return sprintf(f " (" f ".." f ")", bench_median(a, k), a[1], a[k])
}
'

# bench_rates_table BASE CHECK TITLE HINT PEER NAME [PEER NAME]...: reads runs "<peer> <run> <packets> <seconds>",
# one a line, and prints each ("<peer> run <i> <packets> packets in <s> s, <rate> kpps"), a blank line, then a
# Markdown table with a row for each PEER that has runs, in the order given: its NAME, the median of its rates in
# kpps, their spread (min..max) and the ratio of its median to BASE's; TITLE names BASE in the header. Instead of the
# table, fails with "no results<HINT>" if BASE has no runs, or "<TITLE> forwarded nothing<HINT>" if BASE's slowest
# run (CHECK min) or its median (CHECK median) is 0.
bench_rates_table() {
	awk "$bench_awk"'
	BEGIN {
		base = ARGV[1]; check = ARGV[2]; title = ARGV[3]; hint = ARGV[4]
		for (i = 5; i + 1 < ARGC; i += 2) { order[++peers] = ARGV[i]; names[ARGV[i]] = ARGV[i + 1] }
		ARGC = 1 # (the runs: standard input)
	}
	{
		peer = $1; run = $2; n = $3; s = $4
		rate = s > 0 ? n / s : 0
		printf "%-9s run %s %9d packets in %6.2f s, %7.1f kpps\n", peer, run, n, s, rate / 1000
		rates[peer, ++count[peer]] = rate
	}
	function sorted(peer,   i, k) { # the rates of peer, sorted, into a[1..k]; returns k
		k = count[peer]
		for (i = 1; i <= k; i++) a[i] = rates[peer, i]
		bench_sort(a, k)
		return k
	}
	END {
		if (!count[base]) { print "no results" hint; exit 1 }
		k = sorted(base); base_median = bench_median(a, k)
		if ((check == "min" ? a[1] : base_median) == 0) { print title " forwarded nothing" hint; exit 1 }
		print ""
		print "| forwarder | median kpps | spread (min..max) | ratio to " title " |"
		print "|---|---|---|---|"
		for (p = 1; p <= peers; p++) {
			if (!count[order[p]]) continue
			k = sorted(order[p]); m = bench_median(a, k)
			printf "| %s | %.1f | %.1f..%.1f | %.2f |\n", names[order[p]], m / 1000, a[1] / 1000,
				a[k] / 1000, m / base_median
		}
	}' "$@"
}

# peers_layouts_table LAYOUTS: reads runs of bench/peers.sh --layouts, one a line,
#   <layout> <peer> <round> <packets> <seconds> <sent> <reached> <left> <kicks> <dropped>
# (bench/peers-layouts.sh; sent, reached, left and dropped "-" without host ends, kicks "-" if not counted), prints
# each run, then a Markdown table with a row per layout of LAYOUTS (in that order) and forwarder (ixy, testpmd): the
# median rate (of what left NIC C, the sink's drops included: they left it; the sink's count where that is all that
# is known), its spread, the ratio of ixy-fwd's median to testpmd's ("source-limited" instead where both passed on
# 95 % or more of what was offered: left / sent), the median kicks per packet that left NIC C, the median offered
# rate, the median share of it dropped before NIC B (dropped / sent: QEMU's socket for NIC B, full because NIC B's
# ring was or because QEMU did not read it) and the median loss inside the forwarder ((reached - left) / reached);
# "-" where a number is not known.
peers_layouts_table() {
	awk "$bench_awk"'
	function stats(list,   k, a) { k = split(list, a, " "); if (!k) return "-"; bench_sort(a, k); return bench_median(a, k) }
	function percent(x,   t) { t = sprintf("%.1f %%", 100 * x); return t == "-0.0 %" ? "0.0 %" : t } # (frames in flight)
	BEGIN { nl = split(ARGV[1], layout_order, " "); ARGC = 1; names["ixy"] = "ixy-fwd"; names["testpmd"] = "testpmd io-fwd" }
	{
		layout = $1; peer = $2; n = $4; s = $5
		left = $8 == "-" ? n : $8 # (the rate: what left NIC C, also what the sink missed)
		rate = s > 0 ? left / s : 0
		printf "%-14s %-8s run %s %9d packets in %6.2f s, %7.1f kpps", layout, peer, $3, left, s, rate / 1000
		key = layout SUBSEP peer
		rates[key] = rates[key] " " rate
		if ($9 != "-" && left > 0) { kpp[key] = kpp[key] " " $9 / left; printf ", %.3f kicks/packet", $9 / left }
		if ($6 != "-" && s > 0) {
			offered[key] = offered[key] " " $6 / s
			loss[key] = loss[key] " " ($7 > 0 ? ($7 - left) / $7 : 0)
			passed[key] = passed[key] " " ($6 > 0 ? left / $6 : 0)
			if ($10 != "" && $10 != "-") before[key] = before[key] " " ($6 > 0 ? $10 / $6 : 0)
			printf ", offered %.1f kpps", $6 / s / 1000
			if ($10 != "" && $10 != "-") printf ", dropped before NIC B %d", $10
			printf ", reached NIC B %d, the sink counted %d, lost inside %.1f %%", $7, n,
				($7 > 0 ? 100 * ($7 - left) / $7 : 0)
		}
		print ""
	}
	END {
		print ""
		print "| NIC layout | forwarder | median kpps | spread (min..max) | ixy-fwd / testpmd | kicks per packet | offered kpps | dropped before NIC B | loss inside the forwarder |"
		print "|---|---|---|---|---|---|---|---|---|"
		for (l = 1; l <= nl; l++) {
			lay = layout_order[l]
			ixy = lay SUBSEP "ixy"; tpmd = lay SUBSEP "testpmd"
			ratio = "-"
			if (rates[ixy] != "" && rates[tpmd] != "" && stats(rates[tpmd]) > 0)
				ratio = sprintf("%.2f", stats(rates[ixy]) / stats(rates[tpmd]))
			if (passed[ixy] != "" && passed[tpmd] != "" && stats(passed[ixy]) >= 0.95 && stats(passed[tpmd]) >= 0.95)
				ratio = "source-limited"
			for (p = 1; p <= 2; p++) {
				peer = p == 1 ? "ixy" : "testpmd"; key = lay SUBSEP peer
				if (rates[key] == "") continue
				k = split(rates[key], a, " "); bench_sort(a, k)
				printf "| %s | %s | %.1f | %.1f..%.1f | %s | %s | %s | %s | %s |\n", lay, names[peer],
					bench_median(a, k) / 1000, a[1] / 1000, a[k] / 1000, p == 1 ? ratio : "",
					kpp[key] == "" ? "-" : sprintf("%.3f", stats(kpp[key])),
					offered[key] == "" ? "-" : sprintf("%.1f", stats(offered[key]) / 1000),
					before[key] == "" ? "-" : percent(stats(before[key])),
					loss[key] == "" ? "-" : percent(stats(loss[key]))
			}
		}
	}' "$1"
}

# host_ends_start BUILD OUT KPPS [hub]: four free UDP ports on the loopback (NIC B's netdev, the source, NIC C's netdev,
# the sink) and bench/peers/host_ends sending KPPS thousand frames per second, fed the guest's console OUT/console.log
# (it stamps each line with the host's time and the sink's count into OUT-host-ends.txt). Sets host_ends_vm, the
# value of run-vm.sh's --host-ends, and host_ends_marks, the file of stamped lines. With "hub", two more ports for
# QEMU's hub between two netdevs (bench/vm/host-ends.sh), the first of which is host_ends's hub port. If
# host_ends_cpu is set, host_ends runs on that CPU only (taskset).
host_ends_start() {
	host_ends_pin=${host_ends_cpu:+taskset -c $host_ends_cpu}
	# shellcheck disable=SC2046  # four or six numbers
	set -- "$1" "$2" "$3" $(python3 -c '
import socket, sys
socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])' "$([ "${4:-}" = hub ] && echo 6 || echo 4)")
	host_ends_vm="$4,$5,$6,$7${8:+,$8,$9}"
	host_ends_marks=$2-host-ends.txt
	host_ends_fifo=$2.fifo
	rm -rf "$2" "$host_ends_fifo" && mkfifo "$host_ends_fifo" # (tail must not see an earlier run's console)
	# shellcheck disable=SC2086 # host_ends_pin: empty or three words
	$host_ends_pin "$1/bench/peers/host_ends" "$5" "$4" "$7" "$3" ${8:+"$8"} <"$host_ends_fifo" >"$host_ends_marks" &
	host_ends_pid=$!
	tail -s 0.02 -n +1 -F "$2/console.log" 2>/dev/null >"$host_ends_fifo" & # (-s: it may poll the file)
	host_ends_tail=$!
}

# host_ends_stop: after the guest's end; fails if host_ends did. Prints its last line ("sent <n> frames, ...").
host_ends_stop() {
	sleep 1
	kill "$host_ends_tail"
	_rc=0
	wait "$host_ends_pid" || _rc=1
	rm -f "$host_ends_fifo"
	tail -1 "$host_ends_marks"
	return $_rc
}

# host_ends_runs MARKS: "<name> <run> <packets> <seconds>" per run, from the guest's marks
# "<host seconds> <sink count> IXY-VM: bench <name> run <i>: begin|end".
host_ends_runs() {
	tr -d "\r" <"$1" | awk '$3 == "IXY-VM:" && $4 == "bench" && ($8 == "begin" || $8 == "end") {
		key = $5 " " $7; sub(":", "", key)
		if ($8 == "begin") { t0[key] = $1; n0[key] = $2 }
		else if (key in t0) print key, $2 - n0[key], $1 - t0[key]
	}'
}

# bench_commit REPO: the commit measured, as every table of docs/benchmark.md names it: `git rev-parse --short HEAD`,
# followed by " with uncommitted changes" if the tree differs from it outside docs/ ("?" outside a git checkout).
bench_commit() {
	_commit=$(git -C "$1" rev-parse --short HEAD 2>/dev/null) || { echo '?'; return 0; }
	git -C "$1" diff --quiet HEAD -- . ':!docs' 2>/dev/null || _commit="$_commit with uncommitted changes"
	echo "$_commit"
}

# bench_setup REPO: "ixy <commit>, QEMU <version>, host: <CPU>, load average <1 min> at the start" for a table's
# caption.
bench_setup() {
	echo "ixy $(bench_commit "$1"), QEMU $(qemu-system-x86_64 --version |
		head -1 | sed 's/.*version //'), host: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //') with $(nproc) CPUs," \
		"load average $(cut -d' ' -f1 /proc/loadavg) at the start"
}

# doc_table DOC NAME: replaces the lines between "<!-- begin: NAME, written by: <command> -->" and
# "<!-- end: NAME -->" in DOC with standard input (every table of docs/benchmark.md sits between such lines, which
# name the command that writes it: bench/test_doc_tables.sh). Fails, changing nothing, unless DOC has both lines once,
# in that order.
doc_table() {
	_new=$(cat) || return 1
	if ! awk -v b="<!-- begin: $2, written by: " -v e="<!-- end: $2 -->" '
		index($0, b) == 1 && / -->$/ { nb++; lb = NR } $0 == e { ne++; le = NR }
		END { exit !(nb == 1 && ne == 1 && lb < le) }' "$1"; then
		echo "doc_table: $1 needs one line '<!-- begin: $2, written by: <command> -->' and, after it," \
			"one '<!-- end: $2 -->'" >&2
		return 1
	fi
	NEW=$_new awk -v b="<!-- begin: $2, written by: " -v e="<!-- end: $2 -->" '
		$0 == e { skip = 0 }
		!skip { print }
		index($0, b) == 1 && / -->$/ { print ENVIRON["NEW"]; skip = 1 }' "$1" >"$1.new" && mv "$1.new" "$1"
}

# bench_write_table DOC NAME SETUP TABLE: unless DOC is empty (no document), writes "SETUP:", a blank line and the
# lines of the file TABLE that start with "|" into DOC as table NAME (doc_table), and says so. Fails if doc_table does.
bench_write_table() {
	[ -n "$1" ] || return 0
	{
		echo "$3:"
		echo
		sed -n '/^|/p' "$4"
	} | doc_table "$1" "$2" && echo "table written into $1"
}

# bench_offered_table BASE PEER NAME [PEER NAME]...: the table of a benchmark that counts at every hop (xdp_veth.sh).
# Reads runs "<mode> <peer> <run> <seconds> <offered> <reached> <out> <sink>", one a line: packets the source put on
# its link (offered), that reached the forwarder's NIC (reached), that the forwarder sent (out) and that the sink
# counted (forwarded), in a run of <seconds>. Prints each run, a blank line, then a Markdown table with a row per
# mode (in the order first seen) and PEER with runs (in the order given): the medians of the offered and forwarded
# rates in kpps, the forwarded rates' spread (min..max), the median loss inside the forwarder (1 - out / reached,
# in %), and the ratio of the forwarded median to BASE's in the same mode. A row whose forwarder forwarded at least
# 99 % of what reached it and lost under 1 % says "source-limited" instead of a ratio: the source, not the
# forwarder, set its rate, so it ranks nothing; "-" where BASE has no runs in the mode. Fails with "no results" if
# there are no runs.
bench_offered_table() {
	awk "$bench_awk"'
	BEGIN {
		base = ARGV[1]
		for (i = 2; i + 1 < ARGC; i += 2) { order[++peers] = ARGV[i]; names[ARGV[i]] = ARGV[i + 1] }
		ARGC = 1 # (the runs: standard input)
	}
	{
		mode = $1; peer = $2; s = $4
		if (!(mode in seen)) { seen[mode] = 1; modes[++nmodes] = mode }
		loss = $6 > 0 ? 100 * (1 - $7 / $6) : 0
		offered = s > 0 ? $5 / s : 0; forwarded = s > 0 ? $8 / s : 0
		printf "%-9s %-14s run %s: offered %7.1f kpps, reached the forwarder %7.1f, it sent %7.1f, forwarded %7.1f kpps; loss in the forwarder %.1f %%\n",
			mode, peer, $3, offered / 1000, (s > 0 ? $6 / s : 0) / 1000, (s > 0 ? $7 / s : 0) / 1000, forwarded / 1000, loss
		k = ++count[mode, peer]
		off[mode, peer, k] = offered; got[mode, peer, k] = s > 0 ? $6 / s : 0
		fwd[mode, peer, k] = forwarded; lost[mode, peer, k] = loss
	}
	function median(arr, mode, peer,   i, k) {
		k = count[mode, peer]
		for (i = 1; i <= k; i++) a[i] = arr[mode, peer, i]
		bench_sort(a, k)
		return bench_median(a, k)
	}
	END {
		if (!nmodes) { print "no results"; exit 1 }
		print ""
		print "| CPUs | forwarder | offered kpps | forwarded kpps | spread (min..max) | loss in the forwarder | ratio to " names[base] " |"
		print "|---|---|---|---|---|---|---|"
		for (m = 1; m <= nmodes; m++) {
			mode = modes[m]
			base_median = count[mode, base] ? median(fwd, mode, base) : 0
			for (p = 1; p <= peers; p++) {
				peer = order[p]
				if (!count[mode, peer]) continue
				o = median(off, mode, peer); r = median(got, mode, peer); l = median(lost, mode, peer)
				f = median(fwd, mode, peer) # (last: a[] keeps the forwarded rates sorted, for the spread)
				lo = a[1]; hi = a[count[mode, peer]]
				if (f >= 0.99 * r && l < 1) ratio = "source-limited"
				else if (base_median > 0) ratio = sprintf("%.2f", f / base_median)
				else ratio = "-"
				printf "| %s | %s | %.1f | %.1f | %.1f..%.1f | %.1f %% | %s |\n", mode, names[peer], o / 1000,
					f / 1000, lo / 1000, hi / 1000, l, ratio
			}
		}
	}' "$@"
}
