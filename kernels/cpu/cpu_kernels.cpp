//! @file Run-time dispatch of the CPU tile kernels: the CPU's features and $CHROMALIGN_CPU_ISA.
#include <cstdlib>
#include <string>

#include "engine/error.hpp"
#include "kernels/cpu/kernel_tables.hpp"
#include "kernels/cpu/tile_kernel.hpp"

namespace chromalign::kernels::cpu {
namespace {

bool cpu_runs(CpuIsa isa) {
    switch (isa) {
    case CpuIsa::kScalar: return true;
#ifdef CHROMALIGN_CPU_X86
    // GCC's feature test includes the OS check (XGETBV) for the AVX register state.
    case CpuIsa::kSse41: return __builtin_cpu_supports("sse4.1");
    case CpuIsa::kAvx: return __builtin_cpu_supports("avx") && __builtin_cpu_supports("sse4.1");
    case CpuIsa::kAvx2: return __builtin_cpu_supports("avx2");
    case CpuIsa::kAvx512: return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
#else
    default: return false;
#endif
    }
    return false;
}

const CpuKernel* table(CpuIsa isa, size_t* count) {
    switch (isa) {
    case CpuIsa::kScalar: return scalar_kernels(count);
#ifdef CHROMALIGN_CPU_X86
    case CpuIsa::kSse41: return sse41_kernels(count);
    case CpuIsa::kAvx: return avx_kernels(count);
    case CpuIsa::kAvx2: return avx2_kernels(count);
    case CpuIsa::kAvx512: return avx512_kernels(count);
#else
    default: break;
#endif
    }
    *count = 0;
    return nullptr;
}

}  // namespace

std::string cpu_isa_name(CpuIsa isa) {
    switch (isa) {
    case CpuIsa::kScalar: return "scalar";
    case CpuIsa::kSse41: return "sse41";
    case CpuIsa::kAvx: return "avx";
    case CpuIsa::kAvx2: return "avx2";
    case CpuIsa::kAvx512: return "avx512";
    }
    return "unknown";
}

const CpuKernel* find_cpu_kernel(CpuIsa isa, int lane_bits, int alpha) {
    size_t count = 0;
    const CpuKernel* kernels = table(isa, &count);
    for (size_t i = 0; i < count; ++i)
        if (kernels[i].lane_bits == lane_bits && kernels[i].alpha == alpha) return &kernels[i];
    return nullptr;
}

CpuIsa select_cpu_isa() {
    const CpuIsa all[] = {CpuIsa::kAvx512, CpuIsa::kAvx2, CpuIsa::kAvx, CpuIsa::kSse41, CpuIsa::kScalar};
    const char* env = std::getenv("CHROMALIGN_CPU_ISA");
    if (env && *env) {
        for (const CpuIsa isa : all) {
            if (cpu_isa_name(isa) != env) continue;
            size_t count = 0;
            if (!table(isa, &count) || count == 0)
                throw Error(std::string("CHROMALIGN_CPU_ISA=") + env + ": this build has no such kernels");
            if (!cpu_runs(isa)) throw Error(std::string("CHROMALIGN_CPU_ISA=") + env + ": this CPU lacks it");
            return isa;
        }
        throw Error(std::string("CHROMALIGN_CPU_ISA=") + env + " is not one of avx512, avx2, avx, sse41, scalar");
    }
    for (const CpuIsa isa : all) {
        size_t count = 0;
        if (table(isa, &count) && count > 0 && cpu_runs(isa)) return isa;
    }
    return CpuIsa::kScalar;
}

}  // namespace chromalign::kernels::cpu
