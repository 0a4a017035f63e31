#!/usr/bin/env python3
"""The host's check of the fwd-rss scenario (test/vm/host-fwd-rss.sh): ixy-pktgen --flows on A, ixy-fwd --queues N
between B and C, ixy-pcap --queues on D, against QEMU's records of the wire. Python 3, standard library only.

Records (QEMU's filter-dump, on the host): --host-a what A sent, --host-b what reached B, --host-c what C sent,
--host-d what reached D; --guest ixy-pcap's capture; the apps' logs for their totals and queue lines. Flows:
ixy-pktgen's flow f has UDP source port base + (step * f mod mod) (--flow-port-base, --flow-port-step,
--flow-port-mod: test/vm/vm_constants prints apps/common/packet.h's numbers). --udp-rcvbuf-errors and
--udp-in-errors (igb, socket pairs): how much the UDP counters RcvbufErrors and InErrors of the network namespace
QEMU ran in grew during the run, which must be exactly the frames lost between A and B and between C and D.

Prints one "PASS what" or "FAIL what" line per check, and key=value lines:
  predicted pci=<B> queue=<i> frames=<n> reported=<n> flows=<n>
  accounting sent=... a=... lost_a_b=... b=... b_rx_dropped=... rx=... tx_full=... forwarded=... c=... d=...
Exits 0 if every check passed, else 1.

Per-queue prediction: each frame that reached B, hashed by this check's Toeplitz hash (check_rss.py's, tested against
the published verification suite; not ixy's src/rss.c) over IPv4 source and destination address and UDP source and
destination port, read from the frame itself, with ixy's default key and table (ixy_rss_default: entry i = i % N,
indexed by the hash's low 7 bits).
"""
import argparse
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_capture import contract_error, read_pcap  # noqa: E402
from check_rss import self_test, toeplitz  # noqa: E402

RETA_ENTRIES = 128
PORT_FLOW = {}  # UDP source port -> ixy-pktgen's flow (main fills it from --flow-port-*)
TX_RING = 512  # IXY_DEFAULT_RING_SIZE: what may stay in pktgen's TX ring when it stops

results = []


def expect(ok, what):
    results.append(bool(ok))
    print(("PASS " if ok else "FAIL ") + what)
    return ok


def seq(frame):
    return struct.unpack("<I", frame[-4:])[0]


def flow(frame):
    """The frame's flow; a port that is no flow's gives minus the port."""
    port = struct.unpack("!H", frame[34:36])[0]
    return PORT_FLOW.get(port, -port)


def hash_input(frame):
    return frame[26:34] + frame[34:38]  # IPv4 source, destination; UDP source, destination port


def queue_of(frame, queues, cache={}):
    key = (hash_input(frame), queues)
    if key not in cache:
        cache[key] = (toeplitz(hash_input(frame)) % RETA_ENTRIES) % queues
    return cache[key]


def lines(path, first):
    """The key=value lines of an app's log that start with the word first: a list of dicts."""
    out = []
    try:
        text = open(path, errors="replace").read()
    except OSError:
        return out
    for line in text.splitlines():
        words = line.split()
        if words and words[0] == first:
            out.append(dict(w.split("=", 1) for w in words[1:] if "=" in w))
    return out


def value(rows, key, **match):
    """The number key has on the one row that matches; None if not exactly one row or no number."""
    hits = [r for r in rows if all(r.get(k) == v for k, v in match.items())]
    if len(hits) != 1 or not re.fullmatch(r"\d+", hits[0].get(key, "")):
        return None
    return int(hits[0][key])


def per_flow(frames):
    got = {}
    for f in frames:
        got.setdefault(flow(f), []).append(seq(f))
    return got


def in_order_once(name, frames):
    """Each flow's sequence numbers strictly increase: no duplicate, no reordering."""
    bad = [(f, s) for f, s in per_flow(frames).items() if any(b <= a for a, b in zip(s, s[1:]))]
    return expect(not bad, "%s: each flow's sequence numbers strictly increase (no duplicate, none reordered; "
                  "%d flows not: %s)" % (name, len(bad), [f for f, _ in bad[:6]]))


