#!/usr/bin/env python3
"""Summarises a band stream's trace (CHROMALIGN_STREAM_TRACE=FILE, kernels/cuda/stream/).

    tools/stream_trace.py FILE [ROWS]

The trace has a line per band: when it started and ended (us from the first band's start,
%globaltimer), its first and last live chunk and how many chunks it ran. This prints the
stream's end and its live chunks, then ROWS (default 16) bands evenly spaced: start, duration,
first and last live chunk, live chunks and microseconds per live chunk (a band that waits for
the band above, or jumps far, takes more). Last, the chain: over the bands that started after
the first wave (those a warp took once another band had ended), the median time between the
starts of consecutive bands (and the mean) and the median shift of their first live chunk:
how fast a live band moves down the matrix.
"""
import csv
import statistics
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    with open(sys.argv[1]) as f:
        bands = list(csv.DictReader(f, delimiter='\t'))
    if not bands:
        sys.exit('no bands in ' + sys.argv[1])
    start = [float(b['start_us']) for b in bands]
    end = [float(b['end_us']) for b in bands]
    first = [int(b['first_live']) for b in bands]
    last = [int(b['last_live']) for b in bands]
    live = [int(b['live_chunks']) for b in bands]
    count = len(bands)
    print(f'{count} bands, ended at {max(end) / 1e6:.3f} s, {sum(live)} live chunks')
    print(f'{"band":>7} {"start_ms":>9} {"dur_ms":>8} {"first":>8} {"last":>8} {"live":>8} {"us/chunk":>9}')
    step = max(1, count // rows)
    for b in sorted(set(list(range(0, count, step)) + [count - 1])):
        dur = end[b] - start[b]
        per = f'{dur / live[b]:9.1f}' if live[b] > 0 else f'{"-":>9}'
        print(f'{b:7d} {start[b] / 1e3:9.1f} {dur / 1e3:8.2f} {first[b]:8d} {last[b]:8d} {live[b]:8d} {per}')
    # The first wave: the bands started before any band had ended.
    first_end = min(end)
    later = [b for b in range(1, count) if start[b - 1] >= first_end and first[b] >= 0 and first[b - 1] >= 0]
    if len(later) > 1:
        gaps = [start[b] - start[b - 1] for b in later]
        shifts = [first[b] - first[b - 1] for b in later]
        print(f'chain after the first wave ({len(later)} bands): a band started '
              f'{statistics.median(gaps):.1f} us (median; mean {statistics.mean(gaps):.1f} us) after the one '
              f'above, its first live chunk {statistics.median(shifts)} chunks right of it (median)')


if __name__ == '__main__':
    main()
