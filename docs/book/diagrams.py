#!/usr/bin/env python3
"""Draws the book's diagrams as SVG files from the descriptions below (python3 only, no other tool).

Usage: docs/book/diagrams.py [output directory]   (default: docs/book/img, next to this script)
Each diagram is a list of boxes and arrows in a small grid; change the description, run the script, commit the SVG.
"""
import os
import sys

CELL_W, CELL_H = 58, 34
FONT = 'font-family="DejaVu Sans Mono, monospace" font-size="12"'


def svg(width, height, body):
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">\n'
            '<rect width="100%%" height="100%%" fill="white"/>\n%s</svg>\n' % (width, height, width, height, body))


def box(x, y, w, h, text, fill="#eef3fb", lines=None):
    out = '<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#333"/>\n' % (x, y, w, h, fill)
    rows = lines or [text]
    for i, row in enumerate(rows):
        ty = y + h / 2 + 4 + (i - (len(rows) - 1) / 2) * 14
        out += '<text x="%d" y="%d" text-anchor="middle" %s>%s</text>\n' % (x + w / 2, ty, FONT, row)
    return out


def label(x, y, text, anchor="middle", size=12):
    return '<text x="%d" y="%d" text-anchor="%s" %s>%s</text>\n' % (
        x, y, anchor, FONT.replace('font-size="12"', 'font-size="%d"' % size), text)


def arrow(x1, y1, x2, y2):
    return ('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333" marker-end="url(#head)"/>\n' % (x1, y1, x2, y2))


ARROW_HEAD = ('<defs><marker id="head" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto">'
              '<path d="M0,0 L8,4 L0,8 z" fill="#333"/></marker></defs>\n')


def descriptor_ring():
    """An RX ring of 12 descriptors as ixgbe_rx_batch leaves it: every slot holds a buffer; the NIC may fill head up
    to tail - 1, and tail is always the slot just before rx_index (the last one the driver refilled)."""
    n, x0, y0 = 12, 30, 104
    body = ARROW_HEAD + label(x0, 24, "RX descriptor ring (ixgbe_rx_batch): the NIC fills from head up to tail - 1;",
                              "start", 13)
    body += label(x0, 42, "the driver takes from rx_index, puts a fresh buffer into each slot it took", "start", 13)
    body += label(x0, 60, "and moves tail to the last of them: tail stays one slot behind rx_index", "start", 13)
    rx_index, head = 1, 4
    tail = (rx_index - 1) % n
    for i in range(n):
        if rx_index <= i < head:
            fill, text = "#d4edda", "DD"  # written back, waiting for the driver
        elif i == tail:
            fill, text = "#f4f4f4", "buf"  # refilled, but the NIC stops before it
        else:
            fill, text = "#eef3fb", "buf"  # empty buffer, the NIC may write
        body += box(x0 + i * CELL_W, y0, CELL_W, CELL_H, text, fill)
        body += label(x0 + i * CELL_W + CELL_W / 2, y0 + CELL_H + 16, str(i))
    for name, idx, y in (("rx_index", rx_index, y0 - 22), ("head (RDH)", head, y0 + CELL_H + 44),
                         ("tail (RDT)", tail, y0 + CELL_H + 44)):
        cx = x0 + idx * CELL_W + CELL_W / 2
        if y < y0:
            body += arrow(cx, y + 4, cx, y0 - 2) + label(cx, y, name)
        else:
            body += arrow(cx, y - 12, cx, y0 + CELL_H + 20) + label(cx, y, name)
    legend_y = y0 + CELL_H + 68
    for i, (fill, text) in enumerate((("#d4edda", "DD: packet written back, the driver's to take (rx_index .. head - 1)"),
                                      ("#eef3fb", "buf: empty buffer the NIC may fill (head .. tail - 1)"),
                                      ("#f4f4f4", "buf at tail: refilled, but the NIC stops before it (head == tail:"
                                       " nothing to fill)"))):
        body += box(x0, legend_y + i * 22, 16, 14, "", fill) + label(x0 + 24, legend_y + i * 22 + 12, text, "start")
    return svg(x0 * 2 + n * CELL_W, legend_y + 76, body)


