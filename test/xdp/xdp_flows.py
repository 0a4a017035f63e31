#!/usr/bin/env python3
"""Frames of many flows for the AF_XDP queues test (test_xdp_veth_queues.sh). Python 3, standard library only.

  xdp_flows.py send IFNAME FIRST_FLOW FLOWS FRAMES SECONDS
      sends FRAMES frames on IFNAME through a raw packet socket: flows FIRST_FLOW .. FIRST_FLOW + FLOWS - 1 in turn,
      each flow's frames numbered 0, 1, 2, ...; stops after SECONDS at the latest. Prints "sent=N".
  xdp_flows.py check PCAP FLOWS
      checks the frames of a capture as ixy-fwd forwarded them: each one byte for byte the frame of its flow and
      number with the byte ixy-fwd changes (apps/fwd.h) plus one; no frame twice; each flow's numbers increasing.
      Prints the counts; exits 0 if all hold, 1 otherwise.

A frame of flow f, number n: Ethernet to 02:00:00:00:00:02 (no interface's), IPv4 10.0.0.1 -> 10.0.0.2, UDP from
port 1000 + f to 2000 (the kernel spreads flows over the TX queues, and so over the peer's RX queues, by this
hash), then "ixq" at 42, a byte of its own at 45 (the one ixy-fwd changes), n at 46..49, f at 50, and bytes of its
own up to its length, 64 to 263 bytes, all drawn from (f, n): a frame holding another's bytes, or cut or grown, is
caught.
"""
import errno
import hashlib
import socket
import struct
import sys
import time

# The byte ixy-fwd changes, the IPv4 checksum, and (cc: test/vm/check_capture.py) the pcap reader.
from check_xdp_capture import FWD_MODIFIED_BYTE, cc, ipv4_checksum
ETH_P_ALL = 0x0003


def frame(flow, number):
    """The frame of flow `flow`, number `number`, as sent."""
    seed = hashlib.blake2b(struct.pack("!II", flow, number), digest_size=32).digest()
    length = 64 + seed[0] % 200
    eth = bytes([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1]) + b"\x08\x00"
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, length - 14, number & 0xFFFF, 0, 64, 17, 0,
                               bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])))
    ip[10:12] = struct.pack("!H", ipv4_checksum(bytes(ip)))
    udp = struct.pack("!HHHH", 1000 + flow, 2000, length - 34, 0)
    head = eth + bytes(ip) + udp + b"ixq" + bytes([seed[1]]) + struct.pack("!IB", number, flow)
    filler = (seed * (length // len(seed) + 1))[: length - len(head)]
    return head + filler


def forwarded(pkt):
    """The frame as ixy-fwd forwards it."""
    pkt = bytearray(pkt)
    pkt[FWD_MODIFIED_BYTE] = (pkt[FWD_MODIFIED_BYTE] + 1) % 256
    return bytes(pkt)


def send(ifname, first, flows, frames, seconds):
    # A socket per flow: the kernel picks a packet socket's TX queue by a hash of the socket, not of the flow.
    socks = []
    for _ in range(flows):
        socks.append(socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL)))
        socks[-1].bind((ifname, 0))
    pending = [frame(first + i % flows, i // flows) for i in range(frames)]
    deadline = time.monotonic() + seconds
    sent = 0
    while sent < frames and time.monotonic() < deadline:
        try:
            socks[sent % flows].send(pending[sent])
            sent += 1
        except OSError as e:  # the queue toward the peer is full for a moment: try the same frame again
            if e.errno not in (errno.ENOBUFS, errno.EAGAIN):
                raise
            time.sleep(0.0005)
    print(f"sent={sent}")
    return 0 if sent == frames else 1


def check(path, flows):
    packets = cc.read_pcap(path)
    seen = set()
    last = {}
    wrong = duplicates = reordered = 0
    first_wrong = None
    for i, pkt in enumerate(packets):
        flow = pkt[50] if len(pkt) > 50 else -1
        number = struct.unpack("!I", pkt[46:50])[0] if len(pkt) > 50 else -1
        if not 0 <= flow < flows or pkt != forwarded(frame(flow, number)):
            wrong += 1
            first_wrong = first_wrong if first_wrong is not None else i
            continue
        if (flow, number) in seen:
            duplicates += 1
            continue
        seen.add((flow, number))
        if number <= last.get(flow, -1):
            reordered += 1
        last[flow] = number
    print(f"frames={len(packets)} valid={len(seen)} wrong={wrong} duplicates={duplicates} reordered={reordered} "
          f"flows={len(last)}")
    if first_wrong is not None:
        print(f"first wrong frame: {first_wrong}: {packets[first_wrong][:64].hex()}")
    return 0 if packets and wrong == duplicates == reordered == 0 else 1


def main():
    if len(sys.argv) == 7 and sys.argv[1] == "send":
        return send(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]))
    if len(sys.argv) == 4 and sys.argv[1] == "check":
        return check(sys.argv[2], int(sys.argv[3]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
