#!/usr/bin/env python3
"""Accounts for every packet of the VM soak test (test/vm/run-vm.sh --scenario soak). Python 3, standard library only.

The path: ixy-pktgen on NIC A -> QEMU hub 0 -> NIC B -> ixy-fwd -> NIC C -> QEMU hub 1 -> NIC D -> ixy-pcap.
Inputs: the three apps' logs (their final counters, the drivers' mempool reports) and the sizes of four pcap
streams QEMU's filter-dump wrote on the host (a: frames NIC A sent, b: frames hub 0 passed to NIC B, c: frames NIC C
sent, d: frames hub 1 passed to NIC D). Every frame is 60 bytes, so a stream of n frames has 24 + n * (16 + 60) bytes.

Where a packet can end, and who counts it:
  captured                 ixy-pcap's captured=N (the apps' totals lines, read with test/vm/totals.sh)
  not written              ixy-pcap's not_written=N
  dropped before D's ring  QEMU drops frames for a NIC whose RX ring is full once its queue of waiting frames is
                           full; a legacy VirtIO device has no counter for them, so the host counts them:
                           d - (D's RX packets). The same before B's ring: b - (B's RX packets).
  dropped by ixy-fwd       ixy-fwd's tx_full=N on B's line
  dropped by the NICs      rx_dropped=N of B and D (the VirtIO driver cannot know them: always 0)
  left in a TX ring        sent by the app but never put on the wire because the device was reset (stopped) first:
                           pktgen's sent - a, fwd's forwarded (B's line) - c. Ideally 0 after draining.
Checks (each printed as PASS or FAIL): the logs have every counter; the hubs lost nothing (a == b, c == d); every
difference above is >= 0; each app's counters add up (B's RX == forwarded + dropped, D's RX == captured + not
written); sent == the sum of all the places a packet can end; traffic flowed for most of the soak; each RX mempool
and pktgen's packet mempool reported all buffers free at close, and no log has a warning.
Exits 0 if all pass, 1 otherwise; the last line is "N passed, N failed".
"""
import argparse
import os
import re
import subprocess
import sys

# The PCI addresses of NIC A, B, C and D (--nics), set in main().
NIC_A, NIC_B, NIC_C, NIC_D = "", "", "", ""
FRAME_RECORD = 16 + 60
PCAP_HEADER = 24

results = []


def check(ok, what):
    results.append(bool(ok))
    print(("PASS  " if ok else "FAIL  ") + what)
    return ok


TOTALS_SH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "totals.sh")


