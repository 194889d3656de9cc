//! @file The CPU tile executor: buses, worker threads and SIMD tile kernels behind TileExecutor.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "engine/pruning/prune_rule.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/tiling/tile_executor.hpp"
#include "engine/tiling/tile_grid.hpp"
#include "kernels/cpu/kernel_codes.hpp"
#include "kernels/cpu/tile_kernel.hpp"
#include "kernels/cpu/worker_pool.hpp"

namespace chromalign::kernels::cpu {

/// Owns the state of one comparison on the CPU and runs each external diagonal's tiles on a
/// pool of worker threads (workers take tiles in place of the GPU's thread blocks). Tiles are
/// plain rectangles: band i, columns [b*C, (b+1)*C); the lane skew is handled inside the tile
/// (prologue and epilogue), so there is no cell delegation. A worker runs a tile as kernel
/// tiles of at most `tile_cols` columns, left to right, each skipped or not on its own: the
/// kernel's working set and the pruning's grain stay small, while the blocks of a diagonal
/// stay few, so that the wavefront spans few bands (B R rows) and a row to checkpoint is
/// complete soon after it is asked for (B + 1 diagonals).
///
/// Buses, all exact 32-bit scores, O(m + n) memory in all:
/// - horizontal: H and F of one row per column. Tile (i, b) reads its top edge from columns
///   [b*C, (b+1)*C), written by tile (i-1, b) in diagonal d-1, and overwrites them with its
///   bottom row. Tiles of one diagonal own disjoint columns.
/// - vertical: per block boundary b and band parity p, H and E of R rows plus the corner
///   H(top - 1, b*C - 1). Tile (i, b) reads slot (b, i & 1), written by tile (i, b-1) in
///   diagonal d-1, and writes slot (b+1, i & 1). The only other tile of diagonal d that touches
///   slot b+1 is tile (i-1, b+1), which reads slot (b+1, (i-1) & 1): the other parity. The next
///   writer of slot (b+1, i & 1) is tile (i+2, b) in diagonal d+2, after its reader (i, b+1) ran
///   in diagonal d+1.
/// - slab edges (SlabEdges): the left edge of band i is slot (0, i & 1), read by tile (i, 0);
///   the right edge is slot (B, i & 1), written by tile (i, B-1) in diagonal i + B - 1.
///
/// Between two kernel tiles the buses hold a complete state, the wavefront: each block's
/// columns of its last row, and in its slots the left edges of the bands it lags its left
/// neighbour. A checkpoint copies it (take_wavefront), a stop interrupts the diagonal to take
/// it, and a run starts from one (TopRow::steps). So each block counts the bands it has
/// finished (done_), and keeps the rest of a band an interrupt left (partial_).
class CpuTileRunner : public TileExecutor {
public:
    /// s0 holds grid.m codes and s1 grid.n codes (BaseCode values). `top` is the row above
    /// the first row (row 0 of the DP when empty). `kernel` must match the grid (lanes,
    /// alpha, and relative16_fits for 16-bit lanes); its substitution is the one `scoring`
    /// asks for. Tiles are skipped by `prune` (a rule for this grid's m x n). Throws Error on a
    /// mismatch, or when `top` is not a row of lower bounds (H >= 0, F <= H). `tile_cols`: the
    /// kernel tiles' width (a multiple of kColumnQuantum; 0: grid.block_cols).
    CpuTileRunner(const TileGrid& grid, const CpuScoringTerms& scoring, const uint8_t* s0, const uint8_t* s1,
                  const TopRow& top, const CpuKernel& kernel, int threads, SlabEdges edges = {},
                  PruneRule prune = {}, int64_t tile_cols = 0);

