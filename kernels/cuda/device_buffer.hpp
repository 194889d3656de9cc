//! @file DeviceBuffer: device memory that grows as needed and is freed with its owner.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "kernels/cuda/cuda_check.hpp"

namespace chromalign::kernels {

template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer() { cudaFree(data_); }
    /// At least `count` elements (their values undefined after a growth).
    T* reserve(size_t count) {
        if (count > capacity_) {
            CUDA_CHECK(cudaFree(data_));
            data_ = nullptr;
            capacity_ = 0;
            CUDA_CHECK(cudaMalloc(&data_, count * sizeof(T)));
            capacity_ = count;
        }
        return data_;
    }
    T* get() const { return data_; }
    /// Trades memory with `other`: what a pass made outlives the pass.
    void swap(DeviceBuffer& other) {
        std::swap(data_, other.data_);
        std::swap(capacity_, other.capacity_);
    }

private:
    T* data_ = nullptr;
    size_t capacity_ = 0;
};

/// Pinned host memory that grows as needed: copies from and to it run at the bus's speed, and
/// asynchronously.
template <class T>
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    ~PinnedBuffer() { cudaFreeHost(data_); }
    /// At least `count` elements (their values undefined after a growth).
    T* reserve(size_t count) {
        if (count > capacity_) {
            CUDA_CHECK(cudaFreeHost(data_));
            data_ = nullptr;
            capacity_ = 0;
            CUDA_CHECK(cudaMallocHost(&data_, count * sizeof(T)));
            capacity_ = count;
        }
        return data_;
    }

private:
    T* data_ = nullptr;
    size_t capacity_ = 0;
};

}  // namespace chromalign::kernels
