#!/usr/bin/env python3
"""Where the gain table's slack goes on one alignment (engine/pruning/gain_table.hpp).

    tools/gain_slack.py ALIGNMENT.paf K [TABLE] [MATCH MISMATCH OPEN EXTEND]

Reads the first PAF line's cg:Z: CIGAR (chromalign --traceback FILE.paf; S0 the query, S1
the target) and scores its path under the table's argument for k = K: rho per diagonal step,
(a - rho) per step into a k-mer start, minus lambda per gap column, plus the tail (a - rho)(k - 1).
It prints, per column of min(m, n) (what the table's gain is counted in), the path's true
score, that bound, and the parts of their difference: identity runs shorter than k - 1 (each
(a - rho)(k - 1 - r) over), and gaps (their cost above what a separator is charged). TABLE is
the table's gain from (0, 0) a column (chromalign-bench prints it, the JSON has
gain_table_per_column); the rest of the slack is then split into the path's gap columns, which
the table does not charge inside a band (lambda each), diagonal steps the path does not take
(rho each of min(m, n) beyond its own), and what T counts beyond the path's k-mer starts.
"""
import re
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    k = int(sys.argv[2])
    table = float(sys.argv[3]) if len(sys.argv) > 3 else None
    a, b, o, e = (int(x) for x in sys.argv[4:8]) if len(sys.argv) > 7 else (1, -3, 5, 2)
    fields = open(sys.argv[1]).readline().rstrip('\n').split('\t')
    m, n = int(fields[1]), int(fields[6])
    cigar = next(f[5:] for f in fields if f.startswith('cg:Z:'))
    rho = max((a * (k - 1) + b) / k, a - o / (k - 1))
    credit = a - rho
    lam = min(e, o - credit * (k - 1))
    true = diagonal = gaps = starts = 0
    short = gap_over = 0.0
    run = 0

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
    starts += max(0, run - k + 1)  # the last run: no separator, its tail is the constant
    bound = rho * diagonal + credit * starts - lam * gaps + credit * (k - 1)
    cols = min(m, n)
    print(f'k = {k}: rho {rho:.4f}, a - rho {credit:.4f}, lambda {lam:.4f}; {diagonal} diagonal steps, '
          f'{starts} into k-mer starts, {gaps} gap columns')
    print(f'a column of min(m, n) = {cols}: the path scores {true / cols:.4f}, the argument bounds it by '
          f'{bound / cols:.4f} (+{(bound - true) / cols:.4f}: short runs {short / cols:.4f}, '
          f'gaps {gap_over / cols:.4f})')
    if table is not None:
        uncharged = lam * gaps / cols
        not_taken = rho * (cols - diagonal) / cols
        print(f'the table {table:.4f} (+{table - bound / cols:.4f} more: gap columns inside a band '
              f'{uncharged:.4f}, diagonal steps not taken {not_taken:.4f}, '
              f'T beyond the path\'s k-mer starts {table - bound / cols - uncharged - not_taken:.4f})')


if __name__ == '__main__':
    main()
