//! @file How the (m+1) x (n+1) DP matrix is cut into blocks and external diagonals (CUDAlign §5.1).
#pragma once

#include <cstdint>
#include <string>

namespace chromalign {

/// Geometry of one run. A band is R = alpha*T consecutive rows of S0; a block column is C
/// consecutive columns of S1 (the last one padded). Block (i, b) covers band i, columns
/// [b*C, (b+1)*C) shifted left by t for thread t: thread t of every block lags thread t-1 by
/// one column, so the last t columns of its rows are delegated to block (i, b+1), and those of
/// the right-most block to block (i+B, 0) (CUDAlign's cell delegation). Block (i, b) runs in
/// external diagonal D = i + b; the extra last diagonal finishes the last delegated cells.
/// Rows past m and columns past n are padding that never match (see Scoring::validate for why
/// they can never win).
struct TileGrid {
    int64_t m = 0, n = 0;       ///< real sequence lengths
    int32_t threads = 0;        ///< T: threads per block
    int32_t alpha = 0;          ///< rows per thread
    int32_t blocks = 0;         ///< B: blocks per external diagonal
    int64_t block_cols = 0;     ///< C: columns per block (multiple of kColumnQuantum, >= 2T)
    int64_t bands = 0;          ///< number of bands, ceil(m / R)

    int64_t rows_per_band() const { return int64_t{alpha} * threads; }
    int64_t padded_rows() const { return bands * rows_per_band(); }
    int64_t padded_cols() const { return block_cols * blocks; }
    int64_t diagonals() const { return bands + blocks; }

    /// Blocks b with a band in range in external diagonal d: [first_block(d), last_block(d)].
    /// Block 0 may also have delegated cells of band d - B (see has_delegated_band0).
    int64_t first_block(int64_t d) const { return d - bands + 1 > 0 ? d - bands + 1 : 0; }
    int64_t last_block(int64_t d) const { return d < blocks - 1 ? d : blocks - 1; }
    bool has_delegated_band0(int64_t d) const { return d - blocks >= 0 && d - blocks < bands; }
    /// The first block with cells in diagonal d: block 0 when it has delegated cells, else
    /// first_block(d) (the CUDA launch's blockIdx 0).
    int64_t first_busy_block(int64_t d) const { return has_delegated_band0(d) ? 0 : first_block(d); }

    /// Real cells (of m*n) final once diagonals [0, done) are: block b has then finished
    /// done - b bands. Counted on the padded grid, scaled to the real cells.
    int64_t cells_finished(int64_t done) const;

    std::string describe() const;  ///< "B=.. T=.. alpha=.. C=.. bands=.."
};

/// Columns per block are rounded up to this so the kernels can unroll their step loops.
constexpr int64_t kColumnQuantum = 8;

/// Chooses B as large as allowed (max_blocks) while keeping C >= 2T, the minimum size
/// requirement of the short/long phase split (CUDAlign §5.2.2). Throws Error on bad input.
TileGrid make_tile_grid(int64_t m, int64_t n, int32_t threads, int32_t alpha, int32_t max_blocks);

}  // namespace chromalign
