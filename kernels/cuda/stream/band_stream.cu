//! @file cuda_band_stream: the stream's buffers, its one launch, and the bound and gain table
//! handed to it while it runs.
#include "kernels/cuda/stream/band_stream.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "engine/error.hpp"
#include "engine/pruning/gain_table.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/cuda_handles.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/device_codes.hpp"
#include "kernels/cuda/gain_copies.hpp"
#include "kernels/cuda/stream/band_stream.cuh"

namespace chromalign::kernels {
namespace {

using cuda::BestCell;
using cuda::kWarp;
using cuda::StreamArgs;
using cuda::StreamGain;
using cuda::Substitution;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

template <int A, Substitution kSub>
void launch(int device, int wanted_per_sm, const StreamArgs& a, cudaStream_t stream) {
    const auto kernel = cuda::band_stream<A, kSub>;
    int per_sm = 0, sms = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kWarp, 0));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    if (wanted_per_sm > 0) per_sm = std::min(per_sm, wanted_per_sm);
    const int64_t warps = std::min<int64_t>(std::max<int64_t>(1, int64_t{per_sm} * sms), a.bands);
    kernel<<<static_cast<unsigned>(warps), kWarp, 0, stream>>>(a);
    CUDA_CHECK(cudaGetLastError());
}

template <int A>
void launch_for(int device, int per_sm, Substitution sub, const StreamArgs& a, cudaStream_t stream) {
    switch (sub) {
    case Substitution::kBytes: launch<A, Substitution::kBytes>(device, per_sm, a, stream); break;
    case Substitution::kEquality: launch<A, Substitution::kEquality>(device, per_sm, a, stream); break;
    case Substitution::kTable: launch<A, Substitution::kTable>(device, per_sm, a, stream); break;
    }
}

}  // namespace

