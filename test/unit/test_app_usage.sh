#!/bin/sh
# The apps refuse wrong command lines (exit code 2, a one-line reason, the usage line) and an unwritable capture
# file (exit code 1) before they touch any device. Only the PCI address ffff:ff:1f.7 is used: well-formed, but no
# machine has it, so even a broken app could not reach a real device.
# Usage: test_app_usage.sh <directory with ixy-fwd, ixy-pktgen, ixy-pcap>
bin=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
addr=ffff:ff:1f.7

# expect <exit code> <text expected on stderr> <command...>
expect() {
	code=$1 text=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -eq "$code" ] && grep -qF -- "$text" "$tmp/err"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAILED: $* -> exit $got (expected $code), stderr:" >&2
		cat "$tmp/err" >&2
	fi
}

# expect_one_line <exit code> <text> <command...>: as expect, and stderr is that one line, nothing else.
expect_one_line() {
	expect "$@"
	if [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
		shift 2
		failed=$((failed + 1))
		echo "FAILED: $* -> stderr is not one line:" >&2
		cat "$tmp/err" >&2
	fi
}

expect 2 "usage: ixy-fwd [--poll | --wait <ms>] [--ring <descriptors>] [--queues <n>] <pci1> <pci2>" "$bin/ixy-fwd"
expect_one_line 2 "ixy-fwd: 1 argument after the options, expected <pci1> <pci2> (see ixy-fwd --help)" "$bin/ixy-fwd" --poll "$addr"
expect_one_line 2 "unrecognized option '--fast'" "$bin/ixy-fwd" --fast "$addr" 0000:00:00.0
expect_one_line 2 "ixy-fwd: wait time (ms) '0' is out of range" "$bin/ixy-fwd" --wait 0 "$addr" 0000:00:00.0
expect_one_line 2 "ixy-fwd: wait time (ms) '60001' is out of range" "$bin/ixy-fwd" --wait 60001 "$addr" 0000:00:00.0
expect_one_line 2 "ixy-fwd: wait time (ms) 'forever' is not a decimal number" "$bin/ixy-fwd" --wait forever "$addr" 0000:00:00.0
expect_one_line 2 "option '--wait' requires an argument" "$bin/ixy-fwd" --wait
expect_one_line 2 "ixy-fwd: '--wait' is not a PCI address" "$bin/ixy-fwd" "$addr" --wait
expect_one_line 2 "ixy-fwd: 1 argument after the options, expected <pci1> <pci2>" "$bin/ixy-fwd" "$addr"
expect_one_line 2 "ixy-fwd: unexpected argument '$addr' after <pci1> <pci2>" "$bin/ixy-fwd" "$addr" "$addr" "$addr"
expect_one_line 2 "ixy-fwd: '03:00.0' is not a PCI address" "$bin/ixy-fwd" "$addr" 03:00.0
expect_one_line 2 "ixy-fwd: give --poll or --wait once" "$bin/ixy-fwd" --poll --wait 5 "$addr" 0000:00:00.0
# --ring is accepted (it sets both NICs' rings): a good value leads on to the missing second address
expect_one_line 2 "ixy-fwd: 1 argument after the options" "$bin/ixy-fwd" --ring 64 "$addr"
expect_one_line 2 "ixy-fwd: 1 argument after the options" "$bin/ixy-fwd" --poll --ring 4096 "$addr"
expect_one_line 2 "ixy-fwd: ring size '32' is out of range" "$bin/ixy-fwd" --ring 32 "$addr" 0000:00:00.0
expect_one_line 2 "ixy-fwd: ring size '8192' is out of range" "$bin/ixy-fwd" --ring 8192 "$addr" 0000:00:00.0
expect_one_line 2 "ixy-fwd: ring size '100' is not a power of two" "$bin/ixy-fwd" --ring 100 "$addr" 0000:00:00.0
expect_one_line 2 "ixy-pcap: ring size '1000' is not a power of two" "$bin/ixy-pcap" --ring 1000 "$addr" "$tmp/b.pcap"
# Issue 34: one line naming what is wrong, not the usage.
expect_one_line 2 "ixy-pktgen: unexpected argument 'extra' after <pci> (see ixy-pktgen --help)" "$bin/ixy-pktgen" --count 5 xdp:pA extra
expect_one_line 2 "ixy-pktgen: unexpected argument '--count' after <pci>: options go first" "$bin/ixy-pktgen" xdp:pA --count 5
expect_one_line 2 "ixy-pcap: file - (none) needs --report" "$bin/ixy-pcap" "$addr" -
expect_one_line 2 "ixy-fwd: ring size '1k' is not a decimal number" "$bin/ixy-fwd" --ring 1k "$addr" 0000:00:00.0
expect_one_line 2 "option '--ring' requires an argument" "$bin/ixy-fwd" --ring
# --queues: 1 to 64 (IXY_MAX_QUEUES); a good value leads on to the missing second address
expect_one_line 2 "ixy-fwd: 1 argument after the options" "$bin/ixy-fwd" --queues 64 "$addr"
expect_one_line 2 "ixy-fwd: queues '0' is out of range (allowed: 1 to 64)" "$bin/ixy-fwd" --queues 0 "$addr" 0000:00:00.0
expect_one_line 2 "ixy-fwd: queues '65' is out of range" "$bin/ixy-fwd" --queues 65 "$addr" 0000:00:00.0
expect_one_line 2 "ixy-fwd: queues 'two' is not a decimal number" "$bin/ixy-fwd" --queues two "$addr" 0000:00:00.0
expect_one_line 2 "unrecognized option '--flows'" "$bin/ixy-fwd" --flows 2 "$addr" 0000:00:00.0
expect_one_line 2 "invalid option -- 'x'" "$bin/ixy-fwd" -xy "$addr" 0000:00:00.0
expect_one_line 2 "ixy-fwd: $addr given twice" "$bin/ixy-fwd" "$addr" "$addr"
expect 2 "usage: ixy-pktgen [--flows <k>] [--rate <n><unit>]" "$bin/ixy-pktgen"
expect 2 "Gbit counting the wire: frame + 4 FCS + 8 preamble/SFD" "$bin/ixy-pktgen"
# --rate, --size, --count, --seconds, --seed (issue 30): strict values, one line each.
expect_one_line 2 "ixy-pktgen: rate '10k' has no unit pps, kpps, Mpps, Mbit or Gbit right after the number" "$bin/ixy-pktgen" --rate 10k "$addr"
expect_one_line 2 "ixy-pktgen: rate '10' has no unit" "$bin/ixy-pktgen" --rate 10 "$addr"
expect_one_line 2 "ixy-pktgen: rate '10 kpps' has no unit" "$bin/ixy-pktgen" --rate "10 kpps" "$addr"
expect_one_line 2 "ixy-pktgen: rate '10KPPS' has no unit" "$bin/ixy-pktgen" --rate 10KPPS "$addr"
expect_one_line 2 "ixy-pktgen: rate '-1pps' does not start with a decimal number" "$bin/ixy-pktgen" --rate -1pps "$addr"
expect_one_line 2 "ixy-pktgen: rate '1.pps' has no digits after the point" "$bin/ixy-pktgen" --rate 1.pps "$addr"
expect_one_line 2 "ixy-pktgen: rate '0pps' is out of range" "$bin/ixy-pktgen" --rate 0pps "$addr"
expect_one_line 2 "ixy-pktgen: rate '401Gbit' is out of range" "$bin/ixy-pktgen" --rate 401Gbit "$addr"
expect_one_line 2 "ixy-pktgen: size '59' is not <bytes>, <min>-<max> or imix, with bytes 60 to 1514" "$bin/ixy-pktgen" --size 59 "$addr"
expect_one_line 2 "ixy-pktgen: size '1515' is not" "$bin/ixy-pktgen" --size 1515 "$addr"
expect_one_line 2 "ixy-pktgen: size '100-' is not" "$bin/ixy-pktgen" --size 100- "$addr"
expect_one_line 2 "ixy-pktgen: size '200-100' has <min> above <max>" "$bin/ixy-pktgen" --size 200-100 "$addr"
expect_one_line 2 "ixy-pktgen: size 'IMIX' is not" "$bin/ixy-pktgen" --size IMIX "$addr"
expect_one_line 2 "ixy-pktgen: packet count '0' is out of range" "$bin/ixy-pktgen" --count 0 "$addr"
expect_one_line 2 "ixy-pktgen: seconds '1.5' is not a decimal number" "$bin/ixy-pktgen" --seconds 1.5 "$addr"
expect_one_line 2 "ixy-pktgen: seed 'x' is not a decimal number" "$bin/ixy-pktgen" --seed x "$addr"
expect_one_line 2 "ixy-pktgen: flows '1025' is out of range (allowed: 1 to 1024)" "$bin/ixy-pktgen" --flows 1025 "$addr"
expect_one_line 2 "ixy-pktgen: 0 arguments after the options, expected <pci>" "$bin/ixy-pktgen" --flows 8
# --replay sends the file's frames: options that shape generated frames are refused, not ignored (before the file is read)
for shaping in "--size 100" "--size imix" "--seed 3" "--flows 2" "--flows 1"; do
	# shellcheck disable=SC2086 # the option and its value, two words
	expect_one_line 2 "ixy-pktgen: --flows, --size and --seed shape generated frames: not with --replay" "$bin/ixy-pktgen" \
		--replay "$tmp/none.pcap" $shaping "$addr"
done
# Issue 37: each address option, --vlan and --queues refuse a wrong value with exactly one line and exit code 2.
expect_line() {   # expect_line <the whole line on stderr> <command...>
	line=$1
	shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ "$(cat "$tmp/err")" = "$line" ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAILED: $* -> exit $got (expected 2 and the one line '$line'), stderr:" >&2
		cat "$tmp/err" >&2
	fi
}
pg=$bin/ixy-pktgen
expect_line "ixy-pktgen: --src-mac '02:00:00:00:00' is not a MAC address like 02:00:00:00:00:02" \
	"$pg" --src-mac 02:00:00:00:00 "$addr"
expect_line "ixy-pktgen: --src-mac '01:00:5e:00:00:01' is a group (multicast) address: no frame comes from one" \
	"$pg" --src-mac 01:00:5e:00:00:01 "$addr"
expect_line "ixy-pktgen: --dst-mac '02-00-00-00-00-02' is not a MAC address like 02:00:00:00:00:02" \
	"$pg" --dst-mac 02-00-00-00-00-02 "$addr"
expect_line "ixy-pktgen: --dst-mac 'g2:00:00:00:00:02' is not a MAC address like 02:00:00:00:00:02" \
	"$pg" --dst-mac g2:00:00:00:00:02 "$addr"
expect_line "ixy-pktgen: --src-ip '10.0.0.9-10.0.0.1' ends below its start" "$pg" --src-ip 10.0.0.9-10.0.0.1 "$addr"
expect_line "ixy-pktgen: --dst-ip 'fd00::9-fd00::1' ends below its start" "$pg" --dst-ip fd00::9-fd00::1 "$addr"
expect_line "ixy-pktgen: --src-ip '10.0.0.1-fd00::1' mixes IPv4 and IPv6" "$pg" --src-ip 10.0.0.1-fd00::1 "$addr"
expect_line "ixy-pktgen: --src-ip and --dst-ip mix IPv4 and IPv6" "$pg" --src-ip 10.0.0.1 --dst-ip fd00::2 "$addr"
expect_line "ixy-pktgen: --dst-ip '10.0.0.256' is not an IPv4 or IPv6 address or <first>-<last>" \
	"$pg" --dst-ip 10.0.0.256 "$addr"
expect_line "ixy-pktgen: --src-port '2000-1000' ends below its start" "$pg" --src-port 2000-1000 "$addr"
expect_line "ixy-pktgen: --dst-port '65536' is not a port (0 to 65535) or <first>-<last>" \
	"$pg" --dst-port 65536 "$addr"
expect_line "ixy-pktgen: --vlan '4095' is not <id>[:<priority>], id 0 to 4094, priority 0 to 7" \
	"$pg" --vlan 4095 "$addr"
expect_line "ixy-pktgen: --vlan '100:8' is not <id>[:<priority>], id 0 to 4094, priority 0 to 7" \
	"$pg" --vlan 100:8 "$addr"
expect_line "ixy-pktgen: queues '0' is out of range (allowed: 1 to 64)" "$pg" --queues 0 "$addr"
expect_line "ixy-pktgen: queues '65' is out of range (allowed: 1 to 64)" "$pg" --queues 65 "$addr"
expect_line "ixy-pktgen: --flows 2: fewer flows than --queues 4" "$pg" --flows 2 --queues 4 "$addr"
expect_line "ixy-pktgen: --size below 84 bytes: too short for the tag and the headers" \
	"$pg" --vlan 1 --src-ip fd00::1 --size 80 "$addr"
expect_line "ixy-pktgen: --queues splits generated flows: not with --replay" \
	"$pg" --replay "$tmp/none.pcap" --queues 2 "$addr"
expect 2 "ixy-pktgen: --flows, --size and --seed shape generated frames: not with --replay" \
	"$pg" --replay "$tmp/none.pcap" --vlan 5 "$addr"
# The largest good values are taken: the run gets as far as the (missing) device.
expect 1 "no PCI device $addr" "$pg" --src-mac 02:ff:ff:ff:ff:ff --dst-mac ff:ff:ff:ff:ff:ff --vlan 4094:7 \
	--src-ip fd00::1-fd00::ffff --dst-ip fd00::2 --src-port 0-65535 --dst-port 65535 --queues 64 --mark-end "$addr"
# Every usage names the sandbox options and says why one would turn the filter off.
expect 2 "--no-sandbox leaves them allowed, for a kernel or container where seccomp cannot be installed" "$bin/ixy-pktgen"
expect_one_line 2 "ixy: error: no user 'ixy-no-such-user'" "$bin/ixy-pktgen" --user ixy-no-such-user "$addr"
expect_one_line 2 "unrecognized option '--poll'" "$bin/ixy-pktgen" --poll "$addr"
expect_one_line 2 "option '--user' requires an argument" "$bin/ixy-fwd" --user
expect_one_line 2 "ixy-pktgen: unexpected argument '5' after <pci> (see ixy-pktgen --help)" "$bin/ixy-pktgen" "$addr" 5
# --replay of a FIFO: refused with one line, without waiting in open() for a writer that never comes (timeout: only
# a guard against hanging forever).
mkfifo "$tmp/fifo.pcap"
expect_one_line 1 "ixy-pktgen: $tmp/fifo.pcap: not a regular file" timeout 30 "$bin/ixy-pktgen" --replay "$tmp/fifo.pcap" "$addr"
# --help: the usage on stdout, exit code 0, nothing on stderr.
expect_help() {   # expect_help APP [OPTIONS...]
	app=$1
	shift
	"$bin/$app" "$@" --help >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -eq 0 ] && grep -qF "usage: $app " "$tmp/out" && grep -qF -- "--no-sandbox" "$tmp/out" &&
		[ ! -s "$tmp/err" ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAILED: $app $* --help -> exit $got (expected 0 and the usage on stdout)" >&2
		cat "$tmp/out" "$tmp/err" >&2
	fi
}
expect_help ixy-fwd
expect_help ixy-fwd --poll --queues 2
# ixy-fwd polls by default (the paper's path); --wait opts into sleeping: its help says so.
"$bin/ixy-fwd" --help >"$tmp/out" 2>&1
if grep -qF "it polls, as the paper's forwarder, unless --wait <ms> lets it sleep" "$tmp/out"; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	echo "FAILED: ixy-fwd --help does not say that it polls unless --wait:" >&2
	cat "$tmp/out" >&2
fi
expect_help ixy-pktgen
expect_help ixy-pktgen --flows 4
expect_help ixy-pcap
expect_one_line 2 "ixy-pcap: 1 argument after the options, expected <pci> <file | -> [n] (see ixy-pcap --help)" "$bin/ixy-pcap" "$addr"
expect 2 "usage: ixy-pcap [--poll | --wait <ms>] [--ring <descriptors>] [--queues <k>] [--report] <pci> <file | -> [n]" "$bin/ixy-pcap"
expect_one_line 2 "ixy-pcap: file - (none) needs --report" "$bin/ixy-pcap" "$addr" - 5
expect_one_line 2 "ixy-pcap: queues '65' is out of range (allowed: 1 to 64)" "$bin/ixy-pcap" --queues 65 "$addr" "$tmp/b.pcap"
expect_one_line 2 "ixy-pcap: 1 argument after the options" "$bin/ixy-pcap" --queues 4 "$addr"
expect_one_line 2 "ixy-pcap: ring size '32' is out of range" "$bin/ixy-pcap" --ring 32 "$addr" "$tmp/b.pcap"
expect_one_line 2 "option '--ring' requires an argument" "$bin/ixy-pcap" --ring
expect_one_line 2 "ixy-pcap: 1 argument after the options" "$bin/ixy-pcap" --wait 100 --ring 1024 "$addr"
expect_one_line 2 "ixy-pcap: wait time (ms) '1s' is not a decimal number" "$bin/ixy-pcap" --wait 1s "$addr" "$tmp/b.pcap"
expect_one_line 2 "ixy-pcap: 1 argument after the options" "$bin/ixy-pcap" --poll "$addr"
expect_one_line 2 "ixy-pcap: unexpected argument '2' after <pci> <file | -> [n]" "$bin/ixy-pcap" "$addr" "$tmp/a.pcap" 1 2
expect_one_line 2 "ixy-pcap: packet count '10k' is not a decimal number" "$bin/ixy-pcap" "$addr" "$tmp/b.pcap" 10k
expect_one_line 2 "ixy-pcap: packet count '0' is out of range" "$bin/ixy-pcap" "$addr" "$tmp/b.pcap" 0
expect_one_line 2 "ixy-pcap: packet count '-1' is not a decimal number" "$bin/ixy-pcap" "$addr" "$tmp/b.pcap" -1
expect_one_line 2 "is out of range" "$bin/ixy-pcap" "$addr" "$tmp/b.pcap" 18446744073709551616
expect_one_line 2 "ixy-pcap: 'x' is not a PCI address" "$bin/ixy-pcap" x "$tmp/b.pcap"
# A refused command line creates no file.
if [ -e "$tmp/b.pcap" ]; then
	failed=$((failed + 1))
	echo "FAILED: ixy-pcap created its file despite a wrong command line" >&2
else
	passed=$((passed + 1))
fi
# Issue 34: an existing capture file must be a regular file of the user the capture runs as, not reached through a
# symbolic link; anything else is refused with one line and exit code 1, and stays as it was.
echo "keep me" >"$tmp/own-file"
ln -s "$tmp/own-file" "$tmp/link.pcap"
expect_one_line 1 "pcap: cannot create $tmp/link.pcap: a symbolic link, not followed" "$bin/ixy-pcap" "$addr" "$tmp/link.pcap" 5
expect_one_line 1 "pcap: cannot create $tmp/fifo.pcap: a FIFO, not a regular file" timeout 30 "$bin/ixy-pcap" "$addr" "$tmp/fifo.pcap" 5
expect_one_line 1 "pcap: cannot create $tmp: Is a directory" "$bin/ixy-pcap" "$addr" "$tmp" 5
if [ "$(id -u)" = 0 ] && grep -q '^nobody:' /etc/passwd; then
	# root's file, the capture for nobody: refused (in nobody's directory, or named directly)
	mkdir "$tmp/nobody" && chown nobody "$tmp/nobody" && ln -s "$tmp/own-file" "$tmp/nobody/c.pcap"
	expect_one_line 1 "pcap: cannot create $tmp/nobody/c.pcap: a symbolic link, not followed" "$bin/ixy-pcap" \
		--user nobody "$addr" "$tmp/nobody/c.pcap" 5
	expect_one_line 1 "pcap: cannot create $tmp/own-file: belongs to uid 0, not to uid $(id -u nobody)" \
		"$bin/ixy-pcap" --user nobody "$addr" "$tmp/own-file" 5
fi
if [ "$(cat "$tmp/own-file")" = "keep me" ]; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	echo "FAILED: a refused capture file changed" >&2
fi
# The capture file is opened before the device: an impossible path fails with exit code 1 and names the file.
expect 1 "cannot create $tmp/missing/c.pcap" "$bin/ixy-pcap" "$addr" "$tmp/missing/c.pcap" 5

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
