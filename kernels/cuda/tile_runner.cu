//! @file CudaTileRunner: device buffers of one comparison and the launches of each external diagonal.
#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <deque>
#include <iterator>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_codes.hpp"
#include "kernels/cuda/diagonal_trace.hpp"
#include "kernels/cuda/gain_copies.hpp"
#include "kernels/cuda/block_pruning.cuh"
#include "kernels/cuda/diagonal_kernel.cuh"
#include "kernels/cuda/window_kernel.cuh"
#include "kernels/cuda/tile_runner.hpp"
#include "engine/scheduling/live_window.hpp"

namespace chromalign::kernels {

using cuda::BestCell;
using cuda::PhaseArgs;
using cuda::WindowArgs;

namespace {

[[noreturn]] void unsupported_alpha(int alpha) {
    throw Error("CUDA kernels are built for alpha 4, 8 or 16, not " + std::to_string(alpha));
}

/// Calls fn(std::integral_constant<int, A>) for the compiled alpha, or throws.
template <typename Fn>
void with_alpha(int alpha, Fn&& fn) {
    switch (alpha) {
    case 4: fn(std::integral_constant<int, 4>{}); break;
    case 8: fn(std::integral_constant<int, 8>{}); break;
    case 16: fn(std::integral_constant<int, 16>{}); break;
    default: unsupported_alpha(alpha);
    }
}

/// Calls fn(std::integral_constant<cuda::Substitution, S>) for `sub`.
template <typename Fn>
void with_substitution(cuda::Substitution sub, Fn&& fn) {
    using S = cuda::Substitution;
    switch (sub) {
    case S::kBytes: fn(std::integral_constant<S, S::kBytes>{}); break;
    case S::kEquality: fn(std::integral_constant<S, S::kEquality>{}); break;
    case S::kTable: fn(std::integral_constant<S, S::kTable>{}); break;
    }
}

/// The diagonal kernel's instance for alpha A and substitution S: with trace stamps or not,
/// keeping band bottoms or not.
template <int A, cuda::Substitution S>
auto diagonal_instance(bool traced, bool keep) {
    using Kernel = decltype(&cuda::diagonal_phases<A, S, false, false>);
    static constexpr Kernel kInstances[2][2] = {
        {cuda::diagonal_phases<A, S, false, false>, cuda::diagonal_phases<A, S, false, true>},
        {cuda::diagonal_phases<A, S, true, false>, cuda::diagonal_phases<A, S, true, true>}};
    return kInstances[traced][keep];
}

}  // namespace

bool cuda_alpha_supported(int alpha) { return alpha == 4 || alpha == 8 || alpha == 16; }

int cuda_resident_blocks_per_sm(int device, int alpha, CudaScoringTerms::Substitution substitution) {
    CUDA_CHECK(cudaSetDevice(device));
    // One grid serves every instance (traced, keeping band bottoms or not): all must fit.
    int fit = -1;  // none asked yet
    with_alpha(alpha, [&](auto a) {
        with_substitution(substitution, [&](auto sub) {
            constexpr int A = decltype(a)::value;
            constexpr cuda::Substitution S = decltype(sub)::value;
            for (const bool traced : {false, true})
                for (const bool keep : {false, true}) {
                    int blocks = 0;
                    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                        &blocks, diagonal_instance<A, S>(traced, keep), cuda::kWarp, 0));
                    fit = fit < 0 ? blocks : std::min(fit, blocks);
                }
        });
    });
    return std::max(fit, 0);
}

int cuda_window_blocks_per_sm(int device, int alpha, CudaScoringTerms::Substitution substitution) {
    int window = 0;
    with_alpha(alpha, [&](auto a) {
        with_substitution(substitution, [&](auto sub) {
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &window, cuda::window_diagonals<decltype(a)::value, decltype(sub)::value>, cuda::kWarp, 0));
        });
    });
    return std::min(window, cuda_resident_blocks_per_sm(device, alpha, substitution));
}

/// A buffer from `spare`, or a fresh one from `alloc` (a cudaMalloc-like call).
template <typename Alloc>
int2* take_or(std::vector<int2*>& spare, Alloc alloc) {
    if (!spare.empty()) {
        int2* p = spare.back();
        spare.pop_back();
        return p;
    }
    int2* p = nullptr;
    CUDA_CHECK(alloc(&p));
    return p;
}

/// A piece of a captured band's bottom row: bus columns [first, last) into the band's row.
struct BusPiece {
    int2* row;
    int64_t first, last;
};
constexpr int kPiecesPerCopy = 32;
struct BusPieces {
    BusPiece piece[kPiecesPerCopy];
};

/// A capture row before its first piece: the columns of blocks a compact launch leaves out
/// are never copied, and hold the dead outputs (H = 0, F = -inf) those blocks handed on.
__global__ void fill_dead_row(int2* row, int64_t n) {
    for (int64_t c = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; c < n; c += int64_t{gridDim.x} * blockDim.x)
        row[c] = make_int2(0, cuda::kNegInf);
}

/// Block i copies piece i.
__global__ void copy_bus_pieces(const int2* hbus, BusPieces pieces) {
    const BusPiece p = pieces.piece[blockIdx.x];
    for (int64_t c = p.first + threadIdx.x; c < p.last; c += blockDim.x) p.row[c] = hbus[c];
}

/// Traceback sweeps: after diagonal d, block i copies the bus columns that d made final for
/// band d - i (the columns capture_band_bottom names) into that band's row of `kept`, when the
/// band is kept (TileExecutor::keep_band_bottoms).
__global__ void keep_band_pieces(const int2* hbus, int2* kept, int64_t d, int64_t every, int64_t bands,
                                 int32_t blocks, int64_t block_cols, int64_t n) {
    const int64_t b = blockIdx.x, band = d - b;
    if (band < 0 || band >= bands || (band + 1) % every != 0) return;
    const cuda::ColumnSpan cols = cuda::final_columns(b, blocks, block_cols, n);
    int2* row = kept + band / every * n;
    for (int64_t c = cols.first + threadIdx.x; c < cols.last; c += blockDim.x) row[c] = hbus[c];
}

/// Block (k, r) reduces run r of `block` columns of kept row k to max(0, H) + slope * c.
__global__ void kept_row_maxima(const int2* kept, int64_t n, int64_t slope, int64_t block, int64_t* out) {
    const int64_t k = blockIdx.y, r = blockIdx.x, last = min(n, (r + 1) * block);
    long long best = LLONG_MIN;
    for (int64_t c = r * block + threadIdx.x; c < last; c += blockDim.x)
        best = max(best, static_cast<long long>(max(0, kept[k * n + c].x)) + slope * c);
    for (int offset = 16; offset > 0; offset /= 2) best = max(best, __shfl_down_sync(0xffffffffu, best, offset));
    __shared__ long long warps[32];
    if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = best;
    __syncthreads();
    if (threadIdx.x != 0) return;
    for (unsigned w = 1; w < blockDim.x / 32; ++w) best = max(best, warps[w]);
    out[k * gridDim.x + r] = best;
}

