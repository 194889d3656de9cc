//! @file Plain C++ interface to the CPU tile kernels: one SIMD tile of a band, and the kernel table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/scoring/scoring.hpp"

namespace chromalign::kernels::cpu {

/// Instruction sets with a compiled tile kernel, weakest first.
enum class CpuIsa { kScalar, kSse41, kAvx, kAvx2, kAvx512 };

/// The best real cell one worker has seen; row and col are 0-based within the executor.
struct CellBest {
    int32_t score = 0;  ///< 0: none yet
    int64_t row = 0;
    int64_t col = 0;
};

/// Everything one tile needs: band `row0 / R`, block column `col0 / C`, R = lanes * alpha.
/// Buses hold exact 32-bit scores; the kernel converts at the tile edges (see tile_kernel_impl.hpp).
struct TileArgs {
    int64_t row0 = 0;            ///< first row of the tile (0-based, padded matrix)
    int64_t col0 = 0;            ///< first column of the tile
    int64_t m = 0, n = 0;        ///< real lengths: cells at row >= m or col >= n are never reported
    int32_t cols = 0;            ///< C, at least 2 * lanes
    const uint8_t* s0 = nullptr;       ///< S0 codes of rows row0.. (others and padding are 4)
    const void* s1_window = nullptr;   ///< S1 as lane elements (s1_element), column c at index -c
    int32_t* bus_h = nullptr;    ///< horizontal bus at col0: H of the row above, replaced by the bottom row
    int32_t* bus_f = nullptr;    ///< ... and F
    const int32_t* left = nullptr;  ///< left edge H[R], E[R] (lane-vector order), corner H; null at column 0
    int32_t* right = nullptr;       ///< right edge out, same layout; null for the last block column
    void* scratch = nullptr;     ///< kernel scratch of scratch_bytes(cols) bytes, one per worker
    const CpuScoringTerms* scoring = nullptr;  ///< gap costs and diagonal terms (engine/scoring)
    int32_t threshold = 1;       ///< cells below max(threshold, best->score) can never win
    CellBest* best = nullptr;    ///< in/out: this worker's best cell under the tie rule
};

/// One way of forming the diagonal terms (see CpuScoringTerms): the tile kernel built for it,
/// and the lane elements it wants S1 codes in.
struct CpuSubstitution {
    void (*run)(const TileArgs& args);
    int32_t (*s1_element)(int code);  ///< the window's lane element for an S1 code (>= 4: other)
};

/// One compiled tile kernel.
struct CpuKernel {
    const char* name;   ///< e.g. "avx2/i16/a4"
    CpuIsa isa;
    int lane_bits;      ///< 16: scores relative to the tile corner (needs relative16_fits); 32: absolute
    int lanes;          ///< SIMD lanes: the tile grid's "threads"
    int alpha;          ///< rows per lane
    size_t (*scratch_bytes)(int64_t cols);
    CpuSubstitution equality;  ///< match/mismatch (CpuScoringTerms::equality)
    CpuSubstitution matrix;    ///< any matrix, by byte-table lookups

    /// The substitution for these terms.
    const CpuSubstitution& substitution(const CpuScoringTerms& terms) const {
        return terms.equality ? equality : matrix;
    }
};

/// The kernel for (isa, lane_bits, alpha), or nullptr when none is compiled.
const CpuKernel* find_cpu_kernel(CpuIsa isa, int lane_bits, int alpha);

/// The strongest ISA this CPU runs, or the one named by $CHROMALIGN_CPU_ISA (scalar, sse41,
/// avx, avx2). Throws Error for an unknown name or an ISA this CPU (or this build) lacks.
CpuIsa select_cpu_isa();

std::string cpu_isa_name(CpuIsa isa);

}  // namespace chromalign::kernels::cpu
