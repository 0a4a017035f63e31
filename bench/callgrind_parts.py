#!/usr/bin/env python3
"""Splits a callgrind profile of fwd_bench_count into the parts of forwarding a packet (docs/benchmark.md).

Reads the call graph of the callgrind output file (the cost of each function itself, and for each call from one
function to another the number of calls and the cost inside them), then counts per forwarded packet:

  RX          ixgbe_rx_batch and what it calls, but not memory management and not the model
  TX          ixgbe_tx_batch (tx_clean is inlined into it) and what it calls, the same way
  memory      pkt_buf_alloc, pkt_buf_alloc_batch, pkt_buf_free, pkt_buf_free_batch, from wherever they are called
  forwarding  forward() itself: its loop touching one byte per packet, and the calls through the device struct
  model       everything inside ixy_seam_write32/ixy_seam_read32: the 82599 model behind the registers

A register access is a call into the model in this build; in a production build it is one load or store
(src/driver/driver.h). So each call into the model counts as 1 instruction (and no cache miss) in the driver's part,
and everything inside it goes to "model". The instructions that set up the call's arguments and the call itself
stay in the driver's part (about 4 per call, two calls per 32 packets: about 0.25 per packet).

With callgrind's cache simulation (--cache-sim=yes), also prints the L1 data cache misses per packet by part.

Usage: callgrind_parts.py <callgrind.out> [<output of fwd_bench_time>]
The number of packets is forward()'s calls times the batch size, FWD_BATCH_SIZE from the environment (default 32;
every call forwards a full batch: fwd_bench checks that). With the output of fwd_bench_time, also prints its TSC ticks per packet next to the instructions.
"""

import os
import re
import sys

MODEL = {"ixy_seam_write32", "ixy_seam_read32", "ixy_seam_usleep"}
MEMORY = {"pkt_buf_alloc", "pkt_buf_alloc_batch", "pkt_buf_free", "pkt_buf_free_batch"}
RX, TX, FORWARD = "ixgbe_rx_batch", "ixgbe_tx_batch", "forward_step"  # forward(), inlined into fwd_bench's forward_step
# A profile of virtio_fwd_bench (found by its RX function): the VirtIO driver has no registers on the packet path;
# its one call into the device is the queue notification, a transport operation ("notify" in virtio_modern.c and
# virtio_legacy.c, whose store reaches the model), which counts as 1 instruction like a register access (in QEMU it
# is a port or BAR write).
# virtio.c has one copy of its packet path per descriptor layout and header length: the profile holds one pair.
VIRTIO = {
    "one": ("virtio_rx_any_layout", "virtio_tx_any_layout"),
    "modern": ("virtio_rx_version_1", "virtio_tx_version_1"),
    "two": ("virtio_rx_two_desc", "virtio_tx_two_desc"),
    "packed": ("packed_rx_batch", "packed_tx_batch"),  # virtio_packed.c: packed virtqueues (VirtIO 1.2, 2.8)
}
VIRTIO_MODEL = {"notify"}
# A profile of xdp_fwd_bench: the AF_XDP driver's rx_batch and tx_batch (xdp.c's, compiled into the bench, on devices
# without a socket), with xsk_rx and xsk_tx (src/driver/xdp_ring.c) inside. The simulated kernel runs outside
# forward_step: no call to leave out; the wake-up system calls are never made (the simulated kernel asks for none).
XDP = ("xdp_rx_batch", "xdp_tx_batch")
# FWD_BATCH_SIZE (apps/fwd.h) the profiled bench was built with: bench/run.sh and bench/evaluate.sh set the
# environment variable to it (run.sh reads it from the bench's output). Left at 32, another build's figures are wrong.
BATCH_SIZE = int(os.environ.get("FWD_BATCH_SIZE", "32"))


