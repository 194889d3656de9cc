//! @file The AVX-512 tile kernels (this file alone is compiled with -mavx512f -mavx512bw; see
//! tile_kernel_impl.hpp).
#include "kernels/cpu/kernel_tables.hpp"
#include "kernels/cpu/simd_avx512.hpp"
#include "kernels/cpu/tile_kernel_impl.hpp"

namespace chromalign::kernels::cpu {
namespace {

constexpr CpuKernel kKernels[] = {
    kernel_entry<CpuIsa::kAvx512, Avx512I16, 4>("avx512/i16/a4"),
    kernel_entry<CpuIsa::kAvx512, Avx512I16, 8>("avx512/i16/a8"),
    kernel_entry<CpuIsa::kAvx512, Avx512I16, 16>("avx512/i16/a16"),
    kernel_entry<CpuIsa::kAvx512, Avx512I32, 4>("avx512/i32/a4"),
    kernel_entry<CpuIsa::kAvx512, Avx512I32, 8>("avx512/i32/a8"),
    kernel_entry<CpuIsa::kAvx512, Avx512I32, 16>("avx512/i32/a16"),
};

}  // namespace

const CpuKernel* avx512_kernels(size_t* count) {
    *count = sizeof(kKernels) / sizeof(kKernels[0]);
    return kKernels;
}

}  // namespace chromalign::kernels::cpu
