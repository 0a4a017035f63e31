#!/usr/bin/env python3
"""Accounts for every packet of the VM soak test (test/vm/run-vm.sh --scenario soak). Python 3, standard library only.

The path: ixy-pktgen on NIC A -> QEMU hub 0 -> NIC B -> ixy-fwd -> NIC C -> QEMU hub 1 -> NIC D -> ixy-pcap.
Inputs: the three apps' logs (their final counters, the drivers' mempool reports) and the sizes of four pcap
streams QEMU's filter-dump wrote on the host (a: frames NIC A sent, b: frames hub 0 passed to NIC B, c: frames NIC C
sent, d: frames hub 1 passed to NIC D). Every frame is 60 bytes, so a stream of n frames has 24 + n * (16 + 60) bytes.

Where a packet can end, and who counts it:
  captured                 ixy-pcap "captured N packets"
  not written              ixy-pcap "N more received but not written"
  dropped before D's ring  QEMU drops frames for a NIC whose RX ring is full once its queue of waiting frames is
                           full; a legacy VirtIO device has no counter for them, so the host counts them:
                           d - (D's RX packets). The same before B's ring: b - (B's RX packets).
  dropped by ixy-fwd       "dropped N (TX queue full)"
  dropped by the NICs      "RX dropped by NIC N" of B and D (the VirtIO driver cannot know them: always 0)
  left in a TX ring        sent by the app but never put on the wire because the device was reset (stopped) first:
                           pktgen's "sent" - a, fwd's "forwarded" - c. Ideally 0 after draining.
Checks (each printed as PASS or FAIL): the logs have every counter; the hubs lost nothing (a == b, c == d); every
difference above is >= 0; each app's counters add up (B's RX == forwarded + dropped, D's RX == captured + not
written); sent == the sum of all the places a packet can end; traffic flowed for most of the soak; each RX mempool
and pktgen's packet mempool reported all buffers free at close, and no log has a warning.
Exits 0 if all pass, 1 otherwise; the last line is "N passed, N failed".
"""
import argparse
import re
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


def number(text, pattern, what, group=1):
    """A group of pattern in text as an int, or None (with a FAIL)."""
    match = re.search(pattern, text, re.MULTILINE)
    if not match:
        check(False, f"the logs say {what}")
        return None
    return int(match.group(group))


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
    # print_stats_total (src/stats.c): group 1 RX packets, group 2 RX dropped by the NIC
    total = r"^\[{}\] total: RX (\d+) packets \d+ bytes, TX \d+ packets \d+ bytes, RX dropped by NIC (\d+)$"

    sent = number(pktgen, rf"^\[{q(NIC_A)}\] sent (\d+) packets", "how many packets ixy-pktgen sent")
    b_rx = number(fwd, total.format(q(NIC_B)), "B's RX packets")
    b_nic_dropped = number(fwd, total.format(q(NIC_B)), "B's RX dropped by NIC", 2)
    forwarded = number(fwd, rf"^{q(NIC_B)} -> {q(NIC_C)}: forwarded (\d+) packets", "what ixy-fwd forwarded B -> C")
    fwd_dropped = number(fwd, rf"^{q(NIC_B)} -> {q(NIC_C)}: forwarded \d+ packets, dropped (\d+) \(TX queue full\)",
                         "what ixy-fwd dropped B -> C")
    backwards = number(fwd, rf"^{q(NIC_C)} -> {q(NIC_B)}: forwarded (\d+) packets", "what ixy-fwd forwarded C -> B")
    d_rx = number(pcap, total.format(q(NIC_D)), "D's RX packets")
    d_nic_dropped = number(pcap, total.format(q(NIC_D)), "D's RX dropped by NIC", 2)
    captured = number(pcap, rf"^\[{q(NIC_D)}\] captured (\d+) packets", "what ixy-pcap captured")
    not_written = number(pcap, r"(\d+) more received but not written", "what ixy-pcap received but did not write")
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

    # The drivers' reports at close: every buffer of every pool back (src/driver/virtio.c, apps/ixy-pktgen.c).
    everything = pktgen + fwd + pcap
    for pci in (NIC_A, NIC_B, NIC_C, NIC_D):
        match = re.search(rf"^ixy: {q(pci)}: closed; RX mempool: (\d+) of (\d+) buffers free(;[^\n]*)?$", everything, re.MULTILINE)
        check(match and match.group(1) == match.group(2),
              f"{pci}: RX mempool full at close ({match.group(0) if match else 'no report'})")
    match = re.search(rf"^\[{q(NIC_A)}\] packet mempool: (\d+) of (\d+) buffers free$", pktgen, re.MULTILINE)
    check(match and match.group(1) == match.group(2),
          f"ixy-pktgen's packet mempool full after stop ({match.group(0) if match else 'no report'})")
    warnings = [line for line in everything.splitlines() if "warning" in line or "BUG" in line]
    check(not warnings, "no warnings in the logs" + (f": {warnings[0]}" if warnings else ""))

    print(f"{results.count(True)} passed, {results.count(False)} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
