//! @file A rectangle of the DP matrix cut into tiles, keeping the edges between them: the top
//! row (H, F) of every band of tiles and the left column (H, E) of every column of tiles.
//! From those, any tile can be computed again on its own (tile_dp.hpp), and a change of pairs
//! barred is followed tile by tile only as far as it changes an edge.
#pragma once

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "engine/declump/barred_pairs.hpp"
#include "engine/declump/tile_dp.hpp"
#include "engine/declump/tile_waves.hpp"

namespace chromalign {

/// Who computes an EdgeGrid's tiles, and what stops them.
struct GridWorkers {
    TileWaves* cpu = nullptr;     ///< CPU threads (required)
    TileWaves* device = nullptr;  ///< a device for the whole pass and each antidiagonal of at least
                                  ///< `device_cells` cells; null: none
    int threads = 1;              ///< the CPU threads (>= 1)
    /// A device's wave costs a launch and the edges' trips (about 0.1 ms); an antidiagonal of
    /// fewer cells than this (0: 2^22, some 3 ms of one core) stays on the threads.
    int64_t device_cells = 0;
    /// Whether an antidiagonal of `cells` goes to the device.
    bool on_device(int64_t cells) const {
        return device != nullptr && cells >= (device_cells > 0 ? device_cells : int64_t{1} << 22);
    }
    /// Read before each antidiagonal: once a signal handler sets it, Interrupted is thrown.
    const volatile std::sig_atomic_t* stop = nullptr;
    /// When set, told of the cells compute() has computed so far: 0 when it starts, fewer than
    /// all at most about once a second meanwhile (one call at a time), and all once, at its end.
    std::function<void(int64_t cells)> on_cells;
    /// When set, told once a device has queued all of compute()'s whole pass (WholePass::queued).
    std::function<void()> on_queued;
};

class EdgeGrid {
public:
    using Tile = std::pair<int64_t, int64_t>;  ///< (band, column of tiles)

    /// The rectangle `area` in tiles of at most tile_rows x tile_cols (both >= 1), its own
    /// edges given: H and F of row area.top over columns area.left .. area.right (the corner
    /// first), H and E of column area.left over rows area.top + 1 .. area.bottom. Nothing is
    /// computed yet; `workers` (which must outlive the grid) will compute it.
    EdgeGrid(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const Rect& area, int64_t tile_rows,
             int64_t tile_cols, std::vector<int32_t> top_h, std::vector<int32_t> top_f, std::vector<int32_t> left_h,
             std::vector<int32_t> left_e, const GridWorkers& workers);
    EdgeGrid(const EdgeGrid&) = delete;  // the edges of a whole matrix: never copied
    EdgeGrid& operator=(const EdgeGrid&) = delete;
    /// The whole matrix of s0 x s1: row 0 and column 0 as edges (H = 0, no gap). Its inner
    /// edges are made by compute(), which must come first.
    static EdgeGrid whole(const Sequence& s0, const Sequence& s1, const Scoring& scoring, int64_t tile_rows,
                          int64_t tile_cols, const GridWorkers& workers);

    /// The bytes the inner edges of an m x n matrix in tiles of `side` take (rows and columns
    /// kept, H and F or E, 4 bytes each).
    static int64_t edge_bytes(int64_t m, int64_t n, int64_t side);

    const GridWorkers& workers() const { return workers_; }
    /// Threads from now on (GridWorkers::threads), while nothing of this grid runs.
    void set_threads(int threads) { workers_.threads = threads; }

    /// Computes every tile: on the device in one pass when the grid is a whole matrix, no pair
    /// is barred and the device can (TileWaves::whole_pass), a whole() grid's edges made on the
    /// host meanwhile; on the CPU threads in dependency order when no antidiagonal is wide
    /// enough for the device; else antidiagonal by antidiagonal, the wide ones on the device.
    void compute(const BarredPairs& barred);
    /// Computes the tiles of `dirty` again, and every tile an edge they change feeds, each after
    /// the three it depends on (antidiagonal by antidiagonal), where the device kept the whole
    /// pass's edges from those (TileWaves::queue_kept), with the tiles right of and below
    /// each one that must be computed. Returns the tiles computed; `computed`, if given, gets
    /// them too.
    int64_t recompute(const BarredPairs& barred, const std::set<Tile>& dirty, std::set<Tile>* computed = nullptr);
    /// Whether the device kept the whole pass's edges: recompute() then changes the host's
    /// edges only where a read brings them home, under a lock, so walks may read the tiles it
    /// does not compute meanwhile.
    bool kept() const { return kept_; }

