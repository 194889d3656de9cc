//! @file CHROMALIGN_HOST_DEVICE: a function the host code and the CUDA kernels share.
#pragma once

#if defined(__CUDACC__)
#define CHROMALIGN_HOST_DEVICE __host__ __device__
#else
#define CHROMALIGN_HOST_DEVICE
#endif
