//! @file A slab's left edge column, row by row: what its left neighbour sent and it has not yet
//! used, and the rows a checkpoint of it keeps.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "engine/error.hpp"

namespace chromalign {

/// H and E of the column left of a slab (its left neighbour's last column) for the rows after
/// `first()`, with H(first()) as the corner. Rows arrive in order, in messages of any length
/// (a neighbour that resumed from another row, or with another band height, cuts them
/// elsewhere); bands take them R at a time. Rows are forgotten only when told, so that a
/// checkpoint can keep those between its own row and its neighbour's.
class LeftColumn {
public:
    /// Rows 1..row are behind; H(row) is `corner`; `h` and `e` hold rows row+1 on.
    void reset(int64_t row, int32_t corner, const std::vector<int32_t>& h = {}, const std::vector<int32_t>& e = {}) {
        first_ = row;
        corner_ = corner;
        h_.assign(h.begin(), h.end());
        e_.assign(e.begin(), e.end());
    }

    int64_t first() const { return first_; }
    /// The last row held (first() when none).
    int64_t end() const { return first_ + static_cast<int64_t>(h_.size()); }

    /// Appends rows row0+1 .. row0+h.size(). Rows already held, or already forgotten, are
    /// skipped: a neighbour that resumed above this slab sends them again. A gap throws.
    void append(int64_t row0, const std::vector<int32_t>& h, const std::vector<int32_t>& e) {
        if (row0 > end())
            throw Error("internal: the left neighbour sent rows from " + std::to_string(row0 + 1) + ", rows " +
                        std::to_string(end() + 1) + " to " + std::to_string(row0) + " are missing");
        for (size_t k = static_cast<size_t>(end() - row0); k < h.size(); ++k) {
            h_.push_back(h[k]);
            e_.push_back(e[k]);
        }
    }

    /// Whether rows row0+1 .. row0+rows are held (and H(row0) with them).
    bool has(int64_t row0, int64_t rows) const { return row0 >= first_ && row0 + rows <= end(); }

    /// H(row) for a row in [first(), end()].
    int32_t h_at(int64_t row) const { return row == first_ ? corner_ : h_[static_cast<size_t>(row - first_ - 1)]; }

    /// Rows row0+1 .. row0+rows into h and e (has() must hold); returns H(row0).
    int32_t copy(int64_t row0, int64_t rows, int32_t* h, int32_t* e) const {
        const size_t at = static_cast<size_t>(row0 - first_);
        for (size_t k = 0; k < static_cast<size_t>(rows); ++k) {
            h[k] = h_[at + k];
            e[k] = e_[at + k];
        }
        return h_at(row0);
    }

    /// Rows from+1 .. to as vectors (has(from, to - from) must hold).
    void rows(int64_t from, int64_t to, std::vector<int32_t>& h, std::vector<int32_t>& e) const {
        h.resize(static_cast<size_t>(to - from));
        e.resize(h.size());
        copy(from, to - from, h.data(), e.data());
    }

    /// Forgets the rows before `row` (at most end()); H(row) stays, as the corner.
    void forget_before(int64_t row) {
        row = std::min(row, end());
        if (row <= first_) return;
        corner_ = h_at(row);
        const size_t drop = static_cast<size_t>(row - first_);
        h_.erase(h_.begin(), h_.begin() + static_cast<std::ptrdiff_t>(drop));
        e_.erase(e_.begin(), e_.begin() + static_cast<std::ptrdiff_t>(drop));
        first_ = row;
    }

private:
    int64_t first_ = 0;
    int32_t corner_ = 0;
    std::deque<int32_t> h_, e_;
};

}  // namespace chromalign
