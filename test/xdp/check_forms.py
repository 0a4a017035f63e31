#!/usr/bin/env python3
"""Checks every field of ixy-pktgen's frames in the forms of issue 37 (apps/common/flows.h) in a classic pcap file.
Python 3, standard library only; written from the RFCs, not from ixy's code.

  check_forms.py FILE --dst-mac M --src-mac M --src-ip FIRST[-LAST] --dst-ip FIRST[-LAST]
                 [--src-port FIRST[-LAST]] [--dst-port FIRST[-LAST]] [--vlan ID[:PRIO]] --flows N --count N
                 [--queues N] [--mark-end] [--skip N] [--from-dst-mac]

Every frame: the MACs; with --vlan the 802.1Q tag (TPID 0x8100, PCP, DEI 0, VID); EtherType IPv4 (version 4, IHL 5,
total length, TTL 64, protocol UDP, a correct header checksum) or IPv6 (version 6, payload length, next header UDP,
hop limit 64); the flow's addresses and ports (flow f: the (f mod n)-th value of each range; source port without
--src-port: 42 + 45 f mod 1031); UDP length; over IPv6 a correct UDP checksum (RFC 8200 8.1), over IPv4 none (0);
the payload "ixy", a zero byte, the flow's number, zeros, the send time, the sequence number. Per flow the sequence
numbers 0, 1, 2, ... in order; in all --count frames, each flow its share (flows take turns: with --queues, per
queue). With --mark-end, after a flow's frames its 3 end markers: bit 15 of the number set, the flow's count in the
send time field, the numbers count, count + 1, count + 2. --skip N: ignore the first N records (another run's);
--from-dst-mac: and those before the first to --dst-mac (another app's, e.g. the VM e2e's self test).
Exits 0 if all pass; the last line is "N passed, N failed".
"""
import argparse
import ipaddress
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vm"))
import check_capture as cc  # noqa: E402  (read_pcap, check)


def span(text, parse):
    first, _, last = text.partition("-")
    return parse(first), parse(last or first)


