#!/usr/bin/env python3
"""Latency against offered rate (book chapter 15): a CSV and an SVG from ixy-pcap --report logs, python3 only.

Usage: docs/book/latency_plot.py OUT_DIR RATE_PPS=LOG [RATE_PPS=LOG ...]
  RATE_PPS  the rate ixy-pktgen --rate offered in that run, in packets per second
  LOG       ixy-pcap --report's output of that run: its final lines (end=1, apps/common/report.h) are read, and
            ixy-pktgen's totals line if the log has one (sent=, run_ns=: the rate it reached)
Writes OUT_DIR/latency.csv (one row per run: offered_pps, sent_pps (the rate reached; the offered one without a
totals line), received, lost, reordered, duplicated, lost_percent, min_ns,
p50_ns, p90_ns, p99_ns, p99_9_ns, p99_99_ns, max_ns) and OUT_DIR/latency.svg: the percentiles in microseconds on a
log axis over the rate sent in kpps, and the loss in percent below. Exits 2 on a wrong command line or a log
without final report lines.
"""
import math
import os
import sys

FONT = 'font-family="DejaVu Sans Mono, monospace" font-size="12"'
PERCENTILES = (("p50_ns", "p50", "#1f77b4"), ("p90_ns", "p90", "#2ca02c"), ("p99_ns", "p99", "#ff7f0e"),
               ("p99_9_ns", "p99.9", "#d62728"), ("p99_99_ns", "p99.99", "#9467bd"), ("max_ns", "max", "#555555"))


def final_line(path, kind, marker="end=1"):
    """The key=value dict of the log's last line of a kind that has the word marker, or None."""
    found = None
    with open(path, errors="replace") as f:
        for line in f:
            words = line.split()
            if words and words[0] == kind and marker in words:
                found = dict(w.split("=", 1) for w in words[1:] if "=" in w)
    return found


def read_run(rate, path):
    report, latency = final_line(path, "report"), final_line(path, "latency")
    if not report or not latency:
        sys.exit(f"latency_plot: {path} has no final report and latency lines (ixy-pcap --report, end=1)")
    row = {"offered_pps": rate, "sent_pps": rate}
    pktgen = final_line(path, "totals", "app=ixy-pktgen")
    if pktgen and int(pktgen.get("run_ns", "0")) > 0:
        row["sent_pps"] = round(int(pktgen["sent"]) * 1e9 / int(pktgen["run_ns"]))
    for key in ("received", "lost", "reordered", "duplicated"):
        row[key] = int(report[key])
    expected = row["received"] - row["duplicated"] + row["lost"]
    row["lost_percent"] = 100.0 * row["lost"] / expected if expected else 0.0
    for key in ("min_ns",) + tuple(p[0] for p in PERCENTILES):
        row[key] = int(latency[key])
    return row


def write_csv(rows, path):
    keys = list(rows[0])
    with open(path, "w") as f:
        f.write(",".join(keys) + "\n")
        for row in rows:
            f.write(",".join(f"{row[k]:.3f}" if isinstance(row[k], float) else str(row[k]) for k in keys) + "\n")


def write_svg(rows, path):
    width, height, left, right, top, plot_h, gap, loss_h = 720, 480, 70, 110, 20, 280, 50, 80
    plot_w = width - left - right
    max_rate = max(r["sent_pps"] for r in rows) or 1
    values = [r[p[0]] for r in rows for p in PERCENTILES if r[p[0]] > 0]
    low = 10 ** math.floor(math.log10(min(values) / 1000.0)) if values else 1.0
    high = 10 ** math.ceil(math.log10(max(values) / 1000.0)) if values else 10.0
    high = high if high > low else low * 10

    def x(rate):
        return left + plot_w * rate / max_rate

    def y(ns):
        us = max(ns / 1000.0, low)
        return top + plot_h * (1 - (math.log10(us) - math.log10(low)) / (math.log10(high) - math.log10(low)))

    body = f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#333"/>\n'
    decade = low
    while decade <= high * 1.0001:
        body += (f'<line x1="{left}" y1="{y(decade * 1000):.1f}" x2="{left + plot_w}" y2="{y(decade * 1000):.1f}" '
                 f'stroke="#ddd"/>\n<text x="{left - 6}" y="{y(decade * 1000) + 4:.1f}" text-anchor="end" {FONT}>'
                 f'{decade:.0f}</text>\n')
        decade *= 10
    body += (f'<text x="16" y="{top + plot_h / 2:.0f}" transform="rotate(-90 16 {top + plot_h / 2:.0f})" '
             f'text-anchor="middle" {FONT}>latency (us, log)</text>\n')
    for key, name, color in PERCENTILES:
        points = " ".join(f"{x(r['sent_pps']):.1f},{y(r[key]):.1f}" for r in rows)
        body += f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="2"/>\n'
        last = rows[-1]
        body += (f'<text x="{left + plot_w + 8}" y="{y(last[key]) + 4:.1f}" fill="{color}" {FONT}>{name}</text>\n')
    loss_top = top + plot_h + gap
    max_loss = max(max(r["lost_percent"] for r in rows), 1.0)
    body += f'<rect x="{left}" y="{loss_top}" width="{plot_w}" height="{loss_h}" fill="none" stroke="#333"/>\n'
    points = " ".join(
        f"{x(r['sent_pps']):.1f},{loss_top + loss_h * (1 - r['lost_percent'] / max_loss):.1f}" for r in rows)
    body += f'<polyline points="{points}" fill="none" stroke="#d62728" stroke-width="2"/>\n'
    body += f'<text x="{left - 6}" y="{loss_top + 10}" text-anchor="end" {FONT}>{max_loss:.0f}%</text>\n'
    body += f'<text x="{left - 6}" y="{loss_top + loss_h}" text-anchor="end" {FONT}>0%</text>\n'
    body += f'<text x="{left + plot_w + 8}" y="{loss_top + loss_h / 2:.0f}" {FONT}>lost</text>\n'
    last_label = -1000.0
    for r in rows:  # a tick per run; its label only where it does not run into the one before
        body += (f'<line x1="{x(r["sent_pps"]):.1f}" y1="{loss_top + loss_h}" x2="{x(r["sent_pps"]):.1f}" '
                 f'y2="{loss_top + loss_h + 4}" stroke="#333"/>\n')
        if x(r["sent_pps"]) - last_label >= 48:
            body += (f'<text x="{x(r["sent_pps"]):.1f}" y="{loss_top + loss_h + 16}" text-anchor="middle" {FONT}>'
                     f'{r["sent_pps"] / 1000:.3g}</text>\n')
            last_label = x(r["sent_pps"])
    body += (f'<text x="{left + plot_w / 2:.0f}" y="{height - 6}" text-anchor="middle" {FONT}>rate sent (kpps, '
             f'ixy-pktgen --rate)</text>\n')
    with open(path, "w") as f:
        f.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                f'viewBox="0 0 {width} {height}">\n<rect width="100%" height="100%" fill="white"/>\n{body}</svg>\n')


def main(argv):
    if len(argv) < 3 or any("=" not in a or not a.split("=", 1)[0].isdigit() for a in argv[2:]):
        print(__doc__, file=sys.stderr)
        return 2
    rows = sorted((read_run(int(a.split("=", 1)[0]), a.split("=", 1)[1]) for a in argv[2:]),
                  key=lambda r: r["sent_pps"])
    os.makedirs(argv[1], exist_ok=True)
    write_csv(rows, os.path.join(argv[1], "latency.csv"))
    write_svg(rows, os.path.join(argv[1], "latency.svg"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
