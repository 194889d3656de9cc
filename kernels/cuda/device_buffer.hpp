//! @file DeviceBuffer and PinnedBuffer: memory that grows as needed and is freed with its owner.
//!
//! A pair's two strands are searched at once on one device, each computing tiles in short
//! waves on a stream of its own. cudaFree and cudaFreeHost wait for the whole device, so a
//! wave's buffer that grew the plain way would wait for the other strand's work too. A buffer
//! given a stream therefore takes device memory in that stream's order (cudaMallocAsync and
//! cudaFreeAsync wait for nothing else), and pinned memory grows at least twofold, so that it
//! is freed a few times in a search rather than at every larger wave.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <utility>

#include "kernels/cuda/cuda_check.hpp"

namespace chromalign::kernels {

/// Device memory (kPinned false) or pinned host memory (true).
template <class T, bool kPinned>
class GrowingBuffer {
public:
    /// `stream`: where device memory is taken and given back in order (null: cudaMalloc and
    /// cudaFree). It must outlive the buffer.
    explicit GrowingBuffer(cudaStream_t stream = nullptr) : stream_(stream) {}
    GrowingBuffer(const GrowingBuffer&) = delete;
    GrowingBuffer& operator=(const GrowingBuffer&) = delete;
    ~GrowingBuffer() { release(); }
    /// At least `count` elements (their values undefined after a growth).
    T* reserve(size_t count) {
        if (count > capacity_) {
            const size_t take = kPinned ? std::max(count, 2 * capacity_) : count;
            CUDA_CHECK(release());
            void* p = nullptr;
            if (kPinned)
                CUDA_CHECK(cudaMallocHost(&p, take * sizeof(T)));
            else if (stream_)
                CUDA_CHECK(cudaMallocAsync(&p, take * sizeof(T), stream_));
            else
                CUDA_CHECK(cudaMalloc(&p, take * sizeof(T)));
            data_ = static_cast<T*>(p);
            capacity_ = take;
        }
        return data_;
    }
    T* get() const { return data_; }
    /// Trades memory (and the stream it is ordered on) with `other`: what a pass made
    /// outlives the pass.
    void swap(GrowingBuffer& other) {
        std::swap(data_, other.data_);
        std::swap(capacity_, other.capacity_);
        std::swap(stream_, other.stream_);
    }

private:
    /// Frees the memory held; the destructor cannot report what this returns.
    cudaError_t release() {
        if (!data_) return cudaSuccess;
        const cudaError_t freed = kPinned  ? cudaFreeHost(data_)
                                  : stream_ ? cudaFreeAsync(data_, stream_)
                                            : cudaFree(data_);
        data_ = nullptr;
        capacity_ = 0;
        return freed;
    }

    T* data_ = nullptr;
    size_t capacity_ = 0;
    cudaStream_t stream_ = nullptr;
};

template <class T>
using DeviceBuffer = GrowingBuffer<T, false>;
/// Copies from and to it run at the bus's speed, and asynchronously.
template <class T>
using PinnedBuffer = GrowingBuffer<T, true>;

}  // namespace chromalign::kernels
