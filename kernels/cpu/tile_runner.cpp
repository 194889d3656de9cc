//! @file CpuTileRunner: buses and scratch of one comparison, tiles of each diagonal on the workers.
#include "kernels/cpu/tile_runner.hpp"

#include <algorithm>
#include <atomic>
#include <string>

#include "engine/error.hpp"
#include "engine/sequence.hpp"

namespace chromalign::kernels::cpu {
namespace {

/// Empty when `top` is a row of lower bounds of a DP row: H >= 0 and F <= H. Rows a run with
/// pruning wrote hold H = 0, F = -inf where it skipped; 16-bit lanes take them too (raise_corner).
std::string top_row_problem(const TopRow& top) {
    for (size_t c = 0; c < top.h.size(); ++c)
        if (top.h[c] < 0 || top.f[c] > top.h[c]) return "column " + std::to_string(c + 1) + " is not a DP row";
    return {};
}

}  // namespace

CpuTileRunner::CpuTileRunner(const TileGrid& grid, const CpuScoringTerms& scoring, const uint8_t* s0,
                             const uint8_t* s1, const TopRow& top, const CpuKernel& kernel, int threads,
                             SlabEdges edges, PruneRule prune, int64_t tile_cols)
    : grid_(grid), tile_cols_(tile_cols > 0 ? std::min(tile_cols, grid.block_cols) : grid.block_cols),
      scoring_(scoring), edges_(edges), kernel_(kernel), substitution_(kernel.substitution(scoring)), prune_(prune),
      pool_(threads) {
    const int64_t rows = grid.rows_per_band();
    if (grid.threads != kernel.lanes || grid.alpha != kernel.alpha)
        throw Error(std::string("tile grid does not fit the CPU kernel ") + kernel.name);
    if (tile_cols_ % kColumnQuantum != 0 || tile_cols_ < 2 * kernel.lanes)
        throw Error("internal: kernel tiles of " + std::to_string(tile_cols_) + " columns");
    if (kernel.lane_bits == 16 && !scoring.relative16_fits(rows, tile_cols_))
        throw Error("tiles of " + std::to_string(rows) + " x " + std::to_string(tile_cols_) +
                    " are too large for 16-bit lanes with this scoring");
    if (edges.right && grid.padded_cols() != grid.n)
        throw Error("a slab with a right neighbour needs a grid without padding columns");
    if (!top.empty()) {
        if (static_cast<int64_t>(top.h.size()) != grid.n || top.f.size() != top.h.size())
            throw Error("the starting row has " + std::to_string(top.h.size()) + " columns, the matrix " +
                        std::to_string(grid.n));
        if (const std::string why = top_row_problem(top); !why.empty())
            throw Error("the starting row cannot be used: " + why);
    }

    s0_ = padded_s0(s0, grid.m, grid.padded_rows());
    const int64_t cols = grid.padded_cols();
    s1_window_ = S1Window(kernel, substitution_, s1, grid.n, cols);

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
    done_.assign(static_cast<size_t>(grid.blocks), 0);
    partial_.assign(static_cast<size_t>(grid.blocks), Partial{});
    if (top.first_band != 0 || !top.steps.empty()) start_from_wavefront(top);

    workers_.resize(static_cast<size_t>(pool_.workers()));
    const size_t scratch_words = (kernel.scratch_bytes(tile_cols_) + sizeof(int32_t) - 1) / sizeof(int32_t);
    for (Worker& w : workers_) {
        w.scratch.resize(scratch_words);
        w.edges.resize(static_cast<size_t>(2 * (2 * rows + 1)));
    }
}

int64_t CpuTileRunner::kernel_tile_cols(int64_t k) const {
    const int64_t count = kernel_tiles(), quanta = grid_.block_cols / kColumnQuantum;
    return (quanta / count + (k < quanta % count ? 1 : 0)) * kColumnQuantum;
}

bool CpuTileRunner::run_tile(int64_t d, int64_t block, int worker) {
    const int64_t band = d - block, rows = grid_.rows_per_band(), cols = grid_.block_cols;
    Worker& w = workers_[static_cast<size_t>(worker)];
    Partial& part = partial_[static_cast<size_t>(block)];
    int32_t* const left = block > 0 || edges_.left ? vertical_slot(block, band) : nullptr;
    int32_t* const right = block + 1 < grid_.blocks || edges_.right ? vertical_slot(block + 1, band) : nullptr;
    // Kernel tiles left to right, the block's quanta shared evenly (none narrower than half
    // of tile_cols_, none wider): each writes its right edge (and the corner above the next
    // one's first column) into a worker slot that the next reads as its left edge. An
    // interrupt between two leaves the rest, with that edge, for later (Partial).
    const int64_t count = kernel_tiles();
    int slot = 0;
    int64_t k = 0, at = 0;
    CellBest tile_best;  // stacked records: this tile's, for its band's record alone
    if (part.tiles > 0) {
        k = part.tiles;
        at = part.cols;
        std::copy(part.edge.begin(), part.edge.end(), w.edges.begin());
    }
    for (; k < count; ++k) {
        int32_t* const tile_left = k == 0 ? left : w.edges.data() + slot * (2 * rows + 1);
        if (k > 0 && interrupt_ && interrupt_()) {
            part.tiles = k;
            part.cols = at;
            part.edge.assign(tile_left, tile_left + 2 * rows + 1);
            return false;
        }
        TileArgs a;
        a.row0 = band * rows;
        a.col0 = block * cols + at;
        a.m = grid_.m;
        a.n = grid_.n;
        a.cols = static_cast<int32_t>(kernel_tile_cols(k));
        a.s0 = s0_.data() + a.row0;
        a.s1_window = s1_window_.at;
        a.bus_h = bus_h_.data() + a.col0;
        a.bus_f = bus_f_.data() + a.col0;
        a.left = tile_left;
        slot ^= 1;
        a.right = k + 1 < count ? w.edges.data() + slot * (2 * rows + 1) : right;
        a.scratch = w.scratch.data();
        a.scoring = &scoring_;
        a.best = stacked_ ? &tile_best : &w.best;
        run_kernel_tile(a, tile_left, w);
        at += a.cols;
    }
    part = Partial{};
    if (stacked_) finish_stacked_tile(band, block, tile_best);
    return true;
}

void CpuTileRunner::stack_records(std::vector<int32_t> band_record) {
    if (static_cast<int64_t>(band_record.size()) != grid_.bands || band_record.empty() || band_record[0] != 0 ||
        prune_.on || next_ > 0)
        throw Error("internal: stack_records on a runner that cannot take them");
    for (size_t b = 1; b < band_record.size(); ++b)
        if (band_record[b] != band_record[b - 1] && band_record[b] != band_record[b - 1] + 1)
            throw Error("internal: stacked records must follow each other band by band");
    stacked_ = std::make_unique<Stacked>();
    const size_t records = static_cast<size_t>(band_record.back()) + 1;
    stacked_->band_record = std::move(band_record);
    stacked_->best.assign(records, CellBest{});
    stacked_->score = std::make_unique<std::atomic<int32_t>[]>(records);
    for (size_t r = 0; r < records; ++r) stacked_->score[r].store(0, std::memory_order_relaxed);
}

void CpuTileRunner::finish_stacked_tile(int64_t band, int64_t block, const CellBest& tile_best) {
    const std::vector<int32_t>& of = stacked_->band_record;
    const int32_t record = of[static_cast<size_t>(band)];
    if (tile_best.score > 0) {
        const std::lock_guard<std::mutex> lock(stacked_->mutex);
        CellBest& best = stacked_->best[static_cast<size_t>(record)];
        if (better_end(AlignmentEnd{tile_best.score, tile_best.row, tile_best.col},
                       AlignmentEnd{best.score, best.row, best.col}))
            best = tile_best;
        stacked_->score[record].store(best.score, std::memory_order_relaxed);
        raise_best_score(best.score);
    }
    // The next tile of this block column, in the next diagonal, reads these columns as its top.
    if (band + 1 < grid_.bands && of[static_cast<size_t>(band) + 1] != record) {
        const auto first = bus_h_.begin() + block * grid_.block_cols;
        std::fill(first, first + grid_.block_cols, 0);
        std::fill(bus_f_.begin() + block * grid_.block_cols, bus_f_.begin() + (block + 1) * grid_.block_cols,
                  kScoreNegInf);
    }
}

std::vector<AlignmentEnd> CpuTileRunner::record_bests() {
    if (!stacked_) throw Error("internal: record_bests without stacked records");
    std::vector<AlignmentEnd> bests;
    for (const CellBest& b : stacked_->best)
        bests.push_back(b.score > 0 ? AlignmentEnd{b.score, b.row + 1, b.col + 1} : AlignmentEnd{});
    return bests;
}

void CpuTileRunner::run_kernel_tile(TileArgs& a, int32_t* left, Worker& w) {
    const int64_t rows = grid_.rows_per_band();
    // Stacked records: a cell is tracked against its own record's best alone.
    a.threshold = stacked_ ? stacked_->score[stacked_->band_record[static_cast<size_t>(a.row0 / rows)]].load(
                                 std::memory_order_relaxed)
                           : best_score_.load(std::memory_order_relaxed);
    const int32_t g = std::max({a.threshold, w.best.score, shared_best_.load(std::memory_order_relaxed)});
    PruneRule rule = prune_;
    if (table_ready_.load(std::memory_order_acquire)) rule.table = table_;
    rule.span_rows = rows;  // the tile and its inputs: rows [row0, row0 + R], columns [col0, col0 + cols]
    rule.span_cols = a.cols;
    const int64_t gain = rule.on ? rule.gain(a.row0, a.col0) : 0;
    if (!rule.live_by(gain, g) && tile_dead(rule, a, gain, g)) {
        skip_tile(a);
        const int64_t real_rows = std::clamp<int64_t>(grid_.m - a.row0, 0, rows);
        const int64_t real_cols = std::clamp<int64_t>(grid_.n - a.col0, 0, a.cols);
        w.pruned += real_rows * real_cols;
        return;
    }
    if (kernel_.lane_bits == 16 && left) raise_corner(a, left);
    substitution_.run(a);
    raise_best_score(w.best.score);  // other workers then track and prune against it
}

void CpuTileRunner::share_gain_table(const GainView& view) {
    if (table_ready_.load(std::memory_order_relaxed)) return;  // one table per comparison
    table_ = view;
    table_ready_.store(true, std::memory_order_release);
}

bool CpuTileRunner::tile_dead(const PruneRule& rule, const TileArgs& a, int64_t gain, int32_t g) const {
    const int64_t rows = grid_.rows_per_band();
    int32_t input_max = 0;  // column 0 of the DP, without a left edge: H = 0
    if (a.left) input_max = std::max(*std::max_element(a.left, a.left + rows), a.left[2 * rows]);
    input_max = std::max(input_max, *std::max_element(a.bus_h, a.bus_h + a.cols));
    return rule.dead_by(input_max, gain, g);
}

void CpuTileRunner::skip_tile(const TileArgs& a) const {
    const int64_t rows = grid_.rows_per_band();
    const int32_t corner_out = a.bus_h[a.cols - 1];  // H(row0 - 1, last column): the next tile's corner
    std::fill(a.bus_h, a.bus_h + a.cols, 0);
    std::fill(a.bus_f, a.bus_f + a.cols, kScoreNegInf);
    if (a.right) {
        std::fill(a.right, a.right + rows, 0);
        std::fill(a.right + rows, a.right + 2 * rows, kScoreNegInf);
        a.right[2 * rows] = corner_out;
    }
}

// The 16-bit kernel keeps H - base, base = the corner H(row0 - 1, col0 - 1), and needs every
// input within (R + C + 2) * step of it (tile_kernel_impl.hpp). Exact inputs are, as adjacent
// DP cells differ by at most step. Inputs from skipped regions are lower bounds, and a corner
// far below the live inputs beside it would put them out of range. But the true corner is at
// least every input x minus step per cell between them, so the largest such value is still a
// lower bound of it: with it as the corner, every input is at most step per cell above the
// base, inputs below saturate to values that stay below their true ones, and the cells on any
// path that avoids skipped regions are computed exactly. With exact inputs it changes nothing.
void CpuTileRunner::raise_corner(const TileArgs& a, int32_t* left) const {
    const int64_t rows = grid_.rows_per_band(), lanes = kernel_.lanes, alpha = kernel_.alpha;
    int64_t corner = left[2 * rows];
    for (int64_t c = 0; c < a.cols; ++c) corner = std::max(corner, a.bus_h[c] - scoring_.step * (c + 1));
    for (int64_t q = 0; q < rows; ++q)  // row q of the band sits at lane q / alpha, index r * lanes + lane
        corner = std::max(corner, left[q % alpha * lanes + q / alpha] - scoring_.step * (q + 1));
    left[2 * rows] = static_cast<int32_t>(corner);
}

void CpuTileRunner::raise_best_score(int32_t g) {
    int32_t seen = best_score_.load(std::memory_order_relaxed);
    while (g > seen && !best_score_.compare_exchange_weak(seen, g, std::memory_order_relaxed)) {
    }
}

int64_t CpuTileRunner::cells_pruned() {
    int64_t cells = 0;
    for (const Worker& w : workers_) cells += w.pruned;
    return cells;
}

void CpuTileRunner::enqueue_diagonal(int64_t d) {
    enqueued_ = std::max(enqueued_, d);
    // Each tile needs those of the diagonal before it: what an interrupt left runs first.
    for (; next_ <= d; ++next_)
        if (!run_diagonal(next_)) return;
}

bool CpuTileRunner::run_diagonal(int64_t d) {
    // Block b runs band d - b: those past last_band_ are left of d - last_band_.
    const int64_t first = std::max(grid_.first_block(d), d - last_band_), last = grid_.last_block(d);
    if (first > last) return true;
    std::atomic<bool> left{false};
    auto task = [&](int64_t i, int worker) {
        const int64_t b = first + i;
        if (d - b != done_[static_cast<size_t>(b)]) return;  // finished before a wavefront start
        if (interrupt_ && interrupt_()) {
            left.store(true, std::memory_order_relaxed);
            return;
        }
        if (run_tile(d, b, worker)) {
            ++done_[static_cast<size_t>(b)];  // this worker's block alone in this diagonal
            if (regions_.peaks) fold_region_peaks(d - b, b);
        } else
            left.store(true, std::memory_order_relaxed);
    };
    pool_.run(last - first + 1, task);
    if (keep_every_ > 0)
        for (int64_t b = first; b <= last; ++b) {
            const int64_t band = d - b;
            if ((band + 1) % keep_every_ != 0) continue;
            const size_t at = static_cast<size_t>(band / keep_every_ * grid_.n);
            capture_band_bottom(band, d, kept_h_.data() + at, kept_f_.data() + at);
        }
    return !left.load(std::memory_order_relaxed);
}

void CpuTileRunner::keep_band_bottoms(int64_t every) {
    keep_every_ = every;
    const size_t cells = static_cast<size_t>(grid_.bands / every * grid_.n);
    kept_h_.assign(cells, 0);
    kept_f_.assign(cells, 0);
}

void CpuTileRunner::kept_band_bottoms(int64_t band, int64_t count, int64_t from, int64_t to, int32_t* h, int32_t* f) {
    if (keep_every_ == 0 || (band + 1) % keep_every_ != 0 || band + (count - 1) * keep_every_ >= grid_.bands ||
        from < 0 || to > grid_.n)
        throw Error("internal: band " + std::to_string(band) + " was not kept");
    for (int64_t k = 0; k < count; ++k) {
        const auto at = static_cast<std::ptrdiff_t>((band / keep_every_ + k) * grid_.n);
        std::copy(kept_h_.begin() + at + from, kept_h_.begin() + at + to, h + k * (to - from));
        std::copy(kept_f_.begin() + at + from, kept_f_.begin() + at + to, f + k * (to - from));
    }
}

void CpuTileRunner::kept_band_maxima(int64_t slope, int64_t block, int64_t* out) {
    const int64_t runs = (grid_.n + block - 1) / block;
    for (int64_t k = 0; k < (keep_every_ > 0 ? grid_.bands / keep_every_ : 0); ++k)
        for (int64_t r = 0; r < runs; ++r) {
            int64_t best = INT64_MIN;
            for (int64_t c = r * block; c < std::min(grid_.n, (r + 1) * block); ++c)
                best = std::max(best, std::max<int64_t>(0, kept_h_[static_cast<size_t>(k * grid_.n + c)]) + slope * c);
            out[k * runs + r] = best;
        }
}

std::string CpuTileRunner::kernel_name() const {
    return std::string(kernel_.name) + (scoring_.equality ? "" : "/matrix");
}

AlignmentEnd CpuTileRunner::best() {
    AlignmentEnd result;
    if (stacked_) {
        for (const AlignmentEnd& e : record_bests()) result = better_of(e, result);
        return result;
    }
    for (const Worker& w : workers_) {
        if (w.best.score <= 0) continue;
        const AlignmentEnd cand{w.best.score, w.best.row + 1, w.best.col + 1};
        if (better_end(cand, result)) result = cand;
    }
    return result;
}

void CpuTileRunner::put_slot(int32_t* slot, const int32_t* h, const int32_t* e, int32_t corner) const {
    const int64_t rows = grid_.rows_per_band(), lanes = kernel_.lanes, alpha = kernel_.alpha;
    for (int64_t q = 0; q < rows; ++q) {
        slot[q % alpha * lanes + q / alpha] = h[q];
        slot[rows + q % alpha * lanes + q / alpha] = e[q];
    }
    slot[2 * rows] = corner;
}

void CpuTileRunner::get_slot(const int32_t* slot, int32_t* h, int32_t* e) const {
    const int64_t rows = grid_.rows_per_band(), lanes = kernel_.lanes, alpha = kernel_.alpha;
    for (int64_t q = 0; q < rows; ++q) {
        h[q] = slot[q % alpha * lanes + q / alpha];
        e[q] = slot[rows + q % alpha * lanes + q / alpha];
    }
}

void CpuTileRunner::set_left_edge(int64_t band, const int32_t* h, const int32_t* e, int32_t corner) {
    // A stacked record's first band starts from row 0: its corner is 0 whatever lies above.
    const bool starts_record = stacked_ && band > 0 && stacked_->band_record[static_cast<size_t>(band)] !=
                                                           stacked_->band_record[static_cast<size_t>(band) - 1];
    put_slot(vertical_slot(0, band), h, e, starts_record ? 0 : corner);
}

int64_t CpuTileRunner::right_edge_band(int64_t d) const {
    // Bands finished before a wavefront start were sent then; an interrupt may leave the band.
    const int64_t band = d - (grid_.blocks - 1);
    return edges_.right && band >= start_last_ && band < done_.back() ? band : -1;
}

void CpuTileRunner::read_right_edge(int64_t band, int32_t* h, int32_t* e) {
    get_slot(vertical_slot(grid_.blocks, band), h, e);
}

// Block b has finished done_[b] bands: its columns of the bus hold the bottom row of band
// done_[b] - 1, but the first part.cols of them, which hold band done_[b]'s when an interrupt
// left that band's tile after part.tiles kernel tiles (part.edge: their right edge). It lags
// block b - 1 by gap = done_[b - 1] - done_[b] bands: 1 between two diagonals, 0 or 2 where an
// interrupt left the tile of one and not the other, 0 too where neither has begun. The left
// edges of its next `gap` bands are in its slots (b, done_[b]) and (b, done_[b] + 1), written
// by block b - 1's tiles of those bands; their next writers, the tiles of bands done_[b] + 2
// and + 3, have not run.
int64_t CpuTileRunner::take_wavefront(std::vector<int32_t>& h, std::vector<int32_t>& f, std::vector<StairStep>& steps,
                                      bool last) {
    const int64_t rows = grid_.rows_per_band();
    if (rows_only_ || done_[0] >= grid_.bands) return -1;  // block 0's last row may be past the matrix
    steps.clear();
    const int64_t rows0 = (done_[0] + (partial_[0].tiles > 0 ? 1 : 0)) * rows;
    const auto rows_out = [&] {  // after the steps: a step's corner may be in the bus
        if (last && rows0 > 0) {  // (at 0 the caller may take band 0's row from the bus instead)
            h.swap(bus_h_);
            f.swap(bus_f_);
            h.resize(static_cast<size_t>(grid_.n));  // the padding columns go
            f.resize(h.size());
        } else {
            h.assign(bus_h_.begin(), bus_h_.begin() + grid_.n);
            f.assign(bus_f_.begin(), bus_f_.begin() + grid_.n);
        }
    };
    const auto add_partial = [&](int64_t b) {  // the rest of block b, a band above its first part
        const Partial& part = partial_[static_cast<size_t>(b)];
        if (part.tiles == 0) return;
        StairStep s;
        s.col = b * grid_.block_cols + part.cols;
        s.row = done_[static_cast<size_t>(b)] * rows;
        s.corner = part.edge[static_cast<size_t>(2 * rows)];
        s.h.resize(static_cast<size_t>(rows));
        s.e.resize(s.h.size());
        get_slot(part.edge.data(), s.h.data(), s.e.data());
        steps.push_back(std::move(s));
    };
    add_partial(0);
    for (int64_t b = 1; b < grid_.blocks; ++b) {
        const int64_t ahead = partial_[static_cast<size_t>(b)].tiles > 0 ? 1 : 0;  // its first part's band
        const int64_t done = done_[static_cast<size_t>(b)] + ahead, gap = done_[static_cast<size_t>(b - 1)] - done;
        if (gap < 0 || gap + ahead > 2)
            throw Error("internal: block column " + std::to_string(b) + " lags " + std::to_string(gap) + " bands");
        StairStep s;
        s.col = b * grid_.block_cols;
        s.row = done * rows;
        if (gap == 0) {  // the bus holds both at the same row
            s.corner = bus_h_[static_cast<size_t>(s.col - 1)];
        } else {
            s.corner = vertical_slot(b, done)[2 * rows];
            s.h.resize(static_cast<size_t>(gap * rows));
            s.e.resize(s.h.size());
            for (int64_t k = 0; k < gap; ++k)
                get_slot(vertical_slot(b, done + k), s.h.data() + k * rows, s.e.data() + k * rows);
        }
        steps.push_back(std::move(s));
        add_partial(b);
    }
    rows_out();
    return rows0;
}

void CpuTileRunner::start_from_wavefront(const TopRow& top) {
    const int64_t rows = grid_.rows_per_band(), cols = grid_.block_cols;
    const auto mismatch = [&](const std::string& why) {
        return WavefrontMismatch("the wavefront to start from does not fit this grid (" + why + "; " +
                                 grid_.describe() + ")");
    };
    if (top.empty() || top.first_band < 0 || top.first_band >= grid_.bands)
        throw mismatch("block 0 at band " + std::to_string(top.first_band));
    size_t next = 0;  // the next step to read
    // A step inside block b, a band below the block's first part: where an interrupt left it.
    const auto partial = [&](int64_t b, int64_t above) {
        if (next == top.steps.size() || top.steps[next].col >= (b + 1) * cols) return above;
        const StairStep& s = top.steps[next++];
        Partial& part = partial_[static_cast<size_t>(b)];
        part.cols = s.col - b * cols;
        int64_t at = 0;  // the kernel tiles left of the step, whole
        while (part.tiles < kernel_tiles() && at < part.cols) at += kernel_tile_cols(part.tiles++);
        if (at != part.cols || part.tiles == 0 || part.tiles >= kernel_tiles() || s.row != above - rows || above < rows ||
            static_cast<int64_t>(s.h.size()) != rows || s.e.size() != s.h.size())
            throw mismatch("step at column " + std::to_string(s.col) + ", row " + std::to_string(s.row));
        part.edge.assign(static_cast<size_t>(2 * rows + 1), 0);
        put_slot(part.edge.data(), s.h.data(), s.e.data(), s.corner);
        return s.row;
    };
    const int64_t row0 = partial(0, top.first_band * rows);
    done_[0] = row0 / rows;
    first_diagonal_ = done_[0];
    for (int64_t b = 1; b < grid_.blocks; ++b) {
        if (next == top.steps.size()) throw mismatch("no step for block column " + std::to_string(b));
        const StairStep& s = top.steps[next++];
        const int64_t first = s.row / rows, gap = done_[static_cast<size_t>(b - 1)] - first;
        if (s.col != b * cols || s.row % rows != 0 || gap < 0 || gap > 2 ||
            static_cast<int64_t>(s.h.size()) != gap * rows || s.e.size() != s.h.size())
            throw mismatch("step at column " + std::to_string(s.col) + ", row " + std::to_string(s.row));
        // The corner above a band's left edge is the row above it: the step's, then the
        // last row of the band before.
        for (int64_t k = 0; k < gap; ++k)
            put_slot(vertical_slot(b, first + k), s.h.data() + k * rows, s.e.data() + k * rows,
                     k == 0 ? s.corner : s.h[static_cast<size_t>(k * rows - 1)]);
        const int64_t done = partial(b, s.row) / rows;
        if (done_[static_cast<size_t>(b - 1)] - done > 2) throw mismatch("block column " + std::to_string(b) + " lags too far");
        done_[static_cast<size_t>(b)] = done;
        first_diagonal_ = std::min(first_diagonal_, done + b);
    }
    if (next != top.steps.size()) throw mismatch(std::to_string(top.steps.size()) + " steps");
    start_last_ = done_.back();
    next_ = first_diagonal_;
}

void CpuTileRunner::capture_band_bottom(int64_t band, int64_t d, int32_t* h, int32_t* f) {
    const int64_t b = d - band;
    // Only a block whose bus holds that band's bottom (not one an interrupt left before it).
    if (b < 0 || b >= grid_.blocks || done_[static_cast<size_t>(b)] != band + 1) return;
    const int64_t first = b * grid_.block_cols, last = std::min(first + grid_.block_cols, grid_.n);
    for (int64_t c = first; c < last; ++c) {
        h[c] = bus_h_[c];
        f[c] = bus_f_[c];
    }
    // The last block column ends the band, and with it the region's earlier bands.
    const auto wanted = regions_.wanted.find(band);
    if (b + 1 != grid_.blocks || wanted == regions_.wanted.end()) return;
    const auto [region, out] = wanted->second;
    const int64_t runs = regions_.layout.runs;
    for (int64_t r = 0; r < runs; ++r) out[r] = regions_.peaks[static_cast<size_t>(region * runs + r)];
    regions_.wanted.erase(wanted);
}

void CpuTileRunner::track_region_peaks(int64_t first_col, int64_t block, int64_t bands_per_region,
                                       int64_t band_offset) {
    RegionMap& m = regions_;
    m.layout = RegionLayout(first_col, block, bands_per_region, band_offset, grid_.n);
    const auto cells = static_cast<size_t>(m.layout.cells(grid_.bands));
    m.peaks = std::make_unique<std::atomic<int32_t>[]>(cells);
    for (size_t k = 0; k < cells; ++k) m.peaks[k].store(0, std::memory_order_relaxed);
}

void CpuTileRunner::capture_region_peaks(int64_t band, int64_t region, int32_t* out) {
    regions_.wanted[band] = {region, out};
}

void CpuTileRunner::fold_region_peaks(int64_t band, int64_t b) {
    const RegionLayout& m = regions_.layout;
    if (!region_peak_band(band, m.per_region, m.offset)) return;
    const int64_t at = m.region_base(band);
    const int64_t first = b * grid_.block_cols, last = std::min(first + grid_.block_cols, grid_.n);
    for (int64_t c = first; c < last;) {
        const int64_t run = m.run_of(c), end = std::min(last, m.run_end(run));
        const int32_t top = *std::max_element(bus_h_.begin() + c, bus_h_.begin() + end);
        std::atomic<int32_t>& peak = regions_.peaks[static_cast<size_t>(at + run)];  // blocks sharing a run fold at once
        for (int32_t seen = peak.load(std::memory_order_relaxed); top > seen;)
            if (peak.compare_exchange_weak(seen, top, std::memory_order_relaxed)) break;
        c = end;
    }
}

}  // namespace chromalign::kernels::cpu