def packet_buffer():
    """struct pkt_buf: one cache line of metadata, then the packet data, in one buffer of a mempool."""
    x0, y0 = 30, 60
    parts = [("buf_addr_phy", 8), ("mempool", 8), ("idx", 4), ("size", 4), ("head_room (40)", 40),
             ("data: the packet (up to buf_size - 64 bytes)", 192)]
    scale = 3
    body = label(x0, 28, "struct pkt_buf in a mempool buffer (include/ixy/memory.h)", "start", 13)
    x = x0
    for text, size in parts:
        w = size * scale
        body += box(x, y0, w, 44, "", "#eef3fb" if size < 64 else "#d4edda",
                    lines=[text] if w > 90 else [text[:w // 8]])
        x += w
    body += label(x0, y0 + 64, "0", "start")
    body += label(x0 + 64 * scale, y0 + 64, "64: data starts on the second cache line", "start")
    body += ('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#c00" stroke-dasharray="4"/>\n' %
             (x0 + 64 * scale, y0 - 8, x0 + 64 * scale, y0 + 52))
    body += label(x0, y0 + 96, "The NIC gets buf_addr_phy + 64 (a device address);", "start")
    body += label(x0, y0 + 114, "the VirtIO driver puts its net header at the end of head_room.", "start")
    return svg(x + 40, y0 + 136, body)


def virtqueue():
    """A split virtqueue: descriptor table, available ring (driver -> device), used ring (device -> driver)."""
    x0, y0 = 30, 70
    body = ARROW_HEAD + label(x0, 24, "A split virtqueue (VirtIO 1.0, 2.4): three parts in DMA memory", "start", 13)
    body += label(x0 + 110, y0 - 10, "descriptor table")
    for i, text in enumerate(("0: net header + frame", "1: net header + frame", "2: net header + frame", "3: ...",
                              "...")):
        body += box(x0, y0 + i * 30, 220, 30, text, "#eef3fb")
    body += label(x0 + 420, y0 - 10, "available ring (driver writes)")
    body += box(x0 + 320, y0, 200, 60, "", "#f4f4f4", lines=["idx = 2", "ring: 0, 1"])
    body += label(x0 + 420, y0 + 110, "used ring (device writes)")
    body += box(x0 + 320, y0 + 120, 200, 60, "", "#d4edda", lines=["idx = 1", "ring: {id 0, len 72}"])
    body += arrow(x0 + 320, y0 + 30, x0 + 224, y0 + 15)
    body += arrow(x0 + 320, y0 + 150, x0 + 224, y0 + 20)
    body += label(x0, y0 + 210, "Each packet is one descriptor (header in the head room; a chain of two, header and "
                  "frame, if the device lacks ANY_LAYOUT);", "start")
    body += label(x0, y0 + 228, "the driver offers chain heads in the available ring and notifies;", "start")
    body += label(x0, y0 + 246, "the device returns them in the used ring with the length it wrote "
                  "(virtio_rx_batch checks both).", "start")
    return svg(x0 + 900, y0 + 268, body)


def packed_ring():
    """One packed virtqueue of 8 descriptors (RX) through a wrap: the driver's and the device's positions and wrap
    counters, and the AVAIL/USED flags each side writes (VirtIO 1.2, 2.8.1)."""
    n, x0, y0, row_h = 8, 30, 70, 92
    body = ARROW_HEAD + label(x0, 24, "A packed virtqueue of 8 descriptors (RX, virtio_packed.c) through a wrap: "
                              "one ring, both sides walk it the same way", "start", 13)
    body += label(x0, 42, "A/U: the descriptor's AVAIL and USED flags. Available: A = driver's wrap counter, U = not A."
                  " Used: A = U = device's wrap counter.", "start")
    avail_fill, used_fill, old_fill = "#eef3fb", "#d4edda", "#f4f4f4"
    # Each step: caption, per slot (flags, fill), the driver's next_avail with its wrap counter, and next_used (the
    # next descriptor the driver takes back) with the device's wrap counter as the driver tracks it.
    steps = [
        ("1. start: the driver made 0..7 available in round 1 (wrap 1), then its wrap counter flipped to 0",
         [("A1 U0", avail_fill)] * 8, (0, 0), (0, 1)),
        ("2. the device used 0..5 (A1 U1); the driver took 0..3 and made them available again in round 2 (A0 U1)",
         [("A0 U1", avail_fill)] * 4 + [("A1 U1", used_fill)] * 2 + [("A1 U0", avail_fill)] * 2, (4, 0), (4, 1)),
        ("3. the device used 6, 7, passed the end (its counter flips to 0) and used 0, 1 (A0 U0); the driver took"
         " 4..7 and made them available (A0 U1)",
         [("A0 U0", used_fill)] * 2 + [("A0 U1", avail_fill)] * 2 + [("A0 U1", avail_fill)] * 4, (0, 1), (0, 0)),
    ]
    for r, (caption, slots, (avail_pos, avail_wrap), (used_pos, used_wrap)) in enumerate(steps):
        y = y0 + r * row_h
        body += label(x0, y + 10, caption, "start")
        for i, (text, fill) in enumerate(slots):
            body += box(x0 + i * CELL_W * 1.4, y + 24, CELL_W * 1.4, CELL_H, text, fill)
        body += label(x0 + n * CELL_W * 1.4 + 12, y + 36, "next_avail %d, driver's wrap %d" % (avail_pos, avail_wrap),
                      "start")
        body += label(x0 + n * CELL_W * 1.4 + 12, y + 54, "next_used %d, device's wrap %d" % (used_pos, used_wrap),
                      "start")
    legend_y = y0 + len(steps) * row_h + 4
    for i, (fill, text) in enumerate(((avail_fill, "available: the device's to fill"),
                                      (used_fill, "used: the driver's to take (its next_used walks over them)"))):
        body += box(x0, legend_y + i * 22, 16, 14, "", fill) + label(x0 + 24, legend_y + i * 22 + 12, text, "start")
    return svg(x0 * 2 + n * CELL_W * 1.4 + 420, legend_y + 56, body)


DIAGRAMS = {"descriptor-ring.svg": descriptor_ring, "packet-buffer.svg": packet_buffer, "virtqueue.svg": virtqueue,
            "packed-ring.svg": packed_ring}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "img")
    os.makedirs(out, exist_ok=True)
    for name, draw in DIAGRAMS.items():
        with open(os.path.join(out, name), "w") as f:
            f.write(draw())
    print("wrote %s to %s" % (", ".join(sorted(DIAGRAMS)), out))


if __name__ == "__main__":
    main()