/// Pinned host buffers for kept_band_bottoms, shared by the runners of the process: the
/// traceback makes a runner per window, and pinning memory and unpinning it (which may wait
/// for the whole device) per window cost more than the transfers. Held until the process ends.
class PinnedPool {
public:
    /// A buffer of at least `count` int2, and its size.
    std::pair<int2*, size_t> take(size_t count) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            for (auto it = free_.begin(); it != free_.end(); ++it) {
                if (it->second < count) continue;
                const auto got = *it;
                free_.erase(it);
                return got;
            }
        }
        // Rounded up to a power of two from 64k, so that a few sizes serve every window.
        size_t size = size_t{1} << 16;
        while (size < count) size *= 2;
        int2* p = nullptr;
        CUDA_CHECK(cudaMallocHost(&p, size * sizeof(int2)));
        return {p, size};
    }
    void give(std::pair<int2*, size_t> buffer) {
        if (!buffer.first) return;
        std::lock_guard<std::mutex> lock(mutex_);
        free_.push_back(buffer);
    }

private:
    std::mutex mutex_;
    std::vector<std::pair<int2*, size_t>> free_;
};

PinnedPool& fetch_buffers() {
    static PinnedPool* pool = new PinnedPool;  // never destroyed: runners may outlive statics
    return *pool;
}

struct CudaTileRunner::Impl {
    TileGrid grid;
    int device = 0;
    PhaseArgs args{};
    cudaStream_t stream = nullptr;
    uint8_t* d_s0 = nullptr;
    uint8_t* d_s1 = nullptr;
    int2* d_hbus = nullptr;
    int32_t* d_vbus[2] = {nullptr, nullptr};
    int32_t* d_flags = nullptr;  ///< per block, see PhaseArgs::flags
    int32_t* d_table = nullptr;  ///< kTable: the diagonal terms, see PhaseArgs::diag_table
    BestCell* d_best = nullptr;       ///< records x blocks
    int32_t* d_best_score = nullptr;  ///< per record
    int32_t* d_band_record = nullptr; ///< stack_records: the record of each band
    std::vector<int32_t> band_record; ///< ... on the host (empty: one record)
    int64_t records = 1;
    unsigned long long* d_pruned = nullptr;  ///< see PhaseArgs::pruned
    int32_t* d_dead = nullptr;               ///< see PhaseArgs::dead
    int32_t* d_lanes = nullptr;              ///< see PhaseArgs::lanes; only for a grid that may split
    /// Blocks one cooperative launch may have: all the GPU holds at once, or
    /// limit_cooperative_launches'. Larger launches split (launch()).
    int64_t coresident = 0;

    /// Sets coresident, and takes d_lanes when the grid has more blocks: in the constructor,
    /// so that device_bytes() counts it.
    void limit_cooperative(int64_t blocks) {
        coresident = blocks;
        if (grid.blocks > coresident && !d_lanes) d_lanes = alloc<int32_t>(slot_words() * grid.blocks);
    }
    /// Words of one block's slot in the vertical bus and in d_lanes (cuda::kSlotWords<alpha>).
    size_t slot_words() const { return static_cast<size_t>(2 * grid.alpha + 2) * cuda::kWarp; }
    /// Compact launches (pruning): PhaseArgs::live_span and live_count on the device, and
    /// live_host, pinned h_live; per diagonal slot, what the host launched and the G it passed.
    unsigned long long* d_live = nullptr;
    unsigned* d_live_count = nullptr;
    unsigned long long* h_live = nullptr;
    struct Launched {
        int32_t g = 0;
        bool decided = false;  ///< prune_block_runs ran: h_live holds its live runs
        BlockSpan blocks;      ///< the launch's first to last block column
    };
    Launched launched[kEdgeSlots];
    std::atomic<int64_t> cells_left_out{0};  ///< real cells of the blocks compact launches left out (pruned)
    int32_t* h_best_seen = nullptr;          ///< pinned: d_best_score, copied every kBestCopyEvery diagonals
    unsigned long long* h_pruned_seen = nullptr;  ///< pinned: d_pruned, copied with it and at synchronize()
    int32_t shared_best = 0;                 ///< see share_best_score
    /// args.prune with the gain table's host view: the host's own decisions (may_prune,
    /// live_window); args.prune's view points at `gain`.
    PruneRule host_prune;
    std::shared_ptr<const int32_t> gain;  ///< share_gain_table: the process's copy of the table on this device
    SlabEdges edges;
    /// kEdgeSlots left edges of 2R + 1 words in pinned host memory, which the short phase
    /// reads directly (unified addressing): no copy in the stream ahead of each diagonal.
    int32_t* h_left = nullptr;
    /// kEdgeSlots right edges of 2R + 1 words, also pinned: block 0 writes them there, and the
    /// host reads one once its diagonal's event is done. A synchronous copy per band from the
    /// device held each slab's thread about 200 us a diagonal (H200, 8M mutated, 6 slabs).
    int32_t* h_right = nullptr;
    cudaEvent_t done[kEdgeSlots] = {};
    /// Band captures. The diagonal kernel copies the columns it makes final of the bands in
    /// `keeping` into a device row per band (band_keeping.cuh); the piece of the diagonal that
    /// began a capture (enqueued before it), and those of captures beyond keeping's slots, go
    /// by one small kernel before the next diagonal (flush_captures). A complete row goes in one
    /// transfer into a pinned staging row, in stream order (the host never waits), and reaches
    /// the caller's arrays once landed (capture_landed, synchronize).
    /// A transfer per piece and diagonal (11 at once per slab with B = 396 and a row every 35
    /// bands) doubled stage 1 of a 5M pair on the H100: the copy engine served them one by one.
    /// Several captures of one band (a checkpoint's, a special row's, a standing row's) share
    /// one: each diagonal's first call enqueues its pieces, and every caller's arrays get the row.
    struct Capture {
        int2* device_row;
        int2* staging_row;
        std::vector<std::pair<int32_t*, int32_t*>> outs;  ///< each caller's h and f
        int64_t last_d = -1;  ///< the diagonal whose pieces are enqueued (-1: none yet)
        bool in_kernel;  ///< in keeping: the diagonals after the first copy their own pieces
    };
    std::map<int64_t, Capture> capturing;  ///< band -> its rows, until handed over
    struct Landing {
        int64_t band;
        int64_t after;  ///< the diagonal the transfer was enqueued behind: landed once after + 1 is done
    };
    std::deque<Landing> landing;            ///< complete rows being transferred, in stream order
    std::vector<BusPiece> pieces;           ///< pieces for the next copy_bus_pieces launch
    std::vector<int64_t> rows_done;         ///< bands whose last piece is among them
    std::vector<int2*> spare_device_rows, spare_staging_rows;
    int64_t keep_every = 0;               ///< keep_band_bottoms; 0: none kept
    int2* d_kept = nullptr;               ///< n columns per kept band
    /// Captures the diagonal kernel keeps itself, and the score map (track_region_peaks; peaks
    /// null: none): handed to every enqueue_diagonal's launch.
    cuda::BandKeeping keeping{};
    int32_t* h_regions = nullptr;         ///< pinned: each region's peaks land here
    std::map<int64_t, std::pair<int64_t, int32_t*>> region_wanted;  ///< band -> region, caller's array
    std::pair<int2*, size_t> fetch{nullptr, 0};  ///< pinned, from fetch_buffers(): kept_band_bottoms lands here
    int32_t* d_fresh_edges = nullptr;     ///< enqueue_window: WindowArgs::edge_first, then edge_rest
    /// The diagonal whose end each done[] event last recorded (-1: none): enqueue_window
    /// records only the last diagonal of its launch.
    int64_t recorded[kEdgeSlots];

