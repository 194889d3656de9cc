//! @file DiagonalTrace: when the blocks of every external diagonal started and ended, for performance work.
#pragma once

#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "engine/tiling/tile_grid.hpp"

namespace chromalign::kernels {

/// Set CHROMALIGN_TRACE_DIAGONALS=PREFIX and every CUDA runner writes PREFIX.<pid>.<k>.tsv
/// (k counts the runners of the process: one per slab) when it ends: one line per diagonal,
/// in ms after diagonal 0's first block started, from the GPU's global timer: when the first
/// and the last of its blocks started, when the last short phase ended, and when the median
/// and the last block ended. The header holds the grid and the host's monotonic clock at the
/// first launch, which lines up the slabs of one host. Every kBlockSample-th diagonal also has
/// its blocks' own stamps in PREFIX.<pid>.<k>.blocks.tsv (block column, start, short-phase end,
/// end), to tell which block is late. Lane 0 of each block writes its three stamps straight to
/// pinned host memory (PhaseArgs::stamps, trace_stamps.cuh), so tracing adds no work to the
/// stream and no CUDA call per diagonal; off unless asked for.
class DiagonalTrace {
public:
    /// Diagonals whose stamps are kept before they are read: far more than a runner's caller
    /// keeps in flight, so the oldest are long done (enqueue_diagonal makes sure).
    static constexpr int64_t kLive = 1024;
    /// Diagonals 0, kBlockSample, 2 kBlockSample, ... are written block by block.
    static constexpr int64_t kBlockSample = 256;

    /// Null when the variable is not set.
    static std::unique_ptr<DiagonalTrace> from_environment(const TileGrid& grid) {
        const char* prefix = std::getenv("CHROMALIGN_TRACE_DIAGONALS");
        if (!prefix || !*prefix) return nullptr;
        static std::atomic<int> runners{0};
        const std::string path = std::string(prefix) + "." + std::to_string(static_cast<long long>(getpid())) + "." +
                                 std::to_string(runners++) + ".tsv";
        return std::unique_ptr<DiagonalTrace>(new DiagonalTrace(path, grid));
    }

    /// Where the blocks of diagonal d write their stamps (zeroed; blockIdx i at 3 i, for
    /// block column grid.first_busy_block(d) + i), once the stamps of diagonal d - kLive,
    /// which used the same slot and must be done, are read. Null if the ring could not be
    /// allocated.
    uint64_t* stamps_for(int64_t d) {
        if (!ring_) return nullptr;
        if (d == 0)
            host_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch()).count();
        if (d >= kLive) harvest(d - kLive);
        uint64_t* slot = ring_ + d % kLive * slot_words();
        std::memset(slot, 0, slot_words() * sizeof(uint64_t));
        traced_ = d + 1;
        return slot;
    }

    /// Writes the file; the caller has synchronized the stream. A trace is a diagnostic, so a
    /// failure to write it is reported on stderr and does not fail the run.
    ~DiagonalTrace() {
        for (int64_t d = std::max<int64_t>(0, traced_ - kLive); d < traced_; ++d) harvest(d);
        if (ring_) cudaFreeHost(ring_);
        FILE* out = std::fopen(path_.c_str(), "w");
        if (!out) {
            std::fprintf(stderr, "chromalign: cannot write the diagonal trace %s\n", path_.c_str());
            return;
        }
        std::fprintf(out, "# chromalign diagonal trace: m %lld n %lld rows_per_band %lld "
                     "blocks %d block_cols %lld bands %lld host_ns %lld\n"
                     "diagonal\tstart_ms\tend_ms\tlast_start_ms\tlast_short_ms\tmedian_end_ms\tblocks\n",
                     static_cast<long long>(grid_.m), static_cast<long long>(grid_.n),
                     static_cast<long long>(grid_.rows_per_band()), grid_.blocks,
                     static_cast<long long>(grid_.block_cols), static_cast<long long>(grid_.bands), host_ns_);
        const uint64_t origin = rows_.empty() ? 0 : rows_.front()[0];
        for (size_t d = 0; d < rows_.size(); ++d) {
            std::fprintf(out, "%zu", d);
            for (size_t k = 0; k < 5; ++k) {
                const uint64_t ns = rows_[d][k];
                if (ns == 0)
                    std::fprintf(out, "\tnan");  // no block of this diagonal ran
                else
                    std::fprintf(out, "\t%.4f", static_cast<double>(static_cast<int64_t>(ns - origin)) / 1e6);
            }
            std::fprintf(out, "\t%llu\n", static_cast<unsigned long long>(rows_[d][5]));
        }
        std::fclose(out);
        write_blocks(origin);
    }

private:
    DiagonalTrace(std::string path, const TileGrid& grid) : path_(std::move(path)), grid_(grid) {
        if (cudaMallocHost(&ring_, kLive * slot_words() * sizeof(uint64_t)) != cudaSuccess) {
            ring_ = nullptr;
            std::fprintf(stderr, "chromalign: no pinned memory for the diagonal trace %s\n", path_.c_str());
        }
    }

