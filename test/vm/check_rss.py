#!/usr/bin/env python3
"""The host's side of the rss scenario (test/vm/host-rss.sh): sends the frames, predicts their queues, checks.

  check_rss.py send CONSOLE_LOG LOCAL_PORT QEMU_PORT DST_MAC EXPECTED_JSON TIMEOUT_S
      waits until the guest's console (CONSOLE_LOG, written while QEMU runs) shows "IXY-VM: rss receiving", then
      sends every frame as one UDP datagram from 127.0.0.1:LOCAL_PORT to QEMU's socket netdev at
      127.0.0.1:QEMU_PORT, and writes what it sent, with each frame's predicted queue, to EXPECTED_JSON.
  check_rss.py check EXPECTED_JSON GUEST_LOG [NIC_PCAP]
      compares vm_rss's lines (GUEST_LOG) with the prediction; prints one "PASS what" or "FAIL what" line per check
      and "rss predicted queue=Q packets=N" / "rss flows queue=Q flows=N" lines.

The prediction is this file's own Toeplitz hash (Microsoft's "RSS hashing functions"; 82576 datasheet 7.1), not
ixy's src/rss.c, and it checks itself against the published verification suite first. ixy's default: the published
key, table entry i = i % queues, hash types IPv4, TCP/IPv4 and UDP/IPv4; a frame that is not IPv4 goes to queue 0.
"""
import json
import re
import socket
import struct
import sys
import time

QUEUES = 4
# The key of Microsoft's RSS specification and the Intel datasheets (ixy's default).
KEY = bytes.fromhex(
    "6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa")
TAG = b"IXYR"


def toeplitz(data, key=KEY):
    """The 32 bit Toeplitz hash: for each set bit of the input (most significant bit of byte 0 first), XOR in the
    32 bits of the key that start at that bit's position."""
    key_bits = int.from_bytes(key, "big")
    key_len = len(key) * 8
    result = 0
    for i in range(len(data) * 8):
        if data[i // 8] & (0x80 >> (i % 8)):
            result ^= (key_bits >> (key_len - 32 - i)) & 0xFFFFFFFF
    return result


def self_test():
    """Rows of the published verification suite (IPv4 and IPv4 with TCP): source, destination, expected hashes."""
    rows = [
        ("66.9.149.187", 2794, "161.142.100.80", 1766, 0x323E8FC2, 0x51CCC178),
        ("199.92.111.2", 14230, "65.69.140.83", 4739, 0xD718262A, 0xC626B0EA),
        ("24.19.198.95", 12898, "12.22.207.184", 38024, 0xD2D0A5DE, 0x5C2B394A),
        ("38.27.205.30", 48228, "209.142.163.6", 2217, 0x82989176, 0xAFC7327F),
        ("153.39.163.191", 44251, "202.188.127.2", 1303, 0x5D1809C5, 0x10E828A2),
    ]
    for src, sport, dst, dport, ipv4, tcp in rows:
        addrs = socket.inet_aton(src) + socket.inet_aton(dst)
        if toeplitz(addrs) != ipv4 or toeplitz(addrs + struct.pack("!HH", sport, dport)) != tcp:
            return False
    return True


def ipv4_checksum(header):
    total = sum(struct.unpack("!10H", header))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def flows():
    """The flows: (name, kind, source address, destination address, protocol, source port, destination port, frames).
    64 UDP flows differing in the source port, 16 TCP flows, 4 ICMP flows (hashed by their addresses only) and one
    ARP frame (not IPv4: queue 0)."""
    result = []
    for i in range(64):
        result.append(("udp%d" % i, "udp", "10.0.0.1", "10.0.0.2", 17, 10000 + i, 4791, 4))
    for i in range(16):
        result.append(("tcp%d" % i, "tcp", "10.0.1.1", "10.0.1.2", 6, 20000 + i, 80, 4))
    for i in range(4):
        result.append(("icmp%d" % i, "icmp", "10.0.2.%d" % (i + 1), "10.0.2.100", 1, 0, 0, 2))
    result.append(("arp", "arp", "10.0.3.1", "10.0.3.2", 0, 0, 0, 1))
    return result


def predict(kind, src, dst, sport, dport):
    """The queue ixy's default RSS puts a frame on, and its hash (None: not hashed)."""
    if kind == "arp":
        return 0, None
    data = socket.inet_aton(src) + socket.inet_aton(dst)
    if kind in ("udp", "tcp"):
        data += struct.pack("!HH", sport, dport)
    h = toeplitz(data)
    table = [i % QUEUES for i in range(128)]
    return table[h & 127], h


def build_frame(dst_mac, kind, src, dst, proto, sport, dport, seq):
    """An Ethernet frame of the flow whose last 8 bytes are the tag: "IXYR" and seq (32 bits, big-endian)."""
    eth = dst_mac + bytes.fromhex("525400aa0001")
    tag = TAG + struct.pack("!I", seq)
    if kind == "arp":
        arp = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, bytes.fromhex("525400aa0001"),
                          socket.inet_aton(src), bytes(6), socket.inet_aton(dst))
        return eth + b"\x08\x06" + arp + bytes(18) + tag
    payload = bytes(24) + tag
    if kind == "udp":
        l4 = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    elif kind == "tcp":
        l4 = struct.pack("!HHIIBBHHH", sport, dport, seq, 0, 5 << 4, 0x18, 65535, 0, 0) + payload
    else:  # ICMP echo request
        l4 = struct.pack("!BBHHH", 8, 0, 0, 1, seq & 0xFFFF) + payload
    header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), seq & 0xFFFF, 0, 64, proto, 0,
                         socket.inet_aton(src), socket.inet_aton(dst))
    header = header[:10] + struct.pack("!H", ipv4_checksum(header)) + header[12:]
    return eth + b"\x08\x00" + header + l4