    /// Launches the copies of the pieces recorded since the last launch, then the transfers of
    /// the rows they complete. Called before a diagonal overwrites those bus columns.
    void flush_captures() {
        for (size_t k = 0; k < pieces.size(); k += kPiecesPerCopy) {
            BusPieces batch{};
            const size_t count = std::min<size_t>(kPiecesPerCopy, pieces.size() - k);
            std::copy(pieces.begin() + static_cast<std::ptrdiff_t>(k),
                      pieces.begin() + static_cast<std::ptrdiff_t>(k + count), batch.piece);
            copy_bus_pieces<<<static_cast<unsigned>(count), 256, 0, stream>>>(d_hbus, batch);
            CUDA_CHECK(cudaGetLastError());
        }
        pieces.clear();
        for (const int64_t band : rows_done) {
            const Capture& c = capturing.at(band);
            CUDA_CHECK(cudaMemcpyAsync(c.staging_row, c.device_row, static_cast<size_t>(grid.n) * sizeof(int2),
                                       cudaMemcpyDeviceToHost, stream));
            // Behind the diagonal that ended the band, which folded the region's last band.
            if (const auto w = region_wanted.find(band); w != region_wanted.end()) {
                const int64_t runs = keeping.regions.layout.runs;
                const size_t at = static_cast<size_t>(w->second.first * runs);
                CUDA_CHECK(cudaMemcpyAsync(h_regions + at, keeping.regions.peaks + at, static_cast<size_t>(runs) * 4,
                                           cudaMemcpyDeviceToHost, stream));
            }
            landing.push_back(Landing{band, enqueued - 1});
        }
        rows_done.clear();
    }

    /// Hands band's capture to the diagonal kernels enqueued from now on; false when every
    /// slot is taken.
    bool keep_in_kernel(int64_t band, int2* row) {
        if (keeping.count == cuda::BandKeeping::kSlots) return false;
        keeping.band[keeping.count] = band;
        keeping.row[keeping.count] = row;
        ++keeping.count;
        return true;
    }
    void stop_keeping(int64_t band) {
        for (int32_t k = 0; k < keeping.count; ++k)
            if (keeping.band[k] == band) {
                --keeping.count;
                keeping.band[k] = keeping.band[keeping.count];
                keeping.row[k] = keeping.row[keeping.count];
                return;
            }
    }

    /// Copies a landed row into the caller's arrays and frees its rows for the next capture.
    void hand_over(int64_t band) {
        const auto it = capturing.find(band);
        const Capture& c = it->second;
        for (const auto& [h, f] : c.outs)
            for (int64_t col = 0; col < grid.n; ++col) {
                h[col] = c.staging_row[col].x;
                f[col] = c.staging_row[col].y;
            }
        spare_device_rows.push_back(c.device_row);
        spare_staging_rows.push_back(c.staging_row);
        capturing.erase(it);
        if (const auto w = region_wanted.find(band); w != region_wanted.end()) {
            const int64_t runs = keeping.regions.layout.runs;
            const int32_t* peaks = h_regions + w->second.first * runs;
            std::copy(peaks, peaks + runs, w->second.second);
            region_wanted.erase(w);
        }
    }

    bool diagonal_done(int64_t d) {
        if (d < 0) return true;
        if (d >= enqueued) throw Error("done(" + std::to_string(d) + ") asks for a diagonal not enqueued yet");
        // Events complete in stream order: the first diagonal from d on whose event is still
        // recorded answers for it (the last one enqueued always is).
        d = std::max(d, enqueued - kEdgeSlots);
        while (recorded[d % kEdgeSlots] != d) ++d;
        const cudaError_t status = cudaEventQuery(done[d % kEdgeSlots]);
        if (status == cudaErrorNotReady) return false;
        CUDA_CHECK(status);
        return true;
    }

    /// Records the event of diagonal d, the last one enqueued.
    void record_done(int64_t d) {
        CUDA_CHECK(cudaEventRecord(done[d % kEdgeSlots], stream));
        recorded[d % kEdgeSlots] = d;
        enqueued = d + 1;
    }

    int64_t enqueued = 0;         ///< diagonals enqueued so far
    int64_t last_band = INT64_MAX / 2;  ///< limit_bands: later bands are not run
    size_t bytes = 0;
    cuda::Substitution substitution = cuda::Substitution::kBytes;  ///< the kernels' diagonal terms
    std::unique_ptr<DiagonalTrace> trace;  ///< CHROMALIGN_TRACE_DIAGONALS, else null

    /// Whether some block of diagonal d may be skipped against g: unless gain alone keeps every
    /// block live, the decision kernel runs (a g lower than the device's only prunes less).
    bool may_prune(int64_t d, int32_t g) const {
        if (!args.prune.on) return false;
        const int64_t rows = grid.rows_per_band();
        for (int64_t b = grid.first_block(d); b <= grid.last_block(d); ++b) {
            const int64_t first_col = std::max<int64_t>(0, b * grid.block_cols - (cuda::kWarp - 1));
            if (!host_prune.live_by_gain((d - b) * rows, first_col, g)) return true;
        }
        return false;
    }

