#!/usr/bin/env python3
"""Summarises diagonal traces (CHROMALIGN_TRACE_DIAGONALS=PREFIX, see kernels/cuda/diagonal_trace.hpp).

    tools/diagonal_trace.py PREFIX.*.tsv

One line per trace (one per slab, ordered by start): when its first diagonal
started after the earliest trace's (host clock), how long its ramp-up (diagonals 0..B-1, fewer
than B blocks busy), middle and ramp-down (the last B diagonals) took on the GPU, the median
middle diagonal (first block's start to last block's end), and the time between one diagonal's
last block end and the next one's first block start, in all (idle_s: a slab waiting for its
left edges shows up there; other slabs may use the GPU meanwhile) and its median (gap_us).
The last two columns split a median middle diagonal's fixed cost: how much later its last
block started than its first (skew_us), and how much later its last block ended than its
median block (tail_us).
"""
import math
import statistics
import sys


def load(path):
    with open(path) as f:
        words = f.readline().split()
        header = {words[i]: int(words[i + 1]) for i in range(4, len(words) - 1, 2)}
        f.readline()  # column names
        rows = [[float(x) for x in line.split()[1:]] for line in f if line.strip()]
    return header, rows


def median(values):
    """The median of the values that are not NaN (no block ran), or NaN."""
    values = [v for v in values if not math.isnan(v)]
    return statistics.median(values) if values else float("nan")


def main(paths):
    traces = sorted((load(p) + (p,) for p in paths), key=lambda t: t[0]["host_ns"])
    t0 = traces[0][0]["host_ns"]
    print("trace\tn\tblocks\tcols\tstart_s\tramp_up_s\tmiddle_s\tramp_down_s\tgpu_total_s\tmiddle_diag_ms\t"
          "idle_s\tgap_us\tskew_us\ttail_us")
    for header, rows, path in traces:
        b, bands = header["blocks"], header["bands"]
        start = [r[0] for r in rows]
        end = [r[1] for r in rows]
        middle = range(b, bands) if bands > b else range(len(rows))
        gaps = [start[d + 1] - end[d] for d in range(len(rows) - 1)]
        print("%s\t%d\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.4f\t%.3f\t%.1f\t%.1f\t%.1f" % (
            path, header["n"], b, header["block_cols"], (header["host_ns"] - t0) / 1e9,
            end[b - 1] / 1e3, (end[bands - 1] - start[b]) / 1e3 if bands > b else 0.0,
            (end[-1] - start[bands]) / 1e3, end[-1] / 1e3, median(end[d] - start[d] for d in middle),
            sum(g for g in gaps if not math.isnan(g)) / 1e3, median(gaps[d] for d in middle if d < len(gaps)) * 1e3,
            median(rows[d][2] - start[d] for d in middle) * 1e3, median(end[d] - rows[d][4] for d in middle) * 1e3))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
