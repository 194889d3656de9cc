//! @file What the diagonal orchestrator needs from a backend that computes tiles diagonal by diagonal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "engine/error.hpp"
#include "engine/host_device.hpp"
#include "engine/pruning/gain_table.hpp"
#include "engine/result.hpp"
#include "engine/tiling/tile_grid.hpp"

namespace chromalign {

/// One step of a staircase: the columns from `col` on (up to the next step) have finished the
/// rows down to `row`, and the column left of them (col - 1) lies further down. What a run
/// continues from needs that column's rows in between: H(row, col - 1) and H, E of rows
/// row + 1 .. the previous step's row. A wavefront (TileExecutor::take_wavefront) is one step
/// per block column; a checkpoint piece keeps them (checkpoint_file.hpp).
struct StairStep {
    int64_t col = 0;
    int64_t row = 0;
    int32_t corner = 0;
    std::vector<int32_t> h, e;
};

/// The row above the first row an executor computes: H and F per column (n entries each).
/// Empty vectors mean row 0 of the DP matrix (H = 0, F = -inf). A resumed run starts from the
/// flat row of a checkpoint, so both backends accept any row, whatever grid produced it.
struct TopRow {
    std::vector<int32_t> h;
    std::vector<int32_t> f;
    /// H(row, c0 - 1): the column left of the first one, for an executor of a column slab
    /// starting at c0 > 0 (engine/orchestration/slab_run.hpp); 0 otherwise.
    int32_t corner = 0;
    /// A wavefront to start from (TileExecutor::take_wavefront), rows relative to the first
    /// row: block 0 has finished `first_band` bands, block b >= 1 the rows of steps[b - 1],
    /// and h, f hold each block's columns of its own last row. Only executors that take
    /// wavefronts accept one (WavefrontMismatch otherwise).
    int64_t first_band = 0;
    std::vector<StairStep> steps{};
    bool empty() const { return h.empty(); }
};

/// An executor cannot start from the wavefront it was given: another backend, or a grid of
/// other bands or block columns than the one that took it.
class WavefrontMismatch : public Error {
public:
    using Error::Error;
};

/// Which edges of a column slab an executor exchanges with its neighbours (slab_run.hpp).
/// Without a left edge, column 0 is the matrix's (H = 0, E = -inf). With a right edge the
/// grid must have no padding columns (padded_cols() == n), so its last column is the slab's.
struct SlabEdges {
    bool left = false;
    bool right = false;
    /// The slab's place from the left: a backend whose slabs share a device runs those further
    /// right first (cuda: stream priorities), since the run ends with the last slab.
    int rank = 0;
};

/// Minus infinity for E and F in every backend: far from overflow when ext is subtracted.
constexpr int32_t kScoreNegInf = -(1 << 30);

/// Diagonals a caller keeps enqueued ahead of the oldest unfinished one (the slab loop: few, so
/// that a right edge leaves soon after it is final; more than one, so that the device never
/// waits for the host). An executor keeps the edges and done() answers of more than this many.
constexpr int64_t kMaxDiagonalsInFlight = 8;

/// The score map samples every kRegionPeakBandStride-th band of a region, counted from its
/// top, and always its last (whose bottom is the kept row): a band's bottom row is read again
/// to be folded, and on the GPU every band's fold cost stage 1 more than keeping the rows.
constexpr int64_t kRegionPeakBandStride = 16;

/// Whether band b (the executor's, bands_per_region and band_offset as given to
/// track_region_peaks) is one whose bottom row the score map folds.
CHROMALIGN_HOST_DEVICE inline bool region_peak_band(int64_t b, int64_t bands_per_region, int64_t band_offset) {
    return (b + 1 + band_offset) % bands_per_region % kRegionPeakBandStride == 0;
}

/// Where an executor's band bottoms go in the score map (TileExecutor::track_region_peaks):
/// one peak per region and run, [region][run] with the runs from first_run on. One layout for
/// every backend's fold (the cpu workers', the cuda kernel's).
struct RegionLayout {
    int64_t first_col = 0, block = 1, per_region = 1, offset = 0;  ///< as track_region_peaks takes them
    int64_t first_run = 0, runs = 0;  ///< the runs the executor's n columns touch

    RegionLayout() = default;
    RegionLayout(int64_t first_col_, int64_t block_, int64_t per_region_, int64_t offset_, int64_t n)
        : first_col(first_col_), block(block_), per_region(per_region_), offset(offset_),
          first_run(first_col_ / block_), runs((first_col_ + n - 1) / block_ - first_col_ / block_ + 1) {}

