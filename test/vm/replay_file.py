#!/usr/bin/env python3
"""The replay file of the e2e scenarios (issue 30), and the check of what the guest sent from it.

  replay_file.py make FILE           writes FILE: a classic pcap (microseconds, little-endian, LINKTYPE_ETHERNET) of
                                     FRAMES Ethernet frames of varied sizes, 60 to 1514 bytes (both ends included),
                                     each with its own contents (build-guest.sh puts it into the initramfs as
                                     /replay.pcap)
  replay_file.py check FILE RECORD   compares the frames of RECORD (QEMU's filter-dump of what the sending NIC sent)
                                     with those of FILE, sent with --loop: the record must hold the whole file at
                                     least once, frame i of the record equal to frame i mod n of the file (n frames),
                                     the same bytes. Exit 0 if so, 1 with the first difference.

Why --loop (ixy-pktgen --replay --loop --count 3n): ixy-pktgen stops the device right after its last batch, and
frames still in the TX ring then may never leave (seen: 128 of 300 sent once). Up to a TX ring's worth (256
descriptors on QEMU's VirtIO NICs, 512 with ixy's igb driver) may be missing at the end of the record: of 900 frames
at least 388 left, the first pass complete.

Frames are not shorter than 60 bytes: QEMU's igb pads them to 60 on the wire (the 82576 pads short frames, PSP), a
VirtIO NIC does not, and the check must hold for both.
"""

import struct
import sys

FRAMES = 300
MIN_SIZE, MAX_SIZE = 60, 1514


def frame(i):
    """The i-th frame: to ff:ff:ff:ff:ff:ff from 02:00:00:00:00:0d (locally administered), EtherType 0x88b5 (IEEE
    802 local experimental: no stack of the guest answers it), then bytes that depend on i and their offset."""
    if i == 0:
        size = MIN_SIZE
    elif i == 1:
        size = MAX_SIZE
    else:
        size = MIN_SIZE + (i * 617) % (MAX_SIZE - MIN_SIZE + 1)
    head = b"\xff" * 6 + bytes([0x02, 0, 0, 0, 0, 0x0D]) + b"\x88\xb5" + struct.pack(">I", i)
    body = bytes((i * 7 + k * 13) & 0xFF for k in range(size - len(head)))
    return head + body


def make(path):
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i in range(FRAMES):
            data = frame(i)
            out.write(struct.pack("<IIII", 1700000000 + i // 1000, (i % 1000) * 1000, len(data), len(data)))
            out.write(data)


def read(path):
    """The frames of a classic pcap file, either byte order, either time unit."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise ValueError(f"{path}: {len(data)} bytes, no pcap header")
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        order = "<"
    elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
        order = ">"
    else:
        raise ValueError(f"{path}: magic {magic:#x} is not a pcap file's")
    frames, offset = [], 24
    while offset + 16 <= len(data):
        _, _, caplen, length = struct.unpack(order + "IIII", data[offset : offset + 16])
        offset += 16
        if caplen != length or offset + caplen > len(data):
            raise ValueError(f"{path}: record {len(frames)} cut ({caplen} of {length} bytes)")
        frames.append(data[offset : offset + caplen])
        offset += caplen
    return frames


def check(path, record):
    want, got = read(path), read(record)
    print(f"file {len(want)} frames, record {len(got)} frames")
    for i, g in enumerate(got):
        w = want[i % len(want)]
        if w != g:
            first = next((k for k in range(min(len(w), len(g))) if w[k] != g[k]), min(len(w), len(g)))
            print(
                f"record frame {i} (file frame {i % len(want)}) differs: file {len(w)} bytes, record {len(g)} bytes,"
                f" first difference at byte {first}"
            )
            return 1
    if len(got) < len(want):
        print(f"the record has {len(got)} frames, fewer than the file's {len(want)}")
        return 1
    print(
        f"equal: {len(got)} frames, {len(got) / len(want):.2f} passes of the file's {len(want)} frames of"
        f" {min(map(len, want))} to {max(map(len, want))} bytes, byte for byte"
    )
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "make":
        make(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
