//! @file SimdTileWaves::whole_pass: each tile as bands of the SIMD kernel, its edges and peak.
#include "kernels/cpu/simd_whole_pass.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <vector>

#include "engine/declump/dependency_order.hpp"
#include "engine/tiling/tile_executor.hpp"

namespace chromalign::kernels::cpu {
namespace {

constexpr int kAlpha = 8;
/// Columns of one kernel call at most: a tile's width is cut into calls of about this many,
/// so that 16-bit lanes (relative to each call's corner) fit the default scoring's tiles.
constexpr int64_t kCallCols = 2048;

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

bool SimdTileWaves::whole_pass(const Sequence& s0, const Sequence& s1, const Scoring& scoring, WholePass& out) {
    const int64_t m = s0.length(), n = s1.length(), tr = out.tile_rows, tc = out.tile_cols;
    const CpuScoringTerms terms = cpu_scoring_terms(scoring);
    // 16-bit lanes where every call's tile fits them (twice the lanes), else 32-bit ones.
    const CpuKernel* kernel = nullptr;
    for (const int bits : {16, 32}) {
        const CpuKernel* k = find_cpu_kernel(isa_, bits, kAlpha);
        if (k == nullptr || tr % (k->lanes * kAlpha) != 0) continue;
        if (bits == 16 && !terms.relative16_fits(k->lanes * kAlpha, kCallCols)) continue;
        kernel = k;
        break;
    }
    if (kernel == nullptr || m == 0 || n == 0 || tc < 1) return false;
    out.keep = false;  // said before meanwhile: the grid's vectors take the edges
    if (out.meanwhile) out.meanwhile();
    const int L = kernel->lanes;
    const int64_t R = int64_t{L} * kAlpha;
    const int64_t bands = (m + tr - 1) / tr, columns = (n + tc - 1) / tc;
    const int64_t last_width = n - (columns - 1) * tc;
    const int64_t cols = (columns - 1) * tc + std::max<int64_t>(last_width, 2 * L);  // padding included
    const CpuSubstitution& substitution = kernel->substitution(terms);

    // S0 padded to whole bands; S1 as the kernel's window (column c at index -c), padded.
    std::vector<uint8_t> codes0(static_cast<size_t>(bands * tr + R), kBaseOther);
    for (int64_t i = 0; i < m; ++i) codes0[static_cast<size_t>(i)] = std::min<uint8_t>(s0.codes[static_cast<size_t>(i)], kBaseOther);
    const int64_t origin = cols + L - 1;
    const auto window_code = [&](int64_t c) {
        return substitution.s1_element(c >= 0 && c < n ? s1.codes[static_cast<size_t>(c)] : int{kBaseOther});
    };
    std::vector<int16_t> window16;
    std::vector<int32_t> window32;
    const void* window = nullptr;
    if (kernel->lane_bits == 16) {
        window16.resize(static_cast<size_t>(cols + 2 * L));
        for (int64_t i = 0; i < cols + 2 * L; ++i) window16[static_cast<size_t>(i)] = static_cast<int16_t>(window_code(origin - i));
        window = window16.data() + origin;
    } else {
        window32.resize(static_cast<size_t>(cols + 2 * L));
        for (int64_t i = 0; i < cols + 2 * L; ++i) window32[static_cast<size_t>(i)] = window_code(origin - i);
        window = window32.data() + origin;
    }

    out.peaks->assign(static_cast<size_t>(bands * columns), 0);
    std::atomic<int64_t> done{0};
    std::mutex telling;
    auto last = std::chrono::steady_clock::now();
    // Tile (b, c) reads band b's top row and column c's left one, and writes band b + 1's and
    // column c + 1's over its own columns and rows, which only tiles after it read.
    run_in_dependency_order(bands, columns, std::max(1, threads_), [&](int64_t b, int64_t c) {
        if (out.stop && *out.stop != 0) search_interrupted(*out.stop);
        const int64_t col0 = c * tc, width = std::min(tc, n - col0), top = b * tr, rows = std::min(tr, m - top);
        const std::vector<int64_t> widths = call_widths(width, 2 * L);
        const int64_t padded = std::max(width, widths.back());
        // The bus: H and F of the row above the band, then the band's bottom row.
        std::vector<int32_t> bus_h(static_cast<size_t>(padded), 0), bus_f(bus_h.size(), kScoreNegInf);
        if (b > 0) {
            const std::vector<int32_t>& h = (*out.row_h)[static_cast<size_t>(b)];
            const std::vector<int32_t>& f = (*out.row_f)[static_cast<size_t>(b)];
            std::copy(h.begin() + col0 + 1, h.begin() + col0 + 1 + width, bus_h.begin());
            std::copy(f.begin() + col0 + 1, f.begin() + col0 + 1 + width, bus_f.begin());
        }
        // Padding continues the row down by open a column (at least 0), as stage 1's does: the
        // 16-bit lanes' bound between adjacent cells holds across it.
        for (int64_t j = width; j < padded; ++j) bus_h[static_cast<size_t>(j)] = std::max<int32_t>(0, bus_h[static_cast<size_t>(j - 1)] - terms.open);
        const size_t edge = static_cast<size_t>(2 * R + 1);
        std::vector<int32_t> left(edge), right(edge), slots(2 * edge), scratch((kernel->scratch_bytes(kCallCols) + 3) / 4);
        const std::vector<int32_t>* in_h = c > 0 ? &(*out.col_h)[static_cast<size_t>(c)] : nullptr;
        const std::vector<int32_t>* in_e = c > 0 ? &(*out.col_e)[static_cast<size_t>(c)] : nullptr;
        std::vector<int32_t>* out_h = c + 1 < columns ? &(*out.col_h)[static_cast<size_t>(c + 1)] : nullptr;
        std::vector<int32_t>* out_e = c + 1 < columns ? &(*out.col_e)[static_cast<size_t>(c + 1)] : nullptr;
        CellBest best;
        for (int64_t row0 = top; row0 < top + rows; row0 += R) {
            // The left edge in lane-vector order: [r * L + l] is row row0 + l * A + r (0-based).
            if (in_h) {
                for (int r = 0; r < kAlpha; ++r)
                    for (int l = 0; l < L; ++l) {
                        const int64_t i = row0 + int64_t{l} * kAlpha + r;
                        left[static_cast<size_t>(r * L + l)] = i < m ? (*in_h)[static_cast<size_t>(i)] : 0;
                        left[static_cast<size_t>(R + r * L + l)] = i < m ? (*in_e)[static_cast<size_t>(i)] : kScoreNegInf;
                    }
                left[static_cast<size_t>(2 * R)] =
                    row0 > top ? (*in_h)[static_cast<size_t>(row0 - 1)] : b > 0 ? (*out.row_h)[static_cast<size_t>(b)][static_cast<size_t>(col0)] : 0;
            }
            int64_t at = 0;
            int slot = 0;
            for (size_t k = 0; k < widths.size(); ++k) {
                TileArgs a;
                a.row0 = row0;
                a.col0 = col0 + at;
                a.m = m;
                a.n = n;
                a.cols = static_cast<int32_t>(widths[k]);
                a.s0 = codes0.data() + row0;
                a.s1_window = window;
                a.bus_h = bus_h.data() + at;
                a.bus_f = bus_f.data() + at;
                a.left = k == 0 ? (in_h ? left.data() : nullptr) : slots.data() + slot * edge;
                slot ^= 1;
                a.right = k + 1 < widths.size() ? slots.data() + slot * edge : out_h ? right.data() : nullptr;
                a.scratch = scratch.data();
                a.scoring = &terms;
                a.best = &best;
                substitution.run(a);
                at += widths[k];
            }
            if (out_h) {  // the last call's right edge to column c + 1
                for (int r = 0; r < kAlpha; ++r)
                    for (int l = 0; l < L; ++l) {
                        const int64_t i = row0 + int64_t{l} * kAlpha + r;
                        if (i >= m) continue;
                        (*out_h)[static_cast<size_t>(i)] = right[static_cast<size_t>(r * L + l)];
                        (*out_e)[static_cast<size_t>(i)] = right[static_cast<size_t>(R + r * L + l)];
                    }
            }
        }
        if (b + 1 < bands) {
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

}  // namespace chromalign::kernels::cpu
