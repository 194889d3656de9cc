//! @file Who computes a wave of tiles (one antidiagonal of an EdgeGrid, whose tiles do not
//! depend on each other): CPU threads here, or a GPU (kernels/cuda/tile_waves.hpp, through
//! Backend::tile_waves()). Every implementation gives tile_dp's values exactly.
#pragma once

#include <csignal>
#include <cstdint>
#include <deque>
#include <functional>
#include <utility>
#include <vector>

#include "engine/declump/tile_dp.hpp"

namespace chromalign {

/// One tile of a wave: its cells, what they are computed from, where its values go.
struct TileTask {
    Rect rect;
    TileEdges edges;
    std::vector<std::pair<int64_t, int64_t>> barred;  ///< its barred pairs, row-major
    TileSink sink;                                    ///< bottom and right (full must be null)
    AlignmentEnd best;                                ///< out: its best cell by the tie rule
    /// out: `best` holds only the highest H (a device's tiles), not where it is (-1, -1).
    bool cell_unknown = false;
    /// out, with cell_unknown: the tile's rows from its top that hold the first cell of its
    /// highest H (0: all of them).
    int64_t peak_rows = 0;
};

/// Where a whole pass over a matrix puts what an EdgeGrid keeps of it (edge_grid.hpp's layout):
/// the edges of every tile and each tile's highest H, not yet where it is.
struct WholePass {
    int64_t tile_rows = 0, tile_cols = 0;
    std::vector<std::vector<int32_t>>* row_h = nullptr;  ///< [b][c]: H(b * tile_rows, c), b >= 1, c >= 1
    std::vector<std::vector<int32_t>>* row_f = nullptr;  ///< F, the same cells
    std::vector<std::vector<int32_t>>* col_h = nullptr;  ///< [c][i - 1]: H(i, c * tile_cols), c >= 1
    std::vector<std::vector<int32_t>>* col_e = nullptr;  ///< E, the same cells
    std::vector<int32_t>* peaks = nullptr;               ///< per tile, row-major: its highest H (>= 0)
    int64_t slab_cols = 0;  ///< columns a device runs at a time (0: its choice; tests use small ones)
    int64_t launch_units = 0;  ///< a device's units (slab x band) a launch at most (0: its choice; tests)
    /// When set, run once on the host while the device computes, before anything is written
    /// to the vectors above, which it may make: a genome's edges are gigabytes, some 0.6 s of
    /// 16 threads for H. pylori, and the device's first pass of it takes 1.8 s. Never run by a
    /// pass that returns false.
    std::function<void()> meanwhile;
    /// Read between a device's launches (a genome's pass is many): once a signal handler sets
    /// it, search_interrupted.
    const volatile std::sig_atomic_t* stop = nullptr;
    /// When set, told after each of a device's launches of the cells computed so far.
    std::function<void(int64_t cells)> on_cells;
    /// When set, told once a device has queued the last of the pass's work: another pass
    /// queued behind it starts as its last units end.
    std::function<void()> queued;
    /// Whether the device may keep these edges after the pass, so that tiles are computed
    /// again from them where they are (TileWaves::kept, run_kept). A device that does writes
    /// none into the vectors above (meanwhile need not make them): fetch_kept brings them as
    /// they are read. Before meanwhile runs, the device sets it to whether it will keep them.
    bool keep = false;
};

/// Kept edges to copy home: H and F of band `index`'s top row over columns from + 1 .. from +
/// count (row), or H and E of tile column `index`'s left column over rows from + 1 .. from +
/// count (!row), into h and g.
struct KeptFetch {
    bool row = true;
    int64_t index = 0, from = 0, count = 0;
    int32_t* h = nullptr;
    int32_t* g = nullptr;
};

/// A tile computed again from the edges a device kept (TileWaves::run_kept), its bottom row
/// and right column written back there.
struct KeptTile {
    int64_t band = 0, column = 0;                     ///< the tile, in the whole matrix's grid
    std::vector<std::pair<int64_t, int64_t>> barred;  ///< its barred pairs, row-major
    bool bottom = false, corner = false, right = false;  ///< out: which of its edges changed
    int32_t peak = 0;                                    ///< out: its highest H (0: none positive)
    int64_t peak_rows = 0;  ///< out: its rows from the top that hold the first cell of it (0: all)
};

/// Throws Interrupted for signal `signal` seen by the K best search.
[[noreturn]] void search_interrupted(int signal);

class TileWaves {
public:
    virtual ~TileWaves() = default;
    /// The matrix the next runs compute tiles of (a device copies the sequences now); s0 and
    /// s1 must outlive those runs.
    virtual void bind(const Sequence& s0, const Sequence& s1) {
        (void)s0;
        (void)s1;
    }
    /// Computes every task of `tasks` (tiles of one s0 x s1 matrix that do not depend on each
    /// other) on `threads` CPU threads or the implementation's own device.
    virtual void run(const Sequence& s0, const Sequence& s1, const Scoring& scoring, std::vector<TileTask>& tasks,
                     int threads) = 0;
    /// Computes every cell of s0 x s1 (row 0 and column 0 the matrix's edges, no pair barred)
    /// into `out`, whose vectors are sized once out.meanwhile ran; false (nothing written)
    /// where this implementation cannot: then the grid goes wave by wave.
    virtual bool whole_pass(const Sequence& s0, const Sequence& s1, const Scoring& scoring, WholePass& out) {
        (void)s0;
        (void)s1;
        (void)scoring;
        (void)out;
        return false;
    }
    /// Tiles whose rows are a multiple of this, and which bar no pair, are computed at this
    /// implementation's best rate by run() (1: any tile).
    virtual int64_t rows_at_speed(const Sequence& s0, const Sequence& s1, const Scoring& scoring) {
        (void)s0;
        (void)s1;
        (void)scoring;
        return 1;
    }
    /// Whether the last whole_pass kept its edges (WholePass::keep), which bind() lets go.
    virtual bool kept() const { return false; }
    /// Computes `tiles` (of one antidiagonal of the kept matrix) from the kept edges, as run()
    /// would from the same edges, and writes each one's bottom row and right column over the
    /// kept ones, telling which changed. The host's copies of those are then out of date.
    virtual void run_kept(const Scoring& scoring, std::vector<KeptTile>& tiles);
    /// Runs of kept tiles queued and not collected at once, at most (queue_kept).
    static constexpr int kRunsInFlight = 3;
    /// run_kept, queued behind the runs queued before, which are computed first; it returns as
    /// soon as it can, so that the host prepares the next run while the device computes this
    /// one. `tiles` and `scoring` must live until collect_kept(tiles). At most kRunsInFlight
    /// runs are queued and not collected at once. A run holds one antidiagonal, a later one
    /// than the run queued before it; where that is the next antidiagonal, a device may start
    /// the run while the one before still computes, each tile waiting for the tiles it reads.
    void queue_kept(const Scoring& scoring, std::vector<KeptTile>& tiles);
    /// Waits for `tiles`, the oldest run queued and not collected, and fills in its outputs.
    void collect_kept(std::vector<KeptTile>& tiles);
    /// Copies the kept edges of `fetches` home.
    virtual void fetch_kept(const std::vector<KeptFetch>& fetches);

protected:
    /// Slots the runs take in turn: one more than the runs in flight, so that a run's slot is
    /// taken again only once the run after it, which may read it, was collected.
    static constexpr int kRunSlots = kRunsInFlight + 1;
    /// queue_kept's work past its checks: starts the run `slot` (0 .. kRunSlots - 1, the runs
    /// taking them in turn) where the device can. Here nothing: the run is made when it lands.
    virtual void launch_kept(const Scoring& scoring, std::vector<KeptTile>& tiles, int slot);
    /// collect_kept's: waits for run `slot` and fills in `tiles`' outputs. Here run_kept.
    virtual void land_kept(const Scoring& scoring, std::vector<KeptTile>& tiles, int slot);
    /// Whether a run is queued and not collected.
    bool kept_queued() const { return !queued_.empty(); }

private:
    /// Runs queue_kept took and collect_kept did not yet give, oldest first.
    std::deque<std::pair<const Scoring*, std::vector<KeptTile>*>> queued_;
    int64_t queued_total_ = 0;  ///< runs queued so far: run r takes slot r % kRunSlots
};

/// tile_dp_lanes on CPU threads, a thread for each `cells_per_thread` cells of the wave.
class CpuTileWaves : public TileWaves {
public:
    explicit CpuTileWaves(int64_t cells_per_thread = int64_t{1} << 18) : cells_per_thread_(cells_per_thread) {}
    void run(const Sequence& s0, const Sequence& s1, const Scoring& scoring, std::vector<TileTask>& tasks,
             int threads) override;

private:
    int64_t cells_per_thread_;
};

}  // namespace chromalign
