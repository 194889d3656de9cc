//! @file CPU backend orchestration: thread count, kernel and grid choice, then the shared diagonal loop.
#include "kernels/cpu/cpu_backend.hpp"
#include "kernels/cpu/simd_whole_pass.hpp"

#include <algorithm>
#include <climits>
#include <mutex>

#include "kernels/cpu/cores.hpp"
#include "engine/error.hpp"
#include "engine/orchestration/slab_run.hpp"
#include "engine/tiling/tile_grid.hpp"
#include "kernels/cpu/tile_runner.hpp"

namespace chromalign {
namespace {

using kernels::cpu::CpuIsa;
using kernels::cpu::CpuKernel;
using kernels::cpu::CpuTileRunner;

/// Rows per lane when the user does not choose. More rows amortise each step's lane shifts,
/// loads and gate over more cells; the state they spill stays in L1. One core of a Xeon
/// (Sapphire Rapids), 60K x 60K mutated pair, GCUPS for alpha 8 / 16: sse41 3.23 / 3.32,
/// avx 3.69 / 3.86, avx2 6.18 / 6.47; 32-bit lanes (scoring 200/-150/300/40) avx2 4: 2.60,
/// 8: 2.79, 16: 3.16.
constexpr int kDefaultAlpha = 16;
/// Preferred kernel tile width: wide enough that the lane skew (2L masked steps) and the edge
/// conversions cost a few percent of a tile, small enough that a tile's bus segment and
/// scratch stay in the L1/L2 caches, and that pruning skips fine-grained regions.
constexpr int64_t kTargetCols = 2048;
/// Blocks per external diagonal: at least this many times the workers, so that each diagonal
/// splits evenly and a slow tile is balanced by others.
constexpr int64_t kBlocksPerWorker = 4;
/// A checkpoint is the wavefront (TileExecutor::take_wavefront), ready at once whatever B is;
/// but a resume that cannot start from it (another slab count, --alpha or backend) first
/// computes it down to one row, about B R n / 2 cells, and the first checkpoint of a run is
/// band 0's row, complete B + 1 diagonals after it is asked for. Blocks of kTargetCols made B
/// grow with n (a row took 55 s at 3M on 2 threads, issue 22), so B is kept to about this
/// many cells per worker (5 s at 5 GCUPS a thread), down to kBlocksPerWorker a worker; blocks
/// wider than kTargetCols run as kernel tiles of kTargetCols. A tall wavefront prunes more
/// (the best score it decides by comes from further down), so B stays as large as this allows.
constexpr double kStopCellsPerWorker = 2.5e10;
/// 16-bit lanes only pay when a tile is at least this many times as wide as its lane skew.
constexpr int64_t kMinColsPerLane = 16;

/// --slabs, or one when it is 0.
int slab_count(const BackendOptions& o) { return o.slabs > 0 ? o.slabs : 1; }

/// --threads, or when it is 0 the cores this process may use, shared among its slabs.
int thread_count(const BackendOptions& o) {
    return o.threads > 0 ? o.threads : std::max(1, usable_cores() / slab_count(o));
}

struct Plan {
    TileGrid grid;
    const CpuKernel* kernel = nullptr;
    int64_t tile_cols = 0;  ///< the kernel tiles' width (CpuTileRunner)
};

/// 16-bit lanes (twice the lanes per vector) whenever the tile fits their bound, else 32-bit.
/// Block columns are a multiple of the workers so that every diagonal splits evenly, unless
/// `blocks` (> 0) fixes them (a slab cut for exactly that many). `only_bits` (16 or 32) fixes
/// the lanes instead of choosing them: a slab's executor takes the lanes the ranks agreed on.
Plan plan_run(int64_t m, int64_t n, const CpuScoringTerms& scoring, const BackendOptions& o, int threads,
              CpuIsa isa, int32_t blocks = 0, int only_bits = 0) {
    const int alpha = o.alpha > 0 ? o.alpha : kDefaultAlpha;
    for (const int bits : {16, 32}) {
        if (only_bits != 0 && bits != only_bits) continue;
        const CpuKernel* kernel = kernels::cpu::find_cpu_kernel(isa, bits, alpha);
        if (!kernel) continue;
        const int64_t rows = int64_t{kernel->lanes} * alpha;
        int64_t target = kTargetCols;
        if (bits == 16) target = std::min(target, scoring.relative16_max_cols(rows) - kColumnQuantum);
        target = target / kColumnQuantum * kColumnQuantum;
        if (target < (bits == 16 ? kMinColsPerLane : 2) * kernel->lanes) continue;
        const double stop_blocks = kStopCellsPerWorker * threads / (static_cast<double>(rows) * static_cast<double>(n));
        int64_t max_blocks = std::min<int64_t>((n + target - 1) / target, static_cast<int64_t>(stop_blocks));
        max_blocks = std::max(kBlocksPerWorker * threads, (max_blocks + threads - 1) / threads * threads);
        if (o.max_blocks > 0) max_blocks = std::min<int64_t>(max_blocks, o.max_blocks);
        if (blocks > 0) max_blocks = blocks;
        max_blocks = std::min<int64_t>(max_blocks, INT32_MAX);
        const TileGrid grid = make_tile_grid(m, n, kernel->lanes, alpha, static_cast<int32_t>(max_blocks));
        const int64_t tile_cols = std::min(grid.block_cols, target);
        if (bits == 32 || scoring.relative16_fits(rows, tile_cols)) return {grid, kernel, tile_cols};
    }
    if (only_bits != 0)
        throw Error("internal: this slab's tiles do not fit the " + std::to_string(only_bits) +
                    "-bit lanes the ranks agreed on");
    throw Error("--alpha " + std::to_string(alpha) + " is not built for the CPU backend (choose 4, 8 or 16)");
}

/// `threads` is thread_count(options), computed once by the caller: every executor of a run
/// (one per slab, one per resume) gets the same count that device() reports.
std::unique_ptr<CpuTileRunner> make_runner(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                                           const BackendOptions& options, int threads, int64_t first_row,
                                           const TopRow& top, CpuIsa isa, const PruneRule& prune,
                                           SlabEdges edges = {}, int32_t blocks = 0, int only_bits = 0) {
    scoring.check_no_overflow(s0.length(), s1.length());
    if (first_row < 0 || first_row >= s0.length())
        throw Error("cannot start below row " + std::to_string(first_row) + " of " + std::to_string(s0.length()));
    const CpuScoringTerms terms = cpu_scoring_terms(scoring);
    const Plan plan = plan_run(s0.length() - first_row, s1.length(), terms, options, threads, isa, blocks, only_bits);
    auto runner = std::make_unique<CpuTileRunner>(plan.grid, terms, s0.codes.data() + first_row, s1.codes.data(),
                                                  top, *plan.kernel, threads, edges, prune, plan.tile_cols);
    if (options.test_row_checkpoints) runner->take_rows_only();
    return runner;
}

class CpuBackend : public Backend, public SlabEngine {
public:
    explicit CpuBackend(const BackendOptions& options)
        : options_(options), isa_(kernels::cpu::select_cpu_isa()),
          threads_(thread_count(options)) {}