    const Rect& area() const { return area_; }
    const Sequence& s0() const { return s0_; }
    const Sequence& s1() const { return s1_; }
    const Scoring& scoring() const { return scoring_; }
    int64_t bands() const { return bands_; }
    int64_t tile_rows() const { return tile_rows_; }
    /// Band b's top row, row area().top + b * tile_rows(): H and F over columns area().left ..
    /// area().right (index 0: column area().left).
    const int32_t* band_top_h(int64_t b) const;
    const int32_t* band_top_f(int64_t b) const;
    int64_t tile_columns() const { return tile_columns_; }
    Rect tile_rect(const Tile& t) const;
    /// The tile whose cells hold (i, j) (area().holds(i, j)).
    Tile tile_of(int64_t i, int64_t j) const;
    /// The edges of tile t, pointing into this grid (valid while it lives and is not recomputed).
    TileEdges edges(const Tile& t) const;
    /// The cells of `r`, the top left part of tile t, as a grid of its own in at most
    /// split x split tiles, not computed yet; its edges are copied from this grid's.
    std::unique_ptr<EdgeGrid> part(const Tile& t, const Rect& r, int64_t split, const GridWorkers& workers) const;
    /// The best cell of the area by the tie rule (score 0 at (0, 0) when none is positive).
    /// Tiles whose highest H alone is known (a device's) are computed again on the CPU
    /// threads to find where it is, those that tie for the best first; `barred` is what the grid
    /// was last computed with.
    AlignmentEnd best(const BarredPairs& barred);
    /// A tile's highest H as the grid has it now, and where it is when known.
    struct Lead {
        Tile tile;
        AlignmentEnd end;      ///< its score; its cell unless `rows` > 0
        int64_t rows = 0;      ///< else its cell lies in this many rows from the tile's top
    };
    /// The `count` tiles of the highest H that `skip` does not name, highest first (ties in
    /// no set order); no tile whose highest H is not positive. Not while this grid computes.
    std::vector<Lead> leads(size_t count, const std::function<bool(const Tile&)>& skip);
    /// The cell of lead's highest H, from the tile's edges and the pairs of `barred` (which
    /// must be those it was computed with): on the calling thread, writing nothing, so walks
    /// ahead of their turn may call it while the grid is computed again elsewhere.
    AlignmentEnd place(const Lead& lead, const BarredPairs& barred) const;
    int64_t cells_computed() const { return cells_computed_; }

private:
    /// As the public one; the inner edges are made later (make_edges) unless make_now.
    EdgeGrid(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const Rect& area, int64_t tile_rows,
             int64_t tile_cols, std::vector<int32_t> top_h, std::vector<int32_t> top_f, std::vector<int32_t> left_h,
             std::vector<int32_t> left_e, const GridWorkers& workers, bool make_now);
    /// The inner edges (every band's top row and tile column's left column but the area's own),
    /// as nothing computed would give them: H = 0, no gap. Kept on the device (`kept`), each
    /// is made when it is first fetched instead (make_row, make_column).
    void make_edges(bool kept = false);
    /// Band b's top row, tile column c's left column, while kept_: made now (fetched_row_h_
    /// and the others) unless they are. Under fetching_.
    void make_row(size_t b);
    void make_column(size_t c);
    /// Band b's top row (H, F) and tile column c's left column (H, E), where they are.
    int32_t* row_h(size_t b) const;
    int32_t* row_f(size_t b) const;
    int32_t* col_h(size_t c) const;
    int32_t* col_e(size_t c) const;
    /// Whether a tile's bottom row (and its last cell), right column changed.
    struct Changed {
        bool bottom = false, corner = false, right = false;
    };
    /// compute() but for telling workers_.on_cells where it starts and ends; `meanwhile` (if
    /// set) hears of the cells computed so far, about once a second.
    void compute_all(const BarredPairs& barred, const std::function<void(int64_t)>& meanwhile);
    /// Every tile on the CPU threads, each as soon as the two it reads are done.
    void compute_on_threads(const BarredPairs& barred, const std::function<void(int64_t)>& meanwhile);
    /// Computes the tiles of one antidiagonal and keeps their edges and bests; changed[k] says
    /// which of tiles[k]'s edges changed.
    std::vector<Changed> compute_wave(const std::vector<Tile>& tiles, const BarredPairs& barred);
    /// An antidiagonal of tiles computed again on the device from the edges it kept, which it
    /// writes; the host's copies of the edges that changed are brought home when read (refresh).
    struct KeptWave {
        int64_t diagonal = 0;
        std::vector<Tile> tiles;  ///< sorted
        std::vector<KeptTile> kept;
        /// Those of `tiles` an alignment crossed or a changed edge feeds: the others are
        /// computed in case one of them is fed, and must give what they had.
        std::set<Tile> needed;
    };
    /// recompute() from the edges the device kept, antidiagonals `waves` on.
    int64_t recompute_kept(const BarredPairs& barred, std::map<int64_t, std::set<Tile>>& waves,
                           std::set<Tile>* computed);
    /// best_'s index brought up to date, block by block.
    void refresh_blocks();
    /// Queues `tiles` of antidiagonal `diagonal` on the device, `needed` so far of them.
    std::unique_ptr<KeptWave> queue_kept(int64_t diagonal, const std::set<Tile>& tiles, std::set<Tile> needed,
                                         const BarredPairs& barred);
    /// Takes what wave computed: its tiles' bests and changes, the tiles those feed into the
    /// waves queued `later` (the next antidiagonals', in order) or, past them, into `waves`.
    void collect_kept(KeptWave& wave, const std::deque<std::unique_ptr<KeptWave>>& later,
                      std::map<int64_t, std::set<Tile>>& waves);
    /// Brings home the edges tile t is computed from, where the device changed them since.
    void refresh(const Tile& t) const;
    /// What refresh() fetches of tile t's bottom row (band t.first + 1's top over its columns)
    /// and right column, now marked fresh; the caller holds fetching_.
    void fetch_stale(const Tile& t, std::vector<KeptFetch>& fetches) const;

