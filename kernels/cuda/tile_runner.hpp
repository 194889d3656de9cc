//! @file Plain C++ interface to the CUDA tile kernels: no CUDA type leaks out of kernels/cuda.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "engine/result.hpp"
#include "engine/pruning/prune_rule.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/tiling/tile_executor.hpp"
#include "engine/tiling/tile_grid.hpp"
#include "kernels/cuda/tuning.hpp"

namespace chromalign::kernels {

/// What the engine needs to know about a CUDA device before it chooses the grid.
struct CudaDeviceInfo {
    std::string name;            ///< e.g. "NVIDIA H100 80GB HBM3"
    int multiprocessors = 0;
    size_t total_memory = 0;     ///< bytes
    size_t free_memory = 0;      ///< bytes
    int compute_major = 0, compute_minor = 0;
};

/// Number of usable CUDA devices; 0 when there is no device or no driver (never throws).
int cuda_device_count();

/// Properties of device `device`; throws Error if it does not exist.
CudaDeviceInfo cuda_device_info(int device);

/// Rows per thread compiled into the kernels (template instances).
bool cuda_alpha_supported(int alpha);

/// Blocks of one warp each that fit on one multiprocessor at once for this alpha and
/// substitution (CudaScoringTerms): the kernel of each may need other registers; the smaller
/// count of its production and traced instances, as a run may launch either.
int cuda_resident_blocks_per_sm(int device, int alpha, CudaScoringTerms::Substitution substitution);

/// The same for a grid that enqueue_window launches (its kernel, and the diagonal kernels,
/// which the runner may also launch).
int cuda_window_blocks_per_sm(int device, int alpha, CudaScoringTerms::Substitution substitution);

/// Owns the device buffers of one comparison (sequences, horizontal bus, vertical bus, best
/// cells) and launches each external diagonal (short and long phase in one cooperative
/// kernel, or two kernels where the GPU cannot hold every block at once) on one stream.
/// Device memory is O(m + n): 1 byte per base of each sequence, 8 bytes per column for the
/// horizontal bus, and a few KB per block. Every CUDA call is checked; failures throw Error.
class CudaTileRunner : public TileExecutor {
public:
    /// Uploads the encoded sequences (BaseCode values; s0 holds grid.m rows, s1 grid.n
    /// columns) and sets the horizontal bus to `top` (row 0 of the matrix when empty).
    /// With slab edges, keeps rings of kEdgeSlots left edges (pinned host memory) and right
    /// edges (device memory). The kernels take `scoring`'s diagonal terms in its substitution
    /// and skip the block runs that `prune` allows (block_pruning.cuh).
    CudaTileRunner(int device, const TileGrid& grid, const CudaScoringTerms& scoring, const uint8_t* s0,
                   const uint8_t* s1, const TopRow& top, SlabEdges edges = {}, PruneRule prune = {});
    ~CudaTileRunner() override;
    CudaTileRunner(const CudaTileRunner&) = delete;
    CudaTileRunner& operator=(const CudaTileRunner&) = delete;

    const TileGrid& grid() const override;
    /// Enqueues external diagonal d, one launch (every block's short, then long phase);
    /// returns at once.
    void enqueue_diagonal(int64_t d) override;
    /// Waits for the stream, then hands captured columns to their arrays.
    void synchronize() override;
    /// Waits for the device, then reduces the per-block best cells with the tie rule.
    AlignmentEnd best() override;
    /// Uploads the band -> record map; best cells and G become per record (PhaseArgs).
    void stack_records(std::vector<int32_t> band_record) override;
    std::vector<AlignmentEnd> record_bests() override;
    /// The bus columns that diagonal d made final for `band` go into the band's device row: from
    /// the next diagonal on the diagonal kernel copies them itself (band_keeping.cuh); the whole
    /// row then goes in stream order into a pinned staging row (the host never waits) and reaches
    /// h and f once landed. With cell delegation, diagonal band + b finishes columns
    /// [b*C - 31, (b+1)*C - 31), band + B the last 31.
    void capture_band_bottom(int64_t band, int64_t d, int32_t* h, int32_t* f) override;
    /// Hands over every piece whose copy a later diagonal's event shows landed.
    bool capture_landed(int64_t band) override;
    /// A small kernel after each diagonal copies the bus columns it made final for the kept
    /// bands into a device buffer, where they stay: kept_band_bottoms copies the block asked
    /// for (one transfer), and kept_band_maxima reduces them on the device.
    void keep_band_bottoms(int64_t every) override;
    /// One cooperative launch of window_diagonals (window_kernel.cuh): every block column stays
    /// resident and copies its kept columns itself. Only for a runner without pruning, right
    /// edge or captures; needs the grid's blocks to fit cuda_window_blocks_per_sm.
    void enqueue_window(int64_t from, int64_t to, int32_t corner) override;
    void kept_band_bottoms(int64_t band, int64_t count, int64_t from, int64_t to, int32_t* h, int32_t* f) override;
    void kept_band_maxima(int64_t slope, int64_t block, int64_t* out) override;
    /// The diagonal kernel folds the bus columns it made final of the sampled bands into the
    /// regions (band_keeping.cuh, atomicMax per run); a region's peaks travel with its last
    /// band's captured row.
    void track_region_peaks(int64_t first_col, int64_t block, int64_t bands_per_region, int64_t band_offset) override;
    void capture_region_peaks(int64_t band, int64_t region, int32_t* out) override;
    size_t device_bytes() const override;  ///< device memory this runner allocated

    /// Writes the edge into ring slot band % kEdgeSlots, where band's short phase reads it.
    void set_left_edge(int64_t band, const int32_t* h, const int32_t* e, int32_t corner) override;
    /// Band d - B: block 0 writes it at the wrap of its delegated cells (short phase).
    int64_t right_edge_band(int64_t d) const override;
    void read_right_edge(int64_t band, int32_t* h, int32_t* e) override;
    /// From an event recorded after every diagonal (for one older than the last kEdgeSlots,
    /// the oldest of them: a conservative answer).
    bool done(int64_t d) override;

    /// The device's sum and best score as of the last diagonal whose copy has landed (one
    /// every kBestCopyEvery diagonals, into pinned memory, in stream order; the sum again at
    /// synchronize()).
    int64_t cells_pruned() override;
    void limit_bands(int64_t last) override;
    int32_t best_score_seen() override;
    /// Given to every later launch by value: the kernels prune against max(it, their own).
    void share_best_score(int32_t g) override;
    /// Copied to the device once; later decisions read it there, the host's from `view`.
    void share_gain_table(const GainView& view) override;
    static constexpr int64_t kBestCopyEvery = 128;

    /// Tests: launches of more than `blocks` blocks split in two, as those larger than the GPU.
    void limit_cooperative_launches(int64_t blocks);

    /// Edge ring slots and recorded diagonals (see tuning.hpp).
    static constexpr int kEdgeSlots = cuda::Tuning::kEdgeSlots;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace chromalign::kernels