def ones_sum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def nth(rng, f):
    first, last = rng
    return first + f % (int(last) - int(first) + 1)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file")
    p.add_argument("--dst-mac", required=True)
    p.add_argument("--src-mac", required=True)
    p.add_argument("--src-ip", required=True)
    p.add_argument("--dst-ip", required=True)
    p.add_argument("--src-port")
    p.add_argument("--dst-port", default="1337")
    p.add_argument("--vlan")
    p.add_argument("--flows", type=int, required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--queues", type=int, default=1)
    p.add_argument("--mark-end", action="store_true")
    p.add_argument("--skip", type=int, default=0)
    p.add_argument("--from-dst-mac", action="store_true", help="skip the records before the first to --dst-mac")
    a = p.parse_args()
    mac = lambda m: bytes(int(b, 16) for b in m.split(":"))  # noqa: E731
    src_ip, dst_ip = span(a.src_ip, ipaddress.ip_address), span(a.dst_ip, ipaddress.ip_address)
    v6 = src_ip[0].version == 6
    src_port = span(a.src_port, int) if a.src_port else None
    dst_port = span(a.dst_port, int)
    frames = cc.read_pcap(a.file)[a.skip:]
    if a.from_dst_mac:
        first = next((i for i, fr in enumerate(frames) if fr[0:6] == mac(a.dst_mac)), len(frames))
        print("skipped %d records before the first to %s" % (first, a.dst_mac))
        frames = frames[first:]
    l3 = 18 if a.vlan else 14
    l4 = l3 + (40 if v6 else 20)
    pay = l4 + 8
    errors = []
    seqs = {f: [] for f in range(a.flows)}
    markers = {f: [] for f in range(a.flows)}
    for i, fr in enumerate(frames):
        def bad(what):
            errors.append("frame %d: %s" % (i, what))
        size = len(fr)
        if size < pay + 18:
            bad("%d bytes" % size)
            continue
        if fr[0:6] != mac(a.dst_mac) or fr[6:12] != mac(a.src_mac):
            bad("MAC addresses %s %s" % (fr[0:6].hex(), fr[6:12].hex()))
        if a.vlan:
            vid, _, prio = a.vlan.partition(":")
            if fr[12:14] != b"\x81\x00" or struct.unpack("!H", fr[14:16])[0] != int(prio or 0) << 13 | int(vid):
                bad("802.1Q tag %s" % fr[12:16].hex())
        number = struct.unpack("<H", fr[pay + 4:pay + 6])[0]
        f, end = number & 0x7FFF, bool(number & 0x8000)
        if f >= a.flows:
            bad("flow number %d" % f)
            continue
        want_src = nth(src_ip, f).packed
        want_dst = nth(dst_ip, f).packed
        if v6:
            ip = fr[l3:l4]
            if fr[l3 - 2:l3] != b"\x86\xdd" or ip[0] >> 4 != 6 or ip[6] != 17 or ip[7] != 64:
                bad("IPv6 header %s" % ip[:8].hex())
            if struct.unpack("!H", ip[4:6])[0] != size - l4:
                bad("IPv6 payload length")
            if ip[8:24] != want_src or ip[24:40] != want_dst:
                bad("IPv6 addresses of flow %d" % f)
            pseudo = ip[8:40] + struct.pack("!IxxxB", size - l4, 17)
            if ones_sum(pseudo + fr[l4:]) != 0xFFFF or fr[l4 + 6:l4 + 8] == b"\0\0":
                bad("UDP checksum")
        else:
            ip = fr[l3:l4]
            if fr[l3 - 2:l3] != b"\x08\x00" or ip[0] != 0x45 or ip[8] != 64 or ip[9] != 17:
                bad("IPv4 header %s" % ip[:10].hex())
            if struct.unpack("!H", ip[2:4])[0] != size - l3 or ones_sum(ip) != 0xFFFF:
                bad("IPv4 total length or header checksum")
            if ip[12:16] != want_src or ip[16:20] != want_dst:
                bad("IPv4 addresses of flow %d" % f)
            if fr[l4 + 6:l4 + 8] != b"\0\0":
                bad("UDP checksum over IPv4 not 0")
        sport, dport, ulen = struct.unpack("!HHH", fr[l4:l4 + 6])
        want_sport = nth(src_port, f) if src_port else 42 + 45 * f % 1031
        if sport != want_sport or dport != nth(dst_port, f) or ulen != size - l4:
            bad("UDP ports %d %d or length %d of flow %d" % (sport, dport, ulen, f))
        if fr[pay:pay + 4] != b"ixy\0" or any(fr[pay + 6:size - 12]):
            bad("payload")
        value, seq = struct.unpack("<QI", fr[size - 12:])
        if end:
            markers[f].append((value, seq))
        else:
            if markers[f]:
                bad("flow %d: a frame after its end marker" % f)
            seqs[f].append(seq)
    cc.check(not errors, "all %d frames: every field as the options say%s" % (len(frames), (": " + "; ".join(
        errors[:3])) if errors else ""))
    # Each flow's share of --count: queue q has flows q, q + n, ...; its share of the count goes to them in turn.
    share = {}
    for q in range(a.queues):
        flows = list(range(q, a.flows, a.queues))
        count = a.count // a.queues + (q < a.count % a.queues)
        for j, f in enumerate(flows):
            share[f] = count // len(flows) + (j < count % len(flows))
    gaps = [f for f in seqs if seqs[f] != list(range(share[f]))]
    cc.check(not gaps, "every flow's numbers 0..share-1 in order, %d frames in all%s" % (
        sum(len(s) for s in seqs.values()), ": flow %d has %d, wants %d" % (
            gaps[0], len(seqs[gaps[0]]), share[gaps[0]]) if gaps else ""))
    if a.mark_end:
        wrong = [f for f in markers if markers[f] != [(share[f], share[f] + r) for r in range(3)]]
        cc.check(not wrong, "each flow's 3 end markers carry its count and continue its numbers%s" % (
            ": flow %d: %s" % (wrong[0], markers[wrong[0]]) if wrong else ""))
    else:
        cc.check(not any(markers.values()), "no end markers without --mark-end")
    print("%d passed, %d failed" % (cc.results.count(True), cc.results.count(False)))
    return 0 if all(cc.results) else 1


if __name__ == "__main__":
    sys.exit(main())