    const TileGrid& grid() const override { return grid_; }
    /// Runs the tiles of diagonal d on the workers (after what an interrupt left of earlier
    /// ones); returns when they are done or left.
    void enqueue_diagonal(int64_t d) override;
    void limit_bands(int64_t last) override { last_band_ = last; }
    void synchronize() override {}
    AlignmentEnd best() override;
    /// Each tile's best goes to its band's record (under a lock, once a tile), and a record's
    /// last band leaves row 0 on the bus for the next record's first.
    void stack_records(std::vector<int32_t> band_record) override;
    std::vector<AlignmentEnd> record_bests() override;
    /// Synchronous: diagonal d = band + b has just written block b's columns of band's bottom row.
    void capture_band_bottom(int64_t band, int64_t d, int32_t* h, int32_t* f) override;
    bool capture_landed(int64_t) override { return true; }  // copied at the call
    void keep_band_bottoms(int64_t every) override;
    void kept_band_bottoms(int64_t band, int64_t count, int64_t from, int64_t to, int32_t* h, int32_t* f) override;
    void kept_band_maxima(int64_t slope, int64_t block, int64_t* out) override;
    /// Each block's worker folds its band's bottom row in after its tile (an atomic max).
    void track_region_peaks(int64_t first_col, int64_t block, int64_t bands_per_region, int64_t band_offset) override;
    /// Copied when the band's last block column is captured.
    void capture_region_peaks(int64_t band, int64_t region, int32_t* out) override;

    void set_left_edge(int64_t band, const int32_t* h, const int32_t* e, int32_t corner) override;
    int64_t right_edge_band(int64_t d) const override;
    void read_right_edge(int64_t band, int32_t* h, int32_t* e) override;
    bool done(int64_t d) override { return d < next_; }
    bool right_edge_done(int64_t d) override { return d <= next_ && (d < next_ || right_edge_band(d) >= 0); }
    void set_interrupt(std::function<bool()> interrupt) override { interrupt_ = std::move(interrupt); }
    bool interrupted() const override { return next_ <= enqueued_; }
    int64_t take_wavefront(std::vector<int32_t>& h, std::vector<int32_t>& f, std::vector<StairStep>& steps,
                           bool last) override;
    bool takes_wavefronts() const override { return !rows_only_; }
    /// Tests: checkpoints take band rows, not wavefronts, as the cuda runner's do.
    void take_rows_only() { rows_only_ = true; }
    int64_t first_diagonal() const override { return first_diagonal_; }

    int64_t cells_pruned() override;
    int32_t best_score_seen() override { return best_score_.load(std::memory_order_relaxed); }
    void share_best_score(int32_t g) override { shared_best_.store(g, std::memory_order_relaxed); }
    void share_gain_table(const GainView& view) override;

    const CpuKernel& kernel() const { return kernel_; }
    /// The kernel's name, with "/matrix" when it looks up a matrix (e.g. "avx2/i32/a16/matrix").
    std::string kernel_name() const;

private:
    /// One worker's scratch, best cell and count of skipped cells, on cache lines of its own,
    /// and the vertical edges between the kernel tiles of one block (two slots in turn).
    struct alignas(64) Worker {
        std::vector<int32_t> scratch;
        std::vector<int32_t> edges;
        CellBest best;
        int64_t pruned = 0;
    };

    /// Runs the tiles of diagonal d that are due (a block's next band); false when the
    /// interrupt left some.
    bool run_diagonal(int64_t d);
    /// False when the interrupt left part of it (partial_).
    bool run_tile(int64_t d, int64_t block, int worker);
    int64_t kernel_tiles() const { return (grid_.block_cols + tile_cols_ - 1) / tile_cols_; }
    int64_t kernel_tile_cols(int64_t k) const;  ///< the width of a block's k-th kernel tile
    /// One kernel tile: computed, or skipped when the prune rule allows; `left` is a.left.
    void run_kernel_tile(TileArgs& a, int32_t* left, Worker& w);
    /// The prune rule's decision for tile (band, block) against `g`, from its inputs and its
    /// `gain` (rule.gain at its corner).
    bool tile_dead(const PruneRule& rule, const TileArgs& a, int64_t gain, int32_t g) const;
    /// A skipped tile's outputs: H = 0 and F, E = -inf on its bottom row and right edge.
    void skip_tile(const TileArgs& a) const;
    /// 16-bit lanes: raises the corner in `left` (a.left, the tile's own input slot), which is
    /// the kernel's base, to the lower bound its inputs give.
    void raise_corner(const TileArgs& a, int32_t* left) const;
    void raise_best_score(int32_t g);  ///< best_score_ = max(best_score_, g)
    /// Loads a wavefront start (TopRow::steps) into the vertical bus; throws WavefrontMismatch
    /// when it was taken on another grid.
    void start_from_wavefront(const TopRow& top);
    /// Slot layout: row k*A + r of the band (lane k, its row r) at index r*L + k.
    void put_slot(int32_t* slot, const int32_t* h, const int32_t* e, int32_t corner) const;
    void get_slot(const int32_t* slot, int32_t* h, int32_t* e) const;
    int32_t* vertical_slot(int64_t boundary, int64_t band) {
        return vbus_.data() + (boundary * 2 + (band & 1)) * (2 * grid_.rows_per_band() + 1);
    }