    std::string name() const override { return "cpu"; }
    std::string device() const override {
        return "cpu: " + std::to_string(threads_) + (threads_ == 1 ? " thread, " : " threads, ") +
               kernels::cpu::cpu_isa_name(isa_);
    }
    std::string layout() const override { return layout_; }
    /// Per thread: 9.5 GCUPS with AVX-512, 7.5 with AVX2 (300k x 300k, tools/BENCHMARKS.md);
    /// the narrower kernels taken as half that.
    double nominal_gcups() const override {
        const double per_thread = isa_ == kernels::cpu::CpuIsa::kAvx512 ? 9.5 : isa_ == kernels::cpu::CpuIsa::kAvx2 ? 7.5 : 3.5;
        return per_thread * threads_;
    }

    /// --slabs S column slabs of --threads threads each (the cores shared among them by
    /// default): with S > 1, the path of a single-process cuda run, tested without a GPU.
    AlignmentEnd align(const Sequence& s0, const Sequence& s1, const Scoring& scoring) override {
        return align_run(s0, s1, scoring, options_);
    }

    AlignmentEnd align_run(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                           const BackendOptions& options) override {
        scoring.check_no_overflow(s0.length(), s1.length());
        const SlabRunResult run = run_local_slabs(s0, s1, scoring, *this, slabs_per_process(), options);
        cells_pruned_ = run.cells_pruned;
        cells_resumed_ = run.cells_resumed;
        record_bests_ = run.records;
        return run.best;
    }

