#!/bin/sh
# Unit test of test/vm/totals.sh, the VM tests' reader of the apps' totals and waiter lines (ctest vm_totals_reader;
# needs no VM): the value of a key on the one matching line, and a failure (status 1, nothing on stdout, a message on
# stderr) for every line it cannot read, so that no check of a VM test can be skipped by a line that does not parse.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/totals.sh"
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
cat >"$log" <<'LOG'
[0000:00:09.0] RX: 0 Mbit/s 0.00 Mpps
totals app=ixy-fwd pci=0000:00:09.0 rx_packets=30000 rx_bytes=1800000 tx_packets=5 tx_bytes=300 rx_dropped=0 forwarded=29990 tx_full=10
totals app=ixy-fwd pci=0000:00:0a.0 rx_packets=5 rx_bytes=300 tx_packets=29990 tx_bytes=1799400 rx_dropped=0 forwarded=5 tx_full=0
waiter app=ixy-fwd slept=0 timeouts=0 packet_before_sleep=0 polls_only=1 interrupts/0000:00:09.0/0=7
totals app=ixy-pcap pci=0000:00:0b.0 rx_packets=x captured=1 captured=2
LOG
failures=0
reads() { # reads LINE KEY EXPECTED
	got=$(total "$log" "$1" "$2")
	rc=$?
	[ $rc = 0 ] && [ "$got" = "$3" ] && return
	echo "FAIL: '$1' $2 gave '$got' (status $rc), expected $3"
	failures=$((failures + 1))
}
refuses() { # refuses LINE KEY [FILE]: status 1, nothing on stdout, a message on stderr
	got=$(total "${3:-$log}" "$1" "$2" 2>/tmp/totals-err.$$)
	rc=$?
	[ $rc = 1 ] && [ -z "$got" ] && grep -q "^total: " /tmp/totals-err.$$ && { rm -f /tmp/totals-err.$$; return; }
	echo "FAIL: '$1' $2 gave '$got' (status $rc, stderr '$(cat /tmp/totals-err.$$)'), expected a refusal"
	rm -f /tmp/totals-err.$$
	failures=$((failures + 1))
}
reads "totals app=ixy-fwd pci=0000:00:09.0" forwarded 29990
reads "totals app=ixy-fwd pci=0000:00:09.0" rx_packets 30000 # rx_packets, not rx_packets... of another word
reads "totals app=ixy-fwd pci=0000:00:0a.0" forwarded 5
reads "totals app=ixy-fwd pci=0000:00:0a.0" tx_bytes 1799400
reads "waiter app=ixy-fwd" slept 0
reads "waiter app=ixy-fwd" interrupts/0000:00:09.0/0 7
refuses "totals app=ixy-fwd pci=0000:00:09.0" captured       # no such key
refuses "totals app=ixy-fwd pci=0000:00:09.0" rx             # a prefix of a key is no key
refuses "totals app=ixy-fwd" forwarded                       # two lines match
refuses "totals app=ixy-pktgen pci=0000:00:09.0" sent        # no line matches
refuses "waiter app=ixy-pcap" slept                          # no line matches
refuses "totals app=ixy-pcap pci=0000:00:0b.0" rx_packets    # not a number
refuses "totals app=ixy-pcap pci=0000:00:0b.0" captured      # the key twice
refuses "app=ixy-fwd pci=0000:00:09.0" forwarded         # the first word is the kind of line
refuses "waiter app=ixy-fwd" slept /nonexistent/log          # no file
[ $failures = 0 ] && echo "totals.sh: all cases pass"
[ $failures = 0 ]
