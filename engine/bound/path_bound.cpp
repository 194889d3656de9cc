//! @file best_stretch: a maximum-sum segment (Kadane's scan) over the columns of a path.
#include "engine/bound/path_bound.hpp"

#include <algorithm>
#include <string>

#include "engine/error.hpp"

namespace chromalign {

void MatrixPath::add(char op, int64_t length) {
    if (length <= 0) return;
    if (!runs.empty() && runs.back().op == op)
        runs.back().length += length;
    else
        runs.push_back(PathRun{op, length});
}

int64_t MatrixPath::s0_to() const {
    int64_t i = s0_from;
    for (const PathRun& r : runs) i += r.op == 'D' ? 0 : r.length;
    return i;
}

int64_t MatrixPath::s1_to() const {
    int64_t j = s1_from;
    for (const PathRun& r : runs) j += r.op == 'I' ? 0 : r.length;
    return j;
}

namespace {

/// A place on the path: before column `column` (counted from the path's start), after i bases
/// of S0 and j of S1.
struct PathPlace {
    int64_t column = 0, i = 0, j = 0;
};

}  // namespace

Alignment best_stretch(const MatrixPath& path, const Sequence& s0, const Sequence& s1, const Scoring& scoring) {
    if (path.s0_from < 0 || path.s1_from < 0 || path.s0_to() > s0.length() || path.s1_to() > s1.length())
        throw Error("internal: a bound path leaves the matrix (" + std::to_string(path.s0_to()) + " x " +
                    std::to_string(path.s1_to()) + " of " + std::to_string(s0.length()) + " x " +
                    std::to_string(s1.length()) + ")");
    // Invariant: `score` is the best score of a stretch that ends at the current place and
    // starts at `start` (an 'M' column), or <= 0 when no stretch ending here is worth keeping.
    int64_t score = 0, best = 0;
    PathPlace at{0, path.s0_from, path.s1_from}, start, best_start, best_end;
    for (const PathRun& r : path.runs) {
        if (r.op != 'M') {
            score -= scoring.gap_run_cost(r.length);
            at.column += r.length;
            (r.op == 'I' ? at.i : at.j) += r.length;
            continue;
        }
        for (int64_t c = 0; c < r.length; ++c) {
            if (score <= 0) {
                score = 0;
                start = at;
            }
            score += scoring.score(s0.codes[static_cast<size_t>(at.i)], s1.codes[static_cast<size_t>(at.j)]);
            ++at.column, ++at.i, ++at.j;
            if (score > best) {
                best = score;
                best_start = start;
                best_end = at;
            }
        }
    }
    Alignment a;
    if (best <= 0) return a;
    a.score = static_cast<int32_t>(std::min<int64_t>(best, INT32_MAX));
    a.s0_start = best_start.i + 1, a.s1_start = best_start.j + 1;
    a.s0_end = best_end.i, a.s1_end = best_end.j;
    // The stretch's runs: walk the path again over columns [best_start, best_end).
    const auto add = [&a](char op, int64_t length) {
        if (length <= 0) return;
        if (!a.runs.empty() && a.runs.back().op == op)
            a.runs.back().length += length;
        else
            a.runs.push_back(AlignmentRun{op, length});
    };
    PathPlace p{0, path.s0_from, path.s1_from};
    for (const PathRun& r : path.runs) {
        const int64_t from = std::max(p.column, best_start.column), to = std::min(p.column + r.length, best_end.column);
        if (r.op != 'M') {
            add(r.op, to - from);
        } else {
            for (int64_t c = from; c < to; ++c) {
                const uint8_t x = s0.codes[static_cast<size_t>(p.i + c - p.column)];
                const uint8_t y = s1.codes[static_cast<size_t>(p.j + c - p.column)];
                add(x == y && x < 4 ? '=' : 'X', 1);
            }
        }
        p.column += r.length;
        if (r.op != 'D') p.i += r.length;
        if (r.op != 'I') p.j += r.length;
        if (p.column >= best_end.column) break;
    }
    return a;
}

}  // namespace chromalign