    /// What the host knows of diagonal e's live runs (e done): prune_block_runs' report, or
    /// every block launched when no run could be skipped.
    LiveSpan live_of(int64_t e) const {
        const Launched& l = launched[e % kEdgeSlots];
        if (!l.decided) return LiveSpan{e, l.blocks};
        const unsigned long long* slot = h_live + 2 * (e % kEdgeSlots);
        const auto tag = static_cast<unsigned long long>(e + 1);
        if (slot[0] >> 32 != tag) return LiveSpan{e, BlockSpan{}};  // no live run
        return LiveSpan{e, BlockSpan{grid.blocks - 1 - static_cast<int64_t>(slot[1] & 0xffffffffu),
                                     static_cast<int64_t>(slot[0] & 0xffffffffu)}};
    }

    /// The blocks diagonal d launches: with pruning, the live window from the latest diagonal
    /// e <= d - 2 whose decisions have landed; the cells of those left out count as pruned.
    LaunchMap choose_launch(int64_t d) {
        const int64_t first = grid.first_busy_block(d), last = grid.last_block(d);
        if (!args.prune.on || d < 2) return LaunchMap::all(first, last);
        const int64_t oldest = std::max<int64_t>(0, d - kEdgeSlots + 2);
        int64_t e = d - 2;
        while (e > oldest && !diagonal_done(e)) --e;
        while (!diagonal_done(e)) std::this_thread::yield();
        const LaunchMap map = live_window(grid, host_prune, d, live_of(e), launched[e % kEdgeSlots].g);
        // Blocks of bands past last_band do not count: they are not run at all. The map's runs
        // are disjoint: what is left out is the whole span less each run (O(1) each, not O(B)).
        const int64_t lo = std::max(grid.first_block(d), d - last_band);
        int64_t out = block_cells(grid, d, lo, last);
        for (int r = 0; r < LaunchMap::kRanges; ++r)
            if (map.count[r] > 0)
                out -= block_cells(grid, d, std::max<int64_t>(lo, map.first[r]),
                                   std::min<int64_t>(last, int64_t{map.first[r]} + map.count[r] - 1));
        cells_left_out += out;
        return map;
    }

    /// One cooperative launch: its long phases wait on flags set by other blocks of the grid,
    /// which is safe only when all of them are resident. A launch of more blocks than the GPU
    /// holds (a narrow grid's dense diagonals) splits in two, short_phases then long_phases
    /// (diagonal_kernel.cuh), which wait on nothing. Before either, when blocks may be
    /// skipped, the decision kernel (block_pruning.cuh) on the same blocks.
    template <int A, cuda::Substitution kSub>
    void launch(int64_t d, PhaseArgs a) {
        if (grid.last_block(d) < grid.first_busy_block(d)) return;
        // h_best_seen exists with pruning only.
        const int32_t seen = args.prune.on ? *reinterpret_cast<const volatile int32_t*>(h_best_seen) : 0;
        const int32_t g = std::max(a.shared_best, seen);
        a.launch = choose_launch(d);
        const dim3 blocks(static_cast<unsigned>(a.launch.blocks()));
        Launched& record = launched[d % kEdgeSlots];
        record = Launched{g, false, BlockSpan{}};
        for (int r = 0; r < LaunchMap::kRanges; ++r)
            if (a.launch.count[r] > 0)
                record.blocks = BlockSpan{record.blocks.empty() ? a.launch.first[r] : record.blocks.first,
                                          a.launch.first[r] + a.launch.count[r] - 1};
        a.dead = nullptr;
        a.live_span = nullptr;
        if (blocks.x > 0 && may_prune(d, g)) {
            a.dead = d_dead;
            a.live_span = d_live;
            a.live_host = h_live;
            a.live_count = d_live_count;
            cuda::prune_block_runs<A><<<blocks, cuda::kWarp, 0, stream>>>(a);
            CUDA_CHECK(cudaGetLastError());
            record.decided = true;
        }
        if (blocks.x == 0) return;
        if (blocks.x > coresident) {
            a.lanes = d_lanes;
            cuda::short_phases<A, kSub><<<blocks, cuda::kWarp, 0, stream>>>(a);
            CUDA_CHECK(cudaGetLastError());
            cuda::long_phases<A, kSub><<<blocks, cuda::kWarp, 0, stream>>>(a);
            CUDA_CHECK(cudaGetLastError());
            return;
        }
        cudaLaunchAttribute cooperative{};
        cooperative.id = cudaLaunchAttributeCooperative;
        cooperative.val.cooperative = 1;
        cudaLaunchConfig_t config{};
        config.gridDim = blocks;
        config.blockDim = dim3(cuda::kWarp);
        config.stream = stream;
        config.attrs = &cooperative;
        config.numAttrs = 1;
        // The production instance carries no trace code, and none to keep band bottoms unless asked.
        const bool keep = a.keep.count > 0 || a.keep.regions.peaks;
        CUDA_CHECK(cudaLaunchKernelEx(&config, diagonal_instance<A, kSub>(a.stamps != nullptr, keep), a));
    }

    /// Device memory in stream order from the device's pool: cudaMalloc and cudaFree wait for
    /// the whole device, where the traceback's other windows are being swept.
    template <typename T>
    T* alloc(size_t count) {
        void* ptr = nullptr;
        CUDA_CHECK(cudaMallocAsync(&ptr, count * sizeof(T), stream));
        bytes += count * sizeof(T);
        return static_cast<T*>(ptr);
    }
    void free_device(void* ptr) {
        if (ptr) cudaFreeAsync(ptr, stream);
    }

    void release() {
        // The last stamps are written; the shared table is read no more (gain_copies.hpp).
        if ((trace || gain) && stream) cudaStreamSynchronize(stream);
        gain.reset();
        trace.reset();
        // Destructor path: errors cannot be reported, and freeing null is a no-op.
        fetch_buffers().give(fetch);
        if (stream) {  // device memory is freed in stream order, after the last kernel
            for (void* p : {static_cast<void*>(d_s0), static_cast<void*>(d_s1), static_cast<void*>(d_hbus),
                            static_cast<void*>(d_vbus[0]), static_cast<void*>(d_vbus[1]),
                            static_cast<void*>(d_flags), static_cast<void*>(d_table), static_cast<void*>(d_best),
                            static_cast<void*>(d_best_score), static_cast<void*>(d_pruned),
                            static_cast<void*>(d_dead), static_cast<void*>(d_kept),
                            static_cast<void*>(d_fresh_edges), static_cast<void*>(keeping.regions.peaks),
                            static_cast<void*>(d_band_record), static_cast<void*>(d_live),
                            static_cast<void*>(d_live_count), static_cast<void*>(d_lanes)})
                free_device(p);
            for (const auto& [band, c] : capturing) free_device(c.device_row);
            for (int2* row : spare_device_rows) free_device(row);
        }
        cudaFreeHost(h_best_seen);
        cudaFreeHost(h_pruned_seen);
        cudaFreeHost(h_live);
        cudaFreeHost(h_left);
        cudaFreeHost(h_right);
        cudaFreeHost(h_regions);
        for (const auto& [band, c] : capturing) cudaFreeHost(c.staging_row);
        for (int2* row : spare_staging_rows) cudaFreeHost(row);
        for (cudaEvent_t ev : done)
            if (ev) cudaEventDestroy(ev);
        if (stream) cudaStreamDestroy(stream);  // returns at once; released once its work is done
    }
};

