//! @file The kernel tables each per-ISA translation unit exports, for the dispatcher (cpu_kernels.cpp).
#pragma once

#include <cstddef>

#include "kernels/cpu/tile_kernel.hpp"

namespace chromalign::kernels::cpu {

/// Each returns its table of compiled kernels and stores its length in *count.
const CpuKernel* scalar_kernels(size_t* count);
#ifdef CHROMALIGN_CPU_X86
const CpuKernel* sse41_kernels(size_t* count);
const CpuKernel* avx_kernels(size_t* count);
const CpuKernel* avx2_kernels(size_t* count);
const CpuKernel* avx512_kernels(size_t* count);
#endif

}  // namespace chromalign::kernels::cpu
