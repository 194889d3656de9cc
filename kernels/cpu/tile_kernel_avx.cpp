//! @file The AVX tile kernels: the SSE4.1 lane types compiled with -mavx (this file alone), so every
//! instruction has the three-operand VEX form and the register copies of two-operand SSE go away
//! (a CPU with AVX but not AVX2 runs these; see tile_kernel_impl.hpp).
#include "kernels/cpu/kernel_tables.hpp"
#include "kernels/cpu/simd_sse41.hpp"
#include "kernels/cpu/tile_kernel_impl.hpp"

namespace chromalign::kernels::cpu {
namespace {

constexpr CpuKernel kKernels[] = {
    kernel_entry<CpuIsa::kAvx, Sse41I16, 4>("avx/i16/a4"),
    kernel_entry<CpuIsa::kAvx, Sse41I16, 8>("avx/i16/a8"),
    kernel_entry<CpuIsa::kAvx, Sse41I16, 16>("avx/i16/a16"),
    kernel_entry<CpuIsa::kAvx, Sse41I32, 4>("avx/i32/a4"),
    kernel_entry<CpuIsa::kAvx, Sse41I32, 8>("avx/i32/a8"),
    kernel_entry<CpuIsa::kAvx, Sse41I32, 16>("avx/i32/a16"),
};

}  // namespace

const CpuKernel* avx_kernels(size_t* count) {
    *count = sizeof(kKernels) / sizeof(kKernels[0]);
    return kKernels;
}

}  // namespace chromalign::kernels::cpu
