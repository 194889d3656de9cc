//! @file Row 0 and rows kept in memory as RowSources.
#include "engine/traceback/row_source.hpp"

#include <algorithm>

#include "engine/error.hpp"
#include "engine/tiling/tile_executor.hpp"

namespace chromalign {

WindowRow first_row(int64_t from, int64_t to) {
    WindowRow r;
    r.h.assign(static_cast<size_t>(to - from + 2), 0);
    r.f.assign(r.h.size(), kScoreNegInf);
    return r;
}

int64_t best_crossing(const int32_t* h, int64_t from, int64_t to, const CrossingBias& bias) {
    int64_t best = to, value = h[to - from] + bias.at(to);
    for (int64_t c = to - 1; c >= from; --c)
        if (const int64_t v = h[c - from] + bias.at(c); v > value) {
            best = c;
            value = v;
        }
    return best;
}

int64_t RowSource::edge_reach(int64_t row, int64_t to, int64_t least, int64_t gap) {
    int64_t a = lo() - 1, b = to + 1;  // edge_term(row, c) < least for c < a; b is the answer or to + 1
    while (a < b) {
        const int64_t c = a + (b - a) / 2;
        if (edge_term(row, c, gap) >= least)
            b = c;
        else
            a = c + 1;
    }
    return b;
}

int64_t RowSource::crossing_column(int64_t row, int64_t from, const CrossingBias& bias) {
    const WindowRow r = read(row, from, bias.j);
    return best_crossing(r.h.data() + 1, from, bias.j, bias);  // r.h[k] is column from - 1 + k
}


const WindowRow& KeptRows::find(int64_t row) const {
    const auto it = std::lower_bound(rows_.begin(), rows_.end(), row,
                                     [](const WindowRow& r, int64_t x) { return r.row < x; });
    if (it == rows_.end() || it->row != row) throw Error("internal: traceback row " + std::to_string(row) + " not kept");
    return *it;
}

int64_t KeptRows::row_above(int64_t i) const {
    const auto it = std::lower_bound(rows_.begin(), rows_.end(), i,
                                     [](const WindowRow& r, int64_t x) { return r.row < x; });
    return std::prev(it)->row;  // rows_[0] is the top, and i > top
}

WindowRow KeptRows::read(int64_t row, int64_t from, int64_t to) {
    const WindowRow& r = find(row);
    const auto first = static_cast<std::ptrdiff_t>(from - w_.lo), last = static_cast<std::ptrdiff_t>(to - w_.lo + 2);
    WindowRow out;
    out.row = row;
    out.h.assign(r.h.begin() + first, r.h.begin() + last);
    out.f.assign(r.f.begin() + first, r.f.begin() + last);
    return out;
}

int64_t KeptRows::edge_term(int64_t row, int64_t to, int64_t gap) {
    const WindowRow& r = find(row);
    int64_t best = edge_value(0, w_.lo - 1, gap);  // the edge column counts H = 0
    for (int64_t c = w_.lo; c <= to; ++c) best = std::max(best, edge_value(r.h[static_cast<size_t>(c - w_.lo + 1)], c, gap));
    return best;
}

}  // namespace chromalign
