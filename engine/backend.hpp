//! @file The one small interface through which tools drive any backend, and the factory.
#pragma once

#include <csignal>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/result.hpp"
#include "engine/scoring.hpp"
#include "engine/sequence.hpp"

namespace chromalign {

class SlabEngine;

/// Column slabs per GPU when the user does not choose. H200, 16M x 16M: one GPU 103.0 s with
/// 1 slab, 95.6 s with 4, 95.1 s with 8, 95.6 s with 16; two GPUs (MPI) 48.9 s with 8 or 16
/// per GPU, 55.1 s with 1.
constexpr int kDefaultCudaSlabs = 8;

/// A progress report from a running comparison.
struct Progress {
    int64_t cells_done = 0;   ///< DP cells finished (of m*n), resumed ones included
    int64_t cells_total = 0;
    int64_t cells_this_run = 0;  ///< cells computed by this process (for the rate)
    double seconds = 0;       ///< since this process started the comparison
    int32_t best_score = 0;   ///< best score found so far
};

/// Checkpointing of the tiled backends (see engine/checkpoint.hpp for the file).
struct CheckpointOptions {
    std::string path;            ///< empty: no checkpoints
    double every_seconds = 60;   ///< interval between two checkpoints
    bool restart = false;        ///< ignore (and later overwrite) an existing checkpoint
    bool strict = false;         ///< stop when a checkpoint cannot be written
    std::string keep_rows_dir;   ///< also keep every checkpointed row here, as row_<r>.ckpt
    /// Set (to the signal number) by a signal handler: write one more checkpoint, then throw
    /// Interrupted. Read between diagonals only.
    const volatile std::sig_atomic_t* stop = nullptr;
};

/// Knobs shared by every backend; 0 means "choose for me".
struct BackendOptions {
    int threads = 0;          ///< CPU threads
    int device = 0;           ///< CUDA device index
    int alpha = 0;            ///< rows per thread of the tiled engines
    int blocks_per_sm = 0;    ///< CUDA blocks (one warp each) resident per multiprocessor
    int max_blocks = 0;       ///< cap on blocks per external diagonal (tests use it to force
                              ///< many-block grids on small inputs)
    int slabs = 0;            ///< column slabs this process runs at once, a thread each
                              ///< (engine/slab_group.hpp); 0: kDefaultCudaSlabs for cuda, 1 for cpu
    std::function<void(const Progress&)> on_progress;  ///< called about once a second, if set
    std::function<void(const std::string&)> on_note;    ///< informational lines, if set
    CheckpointOptions checkpoint;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;    ///< "reference", "cuda", ...
    virtual std::string device() const = 0;  ///< what ran it, e.g. "NVIDIA H100 80GB HBM3"
    /// Best local score and end cell under the tie rule of engine/result.hpp.
    virtual AlignmentEnd align(const Sequence& s0, const Sequence& s1, const Scoring& scoring) = 0;
    virtual size_t device_bytes() const { return 0; }  ///< accelerator memory of the last run
    virtual std::string layout() const { return {}; }  ///< grid of the last run, if tiled
    /// The tiled backends' engine for column-slab runs over several ranks (engine/slab_run.hpp);
    /// null for the others.
    virtual SlabEngine* slab_engine() { return nullptr; }
};

/// "reference", "cpu", "cuda" or "auto" (cuda when a CUDA device is present, else cpu).
/// Throws Error for an unknown name or an unavailable backend.
std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& options);

/// The names make_backend accepts, for --help.
std::vector<std::string> backend_names();

/// True when this build has the CUDA backend and a device is present.
bool cuda_available();

}  // namespace chromalign
