//! @file Choice of the block grid for a pair of lengths.
#include "engine/tiling/tile_grid.hpp"

#include <algorithm>

#include "engine/error.hpp"

namespace chromalign {

std::string TileGrid::describe() const {
    return "B=" + std::to_string(blocks) + " T=" + std::to_string(threads) +
           " alpha=" + std::to_string(alpha) + " C=" + std::to_string(block_cols) +
           " bands=" + std::to_string(bands);
}

int64_t TileGrid::cells_finished(int64_t done) const {
    int64_t blocks_done = 0;
    for (int64_t b = 0; b < blocks; ++b) blocks_done += std::clamp<int64_t>(done - b, 0, bands);
    const double fraction = static_cast<double>(blocks_done) / (static_cast<double>(bands) * blocks);
    return static_cast<int64_t>(fraction * static_cast<double>(m) * static_cast<double>(n));
}

TileGrid make_tile_grid(int64_t m, int64_t n, int32_t threads, int32_t alpha, int32_t max_blocks) {
    if (m < 1 || n < 1) throw Error("both sequences must hold at least one base");
    if (threads < 1 || alpha < 1 || max_blocks < 1)
        throw Error("tile grid needs positive threads, alpha and blocks");
    TileGrid g;
    g.m = m;
    g.n = n;
    g.threads = threads;
    g.alpha = alpha;
    const int64_t min_cols = 2 * int64_t{threads};
    g.blocks = static_cast<int32_t>(std::clamp<int64_t>(n / min_cols, 1, max_blocks));
    const int64_t cols = std::max((n + g.blocks - 1) / g.blocks, min_cols);
    g.block_cols = (cols + kColumnQuantum - 1) / kColumnQuantum * kColumnQuantum;
    g.bands = (m + g.rows_per_band() - 1) / g.rows_per_band();
    // Device code indexes rows and columns with 32-bit integers inside the padded matrix.
    if (g.padded_rows() >= (int64_t{1} << 31) || g.padded_cols() >= (int64_t{1} << 31))
        throw Error("sequences longer than 2^31 - 1 bases are not supported");
    return g;
}

}  // namespace chromalign
