//! @file CUDA backend orchestration (CUDAlign Algorithm 2): grid choice and the diagonal loop.
#include "kernels/cuda/cuda_backend.hpp"

#include <algorithm>
#include <cstdint>
#include <mutex>

#include "engine/declump/declump.hpp"
#include "engine/error.hpp"
#include "engine/orchestration/slab_run.hpp"
#include "engine/tiling/tile_grid.hpp"

#include "kernels/cpu/cores.hpp"
#include "kernels/cpu/simd_whole_pass.hpp"
#include "kernels/cuda/tile_runner.hpp"
#include "kernels/cuda/stream/band_stream.hpp"
#include "kernels/cuda/tile_waves.hpp"
#include "kernels/cuda/tuning.hpp"

namespace chromalign {

namespace {

static_assert(kernels::CudaTileRunner::kEdgeSlots > kMaxDiagonalsInFlight,
              "the edge rings must outlast the diagonals the slab loop keeps in flight");

/// Defaults when the user does not choose: tuning.hpp has the values and their measurements.
using kernels::cuda::Tuning;

class CudaBackend : public Backend, public SlabEngine {
public:
    explicit CudaBackend(const BackendOptions& options)
        : options_(options), info_(kernels::cuda_device_info(options.device)) {
        if (options_.alpha == 0) options_.alpha = Tuning::kDefaultAlpha;
        if (!kernels::cuda_alpha_supported(options_.alpha))
            throw Error("--alpha must be 4, 8 or 16 for the CUDA backend");
        wanted_blocks_per_sm_ = options_.blocks_per_sm > 0 ? options_.blocks_per_sm : Tuning::kDefaultBlocksPerSm;
        resident(CudaScoringTerms::Substitution::kBytes);  // checks the device and alpha now
        slabs_ = options_.slabs > 0 ? options_.slabs : Tuning::kDefaultSlabs;
        sharing_ = slabs_;
    }

    std::string name() const override { return "cuda"; }
    std::string device() const override {
        return info_.name + " (device " + std::to_string(options_.device) + ")";
    }
    /// 2620 GCUPS on the 132 multiprocessors of an H100 (8M x 8M, tools/BENCHMARKS.md).
    double nominal_gcups() const override { return 2620.0 / 132 * info_.multiprocessors; }
    size_t device_bytes() const override { return device_bytes_; }
    std::string layout() const override { return layout_; }

    /// One process on one GPU: slabs_ column slabs as concurrent kernels (slab_group.hpp says
    /// why), or one slab for an S1 too short to cut.
    AlignmentEnd align(const Sequence& s0, const Sequence& s1, const Scoring& scoring) override {
        return align_run(s0, s1, scoring, options_);
    }

    AlignmentEnd align_run(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                           const BackendOptions& options) override {
        scoring.check_no_overflow(s0.length(), s1.length());
        device_bytes_ = 0;
        if (options_.band_stream) {  // one stream of bands over the whole matrix
            const kernels::BandStreamRun run = kernels::cuda_band_stream(options_.device, options_.alpha, s0, s1, scoring, options);
            cells_pruned_ = s0.length() * s1.length() - run.cells_computed;
            cells_resumed_ = 0;
            record_bests_.clear();
            device_bytes_ = run.device_bytes;
            layout_ = "a stream of bands of " + std::to_string(32 * options_.alpha) + " rows";
            return run.best;
        }
        sharing_ = slabs_;
        // Whether S1 is worth cutting depends on the default grid's columns, not on the share
        // chosen: narrower block columns are measured at the same slab count.
        if (s1.length() < Tuning::kMinBlockColsForSlabs * slab_blocks(scoring, Tuning::kSlabOversubscription) * slabs_)
            sharing_ = 1;
        const SlabRunResult run = run_local_slabs(s0, s1, scoring, *this, sharing_, options);
        cells_pruned_ = run.cells_pruned;
        cells_resumed_ = run.cells_resumed;
        record_bests_ = run.records;
        if (sharing_ > 1) layout_ = std::to_string(sharing_) + " slabs (one: " + layout_ + ")";
        sharing_ = slabs_;
        return run.best;
    }

    int64_t cells_pruned() const override { return cells_pruned_; }
    int64_t cells_resumed() const override { return cells_resumed_; }
    std::vector<AlignmentEnd> record_bests() const override { return record_bests_; }

