//! @file cuda_whole_pass: the edge pass's buffers, its one launch, and the edges brought home.
#include "kernels/cuda/edge_pass.hpp"

#include <algorithm>
#include <climits>
#include <csignal>
#include <functional>
#include <cstring>
#include <thread>
#include <cstdint>
#include <vector>

#include "engine/threads/for_each_worker.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/device_codes.hpp"
#include "kernels/cuda/edge_pass.cuh"

namespace chromalign::kernels {
namespace {

using cuda::EdgePassArgs;
using cuda::kWarp;
using cuda::Substitution;

/// Units at least this many times the resident warps, so the last warps to finish leave little
/// of the device idle; slabs no narrower than kMinSlabCols, so a unit's 31 steps of skew at
/// either end stay small against its width. Fewer slabs mean wider units, whose bands start
/// (one per two chunks) a smaller share of the way into them: on H. pylori (both strands, one
/// H200) 16 took the first pass 7.1 and 6.8 s, 8 took 5.9 and 6.1 s, 4 took 6.1 and 6.1 s.
constexpr int64_t kUnitsPerWarp = 8;
constexpr int64_t kMinSlabCols = 4096;
/// Cells a launch computes at most: about a second on an H200.
constexpr int64_t kLaunchCells = int64_t{2} << 40;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Rows of device memory copied into host vectors. A pageable copy crosses the bus at a
/// fraction of its speed, with one core staging it: here the device writes pieces into two
/// pinned buffers in turn while the host's threads copy the other one out.
class HomeCopies {
public:
    /// `width` values from `from` to `to`.
    void add(const int32_t* from, int32_t* to, int64_t width) { rows_.push_back(Row{from, to, width}); }

    void run() {
        if (rows_.empty()) return;
        int32_t* pinned[2] = {};
        cudaStream_t stream = nullptr;
        cudaEvent_t landed[2] = {};
        const auto release = [&] {
            for (int k = 0; k < 2; ++k) {
                if (pinned[k]) cudaFreeHost(pinned[k]);
                if (landed[k]) cudaEventDestroy(landed[k]);
            }
            if (stream) cudaStreamDestroy(stream);
        };
        int64_t total = 0;
        for (const Row& row : rows_) total += row.width;
        const int64_t piece_words = std::min(kPieceWords, total);  // a test's few rows: no 64 MiB
        try {
            for (int k = 0; k < 2; ++k) {
                CUDA_CHECK(cudaMallocHost(&pinned[k], static_cast<size_t>(piece_words) * 4));
                CUDA_CHECK(cudaEventCreateWithFlags(&landed[k], cudaEventDisableTiming));
            }
            CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
            // Pieces of whole rows (a row longer than a piece is a piece of its own parts).
            std::vector<std::vector<Row>> pieces;
            int64_t filled = piece_words;
            for (const Row& row : rows_)
                for (int64_t done = 0; done < row.width;) {
                    const int64_t take = std::min(row.width - done, piece_words);
                    if (filled + take > piece_words) {
                        pieces.emplace_back();
                        filled = 0;
                    }
                    pieces.back().push_back(Row{row.from + done, row.to + done, take});
                    filled += take;
                    done += take;
                }
            const auto send = [&](size_t p) {
                int64_t at = 0;
                for (const Row& r : pieces[p]) {
                    CUDA_CHECK(cudaMemcpyAsync(pinned[p % 2] + at, r.from, static_cast<size_t>(r.width) * 4,
                                               cudaMemcpyDeviceToHost, stream));
                    at += r.width;
                }
                CUDA_CHECK(cudaEventRecord(landed[p % 2], stream));
            };
            const int threads = std::max(1, std::min(16, static_cast<int>(std::thread::hardware_concurrency())));
            send(0);
            for (size_t p = 0; p < pieces.size(); ++p) {
                CUDA_CHECK(cudaEventSynchronize(landed[p % 2]));
                if (p + 1 < pieces.size()) send(p + 1);  // into the other buffer, copied out already
                spread(pieces[p], pinned[p % 2], threads);
            }
        } catch (...) {
            release();
            throw;
        }
        release();
    }

private:
    static constexpr int64_t kPieceWords = int64_t{16} << 20;  ///< 64 MiB a pinned buffer
    struct Row {
        const int32_t* from;
        int32_t* to;
        int64_t width;
    };

