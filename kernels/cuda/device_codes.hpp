//! @file What the kernels of cell_step.cuh read of the sequences and the scoring, as the host
//! prepares it: padded device codes and the kTable diagonal terms.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

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

}  // namespace chromalign::kernels