def subsequence(small, big):
    """Whether small is big with some frames left out, order kept."""
    it = iter(big)
    return all(any(x == y for y in it) for x in small)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in ("host-a", "host-b", "host-c", "host-d", "guest", "fwd-log", "pktgen-log", "pcap-log",
                 "nic-a", "nic-b", "nic-c", "nic-d"):
        p.add_argument("--" + name, required=True)
    for name in ("queues", "flows", "packets", "modified-byte", "flow-port-base", "flow-port-step", "flow-port-mod"):
        p.add_argument("--" + name, type=int, required=True)
    p.add_argument("--pcap-queues", type=int, default=4)
    p.add_argument("--udp-rcvbuf-errors", type=int, help="the namespace's UDP RcvbufErrors grew by this much")
    p.add_argument("--udp-in-errors", type=int, help="the namespace's UDP InErrors grew by this much")
    p.add_argument("--virtio", action="store_true", help="VirtIO NICs: their counters are the driver's")
    p.add_argument("--drain", action="store_true", help="ixy-pktgen stopped first and everything passed: nothing may "
                   "be lost between A and B or C and D, ixy-pcap captured all that reached D (--packets is ignored)")
    args = p.parse_args()
    q_n = args.queues
    ports = [args.flow_port_base + args.flow_port_step * f % args.flow_port_mod for f in range(args.flows)]
    PORT_FLOW.update((port, f) for f, port in enumerate(ports))

    expect(self_test(), "the host's Toeplitz hash gives the 10 hashes of the published verification suite")
    rec = {}
    for name in ("host-a", "host-b", "host-c", "host-d", "guest"):
        try:
            rec[name] = read_pcap(getattr(args, name.replace("-", "_")))
        except (OSError, ValueError) as e:
            expect(False, "%s: readable pcap file (%s)" % (name, e))
            rec[name] = []
    a, b, c, d, cap = rec["host-a"], rec["host-b"], rec["host-c"], rec["host-d"], rec["guest"]
    fwd = lines(args.fwd_log, "queue") + lines(args.fwd_log, "totals")
    fwd_q = [r for r in fwd if "queue" in r]
    fwd_t = [r for r in fwd if "queue" not in r]
    pktgen_t = lines(args.pktgen_log, "totals")
    pcap_q = lines(args.pcap_log, "queue")
    pcap_t = lines(args.pcap_log, "totals")

    # A: what ixy-pktgen sent, as the host saw it.
    bad = [(i, contract_error(f)) for i, f in enumerate(a) if contract_error(f)]
    expect(a and not bad, "A sent %d frames, all following the packet contract%s" %
           (len(a), ": frame %d: %s" % bad[0] if bad else ""))
    flows_a = per_flow(a)
    expect(len(set(ports)) == args.flows and sorted(flows_a) == list(range(args.flows)),
           "A's frames are of %d flows, UDP source ports %d + (%d f mod %d) for flow f: %s (got %d flows)" %
           (args.flows, args.flow_port_base, args.flow_port_step, args.flow_port_mod,
            ", ".join(map(str, ports[:3] + ["..."] + ports[-1:])), len(flows_a)))
    gaps = [f for f, s in flows_a.items() if s != list(range(len(s)))]
    expect(not gaps, "A: each flow's sequence numbers are 0, 1, 2, ... without gap, in order (%d flows not: %s)" %
           (len(gaps), gaps[:6]))
    turns = [flow(f) for f in a[:3 * args.flows]] == [i % args.flows for i in range(min(len(a), 3 * args.flows))]
    expect(turns, "A: the flows take turns (frame n of flow n mod %d)" % args.flows)
    sent = value(pktgen_t, "sent", pci=args.nic_a)
    a_tx = value(pktgen_t, "tx_packets", pci=args.nic_a)
    expect(sent is not None and 0 <= sent - len(a) <= TX_RING,
           "ixy-pktgen's sent=%s: the %d frames the host saw A send and at most %d left in its TX ring" %
           (sent, len(a), TX_RING))
    if args.virtio:  # the driver's count of what the device returned, and it stopped with some not yet returned
        expect(a_tx is not None and 0 <= len(a) - a_tx <= TX_RING, "A's TX count (tx_packets=%s, what the device gave "
               "back) is the %d frames the host saw, less at most %d not yet given back" % (a_tx, len(a), TX_RING))
    else:
        expect(a_tx == len(a), "A's own TX counter (tx_packets=%s) equals the %d frames the host saw" %
               (a_tx, len(a)))

    # A -> B: the socket pair keeps the order; a frame the host's socket buffer could not hold is lost there (the
    # namespace's UDP RcvbufErrors count it: checked with C -> D below).
    expect(subsequence(b, a), "the frames that reached B are A's, in A's order (%d of %d)" % (len(b), len(a)))
    lost_a_b = len(a) - len(b)
    if args.drain:
        expect(lost_a_b == 0, "every frame A sent reached B (%d lost)" % lost_a_b)

    # B: the prediction of each RX queue's frames, against ixy-fwd's queue lines of B.
    predicted = [0] * q_n
    flows_q = [set() for _ in range(q_n)]
    for f in b:
        predicted[queue_of(f, q_n)] += 1
        flows_q[queue_of(f, q_n)].add(flow(f))
    reported = [value(fwd_q, "rx_packets", pci=args.nic_b, queue=str(i)) for i in range(q_n)]
    for i in range(q_n):
        print("predicted pci=%s queue=%d frames=%d reported=%s flows=%d" %
              (args.nic_b, i, predicted[i], reported[i], len(flows_q[i])))
    expect(value(fwd_q, "rx_packets", pci=args.nic_b, queue=str(q_n)) is None,
           "ixy-fwd printed no queue line for a queue %d of B (it has %d)" % (q_n, q_n))
    # A precondition of the comparison, from the host's records alone (not a finding about ixy): the traffic gives
    # every queue frames, and no two queues the same number, so that a driver that steers one queue's flows to
    # another (e.g. a table with q and q ^ 1 swapped) changes the counts ixy-fwd reports.
    expect(all(predicted) and len(set(predicted)) == q_n,
           "precondition: the host's prediction gives each of B's %d queues frames, no two the same number %s, so "
           "that the comparison sees queues swapped" % (q_n, predicted))
    expect(reported == predicted, "ixy-fwd's per-queue rx_packets of B %s equal the host's prediction %s" %
           (reported, predicted))
    fwd_c = [value(fwd_q, "rx_packets", pci=args.nic_c, queue=str(i)) for i in range(q_n)]
    expect(fwd_c == [0] * q_n, "nothing came back on C's queues (rx_packets %s)" % fwd_c)

    # What became of the frames that reached B: received by ixy-fwd's queues or dropped by B (rx_dropped); of those
    # received, the ones forwarded are what the host saw C send. ixy-fwd prints a queue's rx_packets as its forwarded
    # + tx_full (apps/fwd_queues.h), so tx_full is what is left and is not checked on its own: B's reached = rx +
    # dropped and C's sent = forwarded already give reached - sent = tx_full + dropped.
    forwarded = [value(fwd_q, "forwarded", pci=args.nic_b, queue=str(i)) for i in range(q_n)]
    tx_full = [value(fwd_q, "tx_full", pci=args.nic_b, queue=str(i)) for i in range(q_n)]
    ok = None not in forwarded + tx_full + reported
    b_dropped = value(fwd_t, "rx_dropped", pci=args.nic_b)
    b_rx = value(fwd_t, "rx_packets", pci=args.nic_b)
    c_tx = value(fwd_t, "tx_packets", pci=args.nic_c)
    if args.virtio:  # VirtIO has no counter registers: the driver counts the packets it passes, as the app does
        dropper = "B's driver (rx_dropped: frames the driver dropped; the device reports none)"
        b_rx_what = ("B's driver's RX count (rx_packets=%s: the packets the driver took from the device, counted "
                     "apart from the app)" % b_rx)
        c_tx_what = "C's driver's TX count %s (the packets the device gave back)" % c_tx
    else:
        dropper = "B (rx_dropped, its missed-packet counter)"
        b_rx_what = "B's own RX counter (rx_packets=%s, the NIC's register)" % b_rx
        c_tx_what = "C's own TX counter %s (the NIC's register)" % c_tx
    expect(ok and b_dropped is not None and len(b) == sum(reported) + b_dropped,
           "the %d frames that reached B = %s received by ixy-fwd + %s dropped by %s" %
           (len(b), sum(reported) if ok else None, b_dropped, dropper))
    expect(b_rx == sum(reported) if ok else False, "%s equals what ixy-fwd's queues received" % b_rx_what)
    expect(ok and len(c) == sum(forwarded) == c_tx,
           "C sent (host) %d = ixy-fwd forwarded %s = %s" % (len(c), sum(forwarded) if ok else None, c_tx_what))
    # What C sent, traced back by the hash to the queue of B each frame came in on: ixy-fwd's forwarded per queue.
    c_pred = [0] * q_n
    for f in c:
        c_pred[queue_of(f, q_n)] += 1
    expect(forwarded == c_pred, "ixy-fwd's per-queue forwarded of B %s equal C's frames (host) by B's queue %s" %
           (forwarded, c_pred))

    # C: every frame is one that reached B, with ixy-fwd's byte changed, once, in order per flow.
    def unmodified(f):
        return f[:args.modified_byte] + bytes([(f[args.modified_byte] - 1) % 256]) + f[args.modified_byte + 1:]
    # (Flows on different queues interleave in any order: the threads forward in parallel; a flow keeps its order.)
    b_by_flow, c_by_flow = {}, {}
    for f in b:
        b_by_flow.setdefault(flow(f), []).append(f)
    for f in c:
        c_by_flow.setdefault(flow(f), []).append(unmodified(f))
    strange = [fl for fl, fs in c_by_flow.items() if not subsequence(fs, b_by_flow.get(fl, []))]
    expect(not strange, "each flow's frames C sent are frames of it that reached B, in that order, ixy-fwd's byte %d "
           "changed, nothing else (%d frames; %d flows not: %s)" % (args.modified_byte, len(c), len(strange),
                                                                    strange[:6]))
    in_order_once("C", c)
    flows_b, flows_c = per_flow(b), per_flow(c)
    complete = sum(1 for f in flows_b if flows_c.get(f) == flows_b[f])

    # D: the record of what reached D, and ixy-pcap's capture against it.
    expect(subsequence(d, c), "the frames that reached D are C's, in C's order (%d of %d)" % (len(d), len(c)))
    lost_c_d = len(c) - len(d)
    # Every frame the host's records lose between the NICs: a UDP socket of the pair whose receive buffer was full
    # dropped it (QEMU's igb stops reading its socket while it cannot receive), and QEMU ran in a namespace of its
    # own, so that the namespace's RcvbufErrors counts those drops and nothing else's.
    if args.udp_rcvbuf_errors is not None:
        expect(lost_a_b + lost_c_d == args.udp_rcvbuf_errors,
               "every frame is accounted for: the %d A sent that never reached B and the %d C sent that never "
               "reached D are the %d the host's UDP sockets dropped for a full receive buffer (RcvbufErrors of "
               "QEMU's network namespace)" % (lost_a_b, lost_c_d, args.udp_rcvbuf_errors))
    if args.udp_in_errors is not None:
        expect(args.udp_in_errors == args.udp_rcvbuf_errors,
               "no other UDP receive error in QEMU's network namespace (InErrors grew by %d, RcvbufErrors by %s)" %
               (args.udp_in_errors, args.udp_rcvbuf_errors))
    # QEMU's igb drops a frame whose queue has no free descriptor while another queue has one, and counts it nowhere
    # (no RQDPC, no MPC): the frames the records show reaching B that no counter covers, per queue.
    unseen = [p - r if r is not None else None for p, r in zip(predicted, reported)]
    print("accounting sent=%s a=%d lost_a_b=%d b=%d b_rx_dropped=%s rx=%s tx_full=%s forwarded=%s c=%d lost_c_d=%d "
          "d=%d udp_rcvbuf_errors=%s udp_in_errors=%s flows_complete_b_c=%d/%d uncounted_per_queue=%s" %
          (sent, len(a), lost_a_b, len(b), b_dropped, sum(reported) if ok else None, sum(tx_full) if ok else None,
           sum(forwarded) if ok else None, len(c), lost_c_d, len(d), args.udp_rcvbuf_errors, args.udp_in_errors,
           complete, len(flows_b), unseen))
    captured = value(pcap_t, "captured", pci=args.nic_d)
    if args.drain:
        expect(d == c, "every frame C sent reached D, in order (%d of %d)" % (len(d), len(c)))
        expect(len(cap) == len(d) == captured, "ixy-pcap captured %s packets (its totals), its file holds %d: all %d "
               "that reached D" % (captured, len(cap), len(d)))
    else:
        expect(len(cap) == args.packets == captured,
               "ixy-pcap captured %s packets (its totals), its file holds %d, asked %d" %
               (captured, len(cap), args.packets))
    d_set = set(d)
    expect(all(f in d_set for f in cap), "every captured frame reached D, byte for byte (host's record)")
    in_order_once("capture", cap)
    flows_d = per_flow(d)
    prefix = all(s == flows_d.get(f, [])[:len(s)] for f, s in per_flow(cap).items())
    expect(prefix, "each flow's captured frames are its first frames that reached D")
    pq = args.pcap_queues
    cap_pred = [0] * pq
    for f in cap:
        cap_pred[queue_of(f, pq)] += 1
    cap_rep = [value(pcap_q, "captured", pci=args.nic_d, queue=str(i)) for i in range(pq)]
    print("pcap predicted %s reported %s" % (cap_pred, cap_rep))
    expect(cap_rep == cap_pred, "ixy-pcap's per-queue captured counts of D %s equal the host's prediction %s" %
           (cap_rep, cap_pred))
    print("%d passed, %d failed" % (sum(results), len(results) - sum(results)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