    SlabEngine* slab_engine() override { return this; }
    std::unique_ptr<TileWaves> tile_waves() override { return kernels::make_cuda_tile_waves(options_.device); }
    /// At most a quarter of the GPU's memory, where the edges stay, and no more than the host's
    /// share, which holds them where they do not fit beside another process's memory.
    int64_t search_memory() const override {
        return std::min<int64_t>(static_cast<int64_t>(info_.total_memory / 4), Backend::search_memory());
    }
    /// A window swept here costs launches whatever its size, and a kept row a copy home of the
    /// whole row: few rows, far apart (DeclumpOptions' default).
    int64_t trace_row_spacing() const override { return DeclumpOptions{}.trace_row_spacing; }
    /// The search's tiles too few for a wave on the device, and its peaks' placement: the cpu
    /// backend's SIMD kernels, on the threads each call is given.
    std::unique_ptr<TileWaves> host_tile_waves() override {
        return std::make_unique<kernels::cpu::SimdTileWaves>(kernels::cpu::select_cpu_isa(),
                                                             options_.threads > 0 ? options_.threads : usable_cores());
    }

    int slabs_per_process() const override { return slabs_; }

    SlabShape slab_shape(int64_t, int64_t, const Scoring& scoring) override {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            layout_.clear();  // every slab of a run asks first: the executors it then makes describe it
        }
        // One warp per block: the short/long phase split needs C >= 2T.
        return SlabShape{int64_t{32} * options_.alpha, slab_blocks(scoring), 2 * 32};
    }

    std::unique_ptr<TileExecutor> slab_executor(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                                                int64_t first_row, const TopRow& top, SlabEdges edges,
                                                int32_t blocks, const PruneRule& prune) override {
        const TileGrid grid = make_tile_grid(s0.length() - first_row, s1.length(), 32, options_.alpha, blocks);
        auto runner = std::make_unique<kernels::CudaTileRunner>(options_.device, grid, cuda_scoring_terms(scoring),
                                                                s0.codes.data() + first_row, s1.codes.data(), top, edges, prune);
        if (options_.cooperative_limit > 0) runner->limit_cooperative_launches(options_.cooperative_limit);
        std::lock_guard<std::mutex> lock(mutex_);  // the slabs of a process call this from their threads
        if (layout_.empty()) layout_ = grid.describe();  // the grid slabs start on, not one they change to
        device_bytes_ += runner->device_bytes();
        return runner;
    }

    /// Windows take alpha 4 (R = 128): the walk recurses into windows as tall as the rows kept
    /// are apart, and their cells grow with that height squared. Blocks of about 512 columns.
    /// A window is too small to fill the GPU either way: on the H100 a 70k x 87k window took
    /// 37 ms with B = 170 (about 52 us a diagonal, one warp per block on 132 SMs) and 29 ms
    /// with 64 columns (B = 1375, twice the diagonals); 512 keeps the host's work small.
    std::unique_ptr<TileExecutor> window_executor(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                                                  const TopRow& top) override {
        constexpr int kWindowAlpha = 4;
        const CudaScoringTerms terms = cuda_scoring_terms(scoring);
        int per_sm = 0;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            int& resident = window_resident_[static_cast<int>(terms.substitution)];
            if (resident == 0)
                resident = kernels::cuda_window_blocks_per_sm(options_.device, kWindowAlpha, terms.substitution);
            per_sm = std::max(1, std::min(wanted_blocks_per_sm_, resident));
        }
        int64_t most = int64_t{info_.multiprocessors} * per_sm;
        if (options_.max_blocks > 0) most = std::min<int64_t>(most, options_.max_blocks);
        const int64_t blocks = std::clamp<int64_t>(s1.length() / 512, 1, most);
        const TileGrid grid = make_tile_grid(s0.length(), s1.length(), 32, kWindowAlpha, static_cast<int32_t>(blocks));
        // No edge ring: enqueue_window brings the window's fresh edges.
        return std::make_unique<kernels::CudaTileRunner>(options_.device, grid, terms, s0.codes.data(),
                                                         s1.codes.data(), top, SlabEdges{}, PruneRule{});
    }

    /// About 3e12 cells a second on an H100 (pruned related pairs): rows 65536 apart write
    /// about 250 MB/s. On a 5M related pair, 8G of rows (279, 18k apart) made stage 1 7.5%
    /// slower and 2G (71) 2-3%, with the shortest traceback of the budgets tried.
    int64_t special_row_spacing() const override { return 65536; }

