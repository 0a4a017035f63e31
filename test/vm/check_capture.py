#!/usr/bin/env python3
"""Checks the packets of the VM end-to-end test (test/vm/run-vm.sh). Python 3, standard library only.

Three classic pcap files:
  --host-a   what NIC A (ixy-pktgen) sent, recorded by QEMU's filter-dump on the host
  --host-c   what NIC C (ixy-fwd) sent, recorded by QEMU's filter-dump on the host
  --host-d   what reached NIC D (from ixy-fwd via NIC C), recorded by QEMU's filter-dump on the host
  --guest    what ixy-pcap captured on NIC D inside the guest

Checks, each printed as PASS or FAIL:
  - every packet follows the ixy-pktgen contract: 60 bytes, Ethernet + IPv4 (correct header checksum) + UDP of
    length 26, payload starting with "ixy", 32-bit little-endian sequence number in the last 4 bytes, the send time
    in the 8 before them
  - host-a: sequence numbers 0, 1, 2, ... without gaps, every packet the template (the first one) but for the
    send time and sequence number, source MAC = NIC A's MAC
  - host-c, host-d and guest: byte-exact equal to the template except send time, sequence number and the byte ixy-fwd
    changes (it adds 1, apps/fwd.h), sequence numbers strictly increasing (no duplicates, no reordering)
  - guest: exactly --packets packets, each of them also in host-d with the same bytes (the guest cannot fake them)
  - host-c: every packet was sent by ixy-pktgen; host-d: every packet was sent by ixy-fwd
  - with --pktgen-sent / --fwd-forwarded (the totals the apps print): the host saw NIC A and NIC C send what the
    apps counted as queued for sending, less at most --ring-slack packets still in the TX ring when the app closed
    the device
  - with --nic-a-tx / --nic-b-rx / --nic-c-tx / --nic-d-rx (the totals of the NIC's own statistics registers, which
    the apps print; given for NICs that have them, e.g. igb): NIC A's and NIC C's transmit counters equal what the
    host saw them send, 64 bytes per frame (60 + CRC); NIC B received at least what ixy-fwd forwarded and at most
    what NIC A sent; NIC D received at least what ixy-pcap captured and at most what the host passed to it
Exits 0 if all pass, 1 otherwise; the last line is "N passed, N failed".
"""
import argparse
import struct
import sys

PACKET_SIZE = 60
SEQ_OFFSET = PACKET_SIZE - 4
TIME_OFFSET = PACKET_SIZE - 12  # ixy-pktgen's send time (issue 30, apps/common/packet.h), before the sequence number
LINKTYPE_ETHERNET = 1

results = []


def check(ok, what):
    results.append(bool(ok))
    print(("PASS  " if ok else "FAIL  ") + what)
    return ok


