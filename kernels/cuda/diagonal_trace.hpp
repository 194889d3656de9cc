//! @file DiagonalTrace: the GPU start and end time of every external diagonal, for performance work.
#pragma once

#include <cuda_runtime.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "engine/tile_grid.hpp"

namespace chromalign::kernels {

/// Set CHROMALIGN_TRACE_DIAGONALS=PREFIX and every CUDA runner writes PREFIX.<pid>.<k>.tsv
/// (k counts the runners of the process: one per slab) when it ends: one line per diagonal
/// with the GPU times (ms after an event just before diagonal 0) of its start and of its end.
/// The header holds the grid and the host's monotonic clock at the first launch, which lines
/// up the slabs of one host. The README's
/// scaling model was measured so. Two timing events per diagonal cost about 1 us of GPU
/// time each; off unless asked for.
class DiagonalTrace {
public:
    /// Null when the variable is not set.
    static std::unique_ptr<DiagonalTrace> from_environment(const TileGrid& grid) {
        const char* prefix = std::getenv("CHROMALIGN_TRACE_DIAGONALS");
        if (!prefix || !*prefix) return nullptr;
        static std::atomic<int> runners{0};
        return std::unique_ptr<DiagonalTrace>(new DiagonalTrace(std::string(prefix) + "." +
                                                                    std::to_string(static_cast<long long>(getpid())) +
                                                                    "." + std::to_string(runners++) + ".tsv",
                                                                grid));
    }

    void begin(cudaStream_t stream) {
        if (!origin_) {
            host_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch()).count();
            origin_ = record(stream);
        }
        // A chromosome pair has ~500k diagonals: events are read back and freed as they age
        // (the host keeps only a few diagonals in flight, so the oldest are long done).
        if (live_.size() >= kLive) harvest_oldest();
        live_.push_back({record(stream), nullptr});
    }
    void end(cudaStream_t stream) { live_.back()[1] = record(stream); }

    /// Writes the file once the stream is idle; a trace is a diagnostic, so a failure to
    /// write it is reported on stderr and does not fail the run.
    ~DiagonalTrace() {
        while (!live_.empty()) harvest_oldest();
        if (origin_) cudaEventDestroy(origin_);
        FILE* out = std::fopen(path_.c_str(), "w");
        if (!out) {
            std::fprintf(stderr, "chromalign: cannot write the diagonal trace %s\n", path_.c_str());
            return;
        }
        std::fprintf(out, "# chromalign diagonal trace: m %lld n %lld rows_per_band %lld "
                     "blocks %d block_cols %lld bands %lld host_ns %lld\ndiagonal\tstart_ms\tend_ms\n",
                     static_cast<long long>(grid_.m), static_cast<long long>(grid_.n),
                     static_cast<long long>(grid_.rows_per_band()), grid_.blocks,
                     static_cast<long long>(grid_.block_cols), static_cast<long long>(grid_.bands), host_ns_);
        for (size_t d = 0; d < times_.size(); ++d)
            std::fprintf(out, "%zu\t%.4f\t%.4f\n", d, times_[d][0], times_[d][1]);
        std::fclose(out);
    }

private:
    static constexpr size_t kLive = 1024;  ///< diagonals whose events are kept

    DiagonalTrace(std::string path, const TileGrid& grid) : path_(std::move(path)), grid_(grid) {}

    static cudaEvent_t record(cudaStream_t stream) {
        cudaEvent_t ev = nullptr;
        if (cudaEventCreate(&ev) == cudaSuccess && cudaEventRecord(ev, stream) != cudaSuccess) {
            cudaEventDestroy(ev);
            ev = nullptr;
        }
        return ev;
    }

    /// Milliseconds from origin_ to `ev`, NaN where an event failed.
    float since_origin(cudaEvent_t ev) const {
        float ms = 0;
        const bool ok = ev && origin_ && cudaEventSynchronize(ev) == cudaSuccess &&
                        cudaEventElapsedTime(&ms, origin_, ev) == cudaSuccess;
        return ok ? ms : std::nanf("");
    }

    void harvest_oldest() {
        const std::array<cudaEvent_t, 2> evs = live_.front();
        live_.pop_front();
        times_.push_back({since_origin(evs[0]), since_origin(evs[1])});
        for (cudaEvent_t ev : evs)
            if (ev) cudaEventDestroy(ev);
    }

    std::string path_;
    TileGrid grid_;
    long long host_ns_ = 0;
    cudaEvent_t origin_ = nullptr;                    ///< recorded just before diagonal 0's start
    std::deque<std::array<cudaEvent_t, 2>> live_;     ///< start, end
    std::vector<std::array<float, 2>> times_;         ///< the same in ms from origin_
};

}  // namespace chromalign::kernels