    /// A window fills a small part of the GPU (window_executor): several run at once, each
    /// keeping at most EngineSweeper's 2 GB of rows. H100, 16M related pair, the traceback
    /// alone, windows in flight against time, each pair of lists from one machine (c4e7fa2,
    /// then e594e44): 4: 8.45 s; 6: 8.16 s; 8: 8.06-8.43 s, 6.24-6.95 s; 12: 8.55 s, 6.34 s
    /// twice. A window's sweep took 70 ms with 4 in flight, 115 ms with 8 and 150 ms with 12.
    int window_lookahead() const override { return kWindowLookahead; }

    /// Tuning::kNarrowShares times every resident block: a narrow band's launches are short,
    /// so each may take the GPU (the slabs' launches then take turns, which a dense matrix
    /// pays for: tuning.hpp); a launch of more blocks than the GPU holds splits in two
    /// (CudaTileRunner).
    int32_t narrow_blocks(const Scoring& scoring) override {
        const int shares = options_.narrow_shares > 0 ? options_.narrow_shares : Tuning::kNarrowShares;
        return static_cast<int32_t>(std::min<int64_t>(int64_t{shares} * max_blocks(scoring), INT32_MAX / 2));
    }

    /// Tuning::kChangedOversubscription shares of the resident blocks (or the benchmark's
    /// --oversubscription, as for slab_shape).
    int32_t changed_blocks(const Scoring& scoring) override {
        return slab_blocks(scoring, options_.slab_oversubscription > 0 ? options_.slab_oversubscription
                                                                        : Tuning::kChangedOversubscription);
    }

    /// A slab's diagonals run min(bands, B) blocks: below B bands of 32 alpha rows, part of
    /// the GPU idles (and a short record pays the set-up of a whole comparison).
    int64_t stack_below(const Scoring& scoring) override { return int64_t{32} * options_.alpha * slab_blocks(scoring); }

private:
    static constexpr int kWindowLookahead = 8;
    /// Blocks of this substitution's kernels that fit on one multiprocessor (queried once).
    int resident(CudaScoringTerms::Substitution substitution) {
        std::lock_guard<std::mutex> lock(mutex_);  // the slabs of a process ask from their threads
        int& blocks = resident_[static_cast<int>(substitution)];
        if (blocks == 0) blocks = kernels::cuda_resident_blocks_per_sm(options_.device, options_.alpha, substitution);
        return blocks;
    }

    /// Block columns of one of sharing_ slabs: kSlabOversubscription shares of the resident
    /// blocks (or the benchmark's choice, or `shares`), at most all of them (tuning.hpp says why).
    int32_t slab_blocks(const Scoring& scoring) {
        return slab_blocks(scoring, options_.slab_oversubscription > 0 ? options_.slab_oversubscription
                                                                          : Tuning::kSlabOversubscription);
    }
    int32_t slab_blocks(const Scoring& scoring, int shares) {
        const int32_t total = max_blocks(scoring);
        return std::max(1, std::min<int32_t>(total, static_cast<int32_t>(int64_t{shares} * total / sharing_)));
    }

    /// Blocks per launch for this scoring: every one must be resident (cooperative launch).
    int32_t max_blocks(const Scoring& scoring) {
        const int per_sm = std::max(1, std::min(wanted_blocks_per_sm_, resident(cuda_scoring_terms(scoring).substitution)));
        int max_blocks = info_.multiprocessors * per_sm;
        if (options_.max_blocks > 0) max_blocks = std::min(max_blocks, options_.max_blocks);
        return max_blocks;
    }

    BackendOptions options_;
    kernels::CudaDeviceInfo info_;
    int wanted_blocks_per_sm_ = 1;  ///< --blocks-per-sm, or the default
    int resident_[3] = {};          ///< per CudaScoringTerms::Substitution; 0 until asked
    int window_resident_[3] = {};   ///< the same for window_executor's alpha
    int slabs_ = 1;
    int sharing_ = 1;  ///< slabs of this process sharing the GPU in the run being set up
    std::mutex mutex_;
    size_t device_bytes_ = 0;  ///< of every executor of the last run
    int64_t cells_pruned_ = 0;  ///< of the last run
    int64_t cells_resumed_ = 0; ///< of the last run
    std::vector<AlignmentEnd> record_bests_;  ///< of the last run, if it stacked records
    std::string layout_;
};

}  // namespace

BackendEntry cuda_backend_entry() {
    return {"cuda", "one NVIDIA GPU (--device), CUDAlign's tiling with column slabs",
            /*automatic=*/true, /*default_slabs=*/Tuning::kDefaultSlabs, [] { return kernels::cuda_device_count(); },
            [](const BackendOptions& o) -> std::unique_ptr<Backend> { return std::make_unique<CudaBackend>(o); }};
}

}  // namespace chromalign