    TileGrid grid_;
    int64_t tile_cols_;        ///< kernel tiles' width, at most grid_.block_cols
    CpuScoringTerms scoring_;  ///< the kernels' TileArgs point here
    SlabEdges edges_;
    CpuKernel kernel_;
    CpuSubstitution substitution_;  ///< kernel_'s variant for scoring_
    std::vector<uint8_t> s0_;        ///< padded_rows codes; others and padding are 4
    S1Window s1_window_;             ///< S1's columns -lanes < c < padded_cols + lanes
    std::vector<int32_t> bus_h_, bus_f_;  ///< horizontal bus, padded_cols entries
    /// Where fold_region_peaks puts a band's bottom row (track_region_peaks); block 0: none.
    struct RegionMap {
        RegionLayout layout;
        std::unique_ptr<std::atomic<int32_t>[]> peaks;  ///< [region][run]; null: no map
        std::map<int64_t, std::pair<int64_t, int32_t*>> wanted;  ///< band -> region, out
    } regions_;
    /// Block b's columns of band's bottom row (in bus_h_) into its region's peaks, if the band
    /// is sampled (region_peak_band).
    void fold_region_peaks(int64_t band, int64_t b);
    int64_t keep_every_ = 0;                ///< keep_band_bottoms; 0: none kept
    std::vector<int32_t> kept_h_, kept_f_;  ///< n columns per kept band
    std::vector<int32_t> vbus_;           ///< vertical bus, (blocks + 1) x 2 slots of 2R + 1
    std::vector<Worker> workers_;
    std::atomic<int32_t> best_score_{0};  ///< G: the best score any worker has found
    /// A best score from elsewhere (share_best_score): it prunes, but gates no tracking, so
    /// this executor's best stays the largest H it computed (checkpoints check that).
    std::atomic<int32_t> shared_best_{0};
    PruneRule prune_;
    /// share_gain_table's view, written once before table_ready_ is set: the workers read it
    /// while they decide tiles.
    GainView table_;
    std::atomic<bool> table_ready_{false};
    /// stack_records: the record of each band, each record's best cell and its score (the
    /// tracking threshold of its tiles). Empty: one record, the workers' bests.
    struct Stacked {
        std::vector<int32_t> band_record;
        std::vector<CellBest> best;
        std::unique_ptr<std::atomic<int32_t>[]> score;
        std::mutex mutex;
    };
    std::unique_ptr<Stacked> stacked_;
    /// Folds a tile's best into its band's record, and seals the band's bottom row on block
    /// b's columns when the next band begins another record.
    void finish_stacked_tile(int64_t band, int64_t block, const CellBest& tile_best);
    int64_t last_band_ = INT64_MAX / 2;  ///< limit_bands: tiles of later bands are not run
    /// Bands each block column has finished: block b runs band d - b in diagonal d when that is
    /// done_[b] (a wavefront start, or an interrupt, leaves them at other diagonals).
    std::vector<int64_t> done_;
    /// A block's next band begun and left by an interrupt: its first `tiles` kernel tiles
    /// (`cols` columns) done, the right edge of the last (a slot) for the next.
    struct Partial {
        int64_t tiles = 0, cols = 0;
        std::vector<int32_t> edge;
    };
    std::vector<Partial> partial_;
    int64_t start_last_ = 0;      ///< done_ of the last block at the start: right edges sent before
    int64_t first_diagonal_ = 0;  ///< the first diagonal with a tile to run
    int64_t next_ = 0;            ///< diagonals before it have run whole
    int64_t enqueued_ = -1;       ///< the last diagonal enqueued
    std::function<bool()> interrupt_;
    bool rows_only_ = false;  ///< take_rows_only()
    WorkerPool pool_;
};

}  // namespace chromalign::kernels::cpu