def send(console_log, local_port, qemu_port, dst_mac, expected_json, timeout_s):
    deadline = time.time() + float(timeout_s)
    while time.time() < deadline:
        try:
            with open(console_log, "rb") as f:
                if b"IXY-VM: rss receiving" in f.read():
                    break
        except OSError:
            pass
        time.sleep(0.1)
    else:
        print("check_rss: the guest never said 'rss receiving'", file=sys.stderr)
        return 1
    mac = bytes.fromhex(dst_mac.replace(":", ""))
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", int(local_port)))
    frames = []
    all_flows = flows()
    # Round-robin over the flows: frame r of every flow, then frame r + 1, so that flows interleave.
    for r in range(max(f[7] for f in all_flows)):
        for name, kind, src, dst, proto, sport, dport, count in all_flows:
            if r >= count:
                continue
            seq = len(frames)
            queue, h = predict(kind, src, dst, sport, dport)
            frames.append({"seq": seq, "flow": name, "kind": kind, "queue": queue, "hash": h})
            sock.sendto(build_frame(mac, kind, src, dst, proto, sport, dport, seq), ("127.0.0.1", int(qemu_port)))
            if seq % 16 == 15:
                time.sleep(0.005)  # QEMU reads the socket between guest instructions: no burst for the buffer
    with open(expected_json, "w") as f:
        json.dump({"queues": QUEUES, "frames": frames}, f)
    print("check_rss: sent %d frames of %d flows" % (len(frames), len(all_flows)))
    return 0


def pcap_frames(path):
    """The frames of a pcap file (QEMU's filter-dump)."""
    data = open(path, "rb").read()
    pos, out = 24, []
    while pos + 16 <= len(data):
        caplen = struct.unpack("<I", data[pos + 8:pos + 12])[0]
        out.append(data[pos + 16:pos + 16 + caplen])
        pos += 16 + caplen
    return out


