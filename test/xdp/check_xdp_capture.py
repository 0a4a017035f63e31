#!/usr/bin/env python3
"""Checks the packets of the AF_XDP veth test (test_xdp_veth.sh). Python 3, standard library only.

  --kernel  what the kernel's stack received on vethD before ixy-pcap took it over, recorded by tcpdump
  --ixy     what ixy-pcap captured on xdp:vethD
  --src-mac vethA's MAC address (ixy-pktgen sends from it)

Every packet of both files must be ixy-pktgen's packet (test/vm/check_capture.py: the contract), byte for byte the
template ixy-pktgen builds from vethA's MAC with the byte ixy-fwd changes (apps/fwd.h) plus one, and a sequence
number. Sequence numbers rise strictly within each file (in order, no duplicates), and every packet of the kernel's
file comes before every packet of ixy-pcap's (ixy-pcap took over in the middle of the stream). Prints the counts;
exits 0 if all pass, 1 otherwise.
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


def template(src_mac):
    """ixy-pktgen's packet with sequence number 0 (apps/common/packet.c), as ixy-fwd forwards it."""
    eth = bytes([2, 0, 0, 0, 0, 2]) + src_mac + b"\x08\x00"
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 46, 0, 0, 64, 17, 0, bytes([10, 0, 0, 1]),
                               bytes([10, 0, 0, 2])))
    ip[10:12] = struct.pack("!H", ipv4_checksum(bytes(ip)))
    udp = struct.pack("!HHHH", 42, 1337, 26, 0)
    pkt = bytearray(eth + bytes(ip) + udp + b"ixy" + bytes(cc.PACKET_SIZE - 45))
    pkt[FWD_MODIFIED_BYTE] = (pkt[FWD_MODIFIED_BYTE] + 1) % 256
    return bytes(pkt[:cc.SEQ_OFFSET])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernel", required=True)
    parser.add_argument("--ixy", required=True)
    parser.add_argument("--src-mac", required=True)
    args = parser.parse_args()
    try:
        kernel = cc.read_pcap(args.kernel)
        ixy = cc.read_pcap(args.ixy)
    except (OSError, ValueError) as e:
        cc.check(False, f"reading the pcap files: {e}")
        return 1
    expected = template(bytes(int(b, 16) for b in args.src_mac.split(":")))
    print(f"packets: kernel (tcpdump on vethD) {len(kernel)}, ixy-pcap {len(ixy)}")
    for name, packets in (("kernel", kernel), ("ixy-pcap", ixy)):
        if cc.check(len(packets) > 0, f"{name}: packets arrived"):
            cc.check_contract(name, packets)
            cc.check_forwarded(name, packets, expected)
            cc.check_increasing(name, packets)
    if kernel and ixy:
        last, first = cc.seq_of(kernel[-1]), cc.seq_of(ixy[0])
        cc.check(last < first, f"the kernel's packets (up to seq {last}) all come before ixy-pcap's (from {first})")
    print(f"{cc.results.count(True)} passed, {cc.results.count(False)} failed")
    return 0 if all(cc.results) else 1


if __name__ == "__main__":
    sys.exit(main())