def parse(path):
    """Returns (events, self cost {fn: [..]}, calls {(caller, callee): [count, [inclusive cost..]]})."""
    names = {}  # callgrind compresses names: "(12) name" the first time, "(12)" afterwards
    events = []

    def name_of(value):
        m = re.match(r"\((\d+)\)\s*(.*)", value)
        if not m:
            return value.strip()
        if m.group(2):
            names[m.group(1)] = m.group(2).strip()
        return names[m.group(1)]

    def costs(line):
        values = [int(v) for v in line.split()[1:]]  # after the position (positions: line)
        return values + [0] * (len(events) - len(values))  # trailing zeros may be left out

    def add(into, values):
        for i, v in enumerate(values):
            into[i] += v

    self_cost, calls = {}, {}
    fn = callee = None
    pending_calls = None  # the line after "calls=" holds the inclusive cost of those calls
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if pending_calls is not None:
                entry = calls.setdefault((fn, callee), [0, [0] * len(events)])
                entry[0] += pending_calls
                add(entry[1], costs(line))
                pending_calls = None
            elif line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("positions:") and line.split()[1:] != ["line"]:
                raise SystemExit("expected positions: line (run callgrind without --dump-instr)")
            elif line.startswith("fn="):
                fn = name_of(line[3:])
                self_cost.setdefault(fn, [0] * len(events))
            elif line.startswith("cfn="):
                callee = name_of(line[4:])
            elif line.startswith("calls="):
                pending_calls = int(line[6:].split()[0])
            elif line and (line[0].isdigit() or line[0] in "+-*") and fn is not None:
                add(self_cost[fn], costs(line))
    return events, self_cost, calls


def split(events, self_cost, calls):
    """Returns ({part: [cost per event]}, model cost, register accesses, forward()'s inclusive cost)."""
    callees = {}
    for (caller, callee), (count, cost) in calls.items():
        callees.setdefault(caller, []).append((callee, count, cost))
    zero = [0] * len(events)
    memory, model = list(zero), list(zero)
    register_accesses = 0

    def plus(a, b):
        return [x + y for x, y in zip(a, b)]

    # A function called from several places (the VirtIO driver's publish_and_notify, from RX and TX) has one cost in
    # the profile for all its calls: each caller gets the share of its calls.
    calls_of = {}
    for (caller, callee), (count, _) in calls.items():
        calls_of[callee] = calls_of.get(callee, 0) + count

    def scaled(values, share):
        return [v * share for v in values]

    def driver_part(fn, share=1.0, stack=()):
        """Cost of fn and its callees, without memory management and model (1 instruction per register access)."""
        nonlocal memory, model, register_accesses
        if fn in stack:
            raise SystemExit(f"recursion through {fn}: cannot split the profile")
        cost = scaled(self_cost.get(fn, zero), share)
        for callee, count, inclusive in callees.get(fn, []):
            if callee in MODEL:
                model = plus(model, scaled(inclusive, share))
                register_accesses += count * share
                cost[events.index("Ir")] += count * share
            elif callee in MEMORY:
                memory = plus(memory, scaled(inclusive, share))
            elif callee not in (RX, TX):
                cost = plus(cost, driver_part(callee, share * count / calls_of[callee], stack + (fn,)))
        return cost

    parts = {"RX": driver_part(RX), "TX": driver_part(TX), "forwarding": driver_part(FORWARD), "memory": memory}
    forward_inclusive = list(self_cost.get(FORWARD, zero))
    for _, _, inclusive in callees.get(FORWARD, []):
        forward_inclusive = plus(forward_inclusive, inclusive)
    return parts, model, register_accesses, forward_inclusive