def check(expected_json, guest_log, nic_pcap=None):
    results = []

    def expect(what, ok):
        results.append(ok)
        print("%s %s" % ("PASS" if ok else "FAIL", what))

    expect("the host's Toeplitz hash gives the 10 hashes of the published verification suite", self_test())
    expected = json.load(open(expected_json))
    frames = expected["frames"]
    queues = expected["queues"]
    by_seq = {f["seq"]: f for f in frames}
    if nic_pcap:
        seen = set()
        for frame in pcap_frames(nic_pcap):
            if len(frame) >= 8 and frame[-8:-4] == TAG:
                seen.add(struct.unpack("!I", frame[-4:])[0])
        expect("QEMU passed all %d frames the host sent to the NIC (filter-dump: %d)" % (len(frames), len(seen)),
               seen == set(by_seq))
    received = []  # (queue, seq) in the order each queue delivered them
    per_queue_line = {}
    total_line = None
    malformed = 0
    for line in open(guest_log, errors="replace"):
        frame = re.fullmatch(r"rss frame queue=(\d+) seq=(-?\d+) len=(\d+)\n?", line)
        queue = re.fullmatch(r"rss queue=(\d+) packets=(\d+)\n?", line)
        total = re.fullmatch(r"rss total packets=(\d+) untagged=(\d+)\n?", line)
        if frame:
            received.append((int(frame.group(1)), int(frame.group(2))))
        elif queue:
            per_queue_line[int(queue.group(1))] = int(queue.group(2))
        elif total:
            total_line = (int(total.group(1)), int(total.group(2)))
        elif line.startswith("rss ") and not line.startswith("rss ready "):
            malformed += 1
    expect("every line of vm_rss is one the check knows (%d others)" % malformed, malformed == 0)
    predicted = [sum(1 for f in frames if f["queue"] == q) for q in range(queues)]
    got = [sum(1 for q2, _ in received if q2 == q) for q in range(queues)]
    for q in range(queues):
        print("rss predicted queue=%d packets=%d received=%d reported=%s" %
              (q, predicted[q], got[q], per_queue_line.get(q, "none")))
    flows_per_queue = [len({f["flow"] for f in frames if f["queue"] == q}) for q in range(queues)]
    for q in range(queues):
        print("rss flows queue=%d flows=%d" % (q, flows_per_queue[q]))
    expect("vm_rss printed its totals: %s packets, %s untagged (expected %d, 0)" %
           (total_line[0] if total_line else "no", total_line[1] if total_line else "no", len(frames)),
           total_line == (len(frames), 0))
    seqs = [s for _, s in received]
    missing = sorted(set(by_seq) - set(seqs))
    duplicates = sorted({s for s in seqs if seqs.count(s) > 1})
    strays = sorted({s for s in seqs if s not in by_seq})
    expect("every frame arrived exactly once (missing %d %s, duplicated %d %s, unknown %d)" %
           (len(missing), missing[:8], len(duplicates), duplicates[:8], len(strays)),
           not missing and not duplicates and not strays)
    wrong = [(s, q, by_seq[s]["queue"], by_seq[s]["flow"]) for q, s in received if s in by_seq and
             by_seq[s]["queue"] != q]
    expect("every frame on the queue the host's hash predicts (%d elsewhere; first: %s)" %
           (len(wrong), ["seq %d (%s) on %d, predicted %d" % (s, fl, q, p) for s, q, p, fl in wrong[:4]]),
           not wrong and len(received) > 0)
    expect("per-queue counts %s equal the prediction %s" % (got, predicted), got == predicted)
    expect("vm_rss's per-queue totals %s equal the prediction" %
           [per_queue_line.get(q) for q in range(queues)],
           [per_queue_line.get(q) for q in range(queues)] == predicted)
    flow_queues, flow_order_ok = {}, True
    last_seq = {}
    for q, s in received:
        if s not in by_seq:
            continue
        flow = by_seq[s]["flow"]
        flow_queues.setdefault(flow, set()).add(q)
        flow_order_ok &= last_seq.get(flow, -1) < s
        last_seq[flow] = s
    split = sorted(fl for fl, qs in flow_queues.items() if len(qs) > 1)
    expect("each flow stayed on one queue (%d flows on more than one: %s)" % (len(split), split[:6]),
           not split and len(flow_queues) > 0)
    expect("each flow's frames arrived in the order sent", flow_order_ok)
    expect("RSS spread the flows: every one of the %d queues has frames (%s)" % (queues, got),
           all(n > 0 for n in got))
    return 0 if all(results) else 1


if __name__ == "__main__":
    if len(sys.argv) == 8 and sys.argv[1] == "send":
        sys.exit(send(*sys.argv[2:]))
    if len(sys.argv) in (4, 5) and sys.argv[1] == "check":
        sys.exit(check(*sys.argv[2:]))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
