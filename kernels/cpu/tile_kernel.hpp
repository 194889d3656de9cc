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
    int32_t open = 0, ext = 0, match = 0, mismatch = 0;
    int32_t threshold = 1;       ///< cells below max(threshold, best->score) can never win
    CellBest* best = nullptr;    ///< in/out: this worker's best cell under the tie rule
};

/// One compiled tile kernel.
struct CpuKernel {
    const char* name;   ///< e.g. "avx2/i16/a4"
    CpuIsa isa;
    int lane_bits;      ///< 16: scores relative to the tile corner (needs relative16_fits); 32: absolute
    int lanes;          ///< SIMD lanes: the tile grid's "threads"
    int alpha;          ///< rows per lane
    void (*run)(const TileArgs& args);
    size_t (*scratch_bytes)(int64_t cols);
    int32_t (*s1_element)(int code);  ///< the window's lane element for an S1 code (>= 4: other)
};

/// The kernel for (isa, lane_bits, alpha), or nullptr when none is compiled.
const CpuKernel* find_cpu_kernel(CpuIsa isa, int lane_bits, int alpha);

/// The strongest ISA this CPU runs, or the one named by $CHROMALIGN_CPU_ISA (scalar, sse41,
/// avx, avx2). Throws Error for an unknown name or an ISA this CPU (or this build) lacks.
CpuIsa select_cpu_isa();

std::string cpu_isa_name(CpuIsa isa);

/// Whether a tile of `rows` x `cols` may run in 16-bit lanes relative to its corner: adjacent
/// DP cells differ by at most match + open (Suzuki & Kasahara 2018), so every H, E, F and
/// intermediate of the tile then stays inside int16 (see tile_kernel_impl.hpp for the bound).
bool relative16_fits(int64_t rows, int64_t cols, const Scoring& scoring);

/// The widest tile (in columns) that relative16_fits for `rows`; <= 0 when none.
int64_t relative16_max_cols(int64_t rows, const Scoring& scoring);

}  // namespace chromalign::kernels::cpu
