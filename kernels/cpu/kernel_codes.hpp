//! @file The sequences as the CPU tile kernels read them (TileArgs::s0, TileArgs::s1_window),
//! for stage 1's runner and the K best search's tiles alike.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/sequence.hpp"
#include "kernels/cpu/tile_kernel.hpp"

namespace chromalign::kernels::cpu {

/// S0's m codes (others as kBaseOther), padded with kBaseOther to `rows`.
inline std::vector<uint8_t> padded_s0(const uint8_t* s0, int64_t m, int64_t rows) {
    std::vector<uint8_t> codes(static_cast<size_t>(std::max(rows, m)), kBaseOther);
    for (int64_t i = 0; i < m; ++i) codes[static_cast<size_t>(i)] = std::min<uint8_t>(s0[i], kBaseOther);
    return codes;
}

/// S1 as `kernel`'s lane elements (`substitution`): column c, -lanes < c < cols + lanes, at
/// index -c of `at`; columns outside S1's n are kBaseOther. Moves keep `at`; copies would not.
struct S1Window {
    std::vector<int16_t> i16;  ///< 16-bit kernels'
    std::vector<int32_t> i32;  ///< 32-bit kernels'
    const void* at = nullptr;

    S1Window() = default;
    S1Window(const CpuKernel& kernel, const CpuSubstitution& substitution, const uint8_t* s1, int64_t n, int64_t cols) {
        const int64_t lanes = kernel.lanes, origin = cols + lanes - 1, size = cols + 2 * lanes;
        const auto code = [&](int64_t i) {
            const int64_t c = origin - i;
            return substitution.s1_element(c >= 0 && c < n ? s1[c] : int{kBaseOther});
        };
        if (kernel.lane_bits == 16) {
            i16.resize(static_cast<size_t>(size));
            for (int64_t i = 0; i < size; ++i) i16[static_cast<size_t>(i)] = static_cast<int16_t>(code(i));
            at = i16.data() + origin;
        } else {
            i32.resize(static_cast<size_t>(size));
            for (int64_t i = 0; i < size; ++i) i32[static_cast<size_t>(i)] = code(i);
            at = i32.data() + origin;
        }
    }
    S1Window(const S1Window&) = delete;
    S1Window& operator=(const S1Window&) = delete;
    S1Window(S1Window&&) = default;
    S1Window& operator=(S1Window&&) = default;
};

}  // namespace chromalign::kernels::cpu
