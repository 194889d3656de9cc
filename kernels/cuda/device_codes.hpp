//! @file What the kernels of cell_step.cuh read of the sequences and the scoring, as the host
//! prepares it: padded device codes and the kTable diagonal terms.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/sequence.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/phase_args.cuh"

namespace chromalign::kernels {

/// The kTable layout of the terms' diagonal table: row a, device S1 code c at
/// [a * kTableStride + c]; every column but A/C/G/T is a's term against another code.
inline std::vector<int32_t> device_table(const CudaScoringTerms& terms) {
    std::vector<int32_t> table(cuda::kTableWords);
    for (int a = 0; a < 5; ++a)
        for (int c = 0; c < cuda::kTableStride; ++c) table[a * cuda::kTableStride + c] = terms.diag[a][c < 4 ? c : 4];
    return table;
}

/// Device copy of an encoded sequence, `padded` long, the padding and every code but A/C/G/T `other`; S1's "other" code is moved so that
/// equality alone decides a match (see kS1Other).
inline std::vector<uint8_t> padded_codes(const uint8_t* codes, int64_t length, int64_t padded, uint8_t other) {
    std::vector<uint8_t> out(static_cast<size_t>(padded), other);
    for (int64_t i = 0; i < length; ++i) out[i] = codes[i] < 4 ? codes[i] : other;
    return out;
}

/// S1's device codes between kWarp codes of slack before them and 3 kWarp after: a band of
/// lanes stages codes up to 31 left of its first step and past its last step, and the last
/// steps of a band run 31 columns past S1's end (edge_pass.cuh, stream/band_stream.cuh).
inline std::vector<uint8_t> s1_with_slack(const uint8_t* codes, int64_t n) {
    std::vector<uint8_t> out(static_cast<size_t>(n + 4 * cuda::kWarp), cuda::kS1Other);
    const std::vector<uint8_t> body = padded_codes(codes, n, n, cuda::kS1Other);
    std::copy(body.begin(), body.end(), out.begin() + cuda::kWarp);
    return out;
}

/// The pair as a pass over bands reads it (p.s0, p.s1, p.diag_table), on the device: S0 padded
/// to `padded_rows`, S1 with its slack, the kTable terms where the scoring takes them. Taken,
/// copied and freed in `stream`'s order; the host's copies may go at once, since a copy from
/// pageable memory returns once it is staged. The edge pass's and the band stream's.
struct PassCodes {
    DeviceBuffer<uint8_t> s0, s1;
    DeviceBuffer<int32_t> table;
    size_t bytes = 0;  ///< of the S0 and S1 codes

    PassCodes(cudaStream_t stream, const Sequence& q0, const Sequence& q1, int64_t padded_rows,
              const CudaScoringTerms& terms, cuda::PhaseArgs& p)
        : s0{stream}, s1{stream}, table{stream} {
        const std::vector<uint8_t> h_s0 = padded_codes(q0.codes.data(), q0.length(), padded_rows, 4);
        const std::vector<uint8_t> h_s1 = s1_with_slack(q1.codes.data(), q1.length());
        p.s0 = s0.reserve(h_s0.size());
        uint8_t* const s1_base = s1.reserve(h_s1.size());
        p.s1 = s1_base + cuda::kWarp;
        p.terms = terms;
        if (terms.substitution == CudaScoringTerms::Substitution::kTable) {
            const std::vector<int32_t> words = device_table(terms);
            p.diag_table = table.reserve(words.size());
            CUDA_CHECK(cudaMemcpyAsync(table.get(), words.data(), words.size() * 4, cudaMemcpyHostToDevice, stream));
        }
        CUDA_CHECK(cudaMemcpyAsync(s0.get(), h_s0.data(), h_s0.size(), cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaMemcpyAsync(s1_base, h_s1.data(), h_s1.size(), cudaMemcpyHostToDevice, stream));
        bytes = h_s0.size() + h_s1.size();
    }
};

}  // namespace chromalign::kernels
