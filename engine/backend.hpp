//! @file The one small interface through which tools drive any backend, and the factory.
#pragma once

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

/// A progress report from a running comparison.
struct Progress {
    int64_t cells_done = 0;   ///< DP cells finished (of m*n)
    int64_t cells_total = 0;
    double seconds = 0;       ///< since the comparison started
};

/// Knobs shared by every backend; 0 means "choose for me".
struct BackendOptions {
    int threads = 0;          ///< CPU threads
    int device = 0;           ///< CUDA device index
    int alpha = 0;            ///< rows per thread of the tiled engines
    int blocks_per_sm = 0;    ///< CUDA blocks (one warp each) resident per multiprocessor
    int max_blocks = 0;       ///< cap on blocks per external diagonal (tests use it to force
                              ///< many-block grids on small inputs)
    std::function<void(const Progress&)> on_progress;  ///< called about once a second, if set
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
};

/// "reference", "cuda" or "auto" (cuda when a CUDA device is present, else reference).
/// Throws Error for an unknown name or an unavailable backend.
std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& options);

/// The names make_backend accepts, for --help.
std::vector<std::string> backend_names();

/// True when this build has the CUDA backend and a device is present.
bool cuda_available();

}  // namespace chromalign
