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
how fast a live band moves down the matrix. Then where that time goes: a band's first live
chunk begins once the chunk of the band above it waits for has ended (the handoff), and then
runs chunk after chunk (the median time a chunk of the first 24 took).
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
        chain_parts(bands, later)


def chain_parts(bands, later):
    """The chain split: the wait from the band above's gating chunk to this band's first steps,
    and the time of a chunk once running (consecutive ends of the chunks the trace times)."""
    if 'began_us' not in bands[0]:
        return
    timed = sum(1 for column in bands[0] if column.startswith('chunk'))  # kStreamTraceChunks
    began = [float(b['began_us']) for b in bands]
    first = [int(b['first_live']) for b in bands]
    ends = [[float(b[f'chunk{c}_us']) for c in range(timed)] for b in bands]
    handoffs, chunk_times, leads = [], [], []
    for b in later:
        offset = first[b] + 1 - first[b - 1]  # band b's first chunk waits for this chunk of b - 1
        if 0 <= offset < timed and ends[b - 1][offset] > 0 and began[b] > 0:
            handoffs.append(began[b] - ends[b - 1][offset])
            leads.append(offset + 1)
        times = [began[b]] + ends[b]
        chunk_times += [y - x for x, y in zip(times, times[1:]) if x > 0 and y > 0]
    if handoffs and chunk_times:
        print(f'a band\'s first chunk began {statistics.median(handoffs):.1f} us (median) after the '
              f'chunk above it waits for ended, the {statistics.median(leads)}th of that band; a chunk ran in '
              f'{statistics.median(chunk_times):.2f} us (median; mean {statistics.mean(chunk_times):.2f} us)')


if __name__ == '__main__':
    main()
