//! @file CUDA_CHECK: turns a failed CUDA runtime call into an Error naming call, file and line.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "engine/error.hpp"

namespace chromalign::kernels {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* expr, const char* file,
                                          int line) {
    throw Error(std::string("CUDA error: ") + cudaGetErrorString(status) + " (" + expr + " at " +
                file + ":" + std::to_string(line) + ")");
}

}  // namespace chromalign::kernels

#define CUDA_CHECK(expr)                                                                      \
    do {                                                                                      \
        const cudaError_t chromalign_status_ = (expr);                                        \
        if (chromalign_status_ != cudaSuccess)                                                \
            ::chromalign::kernels::throw_cuda_error(chromalign_status_, #expr, __FILE__, __LINE__); \
    } while (0)