    const Sequence& s0_;
    const Sequence& s1_;
    const Scoring& scoring_;
    Rect area_;
    int64_t tile_rows_, tile_cols_, bands_, tile_columns_;
    /// Band b's top row: H and F over columns area.left .. area.right (index 0: column area.left).
    std::vector<std::vector<int32_t>> row_h_, row_f_;
    /// Column c of tiles' left column: H and E over rows area.top + 1 .. area.bottom.
    std::vector<std::vector<int32_t>> col_h_, col_e_;
    /// While kept_, the inner ones (index >= 1) are here instead, each made when a fetch first
    /// writes into it, and left unwritten: only the pages that fetches write are ever touched
    /// (a genome's edges are gigabytes, of which the walks read a few).
    std::vector<std::unique_ptr<int32_t[]>> fetched_row_h_, fetched_row_f_, fetched_col_h_, fetched_col_e_;
    /// Tasks for `tiles` from their edges and bars, their bottom rows and right columns going
    /// to out[k] (resized here).
    std::vector<TileTask> tasks_of(const std::vector<Tile>& tiles, const BarredPairs& barred,
                                   std::vector<std::vector<int32_t>>& out) const;
    /// Finds the cells of `tiles`' highest H (their unplaced_ rows), from their edges.
    void find_peaks(const std::vector<Tile>& tiles, const BarredPairs& barred);
    /// What finds the cell of tile t's highest H, which lies in its first `rows` rows.
    TileTask peak_task(const Tile& t, int64_t rows, const BarredPairs& barred) const;

    /// Marks tile `at`'s best_ changed, for best()'s index; compute() marks them all.
    void best_changed(size_t at) { block_stale_[at / kBestBlock] = 1; }
    /// One past block b's last tile in best_.
    size_t block_end(size_t b) const { return std::min(best_.size(), (b + 1) * kBestBlock); }

    std::vector<AlignmentEnd> best_;  ///< per tile, row-major
    /// best()'s index of best_: the highest score of each block of kBestBlock tiles, whose
    /// block_stale_ says when a tile of it changed since. A genome has some 300,000 tiles, and
    /// scanning their 7 MB three times an alignment took 2-4 ms of each small one's 10-25.
    static constexpr size_t kBestBlock = 1024;
    std::vector<int32_t> block_top_;
    std::vector<uint8_t> block_stale_;
    /// Per tile: 0 where best_ holds its best cell; else best_ holds its highest H, not yet
    /// where it is (a device computed the tile), and its first cell lies in this many rows from
    /// its top, whose values its edges and bars give again whenever that is asked.
    std::vector<int64_t> unplaced_;
    int64_t cells_computed_ = 0;
    bool edges_made_ = false;
    /// The device kept the whole pass's edges (WholePass::keep): tiles are computed again there.
    bool kept_ = false;
    /// Per tile, row-major, while kept_: its bottom row (1) or right column (2) changed on the
    /// device and not yet here.
    mutable std::vector<uint8_t> stale_;
    mutable std::mutex fetching_;  ///< stale_ and the edges it guards (a walk's threads read them)
    GridWorkers workers_;
};

}  // namespace chromalign
