//! @file What a whole pass (TileWaves::whole_pass) must give, from the full Gotoh matrices
//! computed row by row here (nothing shared with the engine's tiles), and a CPU TileWaves whose
//! whole pass gives it: the K best search's path through peaks without cells, on any machine.
#pragma once

#include <atomic>

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/declump/tile_waves.hpp"

namespace chromalign::test {

/// A WholePass and the vectors it points to, sized as an EdgeGrid of s0 x s1 sizes them.
struct PassVectors {
    std::vector<std::vector<int32_t>> row_h, row_f, col_h, col_e;
    std::vector<int32_t> peaks;
    WholePass pass;
    PassVectors(int64_t m, int64_t n, int64_t tile_rows, int64_t tile_cols);
};

/// Fills `out` from the full matrices of s0 x s1 (every band's row and column, every peak).
void expected_whole_pass(const Sequence& s0, const Sequence& s1, const Scoring& scoring, WholePass& out);

/// CpuTileWaves with a whole pass (expected_whole_pass), counting the passes it made, that
/// keeps its edges as a device does when asked (`keeps`): copies of its own, which run_kept
/// computes tiles from and writes.
class FullMatrixWaves : public CpuTileWaves {
public:
    using CpuTileWaves::CpuTileWaves;
    void bind(const Sequence& s0, const Sequence& s1) override;
    bool whole_pass(const Sequence& s0, const Sequence& s1, const Scoring& scoring, WholePass& out) override;
    bool kept() const override { return kept_ != nullptr; }
    void run_kept(const Scoring& scoring, std::vector<KeptTile>& tiles) override;
    void fetch_kept(const std::vector<KeptFetch>& fetches) override;

    bool keeps = true;       ///< keep a pass's edges where it is asked to
    int passes = 0;
    int64_t kept_tiles = 0;  ///< tiles run_kept computed
    std::atomic<int64_t> fetched{0};  ///< edges fetch_kept copied (walks ahead fetch on threads of their own)

private:
    struct Kept {
        const Sequence* s0;
        const Sequence* s1;
        int64_t tile_rows, tile_cols;
        std::vector<std::vector<int32_t>> row_h, row_f, col_h, col_e;  ///< laid out as EdgeGrid's
    };
    std::unique_ptr<Kept> kept_;
};

}  // namespace chromalign::test
