//! @file cuda_whole_pass: the edge pass's buffers, its one launch, and the edges brought home.
#include "kernels/cuda/edge_pass.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

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
/// either end stay small against its width.
constexpr int64_t kUnitsPerWarp = 16;
constexpr int64_t kMinSlabCols = 4096;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

template <int A, Substitution kSub>
void launch(int device, EdgePassArgs& a, int64_t wanted_slab_cols) {
    const auto kernel = cuda::edge_pass<A, kSub>;
    int per_sm = 0, sms = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kWarp, 0));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const int64_t warps = std::max<int64_t>(1, int64_t{per_sm} * sms);
    if (wanted_slab_cols > 0) {
        a.slab_cols = wanted_slab_cols;
    } else {
        const int64_t slabs = std::clamp<int64_t>(ceil_div(kUnitsPerWarp * warps, a.bands), 1,
                                                  std::max<int64_t>(1, a.n / kMinSlabCols));
        a.slab_cols = ceil_div(a.n, slabs);
    }
    a.slabs = ceil_div(a.n, a.slab_cols);
    const int64_t blocks = std::min(warps, a.bands * a.slabs);
    kernel<<<static_cast<unsigned>(blocks), kWarp>>>(a);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
}

template <int A>
void launch_for(int device, Substitution sub, EdgePassArgs& a, int64_t slab_cols) {
    switch (sub) {
    case Substitution::kBytes: launch<A, Substitution::kBytes>(device, a, slab_cols); break;
    case Substitution::kEquality: launch<A, Substitution::kEquality>(device, a, slab_cols); break;
    case Substitution::kTable: launch<A, Substitution::kTable>(device, a, slab_cols); break;
    }
}

}  // namespace

bool cuda_whole_pass(int device, const Sequence& s0, const Sequence& s1, const Scoring& scoring, WholePass& out) {
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

    const CudaScoringTerms terms = cuda_scoring_terms(scoring);
    DeviceBuffer<uint8_t> d_s0, d_s1;
    DeviceBuffer<int32_t> d_table, d_progress, d_state, d_row_h, d_row_f, d_col_h, d_col_e, d_peaks;
    DeviceBuffer<int2> d_ring;
    DeviceBuffer<unsigned long long> d_next;
    const std::vector<uint8_t> h_s0 = padded_codes(s0.codes.data(), m, bands * rows, 4);
    // S1 with kWarp codes either side: a chunk stages codes 31 left of its slab and past its end.
    std::vector<uint8_t> h_s1(static_cast<size_t>(n + 4 * kWarp), cuda::kS1Other);
    const std::vector<uint8_t> body = padded_codes(s1.codes.data(), n, n, cuda::kS1Other);
    std::copy(body.begin(), body.end(), h_s1.begin() + kWarp);
    EdgePassArgs a{};
    a.p.s0 = d_s0.reserve(h_s0.size());
    uint8_t* s1_base = d_s1.reserve(h_s1.size());
    a.p.s1 = s1_base + kWarp;
    a.p.terms = terms;
    if (terms.substitution == Substitution::kTable) {
        const std::vector<int32_t> table = device_table(terms);
        a.p.diag_table = d_table.reserve(table.size());
        CUDA_CHECK(cudaMemcpy(d_table.get(), table.data(), table.size() * 4, cudaMemcpyHostToDevice));
    }
    CUDA_CHECK(cudaMemcpy(d_s0.get(), h_s0.data(), h_s0.size(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(s1_base, h_s1.data(), h_s1.size(), cudaMemcpyHostToDevice));
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
    CUDA_CHECK(cudaMemset(a.progress, 0, static_cast<size_t>(bands) * 4));
    CUDA_CHECK(cudaMemset(a.next_unit, 0, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(a.peaks, 0, static_cast<size_t>(tile_bands * tile_columns) * 4));
    switch (alpha) {
    case 16: launch_for<16>(device, terms.substitution, a, out.slab_cols); break;
    case 8: launch_for<8>(device, terms.substitution, a, out.slab_cols); break;
    default: launch_for<4>(device, terms.substitution, a, out.slab_cols); break;
    }
    const auto home = [](int32_t* to, const int32_t* from, int64_t count) {
        CUDA_CHECK(cudaMemcpy(to, from, static_cast<size_t>(count) * 4, cudaMemcpyDeviceToHost));
    };
    for (int64_t b = 1; b < tile_bands; ++b) {
        home((*out.row_h)[static_cast<size_t>(b)].data() + 1, a.row_h + (b - 1) * n, n);
        home((*out.row_f)[static_cast<size_t>(b)].data() + 1, a.row_f + (b - 1) * n, n);
    }
    for (int64_t c = 1; c < tile_columns; ++c) {
        home((*out.col_h)[static_cast<size_t>(c)].data(), a.col_h + (c - 1) * m, m);
        home((*out.col_e)[static_cast<size_t>(c)].data(), a.col_e + (c - 1) * m, m);
    }
    out.peaks->resize(static_cast<size_t>(tile_bands * tile_columns));
    home(out.peaks->data(), a.peaks, tile_bands * tile_columns);
    return true;
}

}  // namespace chromalign::kernels