def read_ticks(path):
    ticks = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) == 2 and not line.startswith("#"):
                ticks[fields[0]] = float(fields[1])
    return ticks


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    global RX, TX, MODEL
    events, self_cost, calls = parse(sys.argv[1])
    virtio = [pair for pair in VIRTIO.values() if pair[0] in self_cost]
    if virtio:
        (RX, TX), MODEL = virtio[0], VIRTIO_MODEL
    xdp = XDP[0] in self_cost
    if xdp:
        (RX, TX), MODEL = XDP, set()
    for fn in (FORWARD, RX, TX):
        if fn not in self_cost:
            raise SystemExit(f"{fn} is missing from the profile")
    forward_calls = sum(count for (caller, callee), (count, _) in calls.items() if callee == FORWARD)
    packets = forward_calls * BATCH_SIZE
    parts, model, register_accesses, forward_inclusive = split(events, self_cost, calls)
    ir = events.index("Ir")
    total = [sum(part[i] for part in parts.values()) for i in range(len(events))]
    # All that forward() ran: the parts, plus the model, minus the 1 counted per register access.
    left_over = forward_inclusive[ir] - (total[ir] + model[ir] - register_accesses)
    if abs(left_over) > 0.5:
        raise SystemExit(f"the parts do not add up to forward()'s inclusive cost: {left_over} instructions left")
    memory_calls = sum(
        count for (caller, callee), (count, _) in calls.items() if callee in MEMORY and caller not in MEMORY
    )
    ticks = read_ticks(sys.argv[2]) if len(sys.argv) == 3 else {}
    misses = [events.index(e) for e in ("D1mr", "D1mw") if e in events]

    def row(label, cost, tick_key, paper):
        t = f"{ticks[tick_key]:10.1f}" if tick_key in ticks else " " * 10
        m = f"{sum(cost[i] for i in misses) / packets:10.2f}" if misses else ""
        print(f"{label:<32}{cost[ir] / packets:8.1f}  {t}{m}   {paper}")

    print(f"Per forwarded packet, batch {BATCH_SIZE}, {packets} packets counted by callgrind")
    header = f"{'part':<32}{'instr':>8}  {'TSC ticks':>10}" + (f"{'L1d miss':>10}" if misses else "")
    print(f"{header}   paper: ixy cycles (DPDK)")
    if virtio or xdp:
        row(f"RX ({RX})", parts["RX"], "rx", "")
        row(f"TX ({TX})", parts["TX"], "tx", "")
        row("memory (pkt_buf_*, batches)", parts["memory"], "memory", "")
        row("forwarding (forward() loop)", parts["forwarding"], "forwarding", "")
        row("total", total, "split_total", "")
        if xdp:
            print(f"memory management calls: {memory_calls / packets:.2f} per packet")
            return
        row("not counted: the VirtIO model", model, "model_excluded", "")
        print(
            f"notifications: {register_accesses / packets:.4f} per packet (1 instruction each); "
            f"memory management calls: {memory_calls / packets:.2f} per packet"
        )
        return
    row("RX (ixgbe_rx_batch)", parts["RX"], "rx", "44.8 (35.4)")
    row("TX (ixgbe_tx_batch, tx_clean)", parts["TX"], "tx", "14.7 (20.4)")
    row("memory (pkt_buf_*, batches)", parts["memory"], "memory", "30.4 (inlined)")
    row("forwarding (forward() loop)", parts["forwarding"], "forwarding", "12.3 (6.1)")
    row("total", total, "split_total", "96 (61)")
    if "total" in ticks:
        print(f"{'total, fewer probes (TSC only)':<32}{'':8}  {ticks['total']:10.1f}")
    row("not counted: the 82599 model", model, "model_excluded", "")
    print(
        f"register accesses: {register_accesses / packets:.4f} per packet (1 instruction each); "
        f"memory management calls: {memory_calls / packets:.2f} per packet"
    )
    if ticks:
        print(
            f"TSC at {ticks.get('tsc_ghz', 0):.2f} GHz; total (fewer probes) quartiles over segments: "
            f"{ticks.get('total_q1', 0):.1f} .. {ticks.get('total_q3', 0):.1f}; "
            f"timer overhead {ticks.get('timer_overhead_ticks', 0):.0f} ticks per timed region (subtracted)"
        )


if __name__ == "__main__":
    main()
