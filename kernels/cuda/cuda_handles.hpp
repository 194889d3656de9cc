//! @file A non-blocking stream and an ordering event, each destroyed with its owner.
#pragma once

#include <cuda_runtime.h>

#include "kernels/cuda/cuda_check.hpp"

namespace chromalign::kernels {

/// A stream of its own on `device` that waits for no other (a K best search's strand, whose
/// waves run beside the other strand's; a band stream's kernel and the copies beside it).
struct OwnStream {
    cudaStream_t stream = nullptr;

    explicit OwnStream(int device) {
        CUDA_CHECK(cudaSetDevice(device));
        CUDA_CHECK(cudaFree(nullptr));  // the context now: a device that cannot be used says so here
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    }
    ~OwnStream() { cudaStreamDestroy(stream); }
    OwnStream(const OwnStream&) = delete;
    OwnStream& operator=(const OwnStream&) = delete;
};

/// An event that only orders (no timing), destroyed with its owner.
struct Event {
    cudaEvent_t event = nullptr;

    Event() { CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming)); }
    ~Event() { cudaEventDestroy(event); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
};

}  // namespace chromalign::kernels
