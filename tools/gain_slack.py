#!/usr/bin/env python3
"""Where the gain table's slack goes on one alignment (engine/pruning/gain_table.hpp).

    tools/gain_slack.py ALIGNMENT.paf K [--table GAIN --band W] [--scoring A B O E]

Reads the first PAF line's cg:Z: CIGAR (chromalign --traceback FILE.paf; S0 the query, S1
the target) and scores its path under the table's argument for k = K: rho per diagonal step,
(a - rho) per step into a k-mer start, minus lambda per gap column, plus the tail (a - rho)(k - 1).
It prints, per column of min(m, n) (what the table's gain is counted in), the path's true
score, that bound, and the parts of their difference: identity runs shorter than k - 1 (each
(a - rho)(k - 1 - r) over), and gaps (their cost above what a separator is charged).

With the table's gain from (0, 0) a column and its bands of W diagonals (GAIN and W:
gain_table_per_column and gain_table_band_diagonals of the run's JSON), the rest of the slack is split into
the path's gap columns that T does not charge (lambda each, less W for each move of band, kept
with hysteresis as T keeps it), diagonal steps the path does not take (rho each of min(m, n)
beyond its own) and what T counts beyond the path's k-mer starts.
"""
import argparse
import re


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('paf')
    ap.add_argument('k', type=int)
    ap.add_argument('--table', type=float, help="the table's gain from (0, 0) a column")
    ap.add_argument('--band', type=int, help="the table's band width in diagonals")
    ap.add_argument('--scoring', type=int, nargs=4, default=[1, -3, 5, 2], metavar=('A', 'B', 'O', 'E'))
    args = ap.parse_args()
    k = args.k
    a, b, o, e = args.scoring
    fields = open(args.paf).readline().rstrip('\n').split('\t')
    m, n = int(fields[1]), int(fields[6])
    s0_at, s1_at = int(fields[2]), int(fields[7])
    cigar = next(f[5:] for f in fields if f.startswith('cg:Z:'))
    rho = max((a * (k - 1) + b) / k, a - o / (k - 1))
    credit = a - rho
    lam = min(e, o - credit * (k - 1))
    true = diagonal = gaps = starts = 0
    short = gap_over = 0.0
    run = 0
    # Band moves with hysteresis (gain_table.hpp): a path moves to the next band only once it
    # is W / 2 inside it; band of diagonal d = (d + m) // W.
    d = s1_at - s0_at
    band = (d + m) // args.band if args.band else 0
    moves = 0

    def end_run():
        nonlocal starts, short, run
        starts += max(0, run - k + 1)
        short += credit * max(0, k - 1 - run)
        run = 0

    for length, op in re.findall(r'(\d+)([=XID])', cigar):
        length = int(length)
        if op == '=':
            true += a * length
            diagonal += length
            run += length
        elif op == 'X':
            true += b * length
            diagonal += length
            for _ in range(length):
                end_run()
        else:
            cost = o + (length - 1) * e
            true -= cost
            gaps += length
            gap_over += cost - credit * (k - 1) - lam * length
            end_run()
            d += length if op == 'D' else -length  # D: S1 bases only (the target), I: S0's
            if args.band:
                w = args.band
                while d + m >= (band + 1) * w + w // 2:
                    band, moves = band + 1, moves + 1
                while d + m < band * w - w // 2:
                    band, moves = band - 1, moves + 1
    starts += max(0, run - k + 1)  # the last run: no separator, its tail is the constant
    bound = rho * diagonal + credit * starts - lam * gaps + credit * (k - 1)
    cols = min(m, n)
    print(f'k = {k}: rho {rho:.4f}, a - rho {credit:.4f}, lambda {lam:.4f}; {diagonal} diagonal steps, '
          f'{starts} into k-mer starts, {gaps} gap columns')
    print(f'a column of min(m, n) = {cols}: the path scores {true / cols:.4f}, the argument bounds it by '
          f'{bound / cols:.4f} (+{(bound - true) / cols:.4f}: short runs {short / cols:.4f}, '
          f'gaps {gap_over / cols:.4f})')
    if args.table is not None and args.band:
        uncharged = lam * max(0, gaps - moves * args.band) / cols
        not_taken = rho * (cols - diagonal) / cols
        rest = args.table - bound / cols - uncharged - not_taken
        print(f'the table {args.table:.4f} (+{args.table - bound / cols:.4f} more: gap columns T does not '
              f'charge {uncharged:.4f} ({moves} band moves of {args.band}), diagonal steps not taken '
              f'{not_taken:.4f}, T beyond the path\'s k-mer starts {rest:.4f})')


if __name__ == '__main__':
    main()