    /// Peaks of an executor with `bands` bands.
    int64_t cells(int64_t bands) const { return ((bands - 1 + offset) / per_region + 1) * runs; }
    /// Index of the peak of band's region for run 0 of the matrix: add a run to it.
    CHROMALIGN_HOST_DEVICE int64_t region_base(int64_t band) const {
        return (band + offset) / per_region * runs - first_run;
    }
    /// The run of the executor's column c (0-based), and the column where that run ends.
    CHROMALIGN_HOST_DEVICE int64_t run_of(int64_t c) const { return (first_col + c) / block; }
    CHROMALIGN_HOST_DEVICE int64_t run_end(int64_t run) const { return (run + 1) * block - first_col; }
};

/// One backend's tile engine over one matrix. Diagonals are enqueued in order 0, 1, ...;
/// enqueue may return before the work is done (GPU), synchronize() waits for it.
class TileExecutor {
public:
    virtual ~TileExecutor() = default;

    virtual const TileGrid& grid() const = 0;
    virtual void enqueue_diagonal(int64_t d) = 0;
    virtual void synchronize() = 0;

    /// Best cell so far with the tie rule, 1-based within this executor's matrix (its first
    /// row is row 1); waits for enqueued work.
    virtual AlignmentEnd best() = 0;

    /// Called right after enqueue_diagonal(d) for every d in [band, band + grid().blocks]:
    /// copies into h[c], f[c] the columns c of band `band`'s bottom row that diagonal d made
    /// final (each column exactly once over those calls). The copy may complete later
    /// (capture_landed, synchronize()); h and f must stay valid until then.
    virtual void capture_band_bottom(int64_t band, int64_t d, int32_t* h, int32_t* f) = 0;
    /// Non-blocking, once band's last capture_band_bottom call is made: whether its whole row
    /// has reached h and f (without a synchronize()). Captures of several bands may overlap.
    virtual bool capture_landed(int64_t band) = 0;

    /// Traceback sweeps (engine/traceback/engine_sweeper.hpp): called before diagonal 0, keeps
    /// the bottom row of every band b with (b + 1) % every == 0 in the executor's own memory, as
    /// the diagonals make it final, at one transfer for all of them.
    virtual void keep_band_bottoms(int64_t every) = 0;
    /// Traceback windows: enqueues diagonals [from, to) (from: the next one) of a grid whose
    /// left edge is fresh in every band, H = 0 and E = -inf, with corner H(top, -1) = `corner`
    /// above band 0 (read with diagonal 0). By default each edge is set and each diagonal
    /// enqueued, kMaxDiagonalsInFlight at most ahead (needs a left edge: SlabEdges); the cuda
    /// runner runs them in one launch.
    virtual void enqueue_window(int64_t from, int64_t to, int32_t corner) {
        const int64_t rows = grid().rows_per_band();
        const std::vector<int32_t> zero_h(static_cast<size_t>(rows), 0), neg_e(static_cast<size_t>(rows), kScoreNegInf);
        for (int64_t d = from; d < to; ++d) {
            while (!done(d - kMaxDiagonalsInFlight)) std::this_thread::yield();
            if (d < grid().bands) set_left_edge(d, zero_h.data(), neg_e.data(), d == 0 ? corner : 0);
            enqueue_diagonal(d);
        }
    }
    /// After synchronize(): columns [from, to) (0-based) of the bottom rows of `count` kept
    /// bands from `band` on (band, band + every, ...) into h and f, row after row.
    virtual void kept_band_bottoms(int64_t band, int64_t count, int64_t from, int64_t to, int32_t* h, int32_t* f) = 0;
    /// After synchronize(): for the k-th kept band and the r-th run of `block` columns (the last
    /// run may be shorter), the largest max(0, H) + slope * c over its columns c (0-based), at
    /// out[k * ceil(n / block) + r]. What a traceback needs to bound paths left of a column.
    virtual void kept_band_maxima(int64_t slope, int64_t block, int64_t* out) = 0;

    /// The plot's score map (engine/traceback/special_rows.hpp), called before diagonal 0: for
    /// every sampled band b (region_peak_band), the largest H of its bottom row in each run of
    /// `block` columns of the whole matrix goes into region (b + band_offset) / bands_per_region. This executor's
    /// column c (0-based) is the matrix's column first_col + c (1-based), in run
    /// (first_col + c) / block; its runs are those from first_col / block on. A skipped block
    /// counts with the H = 0 it leaves.
    virtual void track_region_peaks(int64_t first_col, int64_t block, int64_t bands_per_region,
                                    int64_t band_offset) = 0;
    /// Before band's first capture_band_bottom call, band being the last of `region`: once
    /// capture_landed(band) holds, `out` holds the region's peaks, one per run. `out` must
    /// stay valid as long as the capture's h and f.
    virtual void capture_region_peaks(int64_t band, int64_t region, int32_t* out) = 0;

    virtual size_t device_bytes() const { return 0; }

