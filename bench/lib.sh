# shellcheck shell=sh disable=SC2034  # (variables for the scripts that source it)
# Shared by bench/peers.sh and bench/interrupts.sh (sourced; POSIX sh): the source and sink on the host, the runs
# they measured, and the table each script writes into docs/benchmark.md.

# host_ends_start BUILD OUT KPPS [hub]: four free UDP ports on the loopback (NIC B's netdev, the source, NIC C's netdev,
# the sink) and bench/peers/host_ends sending KPPS thousand frames per second, fed the guest's console OUT/console.log
# (it stamps each line with the host's time and the sink's count into OUT-host-ends.txt). Sets host_ends_vm, the
# value of run-vm.sh's --host-ends, and host_ends_marks, the file of stamped lines. With "hub", two more ports for
# QEMU's hub between two netdevs (bench/vm/host-ends.sh), the first of which is host_ends's hub port.
host_ends_start() {
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
	"$1/bench/peers/host_ends" "$5" "$4" "$7" "$3" ${8:+"$8"} <"$host_ends_fifo" >"$host_ends_marks" &
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

# bench_setup REPO: "ixy <version>, QEMU <version>, host: <CPU>, load average <1 min> at the start" for a table's caption.
bench_setup() {
	echo "ixy $(git -C "$1" describe --always --dirty 2>/dev/null || echo '?'), QEMU $(qemu-system-x86_64 --version |
		head -1 | sed 's/.*version //'), host: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //') with $(nproc) CPUs," \
		"load average $(cut -d' ' -f1 /proc/loadavg) at the start"
}

# doc_table DOC NAME: replaces the lines between "<!-- NAME: begin -->" and "<!-- NAME: end -->" in DOC with standard
# input. Fails, changing nothing, unless DOC has both lines once, in that order.
doc_table() {
	_new=$(cat) || return 1
	if ! awk -v b="<!-- $2: begin -->" -v e="<!-- $2: end -->" '$0 == b { nb++; lb = NR } $0 == e { ne++; le = NR }
		END { exit !(nb == 1 && ne == 1 && lb < le) }' "$1"; then
		echo "doc_table: $1 needs one line '<!-- $2: begin -->' and, after it, one '<!-- $2: end -->'" >&2
		return 1
	fi
	NEW=$_new awk -v b="<!-- $2: begin -->" -v e="<!-- $2: end -->" '
		$0 == e { skip = 0 }
		!skip { print }
		$0 == b { print ENVIRON["NEW"]; skip = 1 }' "$1" >"$1.new" && mv "$1.new" "$1"
}