    /// The piece's rows out of `buffer` into their vectors, on `threads` threads.
    static void spread(const std::vector<Row>& piece, const int32_t* buffer, int threads) {
        std::vector<int64_t> at(piece.size() + 1, 0);
        for (size_t k = 0; k < piece.size(); ++k) at[k + 1] = at[k] + piece[k].width;
        const int64_t total = at.back();
        const auto part = [&](int w) {  // words [total * w / threads, total * (w + 1) / threads)
            const int64_t lo = total * w / threads, hi = total * (w + 1) / threads;
            size_t k = static_cast<size_t>(std::upper_bound(at.begin(), at.end(), lo) - at.begin()) - 1;
            for (int64_t x = lo; x < hi; ++k) {
                const int64_t end = std::min(hi, at[k + 1]);
                std::memcpy(piece[k].to + (x - at[k]), buffer + x, static_cast<size_t>(end - x) * 4);
                x = end;
            }
        };
        for_each_worker(threads, part);
    }

    std::vector<Row> rows_;
};

/// The second stream a pass's launches take turns on, with an event after each launch; gone
/// with the pass, once what was queued on either stream has ended (a stop or an error may
/// leave a launch running, and the pass's buffers are freed after this).
class LaunchTurns {
public:
    explicit LaunchTurns(cudaStream_t stream) : streams_{stream, nullptr} {
        int priority = 0;
        CUDA_CHECK(cudaStreamGetPriority(stream, &priority));
        CUDA_CHECK(cudaStreamCreateWithPriority(&streams_[1], cudaStreamNonBlocking, priority));
        for (cudaEvent_t& e : ended_) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    }
    ~LaunchTurns() {
        for (cudaStream_t s : streams_)
            if (s) cudaStreamSynchronize(s);
        for (cudaEvent_t e : ended_)
            if (e) cudaEventDestroy(e);
        if (streams_[1]) cudaStreamDestroy(streams_[1]);
    }
    LaunchTurns(const LaunchTurns&) = delete;
    LaunchTurns& operator=(const LaunchTurns&) = delete;

    cudaStream_t stream(int64_t launch) const { return streams_[launch % 2]; }
    void ended_after(int64_t launch) { CUDA_CHECK(cudaEventRecord(ended_[launch % 2], stream(launch))); }
    void wait_for(int64_t launch) { CUDA_CHECK(cudaEventSynchronize(ended_[launch % 2])); }
    void wait_all() {
        for (cudaStream_t s : streams_) CUDA_CHECK(cudaStreamSynchronize(s));
    }

private:
    cudaStream_t streams_[2];
    cudaEvent_t ended_[2] = {};
};

/// Runs the pass in launches, each queued before the one before it has ended, on two streams
/// in turn, so that its warps start as that one's last units leave the multiprocessors (one
/// launch after another drained and refilled the device each time: on H. pylori a strand's
/// pass in two launches took 0.3 s more than in one). Calls landed(units done), which may
/// copy them home while the device runs, as launches end, and landed(every unit) at the end;
/// out.queued once the last launch is.
template <int A, Substitution kSub>
void launch(int device, cudaStream_t stream, EdgePassArgs& a, const WholePass& out,
            const std::function<void(int64_t)>& landed) {
    const auto kernel = cuda::edge_pass<A, kSub>;
    int per_sm = 0, sms = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kWarp, 0));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const int64_t warps = std::max<int64_t>(1, int64_t{per_sm} * sms);
    if (out.slab_cols > 0) {
        a.slab_cols = out.slab_cols;
    } else {
        const int64_t slabs = std::clamp<int64_t>(ceil_div(kUnitsPerWarp * warps, a.bands), 1,
                                                  std::max<int64_t>(1, a.n / kMinSlabCols));
        a.slab_cols = ceil_div(a.n, slabs);
    }
    a.slabs = ceil_div(a.n, a.slab_cols);
    // Launches of about kLaunchCells, so that a stop is seen within seconds however large the
    // matrix.
    const int64_t units = a.bands * a.slabs;
    const int64_t per_launch = out.launch_units > 0
                                   ? out.launch_units
                                   : std::max(4 * warps, kLaunchCells / std::max<int64_t>(1, a.slab_cols * kWarp * A));
    // Units go band after band of each slab: those done cover about this many cells.
    const auto report = [&](int64_t done) {
        if (out.on_cells) out.on_cells(std::min(a.m * a.n, done * A * kWarp * a.slab_cols));
    };
    CUDA_CHECK(cudaMemsetAsync(a.next_unit, 0, sizeof *a.next_unit, stream));
    LaunchTurns turns(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));  // the counter is zero for the other stream too
    // Launch k's warps take units below min(units, (k + 1) per_launch). Once launch k has
    // ended, every unit below launch k - 1's end, k per_launch, is done: launch k + 1 was
    // queued only after launch k - 1 had ended, when the units taken (by launches k - 1 and
    // k, now ended) already reached it.
    for (int64_t k = 0, first = 0; first < units; ++k, first += per_launch) {
        if (out.stop && *out.stop != 0) {
            turns.wait_all();
            search_interrupted(*out.stop);
        }
        a.unit_end = std::min(units, first + per_launch);
        kernel<<<static_cast<unsigned>(std::min(warps, a.unit_end - first)), kWarp, 0, turns.stream(k)>>>(a);
        CUDA_CHECK(cudaGetLastError());
        turns.ended_after(k);
        if (k == 0 && out.meanwhile) out.meanwhile();  // while the device runs
        if (a.unit_end == units && out.queued) out.queued();
        if (k >= 1) {
            turns.wait_for(k - 1);
            const int64_t done = first - per_launch;  // launch k - 2's end (0 before launch 1)
            landed(done);
            report(done);
        }
    }
    turns.wait_all();
    landed(units);
    report(units);
}