CudaTileRunner::CudaTileRunner(int device, const TileGrid& grid, const CudaScoringTerms& scoring,
                               const uint8_t* s0, const uint8_t* s1, const TopRow& top, SlabEdges edges,
                               PruneRule prune)
    : impl_(std::make_unique<Impl>()) {
    if (grid.threads != cuda::kWarp) throw Error("CUDA kernels run one warp (32 threads) per block");
    if (!cuda_alpha_supported(grid.alpha)) unsupported_alpha(grid.alpha);
    // Cell delegation makes a block's band end in the next block's columns: no wavefront
    // here, and a checkpoint is a row (capture_band_bottom).
    if (top.first_band != 0 || !top.steps.empty())
        throw WavefrontMismatch("the cuda backend starts from a row, not from a wavefront");
    Impl& im = *impl_;
    im.grid = grid;
    im.device = device;
    im.edges = edges;
    if (edges.right && grid.padded_cols() != grid.n)
        throw Error("a slab with a right neighbour needs a grid without padding columns");
    CUDA_CHECK(cudaSetDevice(device));
    try {
        // Slabs further right get the device first: left ones that race ahead only make the
        // right ones finish later, alone on part of the device; a right slab that has caught
        // up waits for its edges, and the left ones take the device meanwhile.
        int least = 0, greatest = 0;
        CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        const int priority = std::max(greatest, least - edges.rank);  // lower is sooner
        CUDA_CHECK(cudaStreamCreateWithPriority(&im.stream, cudaStreamNonBlocking, priority));
        // Memory a runner frees stays in the pool for the next (the traceback makes one per
        // window) rather than going back to the driver at every synchronization.
        cudaMemPool_t pool = nullptr;
        CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
        uint64_t keep = UINT64_MAX;
        CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
        const int64_t cols = grid.padded_cols() + cuda::Tuning::kPrefetch;
        const size_t slot = im.slot_words();
        im.d_s0 = im.alloc<uint8_t>(grid.padded_rows());
        im.d_s1 = im.alloc<uint8_t>(cols);
        im.d_hbus = im.alloc<int2>(cols);
        im.d_vbus[0] = im.alloc<int32_t>(slot * grid.blocks);
        im.d_vbus[1] = im.alloc<int32_t>(slot * grid.blocks);
        im.d_flags = im.alloc<int32_t>(grid.blocks);
        im.d_best = im.alloc<BestCell>(grid.blocks);
        im.d_best_score = im.alloc<int32_t>(1);
        im.d_pruned = im.alloc<unsigned long long>(1);
        im.d_dead = im.alloc<int32_t>(grid.blocks);
        int sms = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        im.limit_cooperative(int64_t{cuda_resident_blocks_per_sm(device, grid.alpha, scoring.substitution)} * sms);
        if (prune.on) {  // only pruning copies them back (a traceback window has none)
            CUDA_CHECK(cudaMallocHost(&im.h_best_seen, sizeof(int32_t)));
            CUDA_CHECK(cudaMallocHost(&im.h_pruned_seen, sizeof(unsigned long long)));
            *im.h_best_seen = 0;
            *im.h_pruned_seen = 0;
            const size_t live_words = 2 * kEdgeSlots;
            im.d_live = im.alloc<unsigned long long>(live_words);
            CUDA_CHECK(cudaMemsetAsync(im.d_live, 0, live_words * sizeof(unsigned long long), im.stream));
            im.d_live_count = im.alloc<unsigned>(kEdgeSlots);
            CUDA_CHECK(cudaMemsetAsync(im.d_live_count, 0, kEdgeSlots * sizeof(unsigned), im.stream));
            CUDA_CHECK(cudaMallocHost(&im.h_live, live_words * sizeof(unsigned long long)));
            std::fill_n(im.h_live, live_words, 0ull);
        }
        std::vector<int32_t> table;
        if (scoring.substitution == cuda::Substitution::kTable) {
            table = device_table(scoring);
            im.d_table = im.alloc<int32_t>(table.size());
        }
        const auto h_s0 = padded_codes(s0, grid.m, grid.padded_rows(), 4);
        const auto h_s1 = padded_codes(s1, grid.n, cols, cuda::kS1Other);
        // Row 0 of the DP matrix (H = 0, F = -inf), or the row a resumed run starts below.
        std::vector<int2> h_bus(cols, make_int2(0, cuda::kNegInf));
        if (!top.empty()) {
            if (static_cast<int64_t>(top.h.size()) != grid.n || top.f.size() != top.h.size())
                throw Error("the starting row has " + std::to_string(top.h.size()) +
                            " columns, the matrix " + std::to_string(grid.n));
            for (int64_t c = 0; c < grid.n; ++c) h_bus[c] = make_int2(top.h[c], top.f[c]);
        }
        // Everything on this runner's stream, waited for here: its kernels do not wait for the
        // legacy stream, where cudaMemcpy and cudaMemset go (both return before the device is
        // done), so a flag zeroed there late hung a long phase in the traceback's windows.
        const auto upload = [&](void* to, const void* from, size_t bytes) {
            CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyHostToDevice, im.stream));
        };
        const auto zero = [&](void* to, size_t bytes) { CUDA_CHECK(cudaMemsetAsync(to, 0, bytes, im.stream)); };
        if (im.d_table) upload(im.d_table, table.data(), table.size() * sizeof(int32_t));
        upload(im.d_s0, h_s0.data(), h_s0.size());
        upload(im.d_s1, h_s1.data(), h_s1.size());
        upload(im.d_hbus, h_bus.data(), h_bus.size() * sizeof(int2));
        zero(im.d_vbus[0], slot * grid.blocks * sizeof(int32_t));
        zero(im.d_vbus[1], slot * grid.blocks * sizeof(int32_t));
        zero(im.d_flags, grid.blocks * sizeof(int32_t));
        zero(im.d_best, grid.blocks * sizeof(BestCell));
        zero(im.d_best_score, sizeof(int32_t));
        zero(im.d_pruned, sizeof(unsigned long long));
        CUDA_CHECK(cudaStreamSynchronize(im.stream));  // the host arrays above are freed on leaving
        const size_t edge_words = 2 * static_cast<size_t>(grid.rows_per_band()) + 1;
        if (edges.left || edges.right) {
            int unified = 0;
            CUDA_CHECK(cudaDeviceGetAttribute(&unified, cudaDevAttrUnifiedAddressing, device));
            if (!unified) throw Error("column slabs need a GPU with unified addressing (64-bit host)");
        }
        if (edges.left) CUDA_CHECK(cudaMallocHost(&im.h_left, edge_words * kEdgeSlots * sizeof(int32_t)));
        if (edges.right) CUDA_CHECK(cudaMallocHost(&im.h_right, edge_words * kEdgeSlots * sizeof(int32_t)));
        for (cudaEvent_t& ev : im.done) CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
        std::fill(std::begin(im.recorded), std::end(im.recorded), -1);
        im.trace = DiagonalTrace::from_environment(grid);
    } catch (...) {
        im.release();
        throw;
    }
    PhaseArgs& a = im.args;
    a.s0 = im.d_s0;
    a.s1 = im.d_s1;
    a.hbus = im.d_hbus;
    a.flags = im.d_flags;
    a.best = im.d_best;
    a.best_score = im.d_best_score;
    a.bands = grid.bands;
    a.blocks = grid.blocks;
    a.block_cols = static_cast<int32_t>(grid.block_cols);
    a.terms = scoring;
    a.diag_table = im.d_table;
    a.prune = prune;
    // A run and its inputs (block_pruning.cuh): rows [row0, row0 + R], columns [first_col,
    // first_col + C + T - 1], first_col = b C - (T - 1).
    a.prune.span_rows = grid.rows_per_band();
    a.prune.span_cols = grid.block_cols + cuda::kWarp - 1;
    a.prune.table = GainView{};
    im.host_prune = a.prune;
    a.shared_best = 0;
    a.pruned = im.d_pruned;
    im.keeping.n = grid.n;
    im.substitution = scoring.substitution;
}

