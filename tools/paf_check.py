#!/usr/bin/env python3
"""Checks a chromalign PAF of several alignments per pair (--alignments K) without its code:
each line re-scored from the FASTA files and its cg:Z: CIGAR, no aligned pair shared by two
alignments of one record pair and strand, and the bases of each side covered; with --other
(minimap2's PAF of the same files), what each covers that the other does not.

  tools/paf_check.py S0.fa.gz S1.fa.gz out.paf [--other mm.paf] [--scoring 1,-3,5,2]
"""
import argparse, gzip, re, sys

def records(path):
    seqs, name = {}, None
    for line in (gzip.open if path.endswith('.gz') else open)(path, 'rt'):
        if line.startswith('>'):
            name = line[1:].split()[0]; seqs[name] = []
        else:
            seqs[name].append(line.strip().upper())
    return {k: ''.join(v) for k, v in seqs.items()}

def covered(paf, side):  # side 0: query (S0), 1: target (S1) -> {record: bytearray}
    masks = {}
    for line in open(paf):
        f = line.split('\t')
        name, length, a, b = (f[0], int(f[1]), int(f[2]), int(f[3])) if side == 0 else (f[5], int(f[6]), int(f[7]), int(f[8]))
        m = masks.setdefault(name, bytearray(length))
        m[a:b] = b'\x01' * (b - a)
    return masks

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('s0'); ap.add_argument('s1'); ap.add_argument('paf')
    ap.add_argument('--other'); ap.add_argument('--scoring', default='1,-3,5,2')
    args = ap.parse_args()
    match, mismatch, gap_open, gap_extend = map(int, args.scoring.split(','))
    s0, s1 = records(args.s0), records(args.s1)
    complement = str.maketrans('ACGT', 'TGCA')
    used, failures, count = {}, 0, 0
    for line in open(args.paf):
        f = line.rstrip('\n').split('\t')
        q, t, strand = s0[f[0]], s1[f[5]], f[4]
        i, j = int(f[2]), int(f[7])
        runs = re.findall(r'(\d+)([=XID])', next(x for x in f if x.startswith('cg:Z:'))[5:])
        if strand == '-':  # as compared: S0 against S1's reverse complement, the CIGAR reversed
            t, j, runs = t[::-1].translate(complement), len(t) - int(f[8]), runs[::-1]
        pairs = used.setdefault((f[0], f[5], strand), set())
        score = 0
        for length, op in runs:
            length = int(length)
            if op in '=X':
                for k in range(length):
                    a, b = q[i + k], t[j + k]
                    same = a == b and a in 'ACGT'
                    score += match if same else mismatch
                    if same != (op == '=') or (i + k, j + k) in pairs:
                        failures += 1
                    pairs.add((i + k, j + k))
                i += length; j += length
            else:
                score -= gap_open + (length - 1) * gap_extend
                i, j = (i + length, j) if op == 'I' else (i, j + length)
        if score != int(f[12][5:]):
            failures += 1
            print('does not re-score:', score, line[:100], file=sys.stderr)
        count += 1
    print(f'{count} alignments, {failures} failures (re-scored, = and X, no shared pair)')
    ours = (covered(args.paf, 0), covered(args.paf, 1))
    for side, seqs in ((0, s0), (1, s1)):
        total = sum(len(v) for v in seqs.values())
        mine = sum(sum(m) for m in ours[side].values())
        line = f'S{side}: {mine} of {total} bases covered ({100 * mine / total:.1f}%)'
        if args.other:
            theirs = covered(args.other, side)
            only_ours = sum(sum(1 for x, y in zip(m, theirs.get(r, bytes(len(m)))) if x and not y) for r, m in ours[side].items())
            only_theirs = sum(sum(1 for x, y in zip(m, ours[side].get(r, bytes(len(m)))) if x and not y) for r, m in theirs.items())
            line += f'; the other {sum(sum(m) for m in theirs.values())}; only here {only_ours}, only there {only_theirs}'
        print(line)
    sys.exit(1 if failures else 0)

main()