def read_pcap(path):
    """Returns the list of packets (bytes) of a classic pcap file, either byte order."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise ValueError(f"{path}: {len(data)} bytes, too short for a pcap header")
    magic = data[:4]
    if magic == b"\xd4\xc3\xb2\xa1":
        order = "<"
    elif magic == b"\xa1\xb2\xc3\xd4":
        order = ">"
    else:
        raise ValueError(f"{path}: not a classic pcap file (magic {magic.hex()})")
    _, _, _, _, _, linktype = struct.unpack(order + "HHiIII", data[4:24])
    if linktype != LINKTYPE_ETHERNET:
        raise ValueError(f"{path}: link type {linktype}, expected 1 (Ethernet)")
    packets = []
    pos = 24
    while pos + 16 <= len(data):
        _, _, caplen, origlen = struct.unpack(order + "IIII", data[pos:pos + 16])
        pos += 16
        if caplen != origlen or pos + caplen > len(data):
            raise ValueError(f"{path}: packet {len(packets)} truncated ({caplen} of {origlen} bytes)")
        packets.append(data[pos:pos + caplen])
        pos += caplen
    if pos != len(data):
        raise ValueError(f"{path}: {len(data) - pos} stray bytes at the end")
    return packets


def ipv4_checksum_ok(header):
    total = sum(struct.unpack("!10H", header))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total == 0xFFFF


def contract_error(pkt):
    """Why pkt breaks the ixy-pktgen packet contract, or None."""
    if len(pkt) != PACKET_SIZE:
        return f"{len(pkt)} bytes instead of {PACKET_SIZE}"
    if pkt[12:14] != b"\x08\x00":
        return "EtherType is not IPv4"
    ip = pkt[14:34]
    if ip[0] != 0x45 or ip[9] != 17:
        return "not an IPv4 header of 20 bytes carrying UDP"
    if struct.unpack("!H", ip[2:4])[0] != PACKET_SIZE - 14:
        return "IPv4 total length is not 46"
    if not ipv4_checksum_ok(ip):
        return "wrong IPv4 header checksum"
    if struct.unpack("!H", pkt[38:40])[0] != 26:
        return "UDP length is not 26"
    if pkt[42:45] != b"ixy":
        return "payload does not start with 'ixy'"
    return None


def seq_of(pkt):
    return struct.unpack("<I", pkt[SEQ_OFFSET:])[0]


def without_seq(pkt):
    """The packet without its send time and sequence number (its last 12 bytes)."""
    return pkt[:TIME_OFFSET]


def check_contract(name, packets):
    errors = [(i, contract_error(p)) for i, p in enumerate(packets) if contract_error(p)]
    detail = f": packet {errors[0][0]}: {errors[0][1]}" if errors else ""
    return check(not errors, f"{name}: all {len(packets)} packets follow the packet contract{detail}")


def check_increasing(name, packets):
    seqs = [seq_of(p) for p in packets]
    bad = [i for i in range(1, len(seqs)) if seqs[i] <= seqs[i - 1]]
    detail = f": seq {seqs[bad[0]]} after {seqs[bad[0] - 1]}" if bad else ""
    return check(not bad, f"{name}: sequence numbers strictly increasing (no duplicates){detail}")


def check_forwarded(name, packets, expected_head):
    differ = [i for i, p in enumerate(packets) if without_seq(p) != expected_head]
    detail = ""
    if differ:
        p = without_seq(packets[differ[0]])
        offsets = [o for o in range(len(p)) if p[o] != expected_head[o]]
        detail = f": packet {differ[0]} differs at byte(s) {offsets[:8]}"
    return check(not differ, f"{name}: every packet is the template with the forwarder's byte changed{detail}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host-a", required=True)
    parser.add_argument("--host-c", required=True)
    parser.add_argument("--host-d", required=True)
    parser.add_argument("--guest", required=True)
    parser.add_argument("--packets", type=int, required=True, help="packets ixy-pcap was told to capture")
    parser.add_argument("--modified-byte", type=int, required=True, help="FWD_MODIFIED_BYTE of apps/fwd.h")
    parser.add_argument("--src-mac", required=True, help="NIC A's MAC address, aa:bb:cc:dd:ee:ff")
    parser.add_argument("--pktgen-sent", type=int, help="packets ixy-pktgen says it sent")
    parser.add_argument("--fwd-forwarded", type=int, help="packets ixy-fwd says it forwarded from B to C")
    parser.add_argument("--nic-a-tx", type=int, nargs=2, metavar=("PKTS", "BYTES"), help="NIC A's TX counters")
    parser.add_argument("--nic-b-rx", type=int, help="NIC B's RX packet counter")
    parser.add_argument("--nic-c-tx", type=int, nargs=2, metavar=("PKTS", "BYTES"), help="NIC C's TX counters")
    parser.add_argument("--nic-d-rx", type=int, help="NIC D's RX packet counter")
    parser.add_argument("--ring-slack", type=int, default=256, help="TX descriptors per queue")
    args = parser.parse_args()

    try:
        host_a = read_pcap(args.host_a)
        host_c = read_pcap(args.host_c)
        host_d = read_pcap(args.host_d)
        guest = read_pcap(args.guest)
    except (OSError, ValueError) as e:
        check(False, f"reading the pcap files: {e}")
        print(f"{results.count(True)} passed, {results.count(False)} failed")
        return 1
    print(f"packets: sent by ixy-pktgen (host view of NIC A) {len(host_a)}, sent by ixy-fwd (host view of NIC C) "
          f"{len(host_c)}, arrived at NIC D (host view) {len(host_d)}, captured by ixy-pcap {len(guest)}")

    # What the generator sent.
    if check(len(host_a) > 0, "host-a: ixy-pktgen sent packets"):
        check_contract("host-a", host_a)
        seqs = [seq_of(p) for p in host_a]
        check(seqs == list(range(len(seqs))),
              f"host-a: sequence numbers 0..{len(seqs) - 1} in order, none lost or repeated by the TX path")
        template = without_seq(host_a[0])
        check(all(without_seq(p) == template for p in host_a), "host-a: all packets equal the template but for seq")
        mac = bytes(int(b, 16) for b in args.src_mac.split(":"))
        check(template[6:12] == mac, f"host-a: source MAC is NIC A's {args.src_mac} (read by get_mac_addr)")
    else:
        template = None

    # What the forwarder delivered, seen by the host and by the guest.
    if template is not None and 0 <= args.modified_byte < TIME_OFFSET:
        expected = bytearray(template)
        expected[args.modified_byte] = (expected[args.modified_byte] + 1) % 256
        expected = bytes(expected)
        for name, packets in (("host-c", host_c), ("host-d", host_d), ("guest", guest)):
            if check(len(packets) > 0, f"{name}: packets arrived"):
                check_contract(name, packets)
                check_forwarded(name, packets, expected)
                check_increasing(name, packets)
    else:
        check(False, f"modified byte {args.modified_byte} is a usable offset and a template exists")

    check(len(guest) == args.packets, f"guest: ixy-pcap captured exactly {args.packets} packets ({len(guest)})")
    by_seq = {seq_of(p): p for p in host_d}
    missing = [seq_of(p) for p in guest if by_seq.get(seq_of(p)) != p]
    check(not missing, "guest: every captured packet is in the host's record of NIC D, byte for byte"
          + (f" (first missing seq {missing[0]})" if missing else ""))
    sent = {seq_of(p) for p in host_a}
    check(all(seq_of(p) in sent for p in host_c), "host-c: every packet ixy-fwd sent was sent by ixy-pktgen")
    forwarded = {seq_of(p) for p in host_c}
    check(all(seq_of(p) in forwarded for p in host_d), "host-d: every packet at NIC D was sent by ixy-fwd")
    for app, claimed, seen, where in (("ixy-pktgen", args.pktgen_sent, len(host_a), "sent by NIC A"),
                                      ("ixy-fwd", args.fwd_forwarded, len(host_c), "sent by NIC C")):
        if claimed is not None:
            check(claimed - args.ring_slack <= seen <= claimed,
                  f"{app} counted {claimed} packets as queued, the host saw {seen} {where} "
                  f"(at most {args.ring_slack} fewer: those still in the TX ring at close)")
    for nic, counted, seen in (("A", args.nic_a_tx, len(host_a)), ("C", args.nic_c_tx, len(host_c))):
        if counted is not None:
            check(counted == [seen, seen * (PACKET_SIZE + 4)],
                  f"NIC {nic}'s statistics registers: sent {counted[0]} packets, {counted[1]} bytes; the host saw "
                  f"{seen} packets, {seen * (PACKET_SIZE + 4)} bytes with CRC")
    if args.nic_b_rx is not None:
        check(args.fwd_forwarded is not None and args.fwd_forwarded <= args.nic_b_rx <= len(host_a),
              f"NIC B's statistics registers: received {args.nic_b_rx} packets, between what ixy-fwd forwarded "
              f"({args.fwd_forwarded}) and what NIC A sent ({len(host_a)})")
    if args.nic_d_rx is not None:
        check(len(guest) <= args.nic_d_rx <= len(host_d),
              f"NIC D's statistics registers: received {args.nic_d_rx} packets, between what ixy-pcap captured "
              f"({len(guest)}) and what the host passed to NIC D ({len(host_d)})")
    if guest:
        first, last = seq_of(guest[0]), seq_of(guest[-1])
        print(f"captured sequence numbers {first}..{last}: {len(guest)} of {last - first + 1} "
              f"({100.0 * len(guest) / (last - first + 1):.1f}%); the rest were lost on the way "
              "(ixy-fwd counts those it dropped because NIC C's TX queue was full)")

    print(f"{results.count(True)} passed, {results.count(False)} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