CudaTileRunner::~CudaTileRunner() { impl_->release(); }

const TileGrid& CudaTileRunner::grid() const { return impl_->grid; }

void CudaTileRunner::enqueue_diagonal(int64_t d) {
    Impl& im = *impl_;
    im.flush_captures();  // before this diagonal overwrites the columns captured after the last one
    PhaseArgs a = im.args;
    a.d = d;
    // Bands past limit_bands' are no band of this launch: their blocks idle, as past the last.
    a.bands = std::min(im.grid.bands, im.last_band + 1);
    a.shared_best = im.shared_best;
    a.keep = im.keeping;
    a.vbus_in = im.d_vbus[(d + 1) & 1];  // written in diagonal d-1
    a.vbus_out = im.d_vbus[d & 1];
    const int64_t edge_words = 2 * im.grid.rows_per_band() + 1;
    a.left_edge = im.edges.left && d < im.grid.bands ? im.h_left + d % kEdgeSlots * edge_words : nullptr;
    const int64_t right_band = right_edge_band(d);
    a.right_edge = right_band >= 0 ? im.h_right + right_band % kEdgeSlots * edge_words : nullptr;
    if (im.trace) {
        // Diagonal d's stamps go where those of d - kLive were: that diagonal must be done.
        const int64_t reused = d - DiagonalTrace::kLive;
        while (reused >= 0 && !done(reused)) std::this_thread::yield();
        a.stamps = im.trace->stamps_for(d);
    }
    with_alpha(im.grid.alpha, [&](auto alpha) {
        with_substitution(im.substitution, [&](auto sub) { im.launch<decltype(alpha)::value, decltype(sub)::value>(d, a); });
    });
    if (im.args.prune.on && d % kBestCopyEvery == 0) {
        CUDA_CHECK(cudaMemcpyAsync(im.h_best_seen, im.d_best_score, sizeof(int32_t), cudaMemcpyDeviceToHost, im.stream));
        CUDA_CHECK(cudaMemcpyAsync(im.h_pruned_seen, im.d_pruned, sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                   im.stream));
    }
    if (im.keep_every > 0 && d - im.grid.blocks < im.grid.bands) {  // some band has columns in d
        keep_band_pieces<<<static_cast<unsigned>(im.grid.blocks + 1), 128, 0, im.stream>>>(
            im.d_hbus, im.d_kept, d, im.keep_every, im.grid.bands, im.grid.blocks, im.grid.block_cols,
            im.grid.n);
        CUDA_CHECK(cudaGetLastError());
    }
    im.record_done(d);
}

void CudaTileRunner::limit_cooperative_launches(int64_t blocks) {
    CUDA_CHECK(cudaSetDevice(impl_->device));
    impl_->limit_cooperative(blocks);
}

void CudaTileRunner::enqueue_window(int64_t from, int64_t to, int32_t corner) {
    Impl& im = *impl_;
    const TileGrid& g = im.grid;
    if (from != im.enqueued || to <= from || to > g.diagonals() || im.args.prune.on || im.edges.right ||
        !im.capturing.empty())
        throw Error("internal: enqueue_window(" + std::to_string(from) + ", " + std::to_string(to) +
                    ") on a runner that is not a window's at that diagonal");
    const int64_t rows = g.rows_per_band(), words = 2 * rows + 1;
    if (from == 0) {
        // Both edges are H = 0 and E = -inf; only band 0's corner is the window's.
        std::vector<int32_t> edges(static_cast<size_t>(2 * words), 0);
        for (int64_t k = 0; k < 2; ++k)
            std::fill_n(edges.begin() + k * words + rows, rows, cuda::kNegInf);
        edges[static_cast<size_t>(words - 1)] = corner;
        im.d_fresh_edges = im.alloc<int32_t>(edges.size());
        // From pageable memory: the call returns once `edges` has been staged.
        CUDA_CHECK(cudaMemcpyAsync(im.d_fresh_edges, edges.data(), edges.size() * sizeof(int32_t),
                                   cudaMemcpyHostToDevice, im.stream));
    }
    PhaseArgs a = im.args;
    a.launch = LaunchMap::all(0, g.blocks - 1);
    a.left_edge = nullptr;
    a.right_edge = nullptr;
    a.dead = nullptr;
    a.live_span = nullptr;
    a.stamps = nullptr;
    WindowArgs w{};
    w.from = from;
    w.to = to;
    w.vbus[0] = im.d_vbus[0];
    w.vbus[1] = im.d_vbus[1];
    w.edge_first = im.d_fresh_edges;
    w.edge_rest = im.d_fresh_edges + words;
    w.kept = im.keep_every > 0 ? im.d_kept : nullptr;
    w.keep_every = std::max<int64_t>(im.keep_every, 1);
    w.n = g.n;
    cudaLaunchAttribute cooperative{};
    cooperative.id = cudaLaunchAttributeCooperative;
    cooperative.val.cooperative = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(g.blocks));
    config.blockDim = dim3(cuda::kWarp);
    config.stream = im.stream;
    config.attrs = &cooperative;
    config.numAttrs = 1;
    with_alpha(g.alpha, [&](auto alpha) {
        with_substitution(im.substitution, [&](auto sub) {
            CUDA_CHECK(cudaLaunchKernelEx(&config, cuda::window_diagonals<decltype(alpha)::value, decltype(sub)::value>,
                                          a, w));
        });
    });
    im.record_done(to - 1);
}

