#!/usr/bin/env python3
"""The host side of the rss-tap scenario (host-rss-tap.sh), in two commands.

send TAP CONSOLE SENT: run inside the test's network namespace. Waits for QEMU's tap TAP and for the guest's
"IXY-VM: rss ready" line in CONSOLE, brings TAP up and writes the test frames into it (a raw packet socket on the
tap: what the host transmits there, QEMU receives for the NIC): 64 flows (TCP and UDP, different addresses and
ports) of 8 frames each, interleaved, paced. Writes "flow proto src dst sport dport" per flow to SENT.

check SENT RSS_LOG QUEUES: predicts each flow's queue with its own Toeplitz hash (the published key, table entry
i = i % QUEUES, IPv4 + TCP/UDP ports) and compares with the guest's rss_frame lines: every frame once, each flow
on its predicted queue, in order; prints per-queue counts as key=value and exits 1 on any difference.
"""
import os
import socket
import struct
import subprocess
import sys
import time

FLOWS = 64
PER_FLOW = 8
# The published RSS key (Microsoft's "Verifying the RSS Hash Calculation", 82599 datasheet 7.1.2.8.3).
KEY = bytes.fromhex("6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa")
MAC_A = bytes.fromhex("52540012340a")  # run-vm.sh's NIC A


def toeplitz(key, data):
    """Each set input bit XORs in the 32 key bits from its position on: the key read as one big integer."""
    k = int.from_bytes(key, "big")
    key_bits = len(key) * 8
    result = 0
    for i in range(len(data) * 8):
        if data[i // 8] >> (7 - i % 8) & 1:
            shift = key_bits - 32 - i
            window = (k >> shift) & 0xFFFFFFFF if shift >= 0 else (k << -shift) & 0xFFFFFFFF
            result ^= window
    return result


def flow(f):
    proto = 6 if f % 2 == 0 else 17
    src = bytes([10, 1, f // 16, f + 1])
    dst = bytes([172, 16, f % 7, 200 - f])
    return proto, src, dst, 1000 + 97 * f, 2000 + (f * 31) % 500


def checksum(header):
    s = sum(struct.unpack("!10H", header))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def frame(f, seq):
    """Ethernet, IPv4 (20 bytes), then ports, 4 zero bytes and the payload: for TCP the zeros are the sequence
    number, and the payload's "S" (0x53) gives a data offset of 5 words."""
    proto, src, dst, sport, dport = flow(f)
    payload = b"IXYRSS" + struct.pack("!HH", f, seq) + bytes(30)
    l4 = struct.pack("!HH", sport, dport) + bytes(4) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), seq, 0, 64, proto, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    return MAC_A + bytes.fromhex("020000aa0001") + b"\x08\x00" + ip + l4


def send(tap, console, sent):
    deadline = time.time() + 600
    while not os.path.exists(f"/sys/class/net/{tap}") and time.time() < deadline:
        time.sleep(0.2)
    subprocess.run(["ip", "link", "set", "dev", tap, "up"], check=True)
    while time.time() < deadline:
        with open(console, "rb") as c:
            if b"IXY-VM: rss ready" in c.read():
                break
        time.sleep(0.2)
    else:
        sys.exit("host_rss_tap.py: the guest never said rss ready")
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((tap, 0))
    with open(sent, "w") as out:
        for f in range(FLOWS):
            proto, src, dst, sport, dport = flow(f)
            out.write(f"{f} {proto} {socket.inet_ntoa(src)} {socket.inet_ntoa(dst)} {sport} {dport}\n")
    for seq in range(PER_FLOW):
        for f in range(FLOWS):
            s.send(frame(f, seq))
            time.sleep(0.002)
    print(f"host_rss_tap.py: sent {FLOWS * PER_FLOW} frames of {FLOWS} flows into {tap}")


def check(sent, rss_log, queues):
    predicted = {}
    for line in open(sent):
        f, proto, src, dst, sport, dport = line.split()
        data = socket.inet_aton(src) + socket.inet_aton(dst) + struct.pack("!HH", int(sport), int(dport))
        predicted[int(f)] = toeplitz(KEY, data) % 128 % queues  # table entry i = i % queues, index hash & 127
    got = {}
    for line in open(rss_log):
        if line.startswith("rss_frame "):
            kv = dict(item.split("=") for item in line.split()[1:])
            got.setdefault(int(kv["flow"]), []).append((int(kv["queue"]), int(kv["seq"])))
    failures = 0
    per_queue = [0] * queues
    predicted_per_queue = [0] * queues
    for f, q in sorted(predicted.items()):
        predicted_per_queue[q] += PER_FLOW
        frames = got.get(f, [])
        for queue, _ in frames:
            per_queue[queue] += 1
        seqs = [seq for _, seq in frames]
        on = sorted({queue for queue, _ in frames})
        if seqs != list(range(PER_FLOW)) or on != [q]:
            failures += 1
            print(f"flow={f} predicted_queue={q} queues={on} seqs={seqs}")
    for q in range(queues):
        print(f"rss_check queue={q} frames={per_queue[q]} predicted={predicted_per_queue[q]}")
    print(f"rss_check flows={len(predicted)} wrong_flows={failures}")
    return 1 if failures or per_queue != predicted_per_queue else 0


if __name__ == "__main__":
    if sys.argv[1] == "send":
        send(*sys.argv[2:5])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3], int(sys.argv[4])))
