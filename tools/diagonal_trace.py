#!/usr/bin/env python3
"""Summarises diagonal traces (CHROMALIGN_TRACE_DIAGONALS=PREFIX, see kernels/cuda/diagonal_trace.hpp).

    tools/diagonal_trace.py PREFIX.*.tsv

One line per trace (one per slab, ordered by start): when its first diagonal
started after the earliest trace's (host clock), how long its ramp-up (diagonals 0..B-1, fewer
than B blocks busy), middle and ramp-down (the last B diagonals) took on the GPU, the median
middle diagonal (first block's start to last block's end), and the time between one diagonal's
last block end and the next one's first block start, in all (idle_s: a slab waiting for its
left edges shows up there; other slabs may use the GPU meanwhile) and its median (gap_us).
Then a median middle diagonal's fixed cost: how much later its last block started than its
first (skew_us), and how much later its last block ended than its median block (tail_us);
last, how many blocks a middle diagonal ran on average (a pruned run's launches leave the
dead ones out).

Then one line per PREFIX...blocks.tsv (the sampled diagonals' blocks) over its middle
diagonals: the block column that most often ended last and the one whose short phase most
often ended last (with how often), and the median time from its start to the end of the
short phase and of the whole block, for block 0 and for the others.
"""
import collections
import math
import statistics
import sys


def load(path):
    with open(path) as f:
        words = f.readline().split()
        header = {words[i]: int(words[i + 1]) for i in range(4, len(words) - 1, 2)}
        f.readline()  # column names
        rows = [[float(x) for x in line.split()[1:]] for line in f if line.strip()]
    # Times count from diagonal 0's first block; where diagonal 0 ran no block (a slab whose
    # first launches were all pruned), they are the GPU timer's own: count from the first one.
    if rows and math.isnan(rows[0][0]):
        base = next((r[0] for r in rows if not math.isnan(r[0])), 0.0)
        rows = [[x - base for x in r[:5]] + r[5:] for r in rows]
    return header, rows


def median(values):
    """The median of the values that are not NaN (no block ran), or NaN."""
    values = [v for v in values if not math.isnan(v)]
    return statistics.median(values) if values else float("nan")


def blocks_summary(path, header):
    by_diagonal = collections.defaultdict(list)
    with open(path) as f:
        f.readline()
        for line in f:
            d, b, start, short, end = line.split()
            by_diagonal[int(d)].append((int(b), float(start), float(short), float(end)))
    middle = [v for d, v in by_diagonal.items() if header["blocks"] <= d < header["bands"]]
    if not middle:
        return
    last_end = collections.Counter(max(v, key=lambda x: x[3])[0] for v in middle)
    last_short = collections.Counter(max(v, key=lambda x: x[2])[0] for v in middle)
    first = [min(x[1] for x in v) for v in middle]
    share = lambda c: "%d (%d%%)" % (c.most_common(1)[0][0], 100 * c.most_common(1)[0][1] // len(middle))
    part = lambda k, zero: median(x[k] - f for v, f in zip(middle, first) for x in v if (x[0] == 0) == zero) * 1e3
    print("%s\t%d\t%s\t%s\t%.1f\t%.1f\t%.1f\t%.1f" % (path, len(middle), share(last_end), share(last_short),
                                                 part(2, True), part(2, False), part(3, True), part(3, False)))


def main(paths):
    block_files = [p for p in paths if p.endswith(".blocks.tsv")]
    paths = [p for p in paths if not p.endswith(".blocks.tsv")]
    traces = sorted((load(p) + (p,) for p in paths), key=lambda t: t[0]["host_ns"])
    t0 = traces[0][0]["host_ns"]
    print("trace\tn\tblocks\tcols\tstart_s\tramp_up_s\tmiddle_s\tramp_down_s\tgpu_total_s\tmiddle_diag_ms\t"
          "idle_s\tgap_us\tskew_us\ttail_us\tmean_blocks")
    for header, rows, path in traces:
        if not rows:  # a grid its slab changed from before its first band (slab_run.cpp)
            print("%s\tno diagonal ran" % path)
            continue
        # A grid its slab changed from part way ran fewer diagonals than its bands call for.
        b, bands = header["blocks"], min(header["bands"], len(rows) - 1)
        start = [r[0] for r in rows]
        end = [r[1] for r in rows]
        middle = range(b, bands) if bands > b else range(len(rows))
        gaps = [start[d + 1] - end[d] for d in range(len(rows) - 1)]
        print("%s\t%d\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.4f\t%.3f\t%.1f\t%.1f\t%.1f\t%.1f" % (
            path, header["n"], b, header["block_cols"], (header["host_ns"] - t0) / 1e9,
            max((e for e in end[:b] if not math.isnan(e)), default=float("nan")) / 1e3, (end[bands - 1] - start[b]) / 1e3 if bands > b else 0.0,
            (end[-1] - start[bands]) / 1e3, end[-1] / 1e3, median(end[d] - start[d] for d in middle),
            sum(g for g in gaps if not math.isnan(g)) / 1e3, median(gaps[d] for d in middle if d < len(gaps)) * 1e3,
            median(rows[d][2] - start[d] for d in middle) * 1e3, median(end[d] - rows[d][4] for d in middle) * 1e3,
            statistics.mean(rows[d][5] for d in middle)))
    if block_files:
        print("blocks\tsampled\tlast_end_block\tlast_short_block\tblock0_short_us\tothers_short_us\t"
              "block0_us\tothers_us")
        headers = {p: h for h, _, p in traces}
        for path in sorted(block_files):
            blocks_summary(path, headers[path[:-len(".blocks.tsv")] + ".tsv"])


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
