//! @file DiagonalTrace: the GPU start and end time of every external diagonal, for performance work.
#pragma once

#include <cuda_runtime.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "engine/tile_grid.hpp"

namespace chromalign::kernels {

/// Set CHROMALIGN_TRACE_DIAGONALS=PREFIX and every CUDA runner writes PREFIX.<pid>.tsv when it
/// ends: one line per diagonal with the GPU times (ms after diagonal 0 started) of its start,
/// of the end of its short phase and of its end. The
/// header holds the grid and the host's monotonic clock at the first launch, which lines up
/// the ranks of one host. What it showed (README, "Where the time goes") was measured so.
/// Three timing events per diagonal cost about 1 us of GPU time each; off unless asked for.
class DiagonalTrace {
public:
    /// Null when the variable is not set.
    static std::unique_ptr<DiagonalTrace> from_environment(const TileGrid& grid) {
        const char* prefix = std::getenv("CHROMALIGN_TRACE_DIAGONALS");
        if (!prefix || !*prefix) return nullptr;
        return std::unique_ptr<DiagonalTrace>(new DiagonalTrace(
            std::string(prefix) + "." + std::to_string(static_cast<long long>(getpid())) + ".tsv", grid));
    }

    void begin(cudaStream_t stream) {
        if (starts_.empty())
            host_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch()).count();
        starts_.push_back(record(stream));
    }
    void short_done(cudaStream_t stream) { mids_.push_back(record(stream)); }
    void end(cudaStream_t stream) { ends_.push_back(record(stream)); }

    /// Writes the file once the stream is idle; a trace is a diagnostic, so a failure to
    /// write it is reported on stderr and does not fail the run.
    ~DiagonalTrace() {
        if (FILE* out = std::fopen(path_.c_str(), "w")) {
            std::fprintf(out, "# chromalign diagonal trace: m %lld n %lld rows_per_band %lld "
                         "blocks %d block_cols %lld bands %lld host_ns %lld\ndiagonal\tstart_ms\tshort_end_ms\tend_ms\n",
                         static_cast<long long>(grid_.m), static_cast<long long>(grid_.n),
                         static_cast<long long>(grid_.rows_per_band()),
                         grid_.blocks, static_cast<long long>(grid_.block_cols),
                         static_cast<long long>(grid_.bands), host_ns_);
            for (size_t d = 0; d < ends_.size(); ++d) {
                float start = 0, mid = 0, end = 0;
                const bool ok = cudaEventSynchronize(ends_[d]) == cudaSuccess &&
                                cudaEventElapsedTime(&start, starts_[0], starts_[d]) == cudaSuccess &&
                                cudaEventElapsedTime(&mid, starts_[0], mids_[d]) == cudaSuccess &&
                                cudaEventElapsedTime(&end, starts_[0], ends_[d]) == cudaSuccess;
                if (ok)
                    std::fprintf(out, "%zu\t%.4f\t%.4f\t%.4f\n", d, start, mid, end);
                else
                    std::fprintf(out, "%zu\tnan\tnan\tnan\n", d);
            }
            std::fclose(out);
        } else {
            std::fprintf(stderr, "chromalign: cannot write the diagonal trace %s\n", path_.c_str());
        }
        for (cudaEvent_t ev : starts_) cudaEventDestroy(ev);
        for (cudaEvent_t ev : mids_) cudaEventDestroy(ev);
        for (cudaEvent_t ev : ends_) cudaEventDestroy(ev);
    }

private:
    DiagonalTrace(std::string path, const TileGrid& grid) : path_(std::move(path)), grid_(grid) {}

    static cudaEvent_t record(cudaStream_t stream) {
        cudaEvent_t ev = nullptr;
        if (cudaEventCreate(&ev) == cudaSuccess) cudaEventRecord(ev, stream);
        return ev;
    }

    std::string path_;
    TileGrid grid_;
    long long host_ns_ = 0;
    std::vector<cudaEvent_t> starts_, mids_, ends_;
};

}  // namespace chromalign::kernels