    /// Stacked records (engine/job/stack.hpp): band b of this executor's rows belongs to record
    /// band_record[b] (non-decreasing from 0, one entry per band). Called before diagonal 0,
    /// with pruning off, no left corner but 0 where a record starts, no special rows and no
    /// checkpoint. From then on the row above a record's first band is row 0 of the DP matrix
    /// (H = 0, F = -inf: its last band's bottom row is not handed on), so that no path crosses
    /// from one record into the next, and each record's best cell is tracked on its own. An
    /// engine without it throws Error.
    virtual void stack_records(std::vector<int32_t> band_record) {
        (void)band_record;
        throw Error("this engine cannot stack records");
    }
    /// After stack_records: each record's best cell with the tie rule, rows 1-based within this
    /// executor's matrix (as best()'s); waits for enqueued work.
    virtual std::vector<AlignmentEnd> record_bests() { throw Error("this engine stacks no records"); }

    /// Pruning (engine/pruning/prune_rule.hpp). Non-blocking: real cells skipped so far, as
    /// far as finished diagonals show; exact after synchronize().
    virtual int64_t cells_pruned() = 0;
    /// Non-blocking: the best score found so far, as far as finished diagonals show.
    virtual int32_t best_score_seen() = 0;
    /// A score reached elsewhere (another slab or rank, or before a resume): later diagonals
    /// prune against it and track only cells that reach it. A stale value only prunes less.
    virtual void share_best_score(int32_t g) = 0;
    /// A gain table over the comparison (engine/pruning/gain_table.hpp), for the decisions of
    /// later diagonals; its memory outlives the executor. One that ignores it only prunes less.
    virtual void share_gain_table(const GainView& view) { (void)view; }

    /// Column slabs (only when built with the matching SlabEdges). The left edge of `band`:
    /// H and E of its R rows in the column left of this slab, and corner H(top - 1, same
    /// column). Called before enqueue_diagonal(band); the executor copies the data.
    virtual void set_left_edge(int64_t band, const int32_t* h, const int32_t* e, int32_t corner) = 0;
    /// The band whose right edge (H, E of the last column) diagonal d completes, or -1.
    virtual int64_t right_edge_band(int64_t d) const = 0;
    /// Copies that right edge (R rows) once done(d) holds for the diagonal that completed it.
    virtual void read_right_edge(int64_t band, int32_t* h, int32_t* e) = 0;
    /// Non-blocking: whether diagonals 0 .. d have completed.
    virtual bool done(int64_t d) = 0;
    /// Non-blocking: whether the right edge diagonal d completes (if any) is final, with those
    /// of the diagonals before it: done(d), or less where an interrupt left part of diagonal d
    /// but not its last block column (whose edge the right neighbour must get before a stop).
    virtual bool right_edge_done(int64_t d) { return done(d); }

    /// No band past `last` is needed any more (a stop checkpoint takes band `last`'s bottom
    /// row, levelling stops there, a slab changes grids after it): from the next diagonal
    /// enqueued, the executor skips their tiles, which only feed each other, and neither counts
    /// their cells nor takes their best. About half of the B + 1 diagonals a row takes.
    virtual void limit_bands(int64_t last) = 0;

    /// Wavefront checkpoints, for executors whose tiles are plain rectangles (the cpu backend).
    /// Between kernel tiles the executor asks `interrupt`; once it says yes, the rest of the
    /// diagonal being run is left (done() stays false for it), so that a stop waits for a
    /// kernel tile, not a diagonal (R n cells). The next enqueue_diagonal runs what was left first.
    virtual void set_interrupt(std::function<bool()> interrupt) { (void)interrupt; }
    /// Whether a diagonal enqueued so far was left unfinished by the interrupt.
    virtual bool interrupted() const { return false; }
    /// Once the diagonals enqueued so far have run (or been left), copies what the run
    /// continues from: into h and f (n entries) each column's last finished row (the first
    /// row's above when none), into `steps` the columns where that row goes up (StairStep,
    /// rows relative to the first row): each block from block 1, at the left edge of the one
    /// or two bands it lags its left neighbour, and the rest of a block whose band an interrupt
    /// left. Returns the rows of the first columns, or -1 where not supported or once block 0
    /// has finished its last band. `last`: the run stops there (limit_bands follows, so that no
    /// tile runs again): the rows may be moved out rather than copied (2 GB at 250M).
    virtual int64_t take_wavefront(std::vector<int32_t>& h, std::vector<int32_t>& f, std::vector<StairStep>& steps,
                                   bool last) {
        (void)h, (void)f, (void)steps, (void)last;
        return -1;
    }
    /// Whether take_wavefront() is supported at all.
    virtual bool takes_wavefronts() const { return false; }
    /// The first diagonal to enqueue: the first in which a block of a wavefront start has a
    /// tile to run, else 0.
    virtual int64_t first_diagonal() const { return 0; }
};

}  // namespace chromalign
