//! @file The K best search's tiles on the cpu backend: its first pass (the grid's tiles in
//! dependency order on the backend's threads) and the tiles computed again with no pair barred,
//! each as bands of stage 1's SIMD tile kernel (tile_kernel.hpp), some ten times the portable
//! lanes' rate (tile_lanes.hpp), which keep the tiles with barred pairs.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/declump/tile_waves.hpp"
#include "kernels/cpu/kernel_codes.hpp"
#include "kernels/cpu/tile_kernel.hpp"

namespace chromalign::kernels::cpu {

class SimdTileWaves : public CpuTileWaves {
public:
    /// Kernels of `isa` on `threads` threads (>= 1) for a whole pass.
    SimdTileWaves(CpuIsa isa, int threads) : isa_(isa), threads_(threads) {}
    /// False, having written nothing, when the kernel's bands (lanes x 8 rows) do not divide
    /// the tiles' rows. Keeps nothing (out.keep becomes false).
    bool whole_pass(const Sequence& s0, const Sequence& s1, const Scoring& scoring, WholePass& out) override;
    /// A new pair: what was set up for the last one goes.
    void bind(const Sequence& s0, const Sequence& s1) override;
    void run(const Sequence& s0, const Sequence& s1, const Scoring& scoring, std::vector<TileTask>& tasks,
             int threads) override;
    /// The kernel's band (lanes x 8 rows).
    int64_t rows_at_speed(const Sequence& s0, const Sequence& s1, const Scoring& scoring) override;

private:
    /// What the tiles of one matrix share: the kernel, S0's codes a band past its end, S1 as
    /// the kernel's window.
    struct Setup {
        const Sequence* s0 = nullptr;
        const Sequence* s1 = nullptr;
        const Scoring* scoring = nullptr;
        const CpuKernel* kernel = nullptr;
        CpuScoringTerms terms;
        int lanes = 0;
        int64_t rows = 0;  ///< a band: lanes x 8
        std::vector<uint8_t> codes0;
        S1Window window;
    };
    /// Rows row0 .. row0 + rows - 1 (0-based, a multiple of a band) by columns col0 .. col0 +
    /// width - 1. The bus (of the padded width) is the row above in, the bottom row out;
    /// left_h/left_e are column col0 - 1's H and E from row row0 on (null: column 0 of the
    /// matrix), `corner` H(row0 - 1, col0 - 1); right_h/right_e (null: not wanted) take the
    /// last column's. Rows from last_row and columns from last_col are padding.
    struct Block {
        int64_t row0 = 0, rows = 0, col0 = 0, width = 0, last_row = 0, last_col = 0;
        int32_t *bus_h = nullptr, *bus_f = nullptr;
        const int32_t *left_h = nullptr, *left_e = nullptr;
        int32_t corner = 0;
        int32_t *right_h = nullptr, *right_e = nullptr;
    };

    /// The setup for s0 x s1 under `scoring`, made once; null: no kernel for this ISA.
    const Setup* setup(const Sequence& s0, const Sequence& s1, const Scoring& scoring);
    /// Computes a block band by band; `best` takes its best cell under the tie rule.
    static void bands(const Setup& s, const Block& t, CellBest& best);
    /// Task t, one the kernel takes but for its barred pairs, on `threads` threads: with no
    /// pair barred, one block; else a grid of blocks of one band by kBarredStrip columns in
    /// dependency order, those that bar a pair on the portable lanes (tile_dp_lanes), the
    /// others on the kernel. An alignment's pairs are a diagonal line: the barred tiles next
    /// to it (a peak's, a walk's parts) took some four times the kernel's time on the lanes.
    static void compute(const Setup& s, TileTask& t, int threads);

    CpuIsa isa_;
    int threads_;
    std::mutex setting_up_;
    std::unique_ptr<Setup> setup_;
};

}  // namespace chromalign::kernels::cpu
