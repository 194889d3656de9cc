//! @file The AVX2 tile kernels (this file alone is compiled with -mavx2; see tile_kernel_impl.hpp).
#include "kernels/cpu/kernel_tables.hpp"
#include "kernels/cpu/simd_avx2.hpp"
#include "kernels/cpu/tile_kernel_impl.hpp"

namespace chromalign::kernels::cpu {
namespace {

constexpr CpuKernel kKernels[] = {
    kernel_entry<CpuIsa::kAvx2, Avx2I16, 4>("avx2/i16/a4"),
    kernel_entry<CpuIsa::kAvx2, Avx2I16, 8>("avx2/i16/a8"),
    kernel_entry<CpuIsa::kAvx2, Avx2I16, 16>("avx2/i16/a16"),
    kernel_entry<CpuIsa::kAvx2, Avx2I32, 4>("avx2/i32/a4"),
    kernel_entry<CpuIsa::kAvx2, Avx2I32, 8>("avx2/i32/a8"),
    kernel_entry<CpuIsa::kAvx2, Avx2I32, 16>("avx2/i32/a16"),
};

}  // namespace

const CpuKernel* avx2_kernels(size_t* count) {
    *count = sizeof(kKernels) / sizeof(kKernels[0]);
    return kKernels;
}

}  // namespace chromalign::kernels::cpu