BandStreamRun cuda_band_stream(int device, int alpha, const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                               const BackendOptions& run) {
    if (!run.checkpoint.path.empty() || !run.special_rows.dir.empty() || run.stack_rows)
        throw Error("the band stream (--scheduler stream) keeps no checkpoints, special rows or stacked records yet");
    if (alpha != 4 && alpha != 8 && alpha != 16)
        throw Error("the band stream runs alpha 4, 8 or 16, not " + std::to_string(alpha));
    BandStreamRun out;
    const int64_t m = s0.length(), n = s1.length();
    if (m == 0 || n == 0) return out;
    if (n >= INT32_MAX - 4 * kWarp) throw Error("the band stream takes fewer than 2^31 - 128 columns");
    const int64_t rows = int64_t{alpha} * kWarp, bands = ceil_div(m, rows);
    const int32_t chunks = static_cast<int32_t>(ceil_div(n + kWarp - 1, cuda::kStreamChunk));

    OwnStream stream(device), side(device);
    const CudaScoringTerms terms = cuda_scoring_terms(scoring);
    DeviceBuffer<int32_t> d_progress, d_span, d_words;
    DeviceBuffer<uint32_t> d_stamps;
    DeviceBuffer<int2> d_ring;
    DeviceBuffer<BestCell> d_best;
    DeviceBuffer<unsigned long long> d_counts;
    DeviceBuffer<StreamGain> d_gain;
    DeviceBuffer<long long> d_trace;
    PinnedBuffer<int32_t> h_bound;

    StreamArgs a{};
    const PassCodes codes(stream.stream, s0, s1, bands * rows, terms, a.p);
    PruneRule rule{run.pruning, scoring.best_score(), m, n};
    rule.span_rows = rows;  // a chunk and its inputs: rows [row0, row0 + R], columns [col0, col0 + 63]
    rule.span_cols = cuda::kStreamChunk + kWarp - 1;
    a.p.prune = rule;
    a.m = m;
    a.n = n;
    a.bands = bands;
    a.chunks = chunks;
    a.ring = d_ring.reserve(static_cast<size_t>(2 * n));
    a.stamps = d_stamps.reserve(static_cast<size_t>(2) * chunks);
    a.progress = d_progress.reserve(static_cast<size_t>(bands));
    a.span = d_span.reserve(static_cast<size_t>(2 * bands));
    a.best = d_best.reserve(static_cast<size_t>(bands));
    int32_t* words = d_words.reserve(2);
    a.best_score = words;
    a.bound = words + 1;
    unsigned long long* counts = d_counts.reserve(2);
    a.next_band = counts;
    a.computed = counts + 1;
    a.gain = d_gain.reserve(1);
    // CHROMALIGN_STREAM_TRACE=FILE: each band's times and live chunks as TSV (band_stream.cuh).
    const char* trace_path = std::getenv("CHROMALIGN_STREAM_TRACE");
    if (trace_path && *trace_path) {
        const size_t trace_words = static_cast<size_t>(bands) * cuda::kStreamTraceWords;
        a.trace = d_trace.reserve(trace_words);
        CUDA_CHECK(cudaMemsetAsync(a.trace, 0, trace_words * 8, stream.stream));
    }
    CUDA_CHECK(cudaMemsetAsync(a.stamps, 0, static_cast<size_t>(2) * chunks * 4, stream.stream));
    CUDA_CHECK(cudaMemsetAsync(a.progress, 0, static_cast<size_t>(bands) * 4, stream.stream));
    CUDA_CHECK(cudaMemsetAsync(a.span, 0xff, static_cast<size_t>(2 * bands) * 4, stream.stream));  // -1: not published
    CUDA_CHECK(cudaMemsetAsync(a.best, 0, static_cast<size_t>(bands) * sizeof(BestCell), stream.stream));
    CUDA_CHECK(cudaMemsetAsync(words, 0, 8, stream.stream));
    CUDA_CHECK(cudaMemsetAsync(counts, 0, 16, stream.stream));
    CUDA_CHECK(cudaMemsetAsync(d_gain.get(), 0, sizeof(StreamGain), stream.stream));
    out.device_bytes = codes.bytes + static_cast<size_t>(2 * n) * 8 + static_cast<size_t>(2) * chunks * 4 +
                       static_cast<size_t>(bands) * (12 + sizeof(BestCell));

    // The stream is non-blocking: what was set in its order is done before the side stream
    // writes the bound over one of those words.
    CUDA_CHECK(cudaStreamSynchronize(stream.stream));

    // What the host hands on while the kernel runs: the bound as it rises, the table once.
    int32_t* bound = h_bound.reserve(1);
    *bound = 0;
    const auto current_bound = [&] {
        int32_t b = run.pruning ? run.prune_floor : 0;
        if (run.pruning && run.lower_bound) b = std::max(b, run.lower_bound->load(std::memory_order_relaxed));
        return b;
    };
    std::shared_ptr<const int32_t> table_copy;
    const auto hand_on = [&] {
        const int32_t b = current_bound();
        if (b > *bound) {
            *bound = b;
            CUDA_CHECK(cudaMemcpyAsync(words + 1, bound, 4, cudaMemcpyHostToDevice, side.stream));
        }
        if (!table_copy && run.pruning && run.gain_table) {
            if (const GainView* view = run.gain_table->load(std::memory_order_acquire)) {
                if (view->t) {
                    table_copy = device_gain_table(device, *view);
                    StreamGain g{};
                    g.ready = 1;
                    g.view = *view;
                    g.view.t = table_copy.get();
                    // The view first, then the flag that says it is there.
                    CUDA_CHECK(cudaMemcpyAsync(&d_gain.get()->view, &g.view, sizeof g.view, cudaMemcpyHostToDevice, side.stream));
                    CUDA_CHECK(cudaMemcpyAsync(&d_gain.get()->ready, &g.ready, 4, cudaMemcpyHostToDevice, side.stream));
                }
            }
        }
        CUDA_CHECK(cudaStreamSynchronize(side.stream));
    };
    hand_on();
    switch (alpha) {
    case 16: launch_for<16>(device, run.blocks_per_sm, terms.substitution, a, stream.stream); break;
    case 8: launch_for<8>(device, run.blocks_per_sm, terms.substitution, a, stream.stream); break;
    default: launch_for<4>(device, run.blocks_per_sm, terms.substitution, a, stream.stream); break;
    }
    const Event ended;
    CUDA_CHECK(cudaEventRecord(ended.event, stream.stream));
    for (;;) {
        const cudaError_t q = cudaEventQuery(ended.event);
        if (q == cudaSuccess) break;
        if (q != cudaErrorNotReady) CUDA_CHECK(q);
        hand_on();
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }

    std::vector<BestCell> best(static_cast<size_t>(bands));
    unsigned long long computed = 0;
    CUDA_CHECK(cudaMemcpy(best.data(), a.best, best.size() * sizeof(BestCell), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&computed, a.computed, sizeof computed, cudaMemcpyDeviceToHost));
    if (a.trace) {
        std::vector<long long> tr(static_cast<size_t>(bands) * cuda::kStreamTraceWords);
        CUDA_CHECK(cudaMemcpy(tr.data(), a.trace, tr.size() * 8, cudaMemcpyDeviceToHost));
        long long t0 = tr[0];
        for (int64_t b = 0; b < bands; ++b) t0 = std::min(t0, tr[static_cast<size_t>(b) * cuda::kStreamTraceWords]);
        if (FILE* f = std::fopen(trace_path, "w")) {
            std::fprintf(f, "band\tstart_us\tend_us\tfirst_live\tlast_live\tlive_chunks\tbegan_us");
            for (int c = 0; c < cuda::kStreamTraceChunks; ++c) std::fprintf(f, "\tchunk%d_us", c);
            std::fprintf(f, "\n");
            const auto at = [&](long long ns) { return ns > 0 ? (ns - t0) / 1e3 : -1.0; };  // -1: none
            for (int64_t b = 0; b < bands; ++b) {
                const long long* w = tr.data() + b * cuda::kStreamTraceWords;
                std::fprintf(f, "%lld\t%.1f\t%.1f\t%lld\t%lld\t%lld\t%.1f", static_cast<long long>(b), at(w[0]),
                             at(w[1]), w[2], w[3], w[4], at(w[5]));
                for (int c = 0; c < cuda::kStreamTraceChunks; ++c) std::fprintf(f, "\t%.1f", at(w[6 + c]));
                std::fprintf(f, "\n");
            }
            std::fclose(f);
        }
    }
    for (const BestCell& c : best)  // each band's best, 0-based: the tie rule over them
        if (c.score > 0) out.best = better_of(AlignmentEnd{c.score, int64_t{c.row} + 1, int64_t{c.col} + 1}, out.best);
    out.cells_computed = static_cast<int64_t>(computed);
    return out;
}

}  // namespace chromalign::kernels