    size_t slot_words() const { return 3 * static_cast<size_t>(grid_.blocks); }

    /// The sampled diagonals' blocks, in ms from `origin`.
    void write_blocks(uint64_t origin) const {
        const std::string path = path_.substr(0, path_.size() - 4) + ".blocks.tsv";
        FILE* out = std::fopen(path.c_str(), "w");
        if (!out) {
            std::fprintf(stderr, "chromalign: cannot write the diagonal trace %s\n", path.c_str());
            return;
        }
        std::fprintf(out, "diagonal\tblock\tstart_ms\tshort_end_ms\tend_ms\n");
        const auto ms = [origin](uint64_t ns) { return static_cast<double>(static_cast<int64_t>(ns - origin)) / 1e6; };
        for (const SampledBlock& b : sampled_)
            std::fprintf(out, "%lld\t%lld\t%.4f\t%.4f\t%.4f\n", static_cast<long long>(b.diagonal),
                         static_cast<long long>(b.block), ms(b.stamps[0]), ms(b.stamps[1]), ms(b.stamps[2]));
        std::fclose(out);
    }

    /// Diagonal d's row from its slot: first start, last end, last start, last short-phase
    /// end, median end (0 where no block ran), and how many blocks ran.
    void harvest(int64_t d) {
        const uint64_t* slot = ring_ + d % kLive * slot_words();
        std::array<uint64_t, 6> row{};
        ends_.clear();
        for (int b = 0; b < grid_.blocks; ++b) {
            const uint64_t* s = slot + 3 * b;
            if (s[0] == 0) continue;  // not in this diagonal's grid, or no band in it
            if (d % kBlockSample == 0) sampled_.push_back({d, grid_.first_busy_block(d) + b, {s[0], s[1], s[2]}});
            row[0] = row[0] == 0 ? s[0] : std::min(row[0], s[0]);
            row[1] = std::max(row[1], s[2]);
            row[2] = std::max(row[2], s[0]);
            row[3] = std::max(row[3], s[1]);
            ends_.push_back(s[2]);
        }
        if (!ends_.empty()) {
            std::nth_element(ends_.begin(), ends_.begin() + ends_.size() / 2, ends_.end());
            row[4] = ends_[ends_.size() / 2];
        }
        row[5] = ends_.size();
        rows_.push_back(row);
    }

    std::string path_;
    TileGrid grid_;
    long long host_ns_ = 0;
    uint64_t* ring_ = nullptr;                ///< kLive slots of (start, short end, end) per block
    struct SampledBlock {
        int64_t diagonal, block;
        std::array<uint64_t, 3> stamps;
    };
    std::vector<SampledBlock> sampled_;       ///< every kBlockSample-th diagonal's blocks
    int64_t traced_ = 0;                      ///< diagonals handed a slot
    std::vector<std::array<uint64_t, 6>> rows_;  ///< by diagonal, see harvest
    std::vector<uint64_t> ends_;              ///< harvest's scratch: one diagonal's block ends
};

}  // namespace chromalign::kernels
