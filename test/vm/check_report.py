#!/usr/bin/env python3
"""Checks ixy-pcap --report of the VM end-to-end test (issue 30) against the host's records. Standard library only.

  --host-a   what NIC A (ixy-pktgen) sent, recorded by QEMU's filter-dump on the host
  --guest    what ixy-pcap captured on NIC D (check_capture.py proves each of its frames is one the host passed to D,
             byte for byte, in order)
  --log      ixy-pcap's output: its final report lines (end=1, apps/common/report.h)

The expected report is computed here from the records, with the definitions of report.h written again (sets, not a
window: too_old must be 0): per flow (UDP source port) received = frames captured; duplicated = frames whose sequence
number was captured before; reordered = frames below the highest number captured before that were new; lost = the
numbers from 0 to the flow's highest captured one that the host saw A send and D's capture does not hold, and no
number up to the highest may be missing from A's record (a frame ixy-pktgen never sent cannot be lost). Latency:
frames with a send time of 0 (a generator that writes none) must be counted untimed, the others timed.
Exits 0 if all pass, 1 otherwise; the last line is "N passed, N failed".
"""
import argparse
import sys

from check_capture import read_pcap

results = []


def check(ok, what):
    results.append(bool(ok))
    print(("PASS  " if ok else "FAIL  ") + what)
    return ok


def is_pktgen(frame):
    """The report's test (report.c is_pktgen_frame): sizes 60..1514, IPv4 IHL 5, UDP to 1337, payload "ixy"."""
    return (60 <= len(frame) <= 1514 and frame[12:15] == b"\x08\x00\x45" and frame[23] == 17
            and frame[36:38] == (1337).to_bytes(2, "big") and frame[42:45] == b"ixy")


def flow_and_seq(frame):
    return int.from_bytes(frame[34:36], "big"), int.from_bytes(frame[-4:], "little")


def expected_report(sent, captured):
    flows = {}
    sent_by_flow = {}
    for frame in sent:
        if is_pktgen(frame):
            port, seq = flow_and_seq(frame)
            sent_by_flow.setdefault(port, set()).add(seq)
    foreign = timed = 0
    for frame in captured:
        if not is_pktgen(frame):
            foreign += 1
            continue
        timed += int.from_bytes(frame[-12:-4], "little") != 0
        port, seq = flow_and_seq(frame)
        f = flows.setdefault(port, {"seen": set(), "highest": -1, "received": 0, "reordered": 0, "duplicated": 0})
        f["received"] += 1
        if seq in f["seen"]:
            f["duplicated"] += 1
        elif seq < f["highest"]:
            f["reordered"] += 1
        f["seen"].add(seq)
        f["highest"] = max(f["highest"], seq)
    for port, f in flows.items():
        numbers = range(f["highest"] + 1)
        f["never_sent"] = sum(1 for n in numbers if n not in sent_by_flow.get(port, set()))
        f["lost"] = sum(1 for n in numbers if n not in f["seen"])
    return flows, foreign, timed


def report_lines(path, kind):
    """The key=value dicts of the log's final lines of a kind (end=1)."""
    lines = []
    with open(path, errors="replace") as f:
        for line in f:
            words = line.split()
            if words and words[0] == kind and "end=1" in words:
                lines.append(dict(w.split("=", 1) for w in words[1:] if "=" in w))
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host-a", required=True)
    parser.add_argument("--guest", required=True)
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    flows, foreign, timed = expected_report(read_pcap(args.host_a), read_pcap(args.guest))
    got = {int(line["port"]): line for line in report_lines(args.log, "flow")}
    check(set(got) == set(flows), f"the report has a line for each flow the capture holds: {sorted(flows)}")
    keys = ("received", "lost", "reordered", "duplicated")
    for port, f in sorted(flows.items()):
        check(f["never_sent"] == 0, f"flow {port}: the host saw A send every number up to {f['highest']}")
        line = got.get(port, {})
        for key in keys:
            check(line.get(key) == str(f[key]), f"flow {port}: {key}={line.get(key)}, the records say {f[key]}")
        check(line.get("too_old") == "0", f"flow {port}: too_old={line.get('too_old')}, expected 0")
    totals = report_lines(args.log, "report")
    check(len(totals) == 1, "one final report line")
    if totals:
        check(totals[0].get("foreign") == str(foreign),
              f"foreign={totals[0].get('foreign')}, the records say {foreign}")
        for key in keys:
            want = sum(f[key] for f in flows.values())
            check(totals[0].get(key) == str(want), f"report {key}={totals[0].get(key)}, the records say {want}")
    latency = report_lines(args.log, "latency")
    check(len(latency) == 1, "one final latency line")
    if latency:
        received = sum(f["received"] for f in flows.values())
        check(latency[0].get("count") == str(timed), f"latency count={latency[0].get('count')}: {timed} frames timed")
        check(latency[0].get("untimed") == str(received - timed),
              f"latency untimed={latency[0].get('untimed')}: {received - timed} frames without a send time")
    print(f"{results.count(True)} passed, {results.count(False)} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
