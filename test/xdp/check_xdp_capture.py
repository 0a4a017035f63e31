#!/usr/bin/env python3
"""Checks the packets of the AF_XDP veth test (test_xdp_veth.sh). Python 3, standard library only.

  --to-b    every frame bridge br0 sent toward vethB (ixy-fwd's input), recorded by tcpdump on the bridge port brB
  --to-d    every frame bridge br1 sent toward vethD (ixy-pcap's), recorded by tcpdump on the bridge port brD
  --ixy     what ixy-pcap captured on xdp:vethD
  --src-mac vethA's MAC address (ixy-pktgen sends from it)

Every packet must be ixy-pktgen's (test/vm/check_capture.py: the contract), byte for byte the template ixy-pktgen
builds from vethA's MAC, with a sequence number:
  - to-b: unchanged, sequence numbers 0, 1, 2, ... in order: nothing lost, repeated or reordered on the way from
    ixy-pktgen, and no frame of the kernel's own (a bridge's, IPv6's)
  - to-d: with the byte ixy-fwd changes (apps/fwd.h) plus one, sequence numbers strictly increasing, each one sent
    toward vethB (ixy-fwd drops what it cannot take, in order)
  - ixy: as to-d, and each packet is also in to-d, byte for byte (ixy-pcap loses what its socket cannot take)
Prints the counts; exits 0 if all pass, 1 otherwise; the last line is "N passed, N failed".
"""
import argparse
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vm"))
import check_capture as cc  # noqa: E402  (read_pcap, contract_error, seq_of, check)

FWD_MODIFIED_BYTE = 45  # apps/fwd.h


def ipv4_checksum(header):
    total = sum(struct.unpack("!10H", header))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def template(src_mac, forwarded):
    """ixy-pktgen's packet without its send time and sequence number (apps/common/packet.c), as ixy-fwd forwards it if forwarded."""
    eth = bytes([2, 0, 0, 0, 0, 2]) + src_mac + b"\x08\x00"
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 46, 0, 0, 64, 17, 0, bytes([10, 0, 0, 1]),
                               bytes([10, 0, 0, 2])))
    ip[10:12] = struct.pack("!H", ipv4_checksum(bytes(ip)))
    udp = struct.pack("!HHHH", 42, 1337, 26, 0)
    pkt = bytearray(eth + bytes(ip) + udp + b"ixy" + bytes(cc.PACKET_SIZE - 45))
    if forwarded:
        pkt[FWD_MODIFIED_BYTE] = (pkt[FWD_MODIFIED_BYTE] + 1) % 256
    return cc.without_seq(bytes(pkt))


def check_template(name, packets, expected, what):
    differ = [i for i, p in enumerate(packets) if cc.without_seq(p) != expected]
    detail = ""
    if differ:
        p = cc.without_seq(packets[differ[0]])
        offsets = [o for o in range(len(p)) if o >= len(expected) or p[o] != expected[o]]
        detail = f": packet {differ[0]} differs at byte(s) {offsets[:8]}"
    return cc.check(not differ, f"{name}: every packet is {what}{detail}")


def unforwarded(pkt):
    """The packet as it was before ixy-fwd changed it."""
    if len(pkt) <= FWD_MODIFIED_BYTE:
        return pkt
    return pkt[:FWD_MODIFIED_BYTE] + bytes([(pkt[FWD_MODIFIED_BYTE] - 1) % 256]) + pkt[FWD_MODIFIED_BYTE + 1:]


def check_contained(name, packets, outer_name, outer):
    by_seq = {cc.seq_of(p): p for p in outer}
    missing = [cc.seq_of(p) for p in packets if by_seq.get(cc.seq_of(p)) != p]
    return cc.check(not missing, f"{name}: every packet is one of {outer_name}, byte for byte"
                    + (f" (first one not: seq {missing[0]})" if missing else ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--to-b", required=True)
    parser.add_argument("--to-d", required=True)
    parser.add_argument("--ixy", required=True)
    parser.add_argument("--src-mac", required=True)
    args = parser.parse_args()
    try:
        to_b = cc.read_pcap(args.to_b)
        to_d = cc.read_pcap(args.to_d)
        ixy = cc.read_pcap(args.ixy)
    except (OSError, ValueError) as e:
        cc.check(False, f"reading the pcap files: {e}")
        print(f"{cc.results.count(True)} passed, {cc.results.count(False)} failed")
        return 1
    mac = bytes(int(b, 16) for b in args.src_mac.split(":"))
    print(f"packets: toward vethB (tcpdump on brB) {len(to_b)}, toward vethD (tcpdump on brD) {len(to_d)}, "
          f"ixy-pcap {len(ixy)}")
    if cc.check(len(to_b) > 0, "toward vethB: packets arrived"):
        cc.check_contract("toward vethB", to_b)
        check_template("toward vethB", to_b, template(mac, False), "ixy-pktgen's template from vethA's MAC")
        seqs = [cc.seq_of(p) for p in to_b]
        first = next((i for i, s in enumerate(seqs) if s != i), None)
        cc.check(first is None, f"toward vethB: sequence numbers 0..{len(seqs) - 1} in order, none lost, repeated or "
                 "added" + (f" (packet {first} has seq {seqs[first]})" if first is not None else ""))
    for name, packets in (("toward vethD", to_d), ("ixy-pcap", ixy)):
        if cc.check(len(packets) > 0, f"{name}: packets arrived"):
            cc.check_contract(name, packets)
            check_template(name, packets, template(mac, True), "the template with the forwarder's byte changed")
            cc.check_increasing(name, packets)
    check_contained("toward vethD", [unforwarded(p) for p in to_d], "those toward vethB (before ixy-fwd's change)",
                    to_b)
    check_contained("ixy-pcap", ixy, "those toward vethD", to_d)
    print(f"{cc.results.count(True)} passed, {cc.results.count(False)} failed")
    return 0 if all(cc.results) else 1


if __name__ == "__main__":
    sys.exit(main())