def total(log, line, key):
    """KEY of the app's LINE ("totals app=... pci=..." or "waiter app=...") in the file LOG, read by test/vm/totals.sh
    as an int, or None (with a FAIL that says why)."""
    run = subprocess.run(["sh", "-c", '. "$0"; total "$1" "$2" "$3"', TOTALS_SH, log, line, key],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        check(False, f"the logs say {line} {key}: {run.stderr.strip()}")
        return None
    return int(run.stdout)


def frames(stream, size):
    count, rest = divmod(size - PCAP_HEADER, FRAME_RECORD)
    check(size >= PCAP_HEADER and rest == 0, f"host stream {stream}: {size} bytes, a whole number of 60 byte frames")
    return count


def busy_seconds(log, pci, direction):
    """Rate lines of a NIC and direction with traffic (one per second, or fewer when a pass of the app's loop is
    slow: the apps read the clock every 256 passes), and the lines without traffic between the first and the last
    with traffic (stalls)."""
    pattern = re.compile(r"^\[" + re.escape(pci) + r"\] " + direction + r": (\d+) Mbit/s (\d+\.\d+) Mpps$", re.MULTILINE)
    # Either number above 0: at the rates of TCG, 0.00 Mpps may still be a few thousand packets.
    busy = [int(m.group(1)) > 0 or float(m.group(2)) > 0 for m in pattern.finditer(log)]
    if True not in busy:
        return 0, 0
    first, last = busy.index(True), len(busy) - 1 - busy[::-1].index(True)
    return sum(busy), busy[first:last + 1].count(False)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for point in "abcd":
        parser.add_argument(f"--host-{point}-bytes", type=int, required=True)
    parser.add_argument("--pktgen-log", required=True)
    parser.add_argument("--fwd-log", required=True)
    parser.add_argument("--pcap-log", required=True)
    parser.add_argument("--soak-seconds", type=int, required=True)
    parser.add_argument("--summary", help="write the figures here too")
    parser.add_argument("--nics", default="0000:00:08.0,0000:00:09.0,0000:00:0a.0,0000:00:0b.0",
                        help="PCI addresses of NIC A, B, C and D, separated by commas")
    args = parser.parse_args()
    global NIC_A, NIC_B, NIC_C, NIC_D
    NIC_A, NIC_B, NIC_C, NIC_D = args.nics.split(",")
    logs = {}
    for app in ("pktgen", "fwd", "pcap"):
        try:
            with open(getattr(args, f"{app}_log"), encoding="utf-8", errors="replace") as f:
                logs[app] = f.read()
        except OSError as e:
            check(False, f"reading the log of ixy-{app}: {e}")
            logs[app] = ""
    pktgen, fwd, pcap = logs["pktgen"], logs["fwd"], logs["pcap"]
    q = re.escape
    fwd_b, fwd_c = f"totals app=ixy-fwd pci={NIC_B}", f"totals app=ixy-fwd pci={NIC_C}"
    pcap_d = f"totals app=ixy-pcap pci={NIC_D}"
    sent = total(args.pktgen_log, f"totals app=ixy-pktgen pci={NIC_A}", "sent")
    b_rx = total(args.fwd_log, fwd_b, "rx_packets")
    b_nic_dropped = total(args.fwd_log, fwd_b, "rx_dropped")
    forwarded = total(args.fwd_log, fwd_b, "forwarded")
    fwd_dropped = total(args.fwd_log, fwd_b, "tx_full")
    backwards = total(args.fwd_log, fwd_c, "forwarded")
    d_rx = total(args.pcap_log, pcap_d, "rx_packets")
    d_nic_dropped = total(args.pcap_log, pcap_d, "rx_dropped")
    captured = total(args.pcap_log, pcap_d, "captured")
    not_written = total(args.pcap_log, pcap_d, "not_written")
    host = {p: frames(p, getattr(args, f"host_{p}_bytes")) for p in "abcd"}
    counters = [sent, b_rx, b_nic_dropped, forwarded, fwd_dropped, backwards, d_rx, d_nic_dropped, captured, not_written]
    if None in counters:
        print(f"{results.count(True)} passed, {results.count(False)} failed")
        return 1

    left_in_a = sent - host["a"]
    dropped_before_b = host["b"] - b_rx
    left_in_c = forwarded - host["c"]
    dropped_before_d = host["d"] - d_rx
    places = [
        ("captured by ixy-pcap", captured),
        ("received by ixy-pcap but not written", not_written),
        ("dropped by QEMU before D's RX ring (host count)", dropped_before_d),
        ("dropped by NIC D (RX dropped counter)", d_nic_dropped),
        ("left in C's TX ring when ixy-fwd stopped (host count)", left_in_c),
        ("dropped by ixy-fwd (TX queue full)", fwd_dropped),
        ("dropped by QEMU before B's RX ring (host count)", dropped_before_b),
        ("dropped by NIC B (RX dropped counter)", b_nic_dropped),
        ("left in A's TX ring when ixy-pktgen stopped (host count)", left_in_a),
    ]
    lines = [f"sent by ixy-pktgen: {sent}", f"host: A sent {host['a']}, hub 0 passed to B {host['b']}, "
             f"C sent {host['c']}, hub 1 passed to D {host['d']}",
             f"apps: B received {b_rx}, ixy-fwd forwarded {forwarded} B -> C and {backwards} C -> B, "
             f"D received {d_rx}"]
    lines += [f"  {what}: {count}" for what, count in places]
    lines.append(f"  sum: {sum(count for _, count in places)}")
    for line in lines:
        print(line)
    if args.summary:
        with open(args.summary, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")

    check(sent > 0 and captured > 0, "packets were sent and captured")
    check(host["a"] == host["b"], f"hub 0 passed every frame A sent to B ({host['a']} == {host['b']})")
    check(host["c"] == host["d"], f"hub 1 passed every frame C sent to D ({host['c']} == {host['d']})")
    for what, count in places:
        check(count >= 0, f"{what}: {count} >= 0")
    check(b_rx == forwarded + fwd_dropped, f"ixy-fwd: B's RX {b_rx} == forwarded {forwarded} + dropped {fwd_dropped}")
    check(d_rx == captured + not_written,
          f"ixy-pcap: D's RX {d_rx} == captured {captured} + not written {not_written}")
    check(backwards == 0, f"nothing came back from C to B ({backwards})")
    check(sent == sum(count for _, count in places), f"every packet accounted for: sent {sent} == the sum above")
    for what, log, pci, direction in (("ixy-pktgen sent", pktgen, NIC_A, "TX"), ("ixy-pcap received", pcap, NIC_D, "RX")):
        # A line per second with traffic; or, where the loop is slower than 256 passes a second (igb under TCG:
        # every tail write is a trap into QEMU), at least one line per two seconds and none without traffic.
        seconds, stalls = busy_seconds(log, pci, direction)
        check(seconds >= args.soak_seconds - 5 or (stalls == 0 and seconds >= args.soak_seconds // 2),
              f"{what} packets in {seconds} rate lines of the {args.soak_seconds} s, {stalls} lines without "
              "traffic in between")

    # The drivers' reports at close: every buffer of every pool back (src/driver/virtio.c; ixy-pktgen's pool_free and pool_size).
    everything = pktgen + fwd + pcap
    for pci in (NIC_A, NIC_B, NIC_C, NIC_D):
        match = re.search(rf"^ixy: {q(pci)}: closed; RX mempool: (\d+) of (\d+) buffers free(;[^\n]*)?$", everything, re.MULTILINE)
        check(match and match.group(1) == match.group(2),
              f"{pci}: RX mempool full at close ({match.group(0) if match else 'no report'})")
    pool = [total(args.pktgen_log, f"totals app=ixy-pktgen pci={NIC_A}", key) for key in ("pool_free", "pool_size")]
    check(None not in pool and pool[0] == pool[1], f"ixy-pktgen's packet mempool full after stop (free, size: {pool})")
    warnings = [line for line in everything.splitlines() if "warning" in line or "BUG" in line]
    check(not warnings, "no warnings in the logs" + (f": {warnings[0]}" if warnings else ""))

    print(f"{results.count(True)} passed, {results.count(False)} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
