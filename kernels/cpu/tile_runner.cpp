//! @file CpuTileRunner: buses and scratch of one comparison, tiles of each diagonal on the workers.
#include "kernels/cpu/tile_runner.hpp"

#include <algorithm>
#include <string>

#include "engine/error.hpp"
#include "engine/sequence.hpp"

namespace chromalign::kernels::cpu {
namespace {

/// Empty when `top` can start a 16-bit run: a DP row of this scoring has H >= 0, F <= H, and
/// adjacent H differing by -open .. step (the bound the relative lanes rely on).
std::string top_row_problem(const TopRow& top, const CpuScoringTerms& s) {
    int32_t left = top.corner;  // H of the column left of the first one
    for (size_t c = 0; c < top.h.size(); ++c) {
        const int64_t step = int64_t{top.h[c]} - left;
        if (top.h[c] < 0 || top.f[c] > top.h[c] || step < -s.open || step > s.step)
            return "column " + std::to_string(c + 1) + " is not a DP row of this scoring";
        left = top.h[c];
    }
    return {};
}

}  // namespace

CpuTileRunner::CpuTileRunner(const TileGrid& grid, const CpuScoringTerms& scoring, const uint8_t* s0,
                             const uint8_t* s1, const TopRow& top, const CpuKernel& kernel, int threads,
                             SlabEdges edges)
    : grid_(grid), scoring_(scoring), edges_(edges), kernel_(kernel), substitution_(kernel.substitution(scoring)),
      pool_(threads) {
    const int64_t rows = grid.rows_per_band();
    if (grid.threads != kernel.lanes || grid.alpha != kernel.alpha)
        throw Error(std::string("tile grid does not fit the CPU kernel ") + kernel.name);
    if (kernel.lane_bits == 16 && !scoring.relative16_fits(rows, grid.block_cols))
        throw Error("tiles of " + std::to_string(rows) + " x " + std::to_string(grid.block_cols) +
                    " are too large for 16-bit lanes with this scoring");
    if (edges.right && grid.padded_cols() != grid.n)
        throw Error("a slab with a right neighbour needs a grid without padding columns");
    if (!top.empty()) {
        if (static_cast<int64_t>(top.h.size()) != grid.n || top.f.size() != top.h.size())
            throw Error("the starting row has " + std::to_string(top.h.size()) + " columns, the matrix " +
                        std::to_string(grid.n));
        if (kernel.lane_bits == 16)
            if (const std::string why = top_row_problem(top, scoring); !why.empty())
                throw Error("the starting row cannot be used: " + why);
    }

    s0_.assign(static_cast<size_t>(grid.padded_rows()), kBaseOther);
    for (int64_t i = 0; i < grid.m; ++i) s0_[i] = std::min<uint8_t>(s0[i], kBaseOther);

    const int64_t lanes = kernel.lanes, cols = grid.padded_cols();
    const int64_t origin = cols + lanes - 1;  // index of column 0 is origin
    auto window_code = [&](int64_t c) {
        return substitution_.s1_element(c >= 0 && c < grid.n ? s1[c] : int{kBaseOther});
    };
    if (kernel.lane_bits == 16) {
        s1_i16_.resize(static_cast<size_t>(cols + 2 * lanes));
        for (int64_t i = 0; i < cols + 2 * lanes; ++i) s1_i16_[i] = static_cast<int16_t>(window_code(origin - i));
        s1_window_ = s1_i16_.data() + origin;
    } else {
        s1_i32_.resize(static_cast<size_t>(cols + 2 * lanes));
        for (int64_t i = 0; i < cols + 2 * lanes; ++i) s1_i32_[i] = window_code(origin - i);
        s1_window_ = s1_i32_.data() + origin;
    }

    // Row 0 of the DP (H = 0, F = -inf), or the starting row. Padding columns continue a
    // starting row as H decreasing by open per column (clamped at 0): that keeps the adjacent-H
    // bound of the 16-bit lanes across the end of S1. Padding cells are never reported.
    bus_h_.assign(static_cast<size_t>(cols), 0);
    bus_f_.assign(static_cast<size_t>(cols), kScoreNegInf);
    if (!top.empty()) {
        std::copy(top.h.begin(), top.h.end(), bus_h_.begin());
        std::copy(top.f.begin(), top.f.end(), bus_f_.begin());
        for (int64_t c = grid.n; c < cols; ++c) bus_h_[c] = std::max<int32_t>(0, bus_h_[c - 1] - scoring.open);
    }
    vbus_.assign(static_cast<size_t>(grid.blocks + 1) * 2 * (2 * rows + 1), 0);

    workers_.resize(static_cast<size_t>(pool_.workers()));
    const size_t scratch_words = (kernel.scratch_bytes(grid.block_cols) + sizeof(int32_t) - 1) / sizeof(int32_t);
    for (Worker& w : workers_) w.scratch.resize(scratch_words);
}

void CpuTileRunner::run_tile(int64_t d, int64_t block, int worker) {
    const int64_t band = d - block, rows = grid_.rows_per_band(), cols = grid_.block_cols;
    Worker& w = workers_[static_cast<size_t>(worker)];
    TileArgs a;
    a.row0 = band * rows;
    a.col0 = block * cols;
    a.m = grid_.m;
    a.n = grid_.n;
    a.cols = static_cast<int32_t>(cols);
    a.s0 = s0_.data() + a.row0;
    a.s1_window = s1_window_;
    a.bus_h = bus_h_.data() + a.col0;
    a.bus_f = bus_f_.data() + a.col0;
    a.left = block > 0 || edges_.left ? vertical_slot(block, band) : nullptr;
    a.right = block + 1 < grid_.blocks || edges_.right ? vertical_slot(block + 1, band) : nullptr;
    a.scratch = w.scratch.data();
    a.scoring = &scoring_;
    a.threshold = best_score_.load(std::memory_order_relaxed);
    a.best = &w.best;
    substitution_.run(a);
    // Publish a better score so other workers skip cells below it (a stale G is only slower).
    int32_t g = best_score_.load(std::memory_order_relaxed);
    while (w.best.score > g && !best_score_.compare_exchange_weak(g, w.best.score, std::memory_order_relaxed)) {
    }
}

void CpuTileRunner::enqueue_diagonal(int64_t d) {
    const int64_t first = grid_.first_block(d), last = grid_.last_block(d);
    if (first > last) return;
    auto task = [this, d, first](int64_t i, int worker) { run_tile(d, first + i, worker); };
    pool_.run(last - first + 1, task);
}

std::string CpuTileRunner::kernel_name() const {
    return std::string(kernel_.name) + (scoring_.equality ? "" : "/matrix");
}

AlignmentEnd CpuTileRunner::best() {
    AlignmentEnd result;
    for (const Worker& w : workers_) {
        if (w.best.score <= 0) continue;
        const AlignmentEnd cand{w.best.score, w.best.row + 1, w.best.col + 1};
        if (better_end(cand, result)) result = cand;
    }
    return result;
}

// A slot holds row k*A + r of the band (lane k, its row r) at index r*L + k.
void CpuTileRunner::set_left_edge(int64_t band, const int32_t* h, const int32_t* e, int32_t corner) {
    const int64_t rows = grid_.rows_per_band(), lanes = kernel_.lanes, alpha = kernel_.alpha;
    int32_t* slot = vertical_slot(0, band);
    for (int64_t q = 0; q < rows; ++q) {
        slot[q % alpha * lanes + q / alpha] = h[q];
        slot[rows + q % alpha * lanes + q / alpha] = e[q];
    }
    slot[2 * rows] = corner;
}

int64_t CpuTileRunner::right_edge_band(int64_t d) const {
    const int64_t band = d - (grid_.blocks - 1);
    return edges_.right && band >= 0 && band < grid_.bands ? band : -1;
}

void CpuTileRunner::read_right_edge(int64_t band, int32_t* h, int32_t* e) {
    const int64_t rows = grid_.rows_per_band(), lanes = kernel_.lanes, alpha = kernel_.alpha;
    const int32_t* slot = vertical_slot(grid_.blocks, band);
    for (int64_t q = 0; q < rows; ++q) {
        h[q] = slot[q % alpha * lanes + q / alpha];
        e[q] = slot[rows + q % alpha * lanes + q / alpha];
    }
}

void CpuTileRunner::capture_band_bottom(int64_t band, int64_t d, int32_t* h, int32_t* f) {
    const int64_t b = d - band;
    if (b < 0 || b >= grid_.blocks) return;
    const int64_t first = b * grid_.block_cols, last = std::min(first + grid_.block_cols, grid_.n);
    for (int64_t c = first; c < last; ++c) {
        h[c] = bus_h_[c];
        f[c] = bus_f_[c];
    }
}

}  // namespace chromalign::kernels::cpu