int64_t CudaTileRunner::cells_pruned() {
    const unsigned long long* seen = impl_->h_pruned_seen;  // null without pruning
    return seen ? static_cast<int64_t>(*reinterpret_cast<const volatile unsigned long long*>(seen)) +
                      impl_->cells_left_out.load(std::memory_order_relaxed)
                : 0;
}

void CudaTileRunner::limit_bands(int64_t last) { impl_->last_band = last; }

int32_t CudaTileRunner::best_score_seen() {
    // Written by the copy engine in stream order; an aligned word, read whole. Only pruning
    // copies it back (enqueue_diagonal).
    const int32_t* seen = impl_->h_best_seen;
    return seen ? *reinterpret_cast<const volatile int32_t*>(seen) : 0;
}

void CudaTileRunner::share_best_score(int32_t g) { impl_->shared_best = std::max(impl_->shared_best, g); }

void CudaTileRunner::share_gain_table(const GainView& view) {
    Impl& im = *impl_;
    if (!im.args.prune.on || im.gain || !view.t) return;
    im.gain = device_gain_table(im.device, view);  // complete before the next launch
    im.host_prune.table = view;
    im.args.prune.table = view;
    im.args.prune.table.t = im.gain.get();
}

void CudaTileRunner::synchronize() {
    Impl& im = *impl_;
    if (im.args.prune.on)
        CUDA_CHECK(cudaMemcpyAsync(im.h_pruned_seen, im.d_pruned, sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                   im.stream));
    im.flush_captures();
    CUDA_CHECK(cudaStreamSynchronize(im.stream));
    for (const Impl::Landing& l : im.landing) im.hand_over(l.band);
    im.landing.clear();
}

bool CudaTileRunner::capture_landed(int64_t band) {
    Impl& im = *impl_;
    while (!im.landing.empty()) {
        const Impl::Landing& l = im.landing.front();
        if (l.after + 1 >= im.enqueued || !done(l.after + 1)) break;
        im.hand_over(l.band);
        im.landing.pop_front();
    }
    return im.capturing.count(band) == 0;
}

std::vector<AlignmentEnd> CudaTileRunner::record_bests() {
    Impl& im = *impl_;
    synchronize();
    std::vector<BestCell> cells(static_cast<size_t>(im.records * im.grid.blocks));
    CUDA_CHECK(cudaMemcpy(cells.data(), im.d_best, cells.size() * sizeof(BestCell), cudaMemcpyDeviceToHost));
    std::vector<AlignmentEnd> bests(static_cast<size_t>(im.records));
    for (size_t k = 0; k < cells.size(); ++k) {
        const BestCell& c = cells[k];
        if (c.score <= 0) continue;
        const AlignmentEnd cand{c.score, int64_t{c.row} + 1, int64_t{c.col} + 1};
        AlignmentEnd& mine = bests[k / static_cast<size_t>(im.grid.blocks)];
        if (better_end(cand, mine)) mine = cand;
    }
    return bests;
}

AlignmentEnd CudaTileRunner::best() {
    AlignmentEnd result;
    for (const AlignmentEnd& e : record_bests()) result = better_of(e, result);
    return result;
}

void CudaTileRunner::stack_records(std::vector<int32_t> band_record) {
    Impl& im = *impl_;
    if (static_cast<int64_t>(band_record.size()) != im.grid.bands || band_record.empty() || band_record[0] != 0 ||
        im.args.prune.on || im.enqueued > 0)
        throw Error("internal: stack_records on a runner that cannot take them");
    for (size_t b = 1; b < band_record.size(); ++b)
        if (band_record[b] != band_record[b - 1] && band_record[b] != band_record[b - 1] + 1)
            throw Error("internal: stacked records must follow each other band by band");
    im.records = band_record.back() + 1;
    im.band_record = std::move(band_record);
    im.free_device(im.d_best);
    im.free_device(im.d_best_score);
    im.d_best = im.alloc<BestCell>(static_cast<size_t>(im.records * im.grid.blocks));
    im.d_best_score = im.alloc<int32_t>(static_cast<size_t>(im.records));
    im.d_band_record = im.alloc<int32_t>(im.band_record.size());
    CUDA_CHECK(cudaMemcpyAsync(im.d_band_record, im.band_record.data(), im.band_record.size() * sizeof(int32_t),
                               cudaMemcpyHostToDevice, im.stream));
    CUDA_CHECK(cudaMemsetAsync(im.d_best, 0, static_cast<size_t>(im.records * im.grid.blocks) * sizeof(BestCell),
                               im.stream));
    CUDA_CHECK(cudaMemsetAsync(im.d_best_score, 0, static_cast<size_t>(im.records) * sizeof(int32_t), im.stream));
    CUDA_CHECK(cudaStreamSynchronize(im.stream));  // the host's map may go
    im.args.best = im.d_best;
    im.args.best_score = im.d_best_score;
    im.args.band_record = im.d_band_record;
}