template <int A>
void launch_for(int device, cudaStream_t stream, Substitution sub, EdgePassArgs& a, const WholePass& out,
                const std::function<void(int64_t)>& landed) {
    switch (sub) {
    case Substitution::kBytes: launch<A, Substitution::kBytes>(device, stream, a, out, landed); break;
    case Substitution::kEquality: launch<A, Substitution::kEquality>(device, stream, a, out, landed); break;
    case Substitution::kTable: launch<A, Substitution::kTable>(device, stream, a, out, landed); break;
    }
}

}  // namespace

bool cuda_whole_pass(int device, cudaStream_t stream, const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                     WholePass& out, KeptEdges& kept) {
    const int64_t m = s0.length(), n = s1.length();
    const int alpha = out.tile_rows % 512 == 0 ? 16 : out.tile_rows % 256 == 0 ? 8 : out.tile_rows % 128 == 0 ? 4 : 0;
    // Flags count columns in 32 bits; the bands' rows in 32-bit tile indices are never near.
    if (alpha == 0 || m == 0 || n == 0 || n >= INT32_MAX - 2 * kWarp || out.tile_cols < 1) return false;
    const int64_t rows = int64_t{alpha} * kWarp, bands = ceil_div(m, rows);
    const int64_t tile_bands = ceil_div(m, out.tile_rows), tile_columns = ceil_div(n, out.tile_cols);
    const size_t kept_rows = static_cast<size_t>((tile_bands - 1) * n), kept_cols = static_cast<size_t>((tile_columns - 1) * m);
    const size_t slot_words = static_cast<size_t>(2 * alpha + 2) * kWarp;
    const size_t bytes = 2 * 4 * (kept_rows + kept_cols) + static_cast<size_t>(bands * rows + n + 4 * kWarp) +
                         2 * 8 * static_cast<size_t>(n) + 4 * static_cast<size_t>(bands) * (1 + slot_words) +
                         4 * static_cast<size_t>(tile_bands * tile_columns);
    CUDA_CHECK(cudaSetDevice(device));
    size_t free_bytes = 0, total = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    if (bytes + (size_t{256} << 20) > free_bytes) return false;
    // The edges stay only where they leave the search's other work (the traceback's sweeps,
    // a walk's waves: tens of MiB) a GiB; else they go home as the pass runs.
    const bool keep = out.keep && bytes + (size_t{1} << 30) <= free_bytes;
    out.keep = keep;  // said before meanwhile runs

    const CudaScoringTerms terms = cuda_scoring_terms(scoring);
    // In the stream's order: a plain cudaFree would wait for the whole device, and so for
    // another strand's pass queued behind this one. Edges kept after the pass are the
    // exception: they are freed once the pair's search has ended, and the stream's pool took
    // 37 ms to map 27 GiB (one H200) where cudaMalloc took 1 ms.
    const cudaStream_t edges = keep ? nullptr : stream;
    DeviceBuffer<int32_t> d_progress{stream}, d_state{stream}, d_row_h{edges}, d_row_f{edges},
        d_col_h{edges}, d_col_e{edges}, d_peaks{stream};
    DeviceBuffer<int2> d_ring{stream};
    DeviceBuffer<unsigned long long> d_next{stream};
    EdgePassArgs a{};
    const PassCodes codes(stream, s0, s1, bands * rows, terms, a.p);
    a.m = m;
    a.n = n;
    a.bands = bands;
    a.tile_rows = out.tile_rows;
    a.tile_cols = out.tile_cols;
    a.tile_columns = tile_columns;
    a.ring = d_ring.reserve(static_cast<size_t>(2 * n));
    a.progress = d_progress.reserve(static_cast<size_t>(bands));
    a.next_unit = d_next.reserve(1);
    a.state = d_state.reserve(static_cast<size_t>(bands) * slot_words);
    a.row_h = d_row_h.reserve(std::max<size_t>(kept_rows, 1));
    a.row_f = d_row_f.reserve(std::max<size_t>(kept_rows, 1));
    a.col_h = d_col_h.reserve(std::max<size_t>(kept_cols, 1));
    a.col_e = d_col_e.reserve(std::max<size_t>(kept_cols, 1));
    a.peaks = d_peaks.reserve(static_cast<size_t>(tile_bands * tile_columns));
    CUDA_CHECK(cudaMemsetAsync(a.progress, 0, static_cast<size_t>(bands) * 4, stream));
    CUDA_CHECK(cudaMemsetAsync(a.peaks, 0, static_cast<size_t>(tile_bands * tile_columns) * 4, stream));
    // Units go slab after slab: unless the edges stay here, once a launch ended, the slabs it
    // finished are copied home while the next one runs (on H. pylori, two thirds of a
    // strand's edges beside the last launch's 0.4 s).
    int64_t slabs_home = 0;
    const auto landed = [&](int64_t units_done) {
        if (keep) return;  // they stay here, and go home as they are asked for (fetch_kept)
        const int64_t slabs_done = units_done / bands;
        if (slabs_done <= slabs_home) return;
        const int64_t lo = slabs_home * a.slab_cols, hi = std::min(n, slabs_done * a.slab_cols);
        HomeCopies home;
        for (int64_t b = 1; b < tile_bands; ++b) {
            const size_t k = static_cast<size_t>(b);
            home.add(a.row_h + (b - 1) * n + lo, (*out.row_h)[k].data() + 1 + lo, hi - lo);
            home.add(a.row_f + (b - 1) * n + lo, (*out.row_f)[k].data() + 1 + lo, hi - lo);
        }
        // Tile column c's left edge is 0-based column c * tile_cols - 1, in the slab holding it.
        for (int64_t c = std::max<int64_t>(1, ceil_div(lo + 1, out.tile_cols)); c < tile_columns && c * out.tile_cols <= hi;
             ++c) {
            const size_t k = static_cast<size_t>(c);
            home.add(a.col_h + (c - 1) * m, (*out.col_h)[k].data(), m);
            home.add(a.col_e + (c - 1) * m, (*out.col_e)[k].data(), m);
        }
        home.run();
        slabs_home = slabs_done;
    };
    switch (alpha) {
    case 16: launch_for<16>(device, stream, terms.substitution, a, out, landed); break;
    case 8: launch_for<8>(device, stream, terms.substitution, a, out, landed); break;
    default: launch_for<4>(device, stream, terms.substitution, a, out, landed); break;
    }
    out.peaks->resize(static_cast<size_t>(tile_bands * tile_columns));
    CUDA_CHECK(cudaMemcpyAsync(out.peaks->data(), a.peaks, out.peaks->size() * 4, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (keep) {
        kept.row_h.swap(d_row_h);
        kept.row_f.swap(d_row_f);
        kept.col_h.swap(d_col_h);
        kept.col_e.swap(d_col_e);
        kept.m = m;
        kept.n = n;
        kept.tile_rows = out.tile_rows;
        kept.tile_cols = out.tile_cols;
    }
    return true;
}

}  // namespace chromalign::kernels
