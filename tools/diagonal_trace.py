#!/usr/bin/env python3
"""Summarises diagonal traces (CHROMALIGN_TRACE_DIAGONALS=PREFIX, see kernels/cuda/diagonal_trace.hpp).

    tools/diagonal_trace.py PREFIX.*.tsv

One line per trace (one per slab, ordered by start): when its first diagonal
started after the earliest trace's (host clock), how long its ramp-up (diagonals 0..B-1, fewer
than B blocks busy), middle and ramp-down (the last B diagonals) took on the GPU, the median
middle diagonal, and the time the slab's stream sat idle between diagonals (a slab waiting
for its left edges shows up there; other slabs may use the GPU meanwhile).
"""
import statistics
import sys


def load(path):
    with open(path) as f:
        words = f.readline().split()
        header = {words[i]: int(words[i + 1]) for i in range(4, len(words) - 1, 2)}
        f.readline()  # column names
        rows = [line.split() for line in f if line.strip()]
    return header, [float(r[1]) for r in rows], [float(r[2]) for r in rows]


def main(paths):
    traces = sorted((load(p) + (p,) for p in paths), key=lambda t: t[0]["host_ns"])
    t0 = traces[0][0]["host_ns"]
    print("trace\tn\tblocks\tcols\tstart_s\tramp_up_s\tmiddle_s\tramp_down_s\tgpu_total_s\tmiddle_diag_ms\tidle_s")
    for header, start, end, path in traces:
        b, bands = header["blocks"], header["bands"]
        middle = [end[d] - start[d] for d in range(b, bands)] or [float("nan")]
        idle = sum(start[d + 1] - end[d] for d in range(len(start) - 1))
        print("%s\t%d\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.4f\t%.3f" % (
            path, header["n"], b, header["block_cols"], (header["host_ns"] - t0) / 1e9,
            end[b - 1] / 1e3, (end[bands - 1] - start[b]) / 1e3 if bands > b else 0.0,
            (end[-1] - start[bands]) / 1e3, end[-1] / 1e3, statistics.median(middle), idle / 1e3))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