void CudaTileRunner::capture_band_bottom(int64_t band, int64_t d, int32_t* h, int32_t* f) {
    Impl& im = *impl_;
    const TileGrid& g = im.grid;
    const int64_t b = d - band;
    const auto [first, last] = cuda::final_columns(b, g.blocks, g.block_cols, g.n);
    if (b < 0 || b > g.blocks || first >= last) return;
    auto [it, fresh] = im.capturing.try_emplace(band);
    Impl::Capture& c = it->second;
    if (std::find(c.outs.begin(), c.outs.end(), std::make_pair(h, f)) == c.outs.end()) c.outs.emplace_back(h, f);
    if (c.last_d >= d) return;  // another capture of the band enqueued this diagonal's piece
    c.last_d = d;
    if (fresh) {
        const size_t bytes = static_cast<size_t>(g.n) * sizeof(int2);
        c.device_row = take_or(im.spare_device_rows, [&](int2** p) { return cudaMallocAsync(p, bytes, im.stream); });
        c.staging_row = take_or(im.spare_staging_rows, [&](int2** p) { return cudaMallocHost(p, bytes); });
        if (im.args.prune.on) {  // compact launches copy no columns of the blocks they leave out
            fill_dead_row<<<256, 256, 0, im.stream>>>(c.device_row, g.n);
            CUDA_CHECK(cudaGetLastError());
        }
        im.pieces.push_back(BusPiece{c.device_row, first, last});  // diagonal d is enqueued already
        c.in_kernel = last < g.n && im.keep_in_kernel(band, c.device_row);
    } else if (!c.in_kernel) {
        im.pieces.push_back(BusPiece{c.device_row, first, last});
    }
    if (last < g.n) return;
    if (c.in_kernel) im.stop_keeping(band);
    im.rows_done.push_back(band);
}

void CudaTileRunner::keep_band_bottoms(int64_t every) {
    Impl& im = *impl_;
    im.keep_every = every;
    const size_t cells = static_cast<size_t>(im.grid.bands / every * im.grid.n);
    if (cells > 0) im.d_kept = im.alloc<int2>(cells);
}

void CudaTileRunner::track_region_peaks(int64_t first_col, int64_t block, int64_t bands_per_region,
                                        int64_t band_offset) {
    Impl& im = *impl_;
    cuda::RegionMapArgs& m = im.keeping.regions;
    m.layout = RegionLayout(first_col, block, bands_per_region, band_offset, im.grid.n);
    const auto cells = static_cast<size_t>(m.layout.cells(im.grid.bands));
    m.peaks = im.alloc<int32_t>(cells);
    CUDA_CHECK(cudaMemsetAsync(m.peaks, 0, cells * sizeof(int32_t), im.stream));
    CUDA_CHECK(cudaMallocHost(&im.h_regions, cells * sizeof(int32_t)));
}

void CudaTileRunner::capture_region_peaks(int64_t band, int64_t region, int32_t* out) {
    impl_->region_wanted[band] = {region, out};
}

void CudaTileRunner::kept_band_bottoms(int64_t band, int64_t count, int64_t from, int64_t to, int32_t* h, int32_t* f) {
    Impl& im = *impl_;
    if (im.keep_every == 0 || (band + 1) % im.keep_every != 0 || band + (count - 1) * im.keep_every >= im.grid.bands ||
        from < 0 || to > im.grid.n)
        throw Error("internal: band " + std::to_string(band) + " was not kept");
    // The traceback's walk fetches thousands of small blocks, one at a time: each goes on this
    // runner's stream into pinned memory (a pageable cudaMemcpy2D took about 150 us on an
    // H100 while other windows were being swept).
    const size_t width = static_cast<size_t>(to - from), cells = width * static_cast<size_t>(count);
    if (cells > im.fetch.second) {
        fetch_buffers().give(im.fetch);
        im.fetch = {nullptr, 0};
        im.fetch = fetch_buffers().take(cells);
    }
    int2* const landed = im.fetch.first;
    CUDA_CHECK(cudaMemcpy2DAsync(landed, width * sizeof(int2), im.d_kept + band / im.keep_every * im.grid.n + from,
                                 static_cast<size_t>(im.grid.n) * sizeof(int2), width * sizeof(int2),
                                 static_cast<size_t>(count), cudaMemcpyDeviceToHost, im.stream));
    CUDA_CHECK(cudaStreamSynchronize(im.stream));
    for (size_t c = 0; c < cells; ++c) {
        h[c] = landed[c].x;
        f[c] = landed[c].y;
    }
}

void CudaTileRunner::kept_band_maxima(int64_t slope, int64_t block, int64_t* out) {
    Impl& im = *impl_;
    const int64_t rows = im.keep_every > 0 ? im.grid.bands / im.keep_every : 0, runs = (im.grid.n + block - 1) / block;
    if (rows == 0) return;
    const size_t bytes = static_cast<size_t>(rows * runs) * sizeof(int64_t);
    int64_t* d_out = nullptr;
    CUDA_CHECK(cudaMallocAsync(&d_out, bytes, im.stream));
    kept_row_maxima<<<dim3(static_cast<unsigned>(runs), static_cast<unsigned>(rows)), 256, 0, im.stream>>>(
        im.d_kept, im.grid.n, slope, block, d_out);
    cudaError_t status = cudaGetLastError();
    if (status == cudaSuccess) status = cudaMemcpyAsync(out, d_out, bytes, cudaMemcpyDeviceToHost, im.stream);
    cudaFreeAsync(d_out, im.stream);
    if (status == cudaSuccess) status = cudaStreamSynchronize(im.stream);
    CUDA_CHECK(status);
}

size_t CudaTileRunner::device_bytes() const { return impl_->bytes; }

void CudaTileRunner::set_left_edge(int64_t band, const int32_t* h, const int32_t* e, int32_t corner) {
    Impl& im = *impl_;
    if (!im.edges.left) throw Error("set_left_edge on a runner built without a left edge");
    const int64_t rows = im.grid.rows_per_band(), words = 2 * rows + 1;
    // The slot was last read for band - kEdgeSlots, by that band's diagonal, which the caller
    // has seen done; writes before the launch are visible to the kernel.
    int32_t* slot = im.h_left + band % kEdgeSlots * words;
    std::copy(h, h + rows, slot);
    std::copy(e, e + rows, slot + rows);
    // A stacked record's first band starts from row 0: its corner is 0 whatever lies above.
    const bool starts_record = !im.band_record.empty() && band > 0 && im.band_record[band] != im.band_record[band - 1];
    slot[2 * rows] = starts_record ? 0 : corner;
}

int64_t CudaTileRunner::right_edge_band(int64_t d) const {
    const TileGrid& g = impl_->grid;
    return impl_->edges.right && g.has_delegated_band0(d) ? d - g.blocks : -1;
}

void CudaTileRunner::read_right_edge(int64_t band, int32_t* h, int32_t* e) {
    Impl& im = *impl_;
    const int64_t rows = im.grid.rows_per_band();
    // The caller asked right_edge_done first: the kernel that wrote the slot has completed,
    // and its writes to pinned memory are visible.
    const int32_t* slot = im.h_right + band % kEdgeSlots * (2 * rows + 1);
    std::copy(slot, slot + rows, h);
    std::copy(slot + rows, slot + 2 * rows, e);
}

bool CudaTileRunner::done(int64_t d) { return impl_->diagonal_done(d); }

}  // namespace chromalign::kernels
