//! @file CUDA backend orchestration (CUDAlign Algorithm 2): grid choice and the diagonal loop.
#include "engine/cuda_backend.hpp"

#include <algorithm>
#include <chrono>

#include "engine/error.hpp"
#include "engine/tile_grid.hpp"

#ifdef CHROMALIGN_HAVE_CUDA
#include "kernels/cuda/tile_runner.hpp"
#endif

namespace chromalign {

#ifdef CHROMALIGN_HAVE_CUDA
namespace {

/// Rows per thread when the user does not choose: more rows amortise the per-step shuffles,
/// votes and bus traffic over more cells. On an H100, 8M x 8M: alpha 16 (12 blocks per SM,
/// register-limited) 2.20 TCUPS, alpha 8 (16 per SM) 2.04 TCUPS.
constexpr int kDefaultAlpha = 16;
/// Resident one-warp blocks per multiprocessor when the user does not choose (capped by the
/// occupancy the kernel's registers allow: 12 for alpha 16 on sm_90).
constexpr int kDefaultBlocksPerSm = 16;
/// Diagonals enqueued between two looks at the clock (one synchronisation each).
constexpr int64_t kDiagonalsPerBatch = 64;

class CudaBackend : public Backend {
public:
    explicit CudaBackend(const BackendOptions& options)
        : options_(options), info_(kernels::cuda_device_info(options.device)) {
        if (options_.alpha == 0) options_.alpha = kDefaultAlpha;
        if (!kernels::cuda_alpha_supported(options_.alpha))
            throw Error("--alpha must be 4, 8 or 16 for the CUDA backend");
        const int resident = kernels::cuda_resident_blocks_per_sm(options_.device, options_.alpha);
        const int wanted = options_.blocks_per_sm > 0 ? options_.blocks_per_sm : kDefaultBlocksPerSm;
        blocks_per_sm_ = std::max(1, std::min(wanted, resident));
    }

    std::string name() const override { return "cuda"; }
    std::string device() const override {
        return info_.name + " (device " + std::to_string(options_.device) + ")";
    }
    size_t device_bytes() const override { return device_bytes_; }
    std::string layout() const override { return layout_; }

    AlignmentEnd align(const Sequence& s0, const Sequence& s1, const Scoring& scoring) override {
        scoring.check_no_overflow(s0.length(), s1.length());
        int max_blocks = info_.multiprocessors * blocks_per_sm_;
        if (options_.max_blocks > 0) max_blocks = std::min(max_blocks, options_.max_blocks);
        const TileGrid grid = make_tile_grid(s0.length(), s1.length(), 32, options_.alpha, max_blocks);
        layout_ = grid.describe();
        kernels::CudaTileRunner runner(options_.device, grid, scoring, s0.codes.data(),
                                       s1.codes.data());
        device_bytes_ = runner.device_bytes();
        const auto start = std::chrono::steady_clock::now();
        auto last_report = start;
        const int64_t total = grid.diagonals();
        for (int64_t d = 0; d < total; ++d) {
            runner.enqueue_diagonal(d);
            if (options_.on_progress && (d + 1) % kDiagonalsPerBatch == 0) {
                runner.synchronize();
                const auto now = std::chrono::steady_clock::now();
                if (now - last_report >= std::chrono::seconds(1)) {
                    last_report = now;
                    options_.on_progress(progress(grid, d + 1, start, now));
                }
            }
        }
        return runner.best();
    }

private:
    /// Cells finished after diagonals [0, done): block b has finished done - b bands.
    /// Counted on the padded grid, then scaled to the m*n real cells.
    static Progress progress(const TileGrid& g, int64_t done,
                             std::chrono::steady_clock::time_point start,
                             std::chrono::steady_clock::time_point now) {
        int64_t blocks_done = 0;
        for (int64_t b = 0; b < g.blocks; ++b) blocks_done += std::clamp<int64_t>(done - b, 0, g.bands);
        Progress p;
        p.cells_total = g.m * g.n;
        const double fraction = static_cast<double>(blocks_done) / (static_cast<double>(g.bands) * g.blocks);
        p.cells_done = static_cast<int64_t>(fraction * static_cast<double>(p.cells_total));
        p.seconds = std::chrono::duration<double>(now - start).count();
        return p;
    }

    BackendOptions options_;
    kernels::CudaDeviceInfo info_;
    int blocks_per_sm_ = 1;
    size_t device_bytes_ = 0;
    std::string layout_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(const BackendOptions& options) {
    return std::make_unique<CudaBackend>(options);
}

int cuda_backend_device_count() { return kernels::cuda_device_count(); }

#else

std::unique_ptr<Backend> make_cuda_backend(const BackendOptions&) {
    throw Error("this build of chromalign has no CUDA backend (no CUDA compiler at build time)");
}

int cuda_backend_device_count() { return 0; }

#endif

}  // namespace chromalign
