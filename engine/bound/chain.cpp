//! @file chain_blocks: a quadratic chaining DP over the blocks (a mapper returns hundreds, not
//! millions, for a chromosome pair).
#include "engine/bound/chain.hpp"

#include <algorithm>
#include <cstdlib>

namespace chromalign {

int64_t path_score(const MatrixPath& path, const Sequence& s0, const Sequence& s1, const Scoring& scoring) {
    int64_t score = 0, i = path.s0_from, j = path.s1_from;
    for (const PathRun& r : path.runs) {
        if (r.op == 'M') {
            for (int64_t c = 0; c < r.length; ++c, ++i, ++j)
                score += scoring.score(s0.codes[static_cast<size_t>(i)], s1.codes[static_cast<size_t>(j)]);
        } else {
            score -= scoring.gap_run_cost(r.length);
            (r.op == 'I' ? i : j) += r.length;
        }
    }
    return score;
}

namespace {

/// The bridge from the end of one block to the start of the next: `di` bases of S0 and `dj`
/// of S1 (both >= 0), with its estimated score, and whether it runs diagonally.
struct Bridge {
    int64_t score = 0;
    bool diagonal = true;
};

/// How diagonal columns of a bridge are expected to score: the first `related` of them as the
/// blocks score on average (a short gap between two blocks is mostly related sequence the
/// mapper's seeds missed), the rest as unrelated sequence does (the mean of the matrix): a
/// long one is mostly not related, and crediting it as the blocks would let a chain skip a
/// block as if the gap aligned as well as the block does.
struct BridgeRates {
    double related = 0, unrelated = 0;
    static constexpr int64_t kRelatedColumns = 1000;
};

Bridge bridge(int64_t di, int64_t dj, const BridgeRates& rates, const Scoring& scoring) {
    const int64_t pairs = std::min(di, dj), near = std::min(pairs, BridgeRates::kRelatedColumns);
    const int64_t diagonal = static_cast<int64_t>(static_cast<double>(near) * rates.related +
                                                  static_cast<double>(pairs - near) * rates.unrelated) -
                             scoring.gap_run_cost(std::llabs(di - dj));
    const int64_t gaps = -scoring.gap_run_cost(di) - scoring.gap_run_cost(dj);
    return diagonal >= gaps ? Bridge{diagonal, true} : Bridge{gaps, false};
}

/// Bridges of at most this many cells are aligned exactly (global alignment, quadratic
/// memory for its traceback); larger ones take the estimate's path.
constexpr int64_t kExactBridgeCells = int64_t{1} << 24;

/// The best global path from after (i0, j0) to (i0 + di, j0 + dj), gaps costed as rescore()
/// does (Gotoh; one byte of traceback per cell), appended to `path`.
void add_exact_bridge(MatrixPath& path, int64_t i0, int64_t j0, int64_t di, int64_t dj, const Sequence& s0,
                      const Sequence& s1, const Scoring& scoring) {
    constexpr int32_t kNone = INT32_MIN / 2;
    const int32_t open = scoring.gap_open, ext = std::min(scoring.gap_extend, scoring.gap_open);
    const size_t w = static_cast<size_t>(dj + 1);
    // Bits of a cell: 0-1 the state H came from (0 pair, 1 'I' gap, 2 'D' gap); 2 the 'I' gap
    // extends the one above; 3 the 'D' gap extends the one on the left.
    std::vector<uint8_t> trace(static_cast<size_t>(di + 1) * w);
    std::vector<int32_t> h(w), up_gap(w, kNone);  // row i - 1's H and 'I' gap values, then row i's
    h[0] = 0;
    for (size_t j = 1; j < w; ++j) {
        h[j] = -(open + static_cast<int32_t>(j - 1) * ext);
        trace[j] = 2 | (j > 1 ? 8 : 0);
    }
    for (int64_t i = 1; i <= di; ++i) {
        int32_t diag = h[0], left_gap = kNone;
        uint8_t* row = &trace[static_cast<size_t>(i) * w];
        up_gap[0] = h[0] - (i > 1 ? ext : open);
        h[0] = up_gap[0];
        row[0] = 1 | (i > 1 ? 4 : 0);
        for (size_t j = 1; j < w; ++j) {
            const int32_t open_up = h[j] - open, extend_up = up_gap[j] - ext;
            up_gap[j] = std::max(open_up, extend_up);
            const int32_t open_left = h[j - 1] - open, extend_left = left_gap - ext;
            left_gap = std::max(open_left, extend_left);
            const int32_t pair = diag + scoring.score(s0.codes[static_cast<size_t>(i0 + i - 1)],
                                                      s1.codes[static_cast<size_t>(j0 + static_cast<int64_t>(j) - 1)]);
            diag = h[j];
            uint8_t bits = (extend_up > open_up ? 4 : 0) | (extend_left > open_left ? 8 : 0);
            int32_t best = pair;
            if (up_gap[j] > best) best = up_gap[j], bits |= 1;
            if (left_gap > best) best = left_gap, bits = static_cast<uint8_t>((bits & ~3) | 2);
            h[j] = best;
            row[j] = bits;
        }
    }
    std::vector<PathRun> back;  // the path from its end
    int64_t i = di, j = dj;
    int state = trace[static_cast<size_t>(i) * w + static_cast<size_t>(j)] & 3;
    while (i > 0 || j > 0) {
        const uint8_t bits = trace[static_cast<size_t>(i) * w + static_cast<size_t>(j)];
        if (state == 0) {
            back.push_back(PathRun{'M', 1});
            --i, --j;
            state = trace[static_cast<size_t>(i) * w + static_cast<size_t>(j)] & 3;
        } else if (state == 1) {
            back.push_back(PathRun{'I', 1});
            --i;
            state = bits & 4 ? 1 : trace[static_cast<size_t>(i) * w + static_cast<size_t>(j)] & 3;
        } else {
            back.push_back(PathRun{'D', 1});
            --j;
            state = bits & 8 ? 2 : trace[static_cast<size_t>(i) * w + static_cast<size_t>(j)] & 3;
        }
    }
    for (auto r = back.rbegin(); r != back.rend(); ++r) path.add(r->op, r->length);
}

void add_bridge(MatrixPath& path, int64_t di, int64_t dj, bool diagonal) {
    if (diagonal) {
        path.add('M', std::min(di, dj));
        path.add(di > dj ? 'I' : 'D', std::llabs(di - dj));
    } else {
        path.add('I', di);
        path.add('D', dj);
    }
}

/// Blocks that overlap by up to this many bases in S0 or S1 may still be chained, the later
/// one cut to start after the earlier one: minimap2 aligns the pieces of S1 each on their own,
/// and the alignments of two neighbouring pieces often overlap by a few bases in S0.
constexpr int64_t kOverlap = 1000;

/// `path` without its first columns, up to the first place at or beyond (i, j).
MatrixPath trimmed(const MatrixPath& path, int64_t i, int64_t j) {
    MatrixPath out;
    out.s0_from = path.s0_from, out.s1_from = path.s1_from;
    for (const PathRun& r : path.runs) {
        int64_t drop = 0;
        if (out.s0_from < i || out.s1_from < j) {
            const int64_t need_i = r.op == 'D' ? 0 : std::max<int64_t>(0, i - out.s0_from);
            const int64_t need_j = r.op == 'I' ? 0 : std::max<int64_t>(0, j - out.s1_from);
            drop = std::min(r.length, std::max(need_i, need_j));
            if (r.op != 'D') out.s0_from += drop;
            if (r.op != 'I') out.s1_from += drop;
        }
        out.add(r.op, r.length - drop);
    }
    return out;
}

/// Gaps at least this long split a block in two: a mapper may join two alignments across a
/// long indel that costs more than either side scores (a 17 kbp one in an 80 kbp related
/// pair), and a block is chained whole. Split, the chain decides, with the gap as a bridge.
constexpr int64_t kSplitGap = 100;

/// `blocks` cut at their gaps of kSplitGap columns or more (the gaps left out).
std::vector<MatrixPath> split_at_long_gaps(const std::vector<MatrixPath>& blocks) {
    std::vector<MatrixPath> parts;
    for (const MatrixPath& block : blocks) {
        MatrixPath part;
        part.s0_from = block.s0_from, part.s1_from = block.s1_from;
        int64_t i = block.s0_from, j = block.s1_from;
        for (const PathRun& r : block.runs) {
            if (r.op != 'M' && r.length >= kSplitGap) {
                if (!part.runs.empty()) parts.push_back(std::move(part));
                (r.op == 'I' ? i : j) += r.length;
                part = MatrixPath{};
                part.s0_from = i, part.s1_from = j;
                continue;
            }
            part.add(r.op, r.length);
            if (r.op != 'D') i += r.length;
            if (r.op != 'I') j += r.length;
        }
        if (!part.runs.empty()) parts.push_back(std::move(part));
    }
    return parts;
}

}  // namespace

MatrixPath chain_blocks(std::vector<MatrixPath> blocks, const Sequence& s0, const Sequence& s1, const Scoring& scoring) {
    MatrixPath chain;
    blocks = split_at_long_gaps(blocks);
    if (blocks.empty()) return chain;
    std::sort(blocks.begin(), blocks.end(), [](const MatrixPath& a, const MatrixPath& b) {
        return a.s0_from != b.s0_from ? a.s0_from < b.s0_from : a.s1_from < b.s1_from;
    });
    const size_t k = blocks.size();
    std::vector<int64_t> own(k), best(k), s0_to(k), s1_to(k);
    std::vector<size_t> from(k);
    BridgeRates rates;  // the blocks' average where they align, the mean of the matrix
    double scored = 0, columns = 0;
    for (const auto& row : scoring.matrix)
        for (const int32_t s : row) rates.unrelated += s / 16.0;
    for (size_t b = 0; b < k; ++b) {
        own[b] = path_score(blocks[b], s0, s1, scoring);
        s0_to[b] = blocks[b].s0_to();
        s1_to[b] = blocks[b].s1_to();
        if (own[b] <= 0) continue;
        scored += static_cast<double>(own[b]);
        columns += static_cast<double>(std::max(s0_to[b] - blocks[b].s0_from, s1_to[b] - blocks[b].s1_from));
    }
    rates.related = columns > 0 ? std::max(rates.unrelated, scored / columns) : rates.unrelated;
    // Invariant: best[b] is the highest estimated score of a chain that ends with block b,
    // and from[b] the block before b in it (b itself when b starts it).
    for (size_t b = 0; b < k; ++b) {
        best[b] = own[b];
        from[b] = b;
        for (size_t a = 0; a < b; ++a) {
            if (s0_to[a] > blocks[b].s0_from + kOverlap || s1_to[a] > blocks[b].s1_from + kOverlap ||
                s0_to[a] >= s0_to[b] || s1_to[a] >= s1_to[b])
                continue;
            const int64_t di = std::max<int64_t>(0, blocks[b].s0_from - s0_to[a]),
                          dj = std::max<int64_t>(0, blocks[b].s1_from - s1_to[a]);
            const int64_t via = best[a] + own[b] + bridge(di, dj, rates, scoring).score;
            if (via > best[b]) {
                best[b] = via;
                from[b] = a;
            }
        }
    }
    std::vector<size_t> order;
    for (size_t b = static_cast<size_t>(std::max_element(best.begin(), best.end()) - best.begin());; b = from[b]) {
        order.push_back(b);
        if (from[b] == b) break;
    }
    std::reverse(order.begin(), order.end());
    chain.s0_from = blocks[order.front()].s0_from;
    chain.s1_from = blocks[order.front()].s1_from;
    for (size_t t = 0; t < order.size(); ++t) {
        const size_t b = order[t];
        if (t == 0) {
            for (const PathRun& r : blocks[b].runs) chain.add(r.op, r.length);
            continue;
        }
        const size_t a = order[t - 1];
        const MatrixPath block = trimmed(blocks[b], s0_to[a], s1_to[a]);
        const int64_t di = block.s0_from - s0_to[a], dj = block.s1_from - s1_to[a];
        if ((di + 1) * (dj + 1) <= kExactBridgeCells)
            add_exact_bridge(chain, s0_to[a], s1_to[a], di, dj, s0, s1, scoring);
        else
            add_bridge(chain, di, dj, bridge(di, dj, rates, scoring).diagonal);
        for (const PathRun& r : block.runs) chain.add(r.op, r.length);
    }
    return chain;
}

}  // namespace chromalign
