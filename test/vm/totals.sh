# The one reader of the apps' machine-readable lines, sourced by run-vm.sh, the guest's /init (guest-init.sh) and
# check_soak.py. At exit every app prints, for each of its devices (print_stats_totals, src/stats.c), and for its
# waiter (ixy_waiter_print, src/interrupts.c), one line of words "key=value":
#   totals app=<app> pci=<addr> rx_packets=<n> rx_bytes=<n> tx_packets=<n> tx_bytes=<n> rx_dropped=<n> <app keys>
#   waiter app=<app> slept=<n> ...
# ixy-fwd --queues n (n > 1) also prints, before each device's totals line, one line per queue of it (not starting with
# "totals", so that the lines above stay the only match of "totals app=<app> pci=<addr>"), and one waiter line per queue:
#   queue app=ixy-fwd pci=<addr> queue=<i> rx_packets=<n> forwarded=<n> tx_full=<n>
#
# total LOG LINE KEY: prints the number KEY has on the one line of LOG that starts with LINE's first word and holds
# each of LINE's other words, e.g. total fwd.log "totals app=ixy-fwd pci=0000:00:09.0" forwarded. No such line, more
# than one, no KEY on it or a KEY that is not a number: a message on stderr, nothing on stdout, exit status 1, so that
# a check of the value fails rather than being skipped.
total() {
	_total=$(awk -v line="$2" -v key="$3" '
		BEGIN { words = split(line, want, " ") }
		$1 == want[1] {
			for (i = 2; i <= words; i++) {
				hit = 0
				for (j = 2; j <= NF; j++) if ($j == want[i]) hit = 1
				if (!hit) next
			}
			lines++
			keys = 0
			for (j = 2; j <= NF; j++) if (index($j, key "=") == 1) { value = substr($j, length(key) + 2); keys++ }
		}
		END {
			if (lines != 1) problem = (lines + 0) " lines match"
			else if (keys != 1) problem = "the line has " keys " " key "="
			else if (value !~ /^[0-9]+$/) problem = key "=" value " is not a number"
			if (problem == "") { print value; exit 0 }
			print problem
			exit 1
		}' "$1" 2>&1) && { echo "$_total"; return 0; }
	echo "total: '$2' $3 in $1: ${_total:-no such file}" >&2
	return 1
}
