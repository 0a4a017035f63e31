# shellcheck shell=bash disable=SC2034 # sourced by test_xdp_veth.sh and test_xdp_veth_queues.sh
# What both AF_XDP veth tests need: root and the tools they name, a network namespace ($ns, prefix $1) and a work
# directory ($work) removed at exit with every process in $pids, the PASS/FAIL lines and their sums, and a few
# readers of the namespace's interfaces.
# Usage: . veth_lib.sh NS_PREFIX SOURCE_DIR TOOL...
veth_ns_prefix=$1
veth_src=$2
shift 2
for tool; do
	command -v "$tool" >/dev/null || { echo "skipped: $tool is missing"; exit 77; }
done
# shellcheck source=test/host_features.sh
. "$veth_src/test/host_features.sh"
# What the host must do (test/host_features.sh); a test that needs more names it in veth_features before sourcing.
# shellcheck disable=SC2086 # veth_features: a list of words
veth_missing=$(host_feature_missing root netns veth af_xdp ${veth_features:-})
[ -z "$veth_missing" ] || { echo "skipped: this host has no $veth_missing"; exit 77; }
. "$veth_src/test/vm/totals.sh"

exec 8>&1 # the test's output (stuck writes there)
ns=$veth_ns_prefix-$$-$RANDOM
work=$(mktemp -d)
pids=""
# At the exit: every process of the test (in $pids) and every process left in the namespace killed. Only the test's
# own are waited for, each for at most 10 s: a bare wait would also wait for any other child, and forever.
cleanup() {
	local pid
	# shellcheck disable=SC2046 # a list of process ids
	for pid in $pids $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
	for pid in $pids; do finish 10 "$pid" 2>/dev/null; done
	ip netns del "$ns" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

passed=0
failed=0
check() { # check WHAT COMMAND...: PASS if the command succeeds
	local what=$1
	shift
	if "$@"; then
		echo "PASS  $what"
		passed=$((passed + 1))
	else
		echo "FAIL  $what"
		failed=$((failed + 1))
	fi
}
# The last line, and the exit status: 0 if nothing failed.
summary() {
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
}
eq() { [ "$1" = "$2" ] || { echo "      $1 != $2" >&2; return 1; }; }
# positive N: N is a number above 0
positive() { case $1 in '' | *[!0-9]* | 0) return 1 ;; esac; }
wait_for() { # wait_for SECONDS COMMAND...: until the command succeeds
	local tries=$(($1 * 10))
	shift
	until "$@"; do
		tries=$((tries - 1))
		[ $tries -gt 0 ] || return 1
		sleep 0.1
	done
}
# wait_until SECONDS COMMAND...: until the command succeeds, for at most SECONDS of the clock (for a command that
# takes a while itself, where wait_for's SECONDS * 10 tries could last minutes)
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}
# pcap_records FILE: the number of whole records in the pcap file (a record still being written is not counted)
pcap_records() {
	python3 - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
order = {b"\xd4\xc3\xb2\xa1": "<", b"\xa1\xb2\xc3\xd4": ">", b"\x4d\x3c\xb2\xa1": "<", b"\xa1\xb2\x3c\x4d": ">"}.get(data[:4])
records, at = 0, 24
while order and at + 16 <= len(data):
    at += 16 + struct.unpack(order + "I", data[at + 8:at + 12])[0]
    records += at <= len(data)
print(records if order else -1)
PY
}
add() { # their sum, or "?..." if one is not a number
	local total=0 n
	for n; do
		case $n in '' | *[!0-9]*) echo "?$*"; return ;; esac
		total=$((total + n))
	done
	echo $total
}
in_ns() { ip netns exec "$ns" "$@"; }
# stat_fields DIR: the fields of DIR/stat (a process's or a thread's) after its command's name, which may hold spaces
# and parentheses: state, parent, ... (fields 3 on in proc(5)); nothing if it is gone.
stat_fields() { sed 's/^.*) //' "$1/stat" 2>/dev/null; }
# running PID: the test's child process is there and has not ended (a process that ended is a zombie until it is
# waited for; bash may reap it before, and a process of another parent with that number is not the test's).
running() {
	local fields
	read -r -a fields <<<"$(stat_fields "/proc/$1")"
	[ "${fields[1]:-}" = "$$" ] && [ "${fields[0]:-}" != Z ]
}
ended() { ! running "$1"; }
# stuck PID: one line on the process that did not end (its command, state and where the kernel holds it), then
# the kernel's stack of each of its threads: a test that would have hung says where.
stuck() {
	local task
	{
	echo "    still running: $(tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline")(pid $1)"
	for task in /proc/"$1"/task/*; do
		echo "      thread ${task##*/}: state $(stat_fields "$task" | cut -d ' ' -f 1)," \
			"waits in $(cat "$task/wchan" 2>/dev/null)"
		sed 's/^/        /' "$task/stack" 2>/dev/null
	done
	} >&8 # the test's output, also when the command's own is redirected to a file
}
# finish SECONDS PID: waits for a process of the test to end, for at most SECONDS; if it has not ended then, says
# where it is (stuck) and kills it. Returns its exit status (137 when killed). A process the kernel holds so that
# even SIGKILL does not end it (state D) is left after 5 s more, with a line saying so, and 137 returned.
finish() {
	if ! wait_until "$1" ended "$2"; then
		stuck "$2"
		kill -KILL "$2" 2>/dev/null
		wait_until 5 ended "$2" || { echo "    pid $2 did not end on SIGKILL: left behind" >&8; return 137; }
	fi
	wait "$2" 2>/dev/null # (without bash's "Killed" notice in the command's own error file)
}
# bounded SECONDS COMMAND...: runs the command (a program, not a shell function: its process is the one watched)
# with the standard input, output and error of the call, and waits for it as finish does.
bounded() {
	local seconds=$1
	shift
	"$@" 0<&0 8>&- &
	finish "$seconds" $!
}
# in_ns_bounded COMMAND...: the command in the namespace, given 60 s to end (none of the tests' commands takes more
# than a few); a command that hangs is named and killed, and the test goes on.
in_ns_bounded() { bounded 60 ip netns exec "$ns" "$@"; }
# no_ipv6 [DEV...]: IPv6 off in the namespace, for all and new interfaces or the ones named (its router
# solicitations, neighbour discovery and MLD reports would be frames no app sent). A kernel without IPv6 sends none.
no_ipv6() {
	[ -d /proc/sys/net/ipv6 ] || return 0
	local dev settings=()
	[ $# -gt 0 ] || set -- all default
	for dev; do settings+=("net.ipv6.conf.$dev.disable_ipv6=1"); done
	in_ns sysctl -qw "${settings[@]}"
}
# Processes in the background are started with ip netns exec itself, not in_ns: $! is then the app's process
# (ip netns exec executes it), not a subshell's.
# Interfaces with an XDP program: ip link prints "xdp", "xdpgeneric", "xdpdrv" or "xdpoffload" and "prog/xdp".
attached() { ip -n "$ns" link show ${1:+dev "$1"} | grep -cE ' xdp(generic|drv|offload)? |prog/xdp'; }
is_attached() { [ "$(attached "$1")" -gt 0 ]; }
# kernel DEV WAY WHAT: the kernel's counter of the interface (ip -s -j link), e.g. kernel vethB rx packets
kernel() {
	ip -n "$ns" -s -j link show dev "$1" | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['stats64']['$2']['$3'])"
}
