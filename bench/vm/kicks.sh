#!/bin/sh
# The kicks of each measured run of bench-peers, counted outside the guest: reads the trace QEMU wrote with
#   -trace enable=virtio_set_status -trace enable=virtio_queue_notify -trace enable=serial_write -trace file=TRACE
# (QEMU's "log" trace backend, one event a line, in the order QEMU handled them) and prints, for each pair of the
# guest's marks "IXY-VM: bench <peer> run <i>: begin" ... "end",
#   kicks <peer> run <i>: A <n> B <n> C <n> D <n>
# the driver->device queue notifications (virtio_queue_notify: the driver wrote a queue's index to the device's notify
# register; VirtIO 1.2 sections 4.1.4.4 and 4.1.5.2) of each NIC between the two marks, whoever the driver is.
# Which NIC: the guest's kernel probes the four NICs in PCI order A, B, C, D (run-vm.sh), and its first step with each is
# ACKNOWLEDGE (virtio_set_status val 1, VirtIO 3.1.1): a device's address in the trace (vdev) belongs to the NIC in the
# order of their first ACKNOWLEDGE. The marks: the characters the guest wrote to a serial port's transmit register
# (serial_write addr 0x00), put together into lines. Under TCG QEMU handles a notification in the vCPU's thread, with
# no ioeventfd (QEMU enables those with KVM only), so each one is an event of this trace.
#   kicks.sh TRACE
set -eu
awk '
	function hex(s,   i, n, c) { # "0x4a" -> 74
		n = 0
		s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); n = n * 16 + c - 1 }
		return n
	}
	BEGIN { for (i = 32; i < 127; i++) char[i] = sprintf("%c", i); nics = 0 }
	$1 == "virtio_set_status" && $5 == "1" && !($3 in nic) && nics < 4 { nic[$3] = substr("ABCD", ++nics, 1); next }
	$1 == "virtio_queue_notify" { if (measuring && ($3 in nic)) kicks[nic[$3]]++; next }
	$1 == "serial_write" && $4 == "0x00" {
		v = hex($6)
		if (v == 10) {
			if (match(line, /IXY-VM: bench [^ ]+ run [0-9]+: (begin|end)$/)) {
				split(substr(line, RSTART), w, " ")
				if (w[6] == "begin") { measuring = 1; split("", kicks) }
				else if (measuring) {
					measuring = 0
					printf "kicks %s run %s A %d B %d C %d D %d\n", w[3], w[5], kicks["A"], kicks["B"], kicks["C"], kicks["D"]
				}
			}
			line = ""
		} else if (v in char) line = line char[v]
	}
	END { if (nics < 4) { print "kicks.sh: " nics " NICs acknowledged in the trace, not 4" > "/dev/stderr"; exit 1 } }' "$1"
