//! @file Gotoh (1982) with every cell's moves kept, and the walk back from the best cell.
#include "kernels/reference/traceback.hpp"

#include <algorithm>
#include <vector>

#include "engine/error.hpp"

namespace chromalign {
namespace {

/// Which moves give a cell its values (bits of one byte per cell).
enum Move : uint8_t {
    kDiagonal = 1,    ///< H(i, j) = H(i-1, j-1) + s(i, j)
    kFresh = 2,       ///< ... and H(i-1, j-1) = 0: the alignment may start at (i, j)
    kFromF = 4,       ///< H(i, j) = F(i, j)
    kFromE = 8,       ///< H(i, j) = E(i, j)
    kFOpens = 16,     ///< F(i, j) = H(i-1, j) - open
    kEOpens = 32,     ///< E(i, j) = H(i, j-1) - open
};

/// Prepends one column of kind `op` to runs kept in reverse order.
void add(std::vector<AlignmentRun>& reversed, char op) {
    if (!reversed.empty() && reversed.back().op == op)
        ++reversed.back().length;
    else
        reversed.push_back({op, 1});
}

}  // namespace

std::vector<std::pair<int64_t, int64_t>> aligned_pairs(const Alignment& a) {
    std::vector<std::pair<int64_t, int64_t>> pairs;
    int64_t i = a.s0_start, j = a.s1_start;
    for (const AlignmentRun& r : a.runs) {
        for (int64_t k = 0; k < r.length; ++k) {
            if (r.op == '=' || r.op == 'X') pairs.emplace_back(i, j);
            if (r.op != 'D') ++i;
            if (r.op != 'I') ++j;
        }
    }
    return pairs;
}

void UsedPairs::add(const Alignment& a) {
    for (const auto& [i, j] : aligned_pairs(a)) {
        std::vector<int64_t>& row = columns_.at(static_cast<size_t>(i));
        row.insert(std::lower_bound(row.begin(), row.end(), j), j);
    }
}

bool UsedPairs::has(int64_t i, int64_t j) const {
    const std::vector<int64_t>& r = row(i);
    return std::binary_search(r.begin(), r.end(), j);
}

Alignment reference_traceback(const Sequence& s0, const Sequence& s1, const Scoring& sc, const UsedPairs* used) {
    const int64_t m = s0.length(), n = s1.length();
    sc.check_no_overflow(m, n);
    if (m > 0 && n > 0 && !traceback_fits(m, n))
        throw Error("reference_traceback: " + std::to_string(m) + " x " + std::to_string(n) + " cells is too many");
    const int64_t kNegInf = INT64_MIN / 4;
    const size_t width = static_cast<size_t>(n + 1);
    std::vector<uint8_t> moves(static_cast<size_t>(m + 1) * width, 0);
    std::vector<int64_t> h_prev(width, 0), h_cur(width, 0), f(width, kNegInf);
    int64_t best = 0, end_i = 0, end_j = 0;
    for (int64_t i = 1; i <= m; ++i) {
        int64_t e = kNegInf;
        h_cur[0] = 0;
        const std::vector<int64_t>* held = used ? &used->row(i) : nullptr;
        size_t next_held = 0;  // the first of row i's held columns not yet passed
        for (int64_t j = 1; j <= n; ++j) {
            const bool barred = held && next_held < held->size() && (*held)[next_held] == j;
            next_held += barred ? 1 : 0;
            uint8_t mv = 0;
            const int64_t e_open = h_cur[j - 1] - sc.gap_open, f_open = h_prev[j] - sc.gap_open;
            e = std::max(e - sc.gap_extend, e_open);
            f[j] = std::max(f[j] - sc.gap_extend, f_open);
            if (e == e_open) mv |= kEOpens;
            if (f[j] == f_open) mv |= kFOpens;
            const int64_t diag = barred ? kNegInf : h_prev[j - 1] + sc.score(s0.codes[i - 1], s1.codes[j - 1]);
            const int64_t h = std::max({int64_t{0}, diag, e, f[j]});
            if (h > 0 && h == diag) mv |= kDiagonal | (h_prev[j - 1] == 0 ? kFresh : 0);
            if (h > 0 && h == f[j]) mv |= kFromF;
            if (h > 0 && h == e) mv |= kFromE;
            moves[static_cast<size_t>(i) * width + static_cast<size_t>(j)] = mv;
            h_cur[j] = h;
            if (h > best) {  // strict: the first cell in row-major order keeps a tie
                best = h;
                end_i = i;
                end_j = j;
            }
        }
        std::swap(h_prev, h_cur);
    }
    Alignment a;
    if (best == 0) return a;
    a.score = static_cast<int32_t>(best);
    a.s0_end = end_i;
    a.s1_end = end_j;
    std::vector<AlignmentRun> reversed;
    enum State { kH, kE, kF } state = kH;
    int64_t i = end_i, j = end_j;
    for (;;) {
        const uint8_t mv = moves[static_cast<size_t>(i) * width + static_cast<size_t>(j)];
        if (state == kH) {
            if (mv & kDiagonal) {
                const uint8_t x = s0.codes[i - 1], y = s1.codes[j - 1];
                add(reversed, x < kBaseOther && x == y ? '=' : 'X');
                if (mv & kFresh) break;
                --i;
                --j;
            } else if (mv & kFromF) {
                state = kF;
            } else if (mv & kFromE) {
                state = kE;
            } else {
                throw Error("reference_traceback: no move into cell " + std::to_string(i) + ", " + std::to_string(j));
            }
        } else if (state == kF) {
            add(reversed, 'I');
            if (mv & kFOpens) state = kH;
            --i;
        } else {
            add(reversed, 'D');
            if (mv & kEOpens) state = kH;
            --j;
        }
    }
    a.s0_start = i;
    a.s1_start = j;
    a.runs.assign(reversed.rbegin(), reversed.rend());
    return a;
}

}  // namespace chromalign
