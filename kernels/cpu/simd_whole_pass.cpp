//! @file SimdTileWaves: tiles as bands of the SIMD kernel, their edges and best cells.
#include "kernels/cpu/simd_whole_pass.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <vector>

#include "engine/declump/dependency_order.hpp"
#include "engine/declump/tile_lanes.hpp"
#include "engine/threads/for_each_worker.hpp"
#include "engine/tiling/tile_executor.hpp"

namespace chromalign::kernels::cpu {
namespace {

constexpr int kAlpha = 8;
/// Columns of one kernel call at most: a tile's width is cut into calls of about this many,
/// so that 16-bit lanes (relative to each call's corner) fit the default scoring's tiles.
constexpr int64_t kCallCols = 2048;
/// Columns of a barred tile's blocks (SimdTileWaves::compute), at least two lane widths.
constexpr int64_t kBarredStrip = 256;

/// A tile's width cut into kernel calls: none wider than kCallCols, none narrower than `least`
/// but where the whole width is (then padded to `least`).
std::vector<int64_t> call_widths(int64_t width, int64_t least) {
    const int64_t calls = (width + kCallCols - 1) / kCallCols;
    std::vector<int64_t> widths(static_cast<size_t>(calls), width / calls);
    for (int64_t k = 0; k < width % calls; ++k) ++widths[static_cast<size_t>(k)];
    if (widths.size() == 1) widths[0] = std::max(widths[0], least);
    return widths;
}

}  // namespace

void SimdTileWaves::bind(const Sequence&, const Sequence&) {
    const std::lock_guard<std::mutex> one(setting_up_);
    setup_.reset();
}

const SimdTileWaves::Setup* SimdTileWaves::setup(const Sequence& s0, const Sequence& s1, const Scoring& scoring) {
    const std::lock_guard<std::mutex> one(setting_up_);
    if (setup_ && setup_->s0 == &s0 && setup_->s1 == &s1 && setup_->scoring == &scoring) return setup_.get();
    setup_.reset();
    auto s = std::make_unique<Setup>();
    s->terms = cpu_scoring_terms(scoring);
    // 16-bit lanes where every call's tile fits them (twice the lanes), else 32-bit ones.
    for (const int bits : {16, 32}) {
        const CpuKernel* k = find_cpu_kernel(isa_, bits, kAlpha);
        if (k == nullptr || (bits == 16 && !s->terms.relative16_fits(k->lanes * kAlpha, kCallCols))) continue;
        s->kernel = k;
        break;
    }
    if (s->kernel == nullptr) return nullptr;
    s->s0 = &s0;
    s->s1 = &s1;
    s->scoring = &scoring;
    s->lanes = s->kernel->lanes;
    s->rows = int64_t{s->lanes} * kAlpha;
    // S0 a band past its end; S1 two lane widths past its end (a narrow last tile is padded
    // to that).
    const int64_t m = s0.length(), n = s1.length();
    s->codes0 = padded_s0(s0.codes.data(), m, m + s->rows);
    s->window = S1Window(*s->kernel, s->kernel->substitution(s->terms), s1.codes.data(), n, n + 2 * int64_t{s->lanes});
    setup_ = std::move(s);
    return setup_.get();
}

void SimdTileWaves::bands(const Setup& s, const Block& t, CellBest& best) {
    const int L = s.lanes;
    const int64_t R = s.rows;
    const std::vector<int64_t> widths = call_widths(t.width, 2 * L);
    const size_t edge = static_cast<size_t>(2 * R + 1);
    std::vector<int32_t> left(edge), right(edge), slots(2 * edge), scratch((s.kernel->scratch_bytes(kCallCols) + 3) / 4);
    const CpuSubstitution& substitution = s.kernel->substitution(s.terms);
    for (int64_t band = 0; band < t.rows; band += R) {
        // The left edge in lane-vector order: [r * L + l] is the band's row l * A + r.
        if (t.left_h) {
            for (int r = 0; r < kAlpha; ++r)
                for (int l = 0; l < L; ++l) {
                    const int64_t i = band + int64_t{l} * kAlpha + r;
                    const bool real = t.row0 + i < t.last_row;
                    left[static_cast<size_t>(r * L + l)] = real ? t.left_h[i] : 0;
                    left[static_cast<size_t>(R + r * L + l)] = real ? t.left_e[i] : kScoreNegInf;
                }
            left[static_cast<size_t>(2 * R)] = band > 0 ? t.left_h[band - 1] : t.corner;
        }
        int64_t at = 0;
        int slot = 0;
        for (size_t k = 0; k < widths.size(); ++k) {
            TileArgs a;
            a.row0 = t.row0 + band;
            a.col0 = t.col0 + at;
            a.m = t.last_row;
            a.n = t.last_col;
            a.cols = static_cast<int32_t>(widths[k]);
            a.s0 = s.codes0.data() + a.row0;
            a.s1_window = s.window.at;
            a.bus_h = t.bus_h + at;
            a.bus_f = t.bus_f + at;
            a.left = k == 0 ? (t.left_h ? left.data() : nullptr) : slots.data() + slot * edge;
            slot ^= 1;
            a.right = k + 1 < widths.size() ? slots.data() + slot * edge : t.right_h ? right.data() : nullptr;
            a.scratch = scratch.data();
            a.scoring = &s.terms;
            a.best = &best;
            substitution.run(a);
            at += widths[k];
        }
        if (t.right_h)
            for (int r = 0; r < kAlpha; ++r)
                for (int l = 0; l < L; ++l) {
                    const int64_t i = band + int64_t{l} * kAlpha + r;
                    if (t.row0 + i >= t.last_row) continue;
                    t.right_h[i] = right[static_cast<size_t>(r * L + l)];
                    t.right_e[i] = right[static_cast<size_t>(R + r * L + l)];
                }
    }
}

bool SimdTileWaves::whole_pass(const Sequence& s0, const Sequence& s1, const Scoring& scoring, WholePass& out) {
    const int64_t m = s0.length(), n = s1.length(), tr = out.tile_rows, tc = out.tile_cols;
    if (m == 0 || n == 0 || tc < 1) return false;
    const Setup* s = setup(s0, s1, scoring);
    if (s == nullptr || tr % s->rows != 0) return false;
    out.keep = false;  // said before meanwhile: the grid's vectors take the edges
    if (out.meanwhile) out.meanwhile();
    const int64_t tile_bands = (m + tr - 1) / tr, columns = (n + tc - 1) / tc;
    out.peaks->assign(static_cast<size_t>(tile_bands * columns), 0);
    std::atomic<int64_t> done{0};
    std::mutex telling;
    auto last = std::chrono::steady_clock::now();
    // Tile (b, c) reads band b's top row and column c's left one, and writes band b + 1's and
    // column c + 1's over its own columns and rows, which only tiles after it read.
    run_in_dependency_order(tile_bands, columns, std::max(1, threads_), [&](int64_t b, int64_t c) {
        if (out.stop && *out.stop != 0) search_interrupted(*out.stop);
        const int64_t col0 = c * tc, width = std::min(tc, n - col0), top = b * tr, rows = std::min(tr, m - top);
        const int64_t padded = std::max(width, 2 * int64_t{s->lanes});  // see call_widths
        // The bus: H and F of the tile's top row, then of each band's bottom one.
        std::vector<int32_t> bus_h(static_cast<size_t>(padded), 0), bus_f(bus_h.size(), kScoreNegInf);
        if (b > 0) {
            const std::vector<int32_t>& h = (*out.row_h)[static_cast<size_t>(b)];
            const std::vector<int32_t>& f = (*out.row_f)[static_cast<size_t>(b)];
            std::copy(h.begin() + col0 + 1, h.begin() + col0 + 1 + width, bus_h.begin());
            std::copy(f.begin() + col0 + 1, f.begin() + col0 + 1 + width, bus_f.begin());
        }
        // Padding continues the row down by open a column (at least 0), as stage 1's does: the
        // 16-bit lanes' bound between adjacent cells holds across it.
        for (int64_t j = width; j < padded; ++j)
            bus_h[static_cast<size_t>(j)] = std::max<int32_t>(0, bus_h[static_cast<size_t>(j - 1)] - s->terms.open);
        Block t;
        t.row0 = top;
        t.rows = (rows + s->rows - 1) / s->rows * s->rows;
        t.col0 = col0;
        t.width = width;
        t.last_row = m;
        t.last_col = n;
        t.bus_h = bus_h.data();
        t.bus_f = bus_f.data();
        if (c > 0) {
            t.left_h = (*out.col_h)[static_cast<size_t>(c)].data() + top;
            t.left_e = (*out.col_e)[static_cast<size_t>(c)].data() + top;
            t.corner = b > 0 ? (*out.row_h)[static_cast<size_t>(b)][static_cast<size_t>(col0)] : 0;
        }
        if (c + 1 < columns) {
            t.right_h = (*out.col_h)[static_cast<size_t>(c + 1)].data() + top;
            t.right_e = (*out.col_e)[static_cast<size_t>(c + 1)].data() + top;
        }
        CellBest best;
        bands(*s, t, best);
        if (b + 1 < tile_bands) {
            std::vector<int32_t>& h = (*out.row_h)[static_cast<size_t>(b + 1)];
            std::vector<int32_t>& f = (*out.row_f)[static_cast<size_t>(b + 1)];
            std::copy(bus_h.begin(), bus_h.begin() + width, h.begin() + col0 + 1);
            std::copy(bus_f.begin(), bus_f.begin() + width, f.begin() + col0 + 1);
        }
        (*out.peaks)[static_cast<size_t>(b * columns + c)] = best.score;
        const int64_t cells = done += rows * width;
        if (out.on_cells) {
            const std::lock_guard<std::mutex> one(telling);
            if (std::chrono::steady_clock::now() - last >= std::chrono::seconds(1)) {
                last = std::chrono::steady_clock::now();
                out.on_cells(cells);
            }
        }
    });
    return true;
}

int64_t SimdTileWaves::rows_at_speed(const Sequence& s0, const Sequence& s1, const Scoring& scoring) {
    const Setup* s = setup(s0, s1, scoring);
    return s ? s->rows : 1;
}

void SimdTileWaves::run(const Sequence& s0, const Sequence& s1, const Scoring& scoring, std::vector<TileTask>& tasks,
                        int threads) {
    // Tiles at least two lane widths wide with no pair barred go to the kernel, of whole bands
    // or with no bottom row wanted (padded to whole bands, the rows past them never the best);
    // the others to the portable lanes, first, with every thread.
    const Setup* s = tasks.empty() ? nullptr : setup(s0, s1, scoring);
    std::vector<TileTask> others;
    std::vector<size_t> simd, other_at;
    for (size_t k = 0; k < tasks.size(); ++k) {
        const TileTask& t = tasks[k];
        const bool bottom = t.sink.bottom_h || t.sink.bottom_f;
        const bool fits = s && !t.sink.full && t.rect.cols() >= 2 * s->lanes &&
                          (t.rect.rows() % s->rows == 0 || !bottom);
        (fits ? simd : other_at).push_back(k);
    }
    for (const size_t k : other_at) others.push_back(std::move(tasks[k]));
    CpuTileWaves::run(s0, s1, scoring, others, threads);
    for (size_t x = 0; x < other_at.size(); ++x) tasks[other_at[x]] = std::move(others[x]);
    std::atomic<size_t> next{0};
    for_each_worker(std::max(1, std::min(threads, static_cast<int>(simd.size()))), [&](int) {
        for (size_t x; (x = next++) < simd.size();) {
            compute(*s, tasks[simd[x]], std::max(1, threads / static_cast<int>(simd.size())));
        }
    });
}

void SimdTileWaves::compute(const Setup& s, TileTask& t, int threads) {
    // Rows padded to whole bands: those past the tile are never the best, and the bottom row
    // is wanted only of tiles of whole bands.
    const int64_t cols = t.rect.cols(), rows = (t.rect.rows() + s.rows - 1) / s.rows * s.rows;
    std::vector<int32_t> bus_h(t.edges.top_h + 1, t.edges.top_h + 1 + cols);
    std::vector<int32_t> bus_f(t.edges.top_f + 1, t.edges.top_f + 1 + cols);
    const bool barred = !t.barred.empty();
    const int64_t chunk = barred ? s.rows : rows, down = rows / chunk;
    const int64_t across = barred ? std::max<int64_t>(1, cols / std::max(kBarredStrip, 2 * int64_t{s.lanes})) : 1;
    std::vector<int64_t> at(static_cast<size_t>(across + 1), 0);  // strip b: columns at[b] .. at[b + 1] - 1
    for (int64_t b = 0; b < across; ++b) at[static_cast<size_t>(b + 1)] = cols * (b + 1) / across;
    // Between strips b and b + 1: strip b's last column, H and E, over all rows.
    std::vector<std::vector<int32_t>> edge_h(static_cast<size_t>(across - 1), std::vector<int32_t>(static_cast<size_t>(rows)));
    std::vector<std::vector<int32_t>> edge_e = edge_h;
    std::vector<AlignmentEnd> bests(static_cast<size_t>(down * across));
    run_in_dependency_order(down, across, threads, [&](int64_t a, int64_t b) {
        const int64_t top = a * chunk, left = at[static_cast<size_t>(b)], width = at[static_cast<size_t>(b + 1)] - left;
        const size_t before = static_cast<size_t>(b - 1);
        const int32_t* left_h = b > 0 ? edge_h[before].data() + top : t.edges.left_h ? t.edges.left_h + top : nullptr;
        const int32_t* left_e = b > 0 ? edge_e[before].data() + top : t.edges.left_e ? t.edges.left_e + top : nullptr;
        // H(row0 - 1, col0 - 1): the top edge, the left edge, or the strip before's last column.
        const int32_t corner = a == 0 ? t.edges.top_h[left] : left_h ? left_h[-1] : 0;
        int32_t* right_h = b + 1 < across ? edge_h[static_cast<size_t>(b)].data() + top : t.sink.right_h ? t.sink.right_h + top : nullptr;
        int32_t* right_e = b + 1 < across ? edge_e[static_cast<size_t>(b)].data() + top : t.sink.right_e ? t.sink.right_e + top : nullptr;
        const Rect r{t.rect.top + top, std::min(t.rect.top + top + chunk, t.rect.bottom), t.rect.left + left,
                     t.rect.left + left + width};
        const std::vector<std::pair<int64_t, int64_t>> bars = barred_in(t.barred, r);
        AlignmentEnd& best = bests[static_cast<size_t>(a * across + b)];
        if (bars.empty()) {
            Block k;
            k.row0 = r.top;
            k.rows = chunk;  // the last band's rows past the tile are padding
            k.col0 = r.left;
            k.width = width;
            k.last_row = t.rect.bottom;
            k.last_col = t.rect.right;
            k.bus_h = bus_h.data() + left;
            k.bus_f = bus_f.data() + left;
            k.left_h = left_h;
            k.left_e = left_e;
            k.corner = corner;
            k.right_h = right_h;
            k.right_e = right_e;
            CellBest c;
            bands(s, k, c);
            if (c.score > 0) best = AlignmentEnd{c.score, c.row + 1, c.col + 1};
            return;
        }
        // The lanes read the row above with its corner first, and write the bottom row apart.
        std::vector<int32_t> above_h(static_cast<size_t>(width + 1)), above_f(above_h.size());
        above_h[0] = corner;
        std::copy(bus_h.begin() + left, bus_h.begin() + left + width, above_h.begin() + 1);
        std::copy(bus_f.begin() + left, bus_f.begin() + left + width, above_f.begin() + 1);
        std::vector<int32_t> zeros, no_gaps;  // column 0 of the matrix, where there is no left edge
        if (!left_h) {
            zeros.assign(static_cast<size_t>(r.rows()), 0);
            no_gaps.assign(static_cast<size_t>(r.rows()), kNoGap);
        }
        const TileEdges edges{above_h.data(), above_f.data(), left_h ? left_h : zeros.data(), left_e ? left_e : no_gaps.data()};
        best = tile_dp_lanes(*s.s0, *s.s1, *s.scoring, r, edges, bars,
                             TileSink{bus_h.data() + left, bus_f.data() + left, right_h, right_e, nullptr});
    });
    if (t.sink.bottom_h) std::copy(bus_h.begin(), bus_h.end(), t.sink.bottom_h);
    if (t.sink.bottom_f) std::copy(bus_f.begin(), bus_f.end(), t.sink.bottom_f);
    // The tie rule orders every cell: the best of the blocks' bests is the tile's.
    AlignmentEnd best;
    for (const AlignmentEnd& e : bests)
        if (e.score > 0) best = better_of(e, best);
    t.best = best;
    t.cell_unknown = false;
}

}  // namespace chromalign::kernels::cpu
