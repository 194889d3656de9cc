//! @file The portable tile kernels: one int32 lane, any CPU (the fallback of the dispatcher).
#include "kernels/cpu/kernel_tables.hpp"
#include "kernels/cpu/simd_scalar.hpp"
#include "kernels/cpu/tile_kernel_impl.hpp"

namespace chromalign::kernels::cpu {
namespace {

constexpr CpuKernel kKernels[] = {
    kernel_entry<CpuIsa::kScalar, ScalarI32, 4>("scalar/i32/a4"),
    kernel_entry<CpuIsa::kScalar, ScalarI32, 8>("scalar/i32/a8"),
    kernel_entry<CpuIsa::kScalar, ScalarI32, 16>("scalar/i32/a16"),
};

}  // namespace

const CpuKernel* scalar_kernels(size_t* count) {
    *count = sizeof(kKernels) / sizeof(kKernels[0]);
    return kKernels;
}

}  // namespace chromalign::kernels::cpu
