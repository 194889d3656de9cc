//! @file The SSE4.1 tile kernels (this file alone is compiled with -msse4.1; see tile_kernel_impl.hpp).
#include "kernels/cpu/kernel_tables.hpp"
#include "kernels/cpu/simd_sse41.hpp"
#include "kernels/cpu/tile_kernel_impl.hpp"

namespace chromalign::kernels::cpu {
namespace {

constexpr CpuKernel kKernels[] = {
    kernel_entry<CpuIsa::kSse41, Sse41I16, 4>("sse41/i16/a4"),
    kernel_entry<CpuIsa::kSse41, Sse41I16, 8>("sse41/i16/a8"),
    kernel_entry<CpuIsa::kSse41, Sse41I16, 16>("sse41/i16/a16"),
    kernel_entry<CpuIsa::kSse41, Sse41I32, 4>("sse41/i32/a4"),
    kernel_entry<CpuIsa::kSse41, Sse41I32, 8>("sse41/i32/a8"),
    kernel_entry<CpuIsa::kSse41, Sse41I32, 16>("sse41/i32/a16"),
};

}  // namespace

const CpuKernel* sse41_kernels(size_t* count) {
    *count = sizeof(kKernels) / sizeof(kKernels[0]);
    return kKernels;
}

}  // namespace chromalign::kernels::cpu
