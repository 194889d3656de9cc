//! @file The portable tile kernels: one int32 lane, any CPU (the fallback of the dispatcher).
#include "kernels/cpu/kernel_tables.hpp"
#include "kernels/cpu/simd_scalar.hpp"
#include "kernels/cpu/tile_kernel_impl.hpp"

namespace chromalign::kernels::cpu {
namespace {

template <int A>
constexpr CpuKernel entry(const char* name) {
    return {name, CpuIsa::kScalar, 32, 1, A, &TileKernel<ScalarI32, A>::run,
            &TileKernel<ScalarI32, A>::scratch_bytes, &ScalarI32::s1_element};
}

constexpr CpuKernel kKernels[] = {
    entry<4>("scalar/i32/a4"),
    entry<8>("scalar/i32/a8"),
    entry<16>("scalar/i32/a16"),
};

}  // namespace

const CpuKernel* scalar_kernels(size_t* count) {
    *count = sizeof(kKernels) / sizeof(kKernels[0]);
    return kKernels;
}

}  // namespace chromalign::kernels::cpu