    int64_t cells_pruned() const override { return cells_pruned_; }
    int64_t cells_resumed() const override { return cells_resumed_; }
    std::vector<AlignmentEnd> record_bests() const override { return record_bests_; }

    SlabEngine* slab_engine() override { return this; }

    /// The K best search's first pass, and its tiles with no pair barred, on the SIMD kernels.
    std::unique_ptr<TileWaves> tile_waves() override {
        return std::make_unique<kernels::cpu::SimdTileWaves>(isa_, threads_);
    }
    std::unique_ptr<TileWaves> host_tile_waves() override { return tile_waves(); }

    int slabs_per_process() const override { return slab_count(options_); }

    /// A diagonal runs one tile a band: below 4 bands a thread, threads wait for tiles.
    int64_t stack_below(const Scoring& scoring) override {
        return slab_shape(int64_t{1} << 20, int64_t{1} << 20, scoring).rows_per_band * 4 * threads_;
    }

    SlabShape slab_shape(int64_t m, int64_t width, const Scoring& scoring) override {
        std::lock_guard<std::mutex> lock(mutex_);
        const Plan plan = plan_run(m, width, cpu_scoring_terms(scoring), options_, threads_, isa_);
        slab_bits_ = plan.kernel->lane_bits;
        return SlabShape{plan.grid.rows_per_band(), plan.grid.blocks};
    }

    std::unique_ptr<TileExecutor> slab_executor(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                                                int64_t first_row, const TopRow& top, SlabEdges edges,
                                                int32_t blocks, const PruneRule& prune) override {
        int bits = 0;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            bits = slab_bits_;
        }
        // Built outside the lock, so that the slabs of a process set up their pools in parallel.
        auto runner = make_runner(s0, s1, scoring, options_, threads_, first_row, top, isa_, prune, edges, blocks, bits);
        std::lock_guard<std::mutex> lock(mutex_);
        layout_ = runner->grid().describe() + " kernel=" + runner->kernel_name();
        return runner;
    }

private:
    BackendOptions options_;
    CpuIsa isa_;
    int threads_;
    std::mutex mutex_;   ///< the slabs of a process call slab_shape and slab_executor from their threads
    int slab_bits_ = 0;  ///< the lanes of the shape slab_shape() gave, which the executor keeps
    std::string layout_;
    int64_t cells_pruned_ = 0;  ///< of the last run
    int64_t cells_resumed_ = 0; ///< of the last run
    std::vector<AlignmentEnd> record_bests_;  ///< of the last run, if it stacked records
};

}  // namespace

BackendEntry cpu_backend_entry() {
    return {"cpu", "multi-threaded SIMD tiles (SSE4.1 to AVX-512, or scalar)",
            /*automatic=*/true, /*default_slabs=*/1, [] { return 1; },
            [](const BackendOptions& o) -> std::unique_ptr<Backend> { return std::make_unique<CpuBackend>(o); }};
}

std::unique_ptr<TileExecutor> make_cpu_executor(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                                                const BackendOptions& options, int64_t first_row,
                                                const TopRow& top) {
    return make_runner(s0, s1, scoring, options, thread_count(options), first_row, top,
                       kernels::cpu::select_cpu_isa(), PruneRule{});
}

}  // namespace chromalign
