#!/usr/bin/env python3
"""Looks for the confine scenario's secret in the host's record of what NIC A sent (QEMU filter-dump, classic pcap).

vm_confine sends a marker frame ("ixy-confine-before"), a frame whose buffer lies outside ixy's DMA memory (bytes
0x5a, the secret), and a marker frame again ("ixy-confine-after"). Prints "marker frames: before N, after N", what
arrived between the markers ("between the markers: a frame of L bytes, all zeros|secret|other bytes", or "no
frame") and "secret bytes on the wire: N", N counting bytes 0x5a in runs of 8 or more in any frame of the record.
Usage: check_confine.py host-a.pcap
"""
import struct
import sys

SECRET = 0x5A


def frames(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return
    magic = struct.unpack("<I", data[:4])[0]
    endian = "<" if magic == 0xA1B2C3D4 else ">"
    pos = 24
    while pos + 16 <= len(data):
        _, _, caplen, _ = struct.unpack(endian + "IIII", data[pos:pos + 16])
        yield data[pos + 16:pos + 16 + caplen]
        pos += 16 + caplen


def secret_bytes(frame):
    total = run = 0
    for b in frame + b"\0":
        if b == SECRET:
            run += 1
        else:
            total += run if run >= 8 else 0
            run = 0
    return total


def main():
    between = None
    total = before = after = 0
    for frame in frames(sys.argv[1]):
        total += secret_bytes(frame)
        if b"ixy-confine-before" in frame:
            before += 1
            between = []
        elif b"ixy-confine-after" in frame:
            after += 1
            if between is not None:
                for f in between:
                    kind = "all zeros" if not any(f) else "secret" if secret_bytes(f) else "other bytes"
                    print("between the markers: a frame of %d bytes, %s" % (len(f), kind))
                if not between:
                    print("between the markers: no frame")
            between = None
        elif between is not None:
            between.append(frame)
    print("marker frames: before %d, after %d" % (before, after))
    print("secret bytes on the wire: %d" % total)


if __name__ == "__main__":
    main()
