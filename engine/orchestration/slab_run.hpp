//! @file Column slabs: one comparison split over slabs, right edge to left edge. A "rank" here
//! is a slab's place among all slabs (SlabLink::rank); a process runs one or several.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/backend/backend.hpp"
#include "engine/orchestration/slab_group.hpp"
#include "engine/pruning/prune_rule.hpp"
#include "engine/transport/slab_link.hpp"
#include "engine/tiling/tile_executor.hpp"

namespace chromalign {

/// Narrowest block column cut_slabs makes, whatever the backend asks (see widest_slab).
constexpr int64_t kMinSlabBlockCols = 64;

/// What a rank's tiled backend needs to agree on before the slabs are cut.
struct SlabShape {
    int64_t rows_per_band = 0;  ///< R: every rank must use the same (edges travel per band)
    int32_t blocks = 0;         ///< block columns the backend wants for its slab
    int64_t min_block_cols = kMinSlabBlockCols;  ///< narrowest block column its kernels take
};

/// The part of a tiled backend that a slab run drives (cuda and cpu implement it). The slabs
/// of one process share it from their threads: both calls must be thread-safe.
class SlabEngine {
public:
    virtual ~SlabEngine() = default;
    /// How many slabs a process runs on this engine at once (BackendOptions::slabs, resolved).
    virtual int slabs_per_process() const = 0;
    /// R and B for slabs of at most `width` columns of an m-row matrix, slabs_per_process()
    /// of them sharing the device.
    virtual SlabShape slab_shape(int64_t m, int64_t width, const Scoring& scoring) = 0;
    /// An executor for rows first_row+1 .. m of s0 against `slab` (its columns of S1) whose
    /// grid has exactly `blocks` block columns (cut_slabs makes that possible) and the band
    /// height of the last slab_shape(), skipping what `prune` allows.
    virtual std::unique_ptr<TileExecutor> slab_executor(const Sequence& s0, const Sequence& slab,
                                                        const Scoring& scoring, int64_t first_row,
                                                        const TopRow& top, SlabEdges edges, int32_t blocks,
                                                        const PruneRule& prune) = 0;
    /// An executor for a traceback window (engine/traceback/engine_sweeper.hpp): rows 1 .. m of
    /// s0 against s1 from `top`, with a left edge (SlabEdges::left), without pruning. By
    /// default a one-slab executor of slab_shape()'s band height; an engine may prefer shorter
    /// bands here, which keep rows closer.
    virtual std::unique_ptr<TileExecutor> window_executor(const Sequence& s0, const Sequence& s1,
                                                          const Scoring& scoring, const TopRow& top);
    /// The fewest rows between two special rows (engine/traceback/special_rows.hpp). A row of n
    /// columns takes 6n bytes on disk and n / rate seconds to compute, so rows k apart write
    /// 6 rate / k bytes a second whatever n is: a fast engine keeps them further apart, so that
    /// stage 1 does not wait for the disk. 1024 by default: the traceback's windows are about
    /// that tall anyway.
    virtual int64_t special_row_spacing() const { return 1024; }
    /// Windows the traceback may sweep at once, ahead of its walk (engine/traceback/lookahead.hpp):
    /// 0 where one window already takes all of the engine.
    virtual int window_lookahead() const { return 0; }
    /// S0 records shorter than this run stacked (engine/job/stack.hpp): a matrix of fewer rows
    /// has too few bands to keep the engine's blocks busy along its diagonals. 0: none.
    virtual int64_t stack_below(const Scoring& scoring) { (void)scoring; return 0; }
    /// The most block columns a slab's grid may start on while a bound pass runs (slab_run.cpp:
    /// narrower columns shorten the chain of tiles along a narrow live band, and fill more of
    /// the device where the band is wide); 0: slabs run the grid of slab_shape() throughout.
    virtual int32_t narrow_blocks(const Scoring& scoring) { (void)scoring; return 0; }
    /// The block columns of the grid a slab that started narrow changes to, where the bound
    /// leaves most of its columns live (a live corner, not a band); 0: slab_shape()'s.
    virtual int32_t changed_blocks(const Scoring& scoring) { (void)scoring; return 0; }
};

/// One rank's columns [c0, c0 + width) of S1, cut into `blocks` block columns.
struct Slab {
    int64_t c0 = 0;
    int64_t width = 0;
    int32_t blocks = 0;
};

/// Equal shares of n columns. Every slab but the last is exactly blocks x C columns with C a
/// multiple of kColumnQuantum and at least every shape's min_block_cols, so its grid has no padding and its last
/// column is its right edge; the last slab takes the rest. Throws Error when S1 is too short
/// for this many ranks.
std::vector<Slab> cut_slabs(int64_t n, const std::vector<SlabShape>& shapes);

/// What a slab run returns on every rank.
struct SlabRunResult {
    AlignmentEnd best;         ///< the best cell of the whole comparison
    /// With BackendOptions::stack_rows: each record's best cell, rows of the whole stack.
    std::vector<AlignmentEnd> records;
    int64_t cells_pruned = 0;  ///< real cells that pruning skipped, over every slab and rank
    int64_t cells_resumed = 0; ///< cells above the row the run resumed from (0: it started afresh)
    /// S1 is too short to cut over every slab (cut_slabs): nothing ran, on any rank. One
    /// slab computes such a comparison instead (run_local_slabs, and under MPI each rank alone).
    bool too_narrow = false;
};

/// Runs this rank's slab of the comparison: streams left edges in from rank - 1 and right
/// edges out to rank + 1 band by band, keeps at most a few diagonals in flight so edges leave
/// as soon as they are final, checkpoints (coordinated by rank 0, see Checkpointer) and
/// returns the best cell of the whole comparison on every rank (too_narrow on every rank, where
/// S1 is too short to cut over all of them). The slabs prune against the best
/// score of their process and of the ranks to their left (edges carry it). Rank 0 alone reads the stop
/// flag and reports progress. With `group`, this slab is slab `local` of it: it tells the group its progress, and rank 0
/// reports the progress of its whole group (this process's cells); without, its own. Special rows are kept as
/// options.special_rows says, stamped with its identity (run_slabs sets it).
SlabRunResult run_slab(const Sequence& s0, const Sequence& s1, const Scoring& scoring, SlabEngine& engine,
                       SlabLink& link, const BackendOptions& options, SlabGroup* group = nullptr, int local = 0);

/// A backend's align() over `slabs` slabs of one process, linked in memory (no MPI); over one
/// where S1 is too short to cut into `slabs`.
SlabRunResult run_local_slabs(const Sequence& s0, const Sequence& s1, const Scoring& scoring, SlabEngine& engine,
                              int slabs, const BackendOptions& options);

/// Runs the group's slabs of this process, a thread each, slab `local` over link_for(local)
/// (made on its thread), all with `engine`; returns the best cell of the whole comparison.
SlabRunResult run_slabs(const Sequence& s0, const Sequence& s1, const Scoring& scoring, SlabEngine& engine,
                        SlabGroup& group, const std::function<std::unique_ptr<SlabLink>(int local)>& link_for,
                        const BackendOptions& options);

}  // namespace chromalign
