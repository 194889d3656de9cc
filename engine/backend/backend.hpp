//! @file The one small interface through which tools drive any backend.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend/host_memory.hpp"
#include "engine/backend/options.hpp"
#include "engine/declump/tile_waves.hpp"
#include "engine/result.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"

namespace chromalign {

class SlabEngine;

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;    ///< "reference", "cuda", ...
    virtual std::string device() const = 0;  ///< what ran it, e.g. "NVIDIA H100 80GB HBM3"
    /// Best local score and end cell under the tie rule of engine/result.hpp.
    virtual AlignmentEnd align(const Sequence& s0, const Sequence& s1, const Scoring& scoring) = 0;
    /// The same, with this run's own checkpoint, special rows, prune floor and callbacks from
    /// `run` (a job's comparisons each have theirs); the engine's knobs (threads, device, grid,
    /// slabs, pruning) stay those the backend was made with. A backend without checkpoints,
    /// special rows or pruning (the reference) ignores `run`.
    virtual AlignmentEnd align_run(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                                   const BackendOptions& run) {
        (void)run;
        return align(s0, s1, scoring);
    }
    /// About how many cells a second (in billions) this backend computes of a large pair with
    /// nothing to prune, for a job's estimate before it starts (0: unknown).
    virtual double nominal_gcups() const { return 0; }
    virtual size_t device_bytes() const { return 0; }  ///< accelerator memory of the last run
    virtual std::string layout() const { return {}; }  ///< grid of the last run, if tiled
    virtual int64_t cells_pruned() const { return 0; } ///< real cells the last run skipped
    /// After an align_run with BackendOptions::stack_rows: each record's best cell (rows of the
    /// whole stack). Empty for a backend that cannot stack.
    virtual std::vector<AlignmentEnd> record_bests() const { return {}; }
    /// Cells the last run took from a checkpoint rather than computing (0: it started afresh).
    virtual int64_t cells_resumed() const { return 0; }
    /// The tiled backends' engine for column-slab runs (engine/orchestration/slab_run.hpp);
    /// null for the others.
    virtual SlabEngine* slab_engine() { return nullptr; }
    /// A device that computes the K best search's waves of tiles (engine/declump/tile_waves.hpp),
    /// bound to the sequences it is first given; null: the search runs on CPU threads alone.
    virtual std::unique_ptr<TileWaves> tile_waves() { return nullptr; }
    /// What computes the search's tiles on the host (a peak's cell, the walks' tiles), bound
    /// as tile_waves(); null: the portable lanes (CpuTileWaves).
    virtual std::unique_ptr<TileWaves> host_tile_waves() { return nullptr; }
    /// The most memory the K best search keeps a pair's tiles' edges in where the user names
    /// none (--alignments-memory auto, auto_tiles): a quarter of the host's (2 GiB where that
    /// is unknown).
    virtual int64_t search_memory() const {
        const int64_t host = host_memory_bytes();
        return host > 0 ? std::max<int64_t>(host / 4, int64_t{256} << 20) : int64_t{2} << 30;
    }
    /// Rows at least this far apart are those the K best search traces its alignment 1 from
    /// (DeclumpOptions::trace_row_spacing; the grid's band tops). A host engine's windows cost
    /// their cells, so every band is cheapest: on the cpu backend (2 cores) a 287 kbp
    /// alignment took 0.50-0.55 s from every band of 3072 rows, 0.69 s from every fourth and
    /// 1.63 s from rows 64k apart, the same alignment.
    virtual int64_t trace_row_spacing() const { return 1; }
};

/// How a backend plugs in: each backend folder under kernels/ returns one of these from its
/// NAME_backend_entry(), and kernels/registry.cpp lists them.
struct BackendEntry {
    std::string name;     ///< what --backend takes
    std::string summary;  ///< one line for --help
    bool automatic = false;  ///< `auto` may pick it (the first such entry with a device wins)
    int default_slabs = 1;   ///< column slabs per process when --slabs is 0 (0: not tiled)
    /// Devices of this kind present (a host backend answers 1; a backend left out of this
    /// build, 0). Never throws.
    std::function<int()> devices;
    /// Throws Error when the backend cannot run (not built, no such device, bad options).
    std::function<std::unique_ptr<Backend>(const BackendOptions&)> make;
};

}  // namespace chromalign
