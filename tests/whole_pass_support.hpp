//! @file What a whole pass (TileWaves::whole_pass) must give, from the full Gotoh matrices
//! computed row by row here (nothing shared with the engine's tiles), and a CPU TileWaves whose
//! whole pass gives it: the K best search's path through peaks without cells, on any machine.
#pragma once

#include <cstdint>
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

/// CpuTileWaves with a whole pass (expected_whole_pass), counting the passes it made.
class FullMatrixWaves : public CpuTileWaves {
public:
    using CpuTileWaves::CpuTileWaves;
    bool whole_pass(const Sequence& s0, const Sequence& s1, const Scoring& scoring, WholePass& out) override {
        expected_whole_pass(s0, s1, scoring, out);
        ++passes;
        return true;
    }
    int passes = 0;
};

}  // namespace chromalign::test
